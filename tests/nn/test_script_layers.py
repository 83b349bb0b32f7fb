"""tsjit.script(layer) runs like the eager layer.

Layers whose forward is written the natural TorchScript way (as torch.nn writes it) but
that the compiler cannot handle yet are xfail(strict) with the missing feature and the
error; each such entry is a compiler to-do, not a layer bug. PyTorch 2.13 scripts every
xfailed configuration (checked by test_torch_scripts_these_configurations).
"""
import copy

import numpy as np
import pytest

import tsjit
import tsjit.nn as jnn
from tests.helpers.nn_cases import ALL
from tests.helpers.nn_util import assert_close, needs_torch, tnn, to_numpy, to_tsjit, torch

# --- compiler gaps: feature, example source line, error; then the cases they block --------
# (none open: add an entry here, with the error, when a layer meets a compiler gap)
GAPS: dict = {}
XFAIL = {case_id: reason for reason, ids in GAPS.items() for case_id in ids}

# eager-only configurations (PyTorch cannot script them either)
EAGER_ONLY = {"AdaptiveAvgPool2d-None"}

SCRIPT_CASES = [c for c in ALL if c.id not in EAGER_ONLY]


def _param(case):
    reason = XFAIL.get(case.id)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(case, id=case.id, marks=marks)


def _run(module, case, seed):
    args = case.inputs(np.random.default_rng(seed))
    kwargs = {k: to_tsjit(v) for k, v in case.kwargs.items()}
    return to_numpy(module(*to_tsjit(args), **kwargs))


@pytest.mark.parametrize("case", [_param(c) for c in SCRIPT_CASES])
def test_script_matches_eager(case):
    tsjit.manual_seed(0)
    eager = case.build(jnn).eval()
    scripted = tsjit.script(copy.deepcopy(eager))
    for seed in (1, 2):
        assert_close(_run(scripted, case, seed), _run(eager, case, seed), 1e-5, 1e-6)


@pytest.mark.parametrize("case", [_param(c) for c in SCRIPT_CASES if c.train])
def test_script_matches_eager_in_training(case):
    """Training mode, twice, on separate copies: buffers (running stats) must agree too."""
    tsjit.manual_seed(0)
    eager = case.build(jnn).train()
    scripted = tsjit.script(copy.deepcopy(eager))
    for seed in (1, 2):
        assert_close(_run(scripted, case, seed), _run(eager, case, seed), 1e-5, 1e-6)
    for (name, a), (_, b) in zip(scripted.named_buffers(), eager.named_buffers()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7, err_msg=name)


def test_scripted_module_shares_parameters():
    """Loading a state into the eager layer after scripting is seen by the scripted one."""
    layer = jnn.Linear(3, 2)
    scripted = tsjit.script(layer)
    layer.load_state_dict({"weight": tsjit.ones(2, 3), "bias": tsjit.zeros(2)})
    np.testing.assert_allclose(scripted(tsjit.ones(1, 3)).numpy(), [[3.0, 3.0]])


if XFAIL:     # only while there are gaps (an empty parameter set would show as a skip)
    @needs_torch
    @pytest.mark.parametrize("case", [c for c in SCRIPT_CASES if c.id in XFAIL], ids=lambda c: c.id)
    def test_torch_scripts_these_configurations(case):
        """The xfails above are compiler gaps: PyTorch scripts the same torch.nn layers."""
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.jit.script(case.build(tnn))
