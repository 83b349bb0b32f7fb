"""Comparison, logical, bitwise, where, clamp and classification kernels against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

from tests.helpers import tensor_oracle as O

pytestmark = O.requires_torch
SET = O.SETTINGS

CMP = ["eq", "ne", "lt", "le", "gt", "ge", "greater", "less", "not_equal", "less_equal",
       "greater_equal"]
BITS = ["bitwise_and", "bitwise_or", "bitwise_xor", "__and__", "__or__", "__xor__"]
SHIFTS = ["__lshift__", "__rshift__"]


@pytest.mark.parametrize("name", CMP + BITS + SHIFTS)
@SET
@given(pair=O.broadcast_pair(big=True), s=O.scalars(big=False))
def test_binary(name: str, pair: tuple, s: object) -> None:
    a, b = pair
    O.diff(f"aten::{name}.Tensor", a, b)
    O.diff(f"aten::{name}.Scalar", a, s)


@pytest.mark.parametrize("name", ["bitwise_left_shift", "bitwise_right_shift"])
@SET
@given(pair=O.broadcast_pair(O.INTS), s=st.integers(-3, 70))
def test_shifts(name: str, pair: tuple, s: int) -> None:
    a, b = pair
    O.diff(f"aten::{name}.Tensor", a, b)
    O.diff(f"aten::{name}.Tensor_Scalar", a, s)
    O.diff(f"aten::{name}.Scalar_Tensor", s, a)


@pytest.mark.parametrize("name", ["bitwise_and", "bitwise_or", "bitwise_xor"])
@SET
@given(a=O.arrays(), s=O.scalars("bi"))
def test_bitwise_scalar_tensor(name: str, a: np.ndarray, s: object) -> None:
    O.diff(f"aten::{name}.Scalar_Tensor", s, a)


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
@SET
@given(pair=O.broadcast_pair())
def test_logical(name: str, pair: tuple) -> None:
    O.diff(f"aten::{name}", *pair)


@pytest.mark.parametrize("name", ["logical_not", "bitwise_not", "isnan", "isinf", "isfinite",
                                  "isposinf", "isneginf", "signbit", "isreal"])
@SET
@given(a=O.arrays(big=True))
def test_unary(name: str, a: np.ndarray) -> None:
    O.diff(f"aten::{name}", a)


@pytest.mark.parametrize("name", ["eq_", "lt_", "ge_", "logical_and_", "bitwise_or_",
                                  "__iand__", "__ilshift__"])
@SET
@given(a=O.arrays(), b=O.arrays(shape=()))
def test_inplace(name: str, a: np.ndarray, b: np.ndarray) -> None:
    q = f"aten::{name}" if name == "logical_and_" else f"aten::{name}.Tensor"
    O.diff(q, a, b)


@st.composite
def where_args(draw: st.DrawFn) -> tuple:
    s = draw(hnp.mutually_broadcastable_shapes(
        num_shapes=3, max_dims=3, max_side=3))
    c = draw(O.arrays([np.bool_], s.input_shapes[0]))
    x = draw(O.arrays(shape=s.input_shapes[1]))
    y = draw(O.arrays(shape=s.input_shapes[2]))
    return c, x, y


@SET
@given(args=where_args(), s1=O.scalars(), s2=O.scalars())
def test_where(args: tuple, s1: object, s2: object) -> None:
    c, x, y = args
    O.diff("aten::where.self", c, x, y)
    O.diff("aten::where.ScalarOther", c, x, s2)
    O.diff("aten::where.ScalarSelf", c, s1, y)
    O.diff("aten::where.Scalar", c, s1, s2)
    O.diff("aten::where", c)


@SET
@given(a=O.arrays(O.REAL), lo=st.one_of(st.none(), O.scalars("if")),
       hi=st.one_of(st.none(), O.scalars("if")))
def test_clamp_scalar(a: np.ndarray, lo: object, hi: object) -> None:
    O.diff("aten::clamp", a, lo, hi)
    O.diff("aten::clip", a, lo, hi)
    if lo is not None:
        O.diff("aten::clamp_min", a, lo)
    if hi is not None:
        O.diff("aten::clamp_max", a, hi)
    O.diff("aten::clamp_", a, lo, hi)


@SET
@given(pair=O.broadcast_pair(O.REAL), use_lo=st.booleans(), use_hi=st.booleans())
def test_clamp_tensor(pair: tuple, use_lo: bool, use_hi: bool) -> None:
    a, b = pair
    O.diff("aten::clamp.Tensor", a, b if use_lo else None, np.asarray(b + 1) if use_hi else None)
    O.diff("aten::clamp_min.Tensor", a, b)


@SET
@given(pair=O.broadcast_pair(O.FLOATS), equal_nan=st.booleans())
def test_isclose(pair: tuple, equal_nan: bool) -> None:
    a, b = pair
    b = b.astype(a.dtype)
    O.diff("aten::isclose", a, b, 1e-05, 1e-08, equal_nan)
    if a.shape == b.shape:
        O.diff("aten::allclose", a, b, 1e-05, 1e-08, equal_nan)


@SET
@given(pair=O.broadcast_pair())
def test_equal(pair: tuple) -> None:
    a, b = pair
    O.diff("aten::equal", a, b)
    O.diff("aten::equal", a, a.copy())


def test_uint8_compares_wrap_scalars() -> None:
    # the Python int is converted to the tensor's dtype first: -1 becomes 255
    O.diff("aten::eq.Scalar", np.array([255, 1], np.uint8), -1)


def test_where_rejects_non_bool_condition() -> None:
    with pytest.raises(RuntimeError, match="where expected condition to be a boolean tensor"):
        O.kernel("aten::where.self")(O.t([1, 0]), O.t([1]), O.t([2]))
