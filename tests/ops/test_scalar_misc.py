"""Language-support kernels (range lowering, hash, optional unwrapping, warn)."""
from __future__ import annotations

import warnings

import pytest
from hypothesis import given, settings, strategies as st

from tests.helpers import scalar_oracle as T

from tsjit.ops import find  # noqa: E402

_RANGE_SRC = """def f(a: int, b: int, c: int):
    n = 0
    last = a
    for i in range(a, b, c):
        n += 1
        last = i
    return n, last
"""


def _range_via_kernels(a: int, b: int, c: int) -> tuple:
    n = find("aten::__range_length").kernel(a, b, c)
    last = find("aten::__derive_index").kernel(n - 1, a, c) if n > 0 else a
    return n, last


CASES = [
    ("aten::hash.generic", "def f(a: str): hash(a)", "t"),
    ("aten::hash.generic", "def f(a: int): hash(a)", "i"),
    ("aten::hash.generic", "def f(a: float): hash(a)", "f"),
    ("aten::hash.generic", "def f(a: bool): hash(a)", "b"),
    ("aten::hash.generic", "def f(a: int, b: str, c: float): hash((a, (b, c)))", "itf"),
]


@T.requires_torch
@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}:{i}" for i, c in enumerate(CASES)])
def test_matches_torchscript(case):  # type: ignore[no-untyped-def]
    qualified, src, kinds = case
    adapt = (lambda a, b, c: ((a, (b, c)),)) if len(kinds) == 3 else None
    T.sweep(qualified, src, kinds, adapt=adapt)


@T.requires_torch
@settings(max_examples=60, deadline=None)
@given(a=st.integers(-30, 30), b=st.integers(-30, 30),
       c=st.integers(-7, 7).filter(lambda c: c != 0))
def test_for_range_lowering_matches_torchscript(a: int, b: int, c: int) -> None:
    fn = T.ts_function(_RANGE_SRC)
    assert _range_via_kernels(a, b, c) == fn(a, b, c)


def test_range_length_edges() -> None:
    rl = find("aten::__range_length").kernel
    assert rl(0, 10, 3) == 4 and rl(10, 0, -3) == 4 and rl(5, 5, 1) == 0
    with pytest.raises(RuntimeError, match="^range\\(\\) arg 3 must not be zero$"):
        rl(0, 1, 0)
    assert find("aten::__derive_index").kernel(3, 10, -2) == 4


def test_hash_values() -> None:
    h = find("aten::hash.generic").kernel
    assert h("a") == 4993892634952068459 and h(-5) == -5 and h(-0.0) == 0
    assert h((1, 2)) == 175247769363 and h(None) == 0


def test_unwrap_and_warn() -> None:
    with pytest.raises(RuntimeError, match="^Unwrapping null optional$"):
        find("aten::_unwrap_optional").kernel(None)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        find("aten::warn").kernel("careful", 2)
    assert [(x.category, str(x.message)) for x in w] == [(UserWarning, "careful")]
    assert find("aten::is_scripting").kernel() is True
    assert find("prim::rangelist").kernel(3) == [0, 1, 2]


@T.requires_torch
@settings(max_examples=60, deadline=None)
@given(a=T.ints(), b=T.ints(), c=T.ints())
def test_range_length_int64_edges_match_torch_ops(a: int, b: int, c: int) -> None:
    # Too many iterations to run as a loop: call PyTorch's operator directly.
    ops = T.torch.ops.aten
    want = T.kernel_outcome("aten::__range_length", a, b, c)
    try:
        got = ("ok", ops.__range_length(a, b, c))
    except RuntimeError as e:
        got = ("err", "RuntimeError", str(e).splitlines()[0])
    assert want == got
    assert find("aten::__derive_index").kernel(a, b, c) == ops.__derive_index(a, b, c)


def test_environment_queries() -> None:
    for q in ("aten::_get_tracing_state", "aten::_use_cudnn_rnn_flatten_weight",
              "aten::_nnpack_available", "aten::is_vulkan_available",
              "aten::is_autocast_cpu_enabled"):
        assert find(q).kernel() is False
    assert find("aten::has_torch_function").kernel(1, 2) is False
    assert find("prim::StringIndex").kernel("abc", -1) == "c"
