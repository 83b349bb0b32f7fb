"""Eager tsjit.nn layers against torch.nn: same state, same inputs, same outputs."""
import numpy as np
import pytest

from tests.helpers.nn_cases import ALL
from tests.helpers.nn_util import assert_close, build_pair, needs_torch, run_both, to_numpy

pytestmark = needs_torch


@pytest.mark.parametrize("case", ALL, ids=lambda c: c.id)
def test_eval_matches_torch(case):
    t, j = build_pair(case)
    t.eval()
    j.eval()
    got, want = run_both(case, t, j)
    assert_close(got, want, case.rtol, case.atol)


@pytest.mark.parametrize("case", [c for c in ALL if c.train], ids=lambda c: c.id)
def test_train_matches_torch(case):
    """Training mode, twice in a row, so running statistics updates are compared too."""
    t, j = build_pair(case)
    t.train()
    j.train()
    for seed in (1, 2):
        got, want = run_both(case, t, j, seed=seed)
        assert_close(got, want, case.rtol, case.atol)
    for (name, tb), (jname, jb) in zip(t.named_buffers(), j.named_buffers()):
        assert name == jname
        np.testing.assert_allclose(jb.numpy(), to_numpy(tb), rtol=1e-5, atol=1e-6, err_msg=name)
