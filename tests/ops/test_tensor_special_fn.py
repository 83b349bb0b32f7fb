"""erfinv, digamma, polygamma, zeta, erfcx, ndtri, log_ndtr, i0e, multigammaln,
spherical_bessel_j0 (tensor_special_fn) against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

from tests.helpers import tensor_oracle as O

pytestmark = O.requires_torch
SET = O.SETTINGS
# float32 results are computed in float64 and rounded; PyTorch computes in float32
TOL = dict(rtol=1e-4, atol=1e-5)
UNARY = ["erfinv", "special_erfinv", "digamma", "special_digamma", "special_psi",
         "special_erfcx", "special_ndtri", "special_log_ndtr", "special_i0e",
         "special_spherical_bessel_j0"]
IN_PLACE = ["erfinv_", "digamma_"]


def _unit(a: np.ndarray) -> np.ndarray:
    """Values squashed into [-1.2, 1.2] (erfinv's and ndtri's interesting range)."""
    with np.errstate(all="ignore"):
        return (np.tanh(a.astype(np.float64) / 7) * 1.2).astype(a.dtype)


@pytest.mark.parametrize("name", UNARY + IN_PLACE)
@SET
@given(a=O.arrays(O.REAL + [np.bool_]), f=O.arrays([np.float64], big=True))
def test_unary(name: str, a: np.ndarray, f: np.ndarray) -> None:
    tol = dict(rtol=1e-9, atol=1e-12) if a.dtype == np.float64 else TOL
    if name.endswith("_") and a.dtype.kind != "f":
        O.diff(f"aten::{name}", a)   # an integer self cannot hold the float result
        return
    O.diff(f"aten::{name}", a, **tol)
    if a.dtype.kind == "f":
        O.diff(f"aten::{name}", _unit(a), **tol)
    if name not in ("digamma", "digamma_"):   # huge arguments lose digits in PyTorch's tan
        O.diff(f"aten::{name}", f, rtol=1e-9, atol=1e-12)
    O.diff(f"aten::{name}", a.astype(np.complex64))


@SET
@given(a=O.arrays(O.REAL), n=st.integers(-1, 6))
def test_polygamma(a: np.ndarray, n: int) -> None:
    tol = dict(rtol=1e-8, atol=1e-10) if a.dtype == np.float64 else TOL
    O.diff("aten::polygamma", n, a, **tol)
    O.diff("aten::special_polygamma", n, a, **tol)
    O.diff("aten::polygamma_", a, n, **tol)
    O.diff("aten::polygamma", n, _unit(a) * 3 if a.dtype.kind == "f" else a, **tol)


@SET
@given(pair=O.broadcast_pair(O.REAL), s=O.scalars("if"))
def test_zeta(pair: tuple, s: object) -> None:
    a, b = pair
    tight = dict(rtol=1e-8, atol=1e-10)
    O.diff("aten::special_zeta", a, b, **(tight if a.dtype == b.dtype == np.float64 else TOL))
    O.diff("aten::special_zeta.other_scalar", a, s, **TOL)
    O.diff("aten::special_zeta.self_scalar", s, b, **TOL)


@SET
@given(a=O.arrays(O.REAL), p=st.integers(0, 4))
def test_multigammaln(a: np.ndarray, p: int) -> None:
    O.diff("aten::mvlgamma", a, p, **TOL)
    O.diff("aten::special_multigammaln", a, p, **TOL)
    O.diff("aten::mvlgamma_", a, p, **TOL)


def test_erfinv_inverts_erf_to_double_precision() -> None:
    import torch
    y = np.concatenate([np.linspace(-1, 1, 4001), -1 + np.logspace(-16, -1, 50),
                        np.logspace(-300, -1, 50)])
    mine = O.kernel("aten::erfinv")(O.t(y)).numpy()
    np.testing.assert_allclose(mine, torch.erfinv(torch.from_numpy(y)).numpy(), rtol=1e-13)
    p = np.logspace(-320, -1, 400)
    mine = O.kernel("aten::special_ndtri")(O.t(p)).numpy()
    np.testing.assert_allclose(mine, torch.special.ndtri(torch.from_numpy(p)).numpy(),
                               rtol=1e-12)
