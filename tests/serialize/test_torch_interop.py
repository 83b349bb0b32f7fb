"""PyTorch (the reference implementation) loads and runs archives tsjit writes."""

import numpy as np
import pytest

import tsjit
from tests.helpers.corpus import SETSTATE_CASES, ExpectedError, case_names, case_path, known_failing, load_calls, mismatch

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")

from tests.helpers.models import Net

pytestmark = pytest.mark.slow

RESAVE_FAILING = set(known_failing("archives").get("resave", {}))


def _to_torch(v):
    if isinstance(v, np.ndarray):
        return torch.from_numpy(v.copy())
    if isinstance(v, list):
        return [_to_torch(x) for x in v]
    if isinstance(v, tuple):
        return tuple(_to_torch(x) for x in v)
    if isinstance(v, dict):
        return {_to_torch(k): _to_torch(x) for k, x in v.items()}
    return v


class _TorchResult:
    """Wraps torch results so corpus.mismatch can read tensors via .numpy()."""

    def __init__(self, t):
        self.t = t

    def numpy(self):
        return self.t.detach().numpy()


def _wrap(v):
    if isinstance(v, torch.Tensor):
        return _TorchResult(v)
    if isinstance(v, list):
        return [_wrap(x) for x in v]
    if isinstance(v, tuple):
        return tuple(_wrap(x) for x in v)
    if isinstance(v, dict):
        return {k: _wrap(x) for k, x in v.items()}
    return v


def test_torch_loads_scripted_module(tmp_path):
    m = tsjit.script(Net())
    path = str(tmp_path / "net.pt")
    tsjit.save(m, path)
    tm = torch.jit.load(path)
    x = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    for n in (0, 3, 4):
        np.testing.assert_allclose(tm(torch.from_numpy(x), n).detach().numpy(),
                                   m(x, n).numpy(), rtol=1e-5, atol=1e-6)
    assert tm.code == m.code


@pytest.mark.parametrize("case", [c for c in case_names()
                                  if c not in RESAVE_FAILING and c not in SETSTATE_CASES])
def test_torch_runs_resaved_corpus_archive(case, tmp_path):
    path = str(tmp_path / "model.pt")
    tsjit.save(tsjit.load(case_path(case)), path)
    tm = torch.jit.load(path)
    failures = []
    with torch.no_grad():
        for i, call in enumerate(load_calls(case)):
            try:
                result = getattr(tm, call.method)(*[_to_torch(a) for a in call.args])
            except Exception as err:  # noqa: BLE001
                if not isinstance(call.expected, ExpectedError):
                    failures.append(f"call {i}: {err}")
                continue
            if isinstance(call.expected, ExpectedError):
                failures.append(f"call {i}: expected an error")
                continue
            m = mismatch(_wrap(result), call.expected)
            if m:
                failures.append(f"call {i}: {m}")
    assert not failures, "\n".join(failures)
