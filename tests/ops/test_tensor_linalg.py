"""Matrix products and linear algebra kernels (tensor_linalg) against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

from tests.helpers import tensor_oracle as O

pytestmark = O.requires_torch
SET = O.SETTINGS
TOL = dict(rtol=1e-4, atol=1e-4)
MM_DTYPES = [np.float32, np.float64, np.int64]


@st.composite
def matmul_pair(draw: st.DrawFn) -> tuple:
    dt = draw(st.sampled_from(MM_DTYPES))
    n, k, m = (draw(st.integers(0, 4)) for _ in range(3))
    batch = draw(st.sampled_from([(), (2,), (1, 3), (3, 1)]))
    bb = draw(st.sampled_from([(), batch[-1:] if batch else (), (1,)]))
    sa = draw(st.sampled_from([(k,), batch + (n, k)]))
    sb = draw(st.sampled_from([(k,), bb + (k, m), (k + draw(st.integers(0, 1)), m)]))
    a = draw(O.arrays([dt], shape=sa, special=False))
    b = draw(O.arrays([dt], shape=sb, special=False))
    return a, b


@SET
@given(pair=matmul_pair())
def test_matmul(pair: tuple) -> None:
    a, b = pair
    O.diff("aten::matmul", a, b, **TOL)


@SET
@given(n=st.integers(0, 4), k=st.integers(0, 4), m=st.integers(0, 4),
       dt=st.sampled_from(MM_DTYPES), data=st.data())
def test_mm_family(n: int, k: int, m: int, dt: type, data: st.DataObject) -> None:
    arr = lambda *s: data.draw(O.arrays([dt], shape=s, special=False))  # noqa: E731
    a, b, v = arr(n, k), arr(k, m), arr(k)
    O.diff("aten::mm", a, b, **TOL)
    O.diff("aten::mv", a, v, **TOL)
    O.diff("aten::dot", v, v, **TOL)
    O.diff("aten::outer", v, arr(m), **TOL)
    beta, alpha = data.draw(st.sampled_from([(1, 1), (0, 2), (2, 1)]))
    if dt == np.int64:
        beta, alpha = int(beta), int(alpha)
    O.diff("aten::addmm", arr(n, m), a, b, beta, alpha, **TOL)
    O.diff("aten::addmm", arr(m), a, b, beta, alpha, **TOL)
    O.diff("aten::addmv", arr(n), a, v, beta, alpha, **TOL)
    O.diff("aten::addr", arr(k, m), v, arr(m), beta, alpha, **TOL)
    bat1, bat2 = arr(2, n, k), arr(2, k, m)
    O.diff("aten::bmm", bat1, bat2, **TOL)
    O.diff("aten::baddbmm", arr(2, n, m), bat1, bat2, beta, alpha, **TOL)
    O.diff("aten::baddbmm", arr(1, m), bat1, bat2, beta, alpha, **TOL)
    O.diff("aten::addbmm", arr(n, m), bat1, bat2, beta, alpha, **TOL)


def test_baddbmm_beta_zero_ignores_nan() -> None:
    base = np.full((1, 2, 2), np.nan, np.float32)
    b = np.ones((1, 2, 2), np.float32)
    O.diff("aten::baddbmm", base, b, b, 0, 1)


def test_mismatched_dtypes_raise() -> None:
    a = np.ones((2, 2), np.float32)
    O.diff("aten::mm", a, a.astype(np.float64))
    O.diff("aten::matmul", a, a.astype(np.int64))
    O.diff("aten::mm", a, np.ones((3, 2), np.float32))


@SET
@given(x=O.arrays(O.FLOATS, special=False, min_dims=1, max_dims=3, min_side=1),
       out=st.integers(1, 3), bias=st.booleans(), vec_weight=st.booleans())
def test_linear(x: np.ndarray, out: int, bias: bool, vec_weight: bool) -> None:
    k = x.shape[-1]
    w = np.linspace(-1, 1, k if vec_weight else out * k).reshape(
        (k,) if vec_weight else (out, k)).astype(x.dtype)
    b = np.linspace(0, 1, 1 if vec_weight else out).astype(x.dtype).reshape(
        () if vec_weight else (out,)) if bias else None
    O.diff("aten::linear", x, w, b, **TOL)


@pytest.mark.parametrize("rows,k,n", [(2, 256, 2048), (4, 768, 768), (16, 96, 4096),
                                       (64, 512, 512), (65, 512, 512), (1, 768, 768)])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_linear_few_rows_path(rows: int, k: int, n: int, dt: type) -> None:
    # a few rows against a large weight run as (W @ x.T).T: the same products as x @ W.T
    from tsjit.ops.kernels.tensor_linalg import _few_rows, product
    rng = np.random.default_rng(rows * n)
    x = rng.standard_normal((rows, k)).astype(dt)
    w = rng.standard_normal((n, k)).astype(dt)
    assert bool(_few_rows(x, w.T)) == (2 <= rows <= 64)
    got = product(x.reshape(1, rows, k), w.T)
    assert got.flags.c_contiguous and got.dtype == dt and got.shape == (1, rows, n)
    np.testing.assert_allclose(got[0], np.matmul(x, w.T), rtol=1e-4, atol=1e-4)
    O.diff("aten::linear", x, w, w[:, 0].copy(), **TOL)


@pytest.mark.parametrize("eq,shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 1)]),
    ("ii->i", [(3, 3)]), ("i,j->ij", [(2,), (3,)]), ("...ij->...ji", [(2, 3, 4)]),
    ("ij->", [(2, 3)]), ("bhqd,bhkd->bhqk", [(1, 2, 3, 4), (1, 2, 5, 4)]),
    ("ab,bc,cd->ad", [(2, 3), (3, 4), (4, 2)]), ("ij", [(2, 3)])])
def test_einsum(eq: str, shapes: list) -> None:
    rng = np.random.default_rng(0)
    ts = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    O.diff("aten::einsum", eq, ts, None, **TOL)


def test_tensordot_kron_cross_multidot() -> None:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    b = rng.standard_normal((4, 3, 5)).astype(np.float32)
    O.diff("aten::tensordot", a, b, [1, 2], [1, 0], **TOL)
    O.diff("aten::kron", a[0], b[0], **TOL)
    O.diff("aten::kron", np.arange(4).reshape(2, 2), np.eye(2, dtype=np.int64))
    c = rng.standard_normal((4, 3)).astype(np.float32)
    O.diff("aten::linalg_cross", c, c[::-1].copy(), -1, **TOL)
    O.diff("aten::cross", c, c[::-1].copy(), None, **TOL)
    O.diff("aten::linalg_multi_dot", [a[0], c, a[1]], **TOL)
    O.diff("aten::chain_matmul", [a[0], c], **TOL)
    O.diff("aten::cdist", a, a, 2.0, None, **TOL)
    O.diff("aten::cdist", a, a, 1.0, None, **TOL)
    w = rng.standard_normal((5, 3, 4)).astype(np.float32)
    O.diff("aten::bilinear", a[:, :, 0], a[:, 0, :], w, None, **TOL)


@SET
@given(a=O.arrays(O.FLOATS, special=False, shape=(3, 3)), batch=st.booleans())
def test_decompositions(a: np.ndarray, batch: bool) -> None:
    a = (a / 100 + 3 * np.eye(3)).astype(a.dtype)   # well conditioned
    if batch:
        a = np.stack([a, a.T])
    O.diff("aten::linalg_det", a, **TOL)
    O.diff("aten::det", a, **TOL)
    O.diff("aten::linalg_slogdet", a, **TOL)
    O.diff("aten::logdet", a, **TOL)
    O.diff("aten::linalg_inv", a, **TOL)
    b = np.ones(a.shape[:-1], a.dtype)
    O.diff("aten::linalg_solve", a, b, True, **TOL)
    O.diff("aten::linalg_solve", a, a, False, **TOL)
    O.diff("aten::linalg_matrix_power", a, 3, **TOL)
    O.diff("aten::linalg_matrix_power", a, -1, **TOL)
    spd = np.matmul(a, np.swapaxes(a, -1, -2))
    O.diff("aten::linalg_cholesky", spd, False, **TOL)
    mine, theirs = O.run_both("aten::linalg_svd", a, False, None)
    O.compare(mine[1], theirs[1], **TOL)       # singular vectors are unique only up to sign


def test_det_rejects_integers() -> None:
    O.diff("aten::linalg_det", np.eye(2, dtype=np.int64))
