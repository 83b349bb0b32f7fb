"""torch.special's operators (tensor_special) and the rest of torch.linalg's
(tensor_linalg_extra) against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

from tests.helpers import tensor_oracle as O

pytestmark = O.requires_torch
SET = O.SETTINGS
TOL = dict(rtol=2e-5, atol=1e-6)

UNARY = ["special_expit", "special_exp2", "special_expm1", "special_log1p", "special_erf",
         "special_erfc", "special_entr", "special_ndtr", "special_sinc", "sinc", "special_i0",
         "i0", "special_gammaln", "lgamma"]
# float32 results computed in float64 and rounded may differ from PyTorch's float32
# arithmetic by an ulp or two; large arguments to lgamma/i0 amplify that.
LOOSE = {"special_gammaln": dict(rtol=1e-4, atol=1e-5), "lgamma": dict(rtol=1e-4, atol=1e-5),
         "special_i0": dict(rtol=1e-4, atol=1e-6), "i0": dict(rtol=1e-4, atol=1e-6),
         "special_sinc": dict(rtol=1e-4, atol=1e-5), "sinc": dict(rtol=1e-4, atol=1e-5)}


@pytest.mark.parametrize("name", UNARY)
@SET
@given(a=O.arrays(O.REAL + [np.bool_]), big=O.arrays(O.FLOATS, big=True))
def test_unary(name: str, a: np.ndarray, big: np.ndarray) -> None:
    O.diff(f"aten::{name}", a, **LOOSE.get(name, TOL))
    if name not in ("special_i0", "i0", "special_sinc", "sinc"):
        # i0 overflows differently near float32's range; sinc loses precision for huge x
        O.diff(f"aten::{name}", big, **LOOSE.get(name, TOL))


@pytest.mark.parametrize("name", ["special_xlogy", "special_xlog1py"])
@SET
@given(pair=O.broadcast_pair(O.REAL), s=O.scalars("if"))
def test_binary(name: str, pair: tuple, s: object) -> None:
    a, b = pair
    O.diff(f"aten::{name}", a, b, **TOL)
    O.diff(f"aten::{name}.other_scalar", a, s, **TOL)
    O.diff(f"aten::{name}.self_scalar", s, b, **TOL)


@SET
@given(a=O.arrays(O.FLOATS, min_dims=1), eps=st.one_of(st.none(), st.floats(0, 0.4)),
       dec=st.integers(-2, 3), keep=st.booleans())
def test_aliases_with_arguments(a: np.ndarray, eps: object, dec: int, keep: bool) -> None:
    O.diff("aten::special_logit", a, eps, **TOL)
    O.diff("aten::special_round", a, dec)
    O.diff("aten::special_softmax", a, -1, None, **TOL)
    O.diff("aten::special_log_softmax", a, 0, None, **TOL)
    O.diff("aten::special_logsumexp", a, [0], keep, **TOL)


@st.composite
def square(draw: st.DrawFn, batch: bool = True) -> np.ndarray:
    n = draw(st.integers(1, 4))
    b = draw(st.sampled_from([(), (2,)])) if batch else ()
    dt = draw(st.sampled_from(O.FLOATS))
    return draw(O.arrays([dt], shape=b + (n, n), special=False))


@SET
@given(m=square())
def test_linalg_decompositions(m: np.ndarray) -> None:
    O.diff("aten::linalg_svdvals", m, None, rtol=1e-3, atol=1e-3)
    sym = (m + np.swapaxes(m, -1, -2)) / 2
    O.diff("aten::linalg_eigvalsh", sym, "L", rtol=1e-3, atol=1e-3)
    O.diff("aten::linalg_eigvalsh", sym, "U", rtol=1e-3, atol=1e-3)


def test_linalg_eigvals_sorted() -> None:
    # eigenvalue order is the LAPACK routine's; compare them as a set
    m = np.array([[2.0, 1.0, 0.0], [0.5, 3.0, 1.0], [0.0, 1.0, 4.0]])
    mine, theirs = O.run_both("aten::linalg_eigvals", m)
    assert str(mine.dtype) == str(theirs.dtype).replace("torch.", "torch.")
    np.testing.assert_allclose(np.sort_complex(mine.numpy()), np.sort_complex(theirs.numpy()),
                               rtol=1e-9)
    O.diff("aten::linalg_eigvals", np.array([[1.0]], np.float32))
    O.diff("aten::linalg_eigvals", np.array([[1, 2], [3, 4]]))   # integers are an error


@SET
@given(pair=O.broadcast_pair(O.REAL), dim=st.integers(-1, 0), data=st.data())
def test_linalg_vecdot_matmul(pair: tuple, dim: int, data: st.DataObject) -> None:
    a, b = pair
    O.diff("aten::linalg_vecdot", a, b.astype(a.dtype), dim, rtol=1e-4, atol=1e-4)
    O.diff("aten::linalg_vecdot", a, b, dim)      # mixed dtypes are an error
    k = data.draw(st.integers(0, 3))
    x = data.draw(O.arrays([np.float32], shape=(2, k), special=False))
    y = data.draw(O.arrays([np.float32], shape=(k, 3), special=False))
    O.diff("aten::linalg_matmul", x, y, rtol=1e-4, atol=1e-4)


@SET
@given(a=O.arrays(O.REAL, min_dims=2), off=st.integers(-3, 3))
def test_linalg_diagonal(a: np.ndarray, off: int) -> None:
    O.diff("aten::linalg_diagonal", a, off, -2, -1)
    O.diff("aten::linalg_diagonal", a, off, 0, -1)
