"""quantile / nanquantile and linalg_matrix_rank (tensor_stats_extra) against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

from tests.helpers import tensor_oracle as O

pytestmark = O.requires_torch
SET = O.SETTINGS
MODES = ["linear", "lower", "higher", "midpoint", "nearest"]


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@SET
@given(a=O.arrays(O.FLOATS + [np.int64]), dim=st.one_of(st.none(), st.integers(-3, 2)),
       keep=st.booleans(), mode=st.sampled_from(MODES + ["cubic"]),
       qs=st.lists(st.sampled_from([0.0, 0.25, 0.5, 1 / 3, 0.75, 1.0, 0.9, 1.5, -0.1]),
                   max_size=3), q0=st.booleans())
def test_quantile(name: str, a: np.ndarray, dim: object, keep: bool, mode: str, qs: list,
                  q0: bool) -> None:
    s = qs[0] if qs else 0.5
    O.diff(f"aten::{name}.scalar", a, s, dim, keep, mode)
    q = np.asarray(s if q0 else qs, a.dtype if a.dtype.kind == "f" else np.float32)
    O.diff(f"aten::{name}", a, q, dim, keep, mode)
    O.diff(f"aten::{name}", a, q.astype(np.float64), dim, keep, mode)
    O.diff(f"aten::{name}", a, q.reshape(-1, 1), dim, keep, mode)


def _low_rank(draw: st.DrawFn) -> np.ndarray:
    b = draw(st.sampled_from([(), (2,)]))
    m, n, k = draw(st.integers(0, 4)), draw(st.integers(0, 4)), draw(st.integers(0, 4))
    u = draw(O.arrays([np.int64], shape=b + (m, k), big=False, special=False))
    v = draw(O.arrays([np.int64], shape=b + (k, n), big=False, special=False))
    return (u @ v).astype(draw(st.sampled_from([np.float64, np.complex128])))


def _rank_deficient(a: np.ndarray) -> bool:
    """Whether some matrix of the batch has rank below min(m, n) (exactly: its entries are
    small integers, so numpy's default tolerance separates zero from nonzero)."""
    if 0 in a.shape:
        return False
    return bool(np.any(np.linalg.matrix_rank(a) < min(a.shape[-2:])))


@SET
@given(data=st.data(), tol=st.sampled_from([None, 0.0, 0.5, 1e3]),
       rtol=st.sampled_from([None, 0.0, 0.1]), herm=st.booleans())
def test_matrix_rank(data: st.DataObject, tol: object, rtol: object, herm: bool) -> None:
    a = _low_rank(data.draw)
    if herm:
        a = a + np.conj(np.swapaxes(a, -1, -2)) if a.shape[-1] == a.shape[-2] else a
    # A zero tolerance counts every singular value above 0, and a rank-deficient matrix's
    # "zero" singular values are rounding noise of the SVD (or eigvalsh) routine: LAPACK
    # builds differ (numpy's gives 1.8e-15 for [[9, 9, 9], [9, 9, 9]], PyTorch's 0.0), so the
    # rank is not defined by the inputs. There, a zero tolerance is replaced by 0.5 (the
    # matrices are integer-valued: their nonzero singular values are far above it).
    noisy = _rank_deficient(a)
    if noisy and not tol and rtol == 0.0:
        tol = 0.5
    O.diff("aten::linalg_matrix_rank.atol_rtol_float", a, tol, rtol, herm)
    O.diff("aten::linalg_matrix_rank.atol_rtol_tensor", a,
           None if tol is None else np.asarray(tol), None if rtol is None else
           np.full(a.shape[:-2], rtol), herm)
    O.diff("aten::linalg_matrix_rank", a, 0.5 if tol is None or (noisy and not tol) else tol,
           herm)
    O.diff("aten::linalg_matrix_rank.tol_tensor", a, np.asarray(tol or 0.5), herm)
    O.diff("aten::linalg_matrix_rank.atol_rtol_float", a.real.astype(np.float32), None, None,
           False)
    O.diff("aten::linalg_matrix_rank.atol_rtol_float", np.ones(3), None, None, False)
    O.diff("aten::linalg_matrix_rank.atol_rtol_float", np.ones((2, 2), np.int64), None, None,
           False)
