"""Elementwise arithmetic kernels (tensor_arith) against PyTorch on generated inputs."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

from tests.helpers import tensor_oracle as O

pytestmark = O.requires_torch
SET = O.SETTINGS

BINARY = ["add.Tensor", "sub.Tensor", "mul.Tensor", "div.Tensor", "remainder.Tensor",
          "fmod.Tensor", "pow.Tensor_Tensor", "floor_divide", "atan2", "hypot",
          "copysign.Tensor", "maximum", "minimum", "fmax", "fmin", "max.other", "min.other",
          "xlogy.Tensor", "gcd", "lcm", "true_divide.Tensor", "arctan2"]
SCALAR = ["add.Scalar", "sub.Scalar", "mul.Scalar", "div.Scalar", "remainder.Scalar",
          "fmod.Scalar", "pow.Tensor_Scalar", "floor_divide.Scalar", "copysign.Scalar",
          "xlogy.Scalar_Other", "true_divide.Scalar"]
UNARY = ["neg", "negative", "abs", "absolute", "sign", "sgn", "square", "reciprocal"]


def _extra(name: str) -> tuple:
    return (1,) if name.split(".")[0] in ("add", "sub") else ()


@pytest.mark.parametrize("name", BINARY)
@SET
@given(pair=O.broadcast_pair())
def test_binary_tensor_tensor(name: str, pair: tuple) -> None:
    a, b = pair
    O.no_int_min_div(a, b)
    O.diff(f"aten::{name}", a, b, *_extra(name))


@pytest.mark.parametrize("name", SCALAR)
@SET
@given(a=O.arrays(), s=O.scalars())
def test_binary_tensor_scalar(name: str, a: np.ndarray, s: object) -> None:
    O.no_int_min_div(a, np.asarray(s))
    O.diff(f"aten::{name}", a, s, *_extra(name))


@pytest.mark.parametrize("name", ["pow.Scalar", "remainder.Scalar_Tensor", "xlogy.Scalar_Self"])
@SET
@given(a=O.arrays(), s=O.scalars())
def test_binary_scalar_tensor(name: str, a: np.ndarray, s: object) -> None:
    O.diff(f"aten::{name}", s, a)


@pytest.mark.parametrize("name", ["add", "sub", "rsub"])
@SET
@given(pair=O.broadcast_pair(), alpha=O.scalars("bif"))
def test_alpha(name: str, pair: tuple, alpha: object) -> None:
    a, b = pair
    O.diff(f"aten::{name}.Tensor", a, b, alpha)
    O.diff(f"aten::{name}.Scalar", a, 3, alpha)


@pytest.mark.parametrize("mode", [None, "trunc", "floor"])
@SET
@given(pair=O.broadcast_pair(), s=O.scalars())
def test_div_rounding_modes(mode: object, pair: tuple, s: object) -> None:
    a, b = pair
    O.no_int_min_div(a, b)
    O.no_int_min_div(a, np.asarray(s))
    O.diff("aten::div.Tensor_mode", a, b, mode)
    O.diff("aten::div.Scalar_mode", a, s, mode)


@SET
@given(pair=O.broadcast_pair([np.int64], big=True))
def test_int64_wraps(pair: tuple) -> None:
    a, b = pair
    for name in ("add.Tensor", "sub.Tensor"):
        O.diff(f"aten::{name}", a, b, 1)
    O.diff("aten::mul.Tensor", a, b)


@pytest.mark.parametrize("name", UNARY)
@SET
@given(a=O.arrays(big=True))
def test_unary(name: str, a: np.ndarray) -> None:
    O.diff(f"aten::{name}", a)


@SET
@given(pair=O.broadcast_pair(O.FLOATS), w=st.floats(-2, 2))
def test_lerp(pair: tuple, w: float) -> None:
    a, b = pair
    O.diff("aten::lerp.Scalar", a, b, w)
    O.diff("aten::lerp.Tensor", a, b, np.asarray(w, a.dtype))
    if np.broadcast_shapes(a.shape, b.shape) == a.shape:   # in place: self's shape stays
        O.diff("aten::lerp_.Scalar", a, b, w)
        O.diff("aten::lerp_.Tensor", a, b, np.asarray(w, a.dtype))


INPLACE = ["add_.Tensor", "sub_.Tensor", "mul_.Tensor", "div_.Tensor", "remainder_.Tensor",
           "fmod_.Tensor", "pow_.Tensor", "floor_divide_.Tensor", "atan2_"]


@st.composite
def inplace_pair(draw: st.DrawFn) -> tuple:
    # other broadcasts to self's shape (or not, to exercise the error)
    a = draw(O.arrays(min_dims=0))
    if draw(st.booleans()) and a.ndim:
        bshape = a.shape[draw(st.integers(0, a.ndim)):]
    else:
        bshape = draw(O.shapes(max_dims=2))
    b = draw(O.arrays(shape=bshape))
    return a, b


@pytest.mark.parametrize("name", INPLACE)
@SET
@given(pair=inplace_pair())
def test_inplace(name: str, pair: tuple) -> None:
    a, b = pair
    O.no_int_min_div(a, b)
    mine, theirs = O.run_both(f"aten::{name}", a, b, *_extra(name))
    O.compare(mine, theirs)


@pytest.mark.parametrize("name", ["neg_", "abs_", "sign_", "square_", "reciprocal_"])
@SET
@given(a=O.arrays())
def test_inplace_unary(name: str, a: np.ndarray) -> None:
    O.diff(f"aten::{name}", a)


def test_inplace_mutates_and_returns_self() -> None:
    from tsjit._tensor import tensor
    x = tensor([1.0, 2.0])
    k = O.kernel("aten::add_.Tensor")
    r = k(x, tensor([1.0, 1.0]), 2)
    assert r is x and x.tolist() == [3.0, 4.0]


def test_inplace_promotion_errors_match() -> None:
    from tsjit._tensor import tensor
    x = tensor([1, 2])
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired "
                                           "output type Long"):
        x += 1.5
    with pytest.raises(RuntimeError, match="result type Float can't be cast"):
        x /= 2
    assert x.tolist() == [1, 2]


def test_integer_division_by_zero_raises() -> None:
    from tsjit._tensor import tensor
    for fn in (lambda: tensor([5]) // 0, lambda: tensor([5]) % 0,
               lambda: O.kernel("aten::fmod.Scalar")(tensor([5]), 0)):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            fn()
    assert (tensor([5]) / 0).tolist() == [float("inf")]


def test_python_division_semantics() -> None:
    from tsjit._tensor import tensor
    a = tensor([-7, 7, -7, 7])
    b = tensor([2, -2, -2, 2])
    assert (a // b).tolist() == [-4, -4, 3, 3]
    assert (a % b).tolist() == [1, -1, -1, 1]
    assert O.kernel("aten::fmod.Tensor")(a, b).tolist() == [-1, 1, -1, 1]
    assert O.kernel("aten::div.Tensor_mode")(a, b, "trunc").tolist() == [-3, -3, 3, 3]


def test_bool_subtraction_and_negation_errors() -> None:
    from tsjit._tensor import tensor
    b = tensor([True, False])
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with two bool"):
        b - b
    with pytest.raises(RuntimeError, match="Negation, the `-` operator, on a bool tensor"):
        -b
