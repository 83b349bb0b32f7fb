"""Kernels compute with numpy's floating-point errors ignored, as PyTorch computes inf and nan
silently: per region (a call of scripted code, an eager call of a `quiet` kernel), leaving
the caller's numpy settings as they were, also when the call raises."""
import numpy as np
import pytest

import tsjit
from tsjit._tensor.kernel_util import _FP_IGNORED, fp_ignored


def _overflowing():
    @tsjit.jit.script
    def f(x: tsjit.Tensor, y: tsjit.Tensor) -> tsjit.Tensor:
        return (x * 1e30 / y).exp() + x.pow(3)
    return f


@pytest.mark.parametrize("mode", ["interpreter", "codegen"])
def test_a_scripted_call_ignores_fp_errors_and_restores_the_callers_settings(mode):
    f = _overflowing()
    x = tsjit.tensor([1e30, 0.0, -1.0])
    y = tsjit.tensor([0.0, 0.0, 2.0])
    old = np.seterr(all="raise")
    try:
        tsjit.jit.set_executor(mode)
        for _ in range(3):      # the warm-up calls and the tier reached after them
            r = f(x, y)
        assert np.geterr() == {"divide": "raise", "over": "raise", "under": "raise", "invalid": "raise"}
        assert not _FP_IGNORED.get()
    finally:
        tsjit.jit.set_executor("auto")
        np.seterr(**old)
    assert np.isinf(r.numpy()[0]) and np.isnan(r.numpy()[1])


def test_a_failing_scripted_call_leaves_no_region_behind():
    @tsjit.jit.script
    def g(x: tsjit.Tensor) -> tsjit.Tensor:
        return x.view(-1, 5)
    before = np.geterr()
    with pytest.raises(RuntimeError):
        g(tsjit.zeros(3))
    assert np.geterr() == before and not _FP_IGNORED.get()


def test_eager_quiet_kernels_ignore_fp_errors_under_raise():
    old = np.seterr(all="raise")
    try:
        r = tsjit.div(tsjit.tensor([1.0, 0.0]), tsjit.tensor([0.0, 0.0]))
        m = tsjit.mean(tsjit.tensor([3e38, 3e38], dtype=tsjit.float32))
    finally:
        np.seterr(**old)
    assert np.isinf(r.numpy()[0]) and np.isnan(r.numpy()[1]) and np.isfinite(m.item())


def test_regions_nest_and_only_the_outermost_enters_errstate():
    before = np.geterr()
    with fp_ignored():
        assert _FP_IGNORED.get() and np.geterr()["over"] == "ignore"
        with fp_ignored():
            assert _FP_IGNORED.get()
        assert _FP_IGNORED.get() and np.geterr()["over"] == "ignore"
    assert not _FP_IGNORED.get() and np.geterr() == before


def test_in_region_unwraps_quiet_kernels_only():
    from tsjit._tensor.kernel_util import in_region, quiet

    def bare(x):
        return x
    assert in_region(quiet(bare)) is bare and in_region(quiet(quiet(bare))) is bare
    assert in_region(bare) is bare


@pytest.mark.parametrize("mode", ["interpreter", "codegen"])
def test_scripted_code_runs_bare_quiet_kernels_in_its_region(mode):
    # layer_norm is a `quiet` kernel: scripted code binds its bare function, which must still
    # run without numpy raising (the call's region covers it)
    @tsjit.jit.script
    def f(x: tsjit.Tensor) -> tsjit.Tensor:
        return tsjit.nn.functional.layer_norm(x * 1e30, [2]).softmax(-1)
    old = np.seterr(all="raise")
    try:
        tsjit.jit.set_executor(mode)
        for _ in range(3):
            r = f(tsjit.tensor([[1e30, 0.0], [1.0, 2.0]]))
    finally:
        tsjit.jit.set_executor("auto")
        np.seterr(**old)
    assert np.isnan(r.numpy()[0]).all() and np.isfinite(r.numpy()[1]).all()


def test_eager_fast_paths_that_may_overflow_do_not_raise():
    # a number cast to float32 overflows (the direct arithmetic path is scripted code's
    # only), GELU of inf computes 0 * inf: eager calls stay quiet under np.seterr("raise")
    x = tsjit.tensor([1.0, np.inf, -2.0], dtype=tsjit.float32)
    old = np.seterr(all="raise")
    try:
        m = tsjit.mul(x, 1e300)
        a = tsjit.add(x, tsjit.tensor(1e300, dtype=tsjit.float64))
        g = tsjit.nn.functional.gelu(x)
        w = tsjit.where(x > 0, x, 1e300)
    finally:
        np.seterr(**old)
    assert np.isinf(m.numpy()[0]) and np.isinf(a.numpy()[0]) and np.isnan(g.numpy()[1])
    assert np.isinf(w.numpy()[2])
