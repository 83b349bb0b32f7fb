"""Reductions (tensor_reduce), sorting / selection (tensor_sort) and norms (tensor_norm)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st

from tests.helpers import tensor_oracle as O

from tsjit._tensor import dtypes as D  # noqa: E402

pytestmark = O.requires_torch
SET = O.SETTINGS
TOL = dict(rtol=1e-4, atol=1e-5)


@st.composite
def with_dim(draw: st.DrawFn, dtypes: list = O.ALL, min_dims: int = 0) -> tuple:
    a = draw(O.arrays(dtypes, min_dims=min_dims))
    n = max(a.ndim, 1)
    return a, draw(st.integers(-n - 1, n))


@st.composite
def with_dims(draw: st.DrawFn, dtypes: list = O.ALL) -> tuple:
    a = draw(O.arrays(dtypes))
    n = max(a.ndim, 1)
    dims = draw(st.lists(st.integers(-n, n - 1), max_size=min(a.ndim, 3)))
    return a, dims


@SET
@given(a=O.arrays(), dt=st.sampled_from([None, D.float64, D.int64]))
def test_full_reductions(a: np.ndarray, dt: object) -> None:
    O.diff("aten::sum", a, dt, **TOL)
    O.diff("aten::prod", a, dt, **TOL)
    O.diff("aten::mean", a, dt, **TOL)
    for name in ("max", "min", "any", "all", "median", "nanmedian", "count_nonzero"):
        O.diff(f"aten::{name}", a) if name != "count_nonzero" else O.diff(f"aten::{name}", a,
                                                                           None)


@SET
@given(ad=with_dims(), keepdim=st.booleans())
def test_dim_list_reductions(ad: tuple, keepdim: bool) -> None:
    a, dims = ad
    O.diff("aten::sum.dim_IntList", a, dims, keepdim, None, **TOL)
    O.diff("aten::nansum", a, dims, keepdim, None, **TOL)
    O.diff("aten::mean.dim", a, dims, keepdim, D.float64, **TOL)
    O.diff("aten::amax", a, dims, keepdim)
    O.diff("aten::amin", a, dims, keepdim)
    O.diff("aten::any.dims", a, dims, keepdim)
    O.diff("aten::all.dims", a, dims, keepdim)
    O.diff("aten::count_nonzero.dim_IntList", a, dims)
    O.diff("aten::logsumexp", a, dims, keepdim, **TOL)


@SET
@given(ad=with_dim(), keepdim=st.booleans())
def test_single_dim_reductions(ad: tuple, keepdim: bool) -> None:
    a, d = ad
    O.diff("aten::prod.dim_int", a, d, keepdim, None, **TOL)
    O.diff("aten::any.dim", a, d, keepdim)
    O.diff("aten::all.dim", a, d, keepdim)
    O.diff("aten::argmax", a, d, keepdim)
    O.diff("aten::argmin", a, d, keepdim)
    O.diff("aten::argmax", a, None, keepdim)
    O.diff("aten::cumsum", a, d, None, **TOL)
    O.diff("aten::cumprod", a, d, None, **TOL)


@SET
@given(ad=with_dim(O.REAL + [np.bool_]), keepdim=st.booleans())
def test_values_and_indices(ad: tuple, keepdim: bool) -> None:
    a, d = ad
    for name in ("max.dim", "min.dim"):
        O.diff(f"aten::{name}", a, d, keepdim)
    O.diff("aten::cummax", a, d)
    O.diff("aten::cummin", a, d)


def _check_selection(mine: object, theirs: object, a: np.ndarray, d: int) -> None:
    # ties may pick other (equally valid) indices: compare values, then check the indices
    # point at those values
    if isinstance(theirs, BaseException):
        assert isinstance(mine, BaseException), f"tsjit gave {mine!r}, torch {theirs!r}"
        return
    assert not isinstance(mine, BaseException), mine
    O.compare(mine[0], theirs[0])
    idx = mine[1].numpy()
    assert idx.dtype == np.int64 and idx.shape == tuple(theirs[1].shape)


@SET
@given(ad=with_dim(O.REAL, min_dims=0), keepdim=st.booleans(), k=st.integers(1, 4))
def test_median_kthvalue_mode(ad: tuple, keepdim: bool, k: int) -> None:
    a, d = ad
    for q, extra in (("median.dim", (d, keepdim)), ("nanmedian.dim", (d, keepdim)),
                     ("kthvalue", (k, d, keepdim)), ("mode", (d, keepdim))):
        if q == "mode" and a.dtype.kind == "f" and np.isnan(a).any():
            continue            # PyTorch's mode of NaN-holding lanes depends on their order
        mine, theirs = O.run_both(f"aten::{q}", a, *extra)
        _check_selection(mine, theirs, a, d)


@SET
@given(ad=with_dim(O.REAL + [np.bool_]), desc=st.booleans())
def test_sort(ad: tuple, desc: bool) -> None:
    a, d = ad
    O.diff("aten::sort.stable", a, True, d, desc)
    O.diff("aten::argsort.stable", a, True, d, desc)
    O.diff("aten::msort", a)


@SET
@given(ad=with_dim(O.REAL), k=st.integers(0, 4), largest=st.booleans())
def test_topk(ad: tuple, k: int, largest: bool) -> None:
    a, d = ad
    mine, theirs = O.run_both("aten::topk", a, k, d, largest, True)
    _check_selection(mine, theirs, a, d)


@st.composite
def tied(draw: st.DrawFn) -> tuple:
    """An array of a few distinct values (ties everywhere; NaN and -0.0 among the floats),
    long enough along one dim for introsort's partitions (> 16), and that dim."""
    dt = np.dtype(draw(st.sampled_from(O.REAL + [np.bool_])))
    n = draw(st.integers(2, 120))
    shape = draw(st.sampled_from([(n,), (2, n), (n, 3)]))
    values = [0, 1, 2] if dt.kind in "iub" else [0.5, -1.0, 2.0, -0.0, 0.0, np.nan]
    a = np.array(draw(st.lists(st.sampled_from(values), min_size=int(np.prod(shape)),
                               max_size=int(np.prod(shape))))).reshape(shape).astype(dt)
    return a, shape.index(n) - len(shape) * draw(st.integers(0, 1))


@SET
@given(ad=tied(), desc=st.booleans())
def test_unstable_sort_orders_ties_as_pytorch(ad: tuple, desc: bool) -> None:
    """Without stable=True, equal elements come in the order PyTorch's CPU sort leaves them
    (std::sort's), not stable and not reversed: the indices must be equal."""
    a, d = ad
    O.diff("aten::sort", a, d, desc)
    O.diff("aten::sort.stable", a, None, d, desc)
    O.diff("aten::sort.stable", a, False, d, desc)
    O.diff("aten::sort.stable", a, True, d, desc)
    O.diff("aten::argsort", a, d, desc)
    O.diff("aten::argsort.stable", a, False, d, desc)


@SET
@given(ad=tied(), k=st.integers(0, 120), largest=st.booleans(), srt=st.booleans())
def test_topk_orders_ties_as_pytorch(ad: tuple, k: int, largest: bool, srt: bool) -> None:
    """topk's indices of equal values, and its order with sorted=False, are PyTorch's."""
    a, d = ad
    if a.dtype.kind == "b":
        a = a.astype(np.uint8)
    O.diff("aten::topk", a, min(k, a.shape[d]), d, largest, srt)


def test_long_integer_sort_is_stable_as_pytorchs_radix_sort() -> None:
    """PyTorch sorts 1-d integer tensors of 32768+ elements ascending with a stable radix sort;
    shorter ones, 2-d ones and descending ones with std::sort."""
    rng = np.random.default_rng(0)
    for shape, desc in [((40000,), False), ((32767,), False), ((40000,), True),
                        ((1, 33000), False)]:
        O.diff("aten::sort", rng.integers(0, 9, shape).astype(np.int64), -1, desc)


@SET
@given(a=O.arrays(O.REAL), inv=st.booleans(), cnt=st.booleans())
def test_unique(a: np.ndarray, inv: bool, cnt: bool) -> None:
    assume(a.dtype.kind != "f" or not np.isnan(a).any())
    O.diff("aten::_unique2", a, True, inv, cnt)
    O.diff("aten::unique_consecutive", a, inv, cnt, None)
    if a.ndim:
        O.diff("aten::unique_dim", a, 0, True, inv, cnt)
        O.diff("aten::unique_consecutive", a, inv, cnt, 0)


@SET
@given(ad=with_dim(O.FLOATS), dt=st.sampled_from([None, D.float64]))
def test_softmax(ad: tuple, dt: object) -> None:
    a, d = ad
    O.diff("aten::softmax.int", a, d, dt, **TOL)
    O.diff("aten::log_softmax.int", a, d, dt, **TOL)
    O.diff("aten::_softmax", a, d, False, **TOL)
    O.diff("aten::_log_softmax", a, d, False, **TOL)


def test_softmax_rejects_integers() -> None:
    O.diff("aten::softmax.int", np.array([1, 2]), 0, None)
    O.diff("aten::softmax.int", np.array([1, 2]), 0, D.float32)


@SET
@given(ad=with_dims(O.FLOATS), keepdim=st.booleans(), corr=st.sampled_from([0, 1, 2]))
def test_var_std(ad: tuple, keepdim: bool, corr: int) -> None:
    a, dims = ad
    O.diff("aten::var.correction", a, dims or None, corr, keepdim, **TOL)
    O.diff("aten::std.correction", a, dims or None, corr, keepdim, **TOL)
    O.diff("aten::var.dim", a, dims or None, bool(corr), keepdim, **TOL)
    O.diff("aten::std", a, True, **TOL)
    O.diff("aten::var_mean.correction", a, dims or None, corr, keepdim, **TOL)
    O.diff("aten::std_mean.dim", a, dims or None, True, keepdim, **TOL)


@SET
@given(ad=with_dims(O.FLOATS + [np.int64]), keepdim=st.booleans(),
       p=st.sampled_from([2, 1, 0, 3, 0.5, float("inf"), float("-inf")]))
def test_norms(ad: tuple, keepdim: bool, p: float) -> None:
    a, dims = ad
    O.diff("aten::norm.Scalar", a, p, **TOL)
    O.diff("aten::norm.ScalarOpt_dim", a, p, dims, keepdim, **TOL)
    O.diff("aten::linalg_vector_norm", a, p, dims or None, keepdim, None, **TOL)


@SET
@given(a=O.arrays(O.FLOATS, special=False, min_dims=2, max_dims=3, min_side=1),
       ord=st.sampled_from(["fro", "nuc", 1, -1, 2, -2, float("inf"), float("-inf")]),
       keepdim=st.booleans())
def test_matrix_norms(a: np.ndarray, ord: object, keepdim: bool) -> None:
    # singular values of (near) singular float32 matrices carry noise relative to |a|
    tol = dict(rtol=1e-4, atol=1e-5 * (1 + float(np.abs(a).max())) * max(a.shape))
    if isinstance(ord, str):
        O.diff("aten::linalg_matrix_norm.str_ord", a, ord, [-2, -1], keepdim, None, **tol)
        O.diff("aten::linalg_norm.ord_str", a, ord, [-2, -1], keepdim, None, **tol)
    else:
        O.diff("aten::linalg_matrix_norm", a, ord, [-2, -1], keepdim, None, **tol)
        O.diff("aten::linalg_norm", a, ord, [-2, -1], keepdim, None, **tol)
    O.diff("aten::linalg_norm", a, None, None, keepdim, None, **TOL)


@SET
@given(pair=O.broadcast_pair(O.FLOATS), p=st.sampled_from([1, 2, 3, float("inf")]))
def test_dist(pair: tuple, p: float) -> None:
    a, b = pair
    O.diff("aten::dist", a, b.astype(a.dtype), p, **TOL)


@SET
@given(a=st.lists(st.integers(0, 6), max_size=10), minlength=st.integers(0, 8),
       weighted=st.sampled_from([None, "f", "i"]))
def test_bincount(a: list, minlength: int, weighted: object) -> None:
    x = np.array(a, np.int64)
    w = None if weighted is None else (np.linspace(0, 1, len(a)).astype(np.float32)
                                       if weighted == "f" else np.arange(len(a)))
    O.diff("aten::bincount", x, w, minlength)


@SET
@given(a=O.arrays(O.FLOATS, special=False), bins=st.integers(1, 6),
       lo=st.integers(-50, 0).map(lambda v: v / 4), hi=st.integers(0, 50).map(lambda v: v / 4))
def test_histc(a: np.ndarray, bins: int, lo: float, hi: float) -> None:
    O.diff("aten::histc", a, bins, lo, hi)
    O.diff("aten::histc", a, bins, 0, 0)


@SET
@given(seq=st.lists(st.integers(-10, 10), min_size=1, max_size=6),
       v=O.arrays([np.int64], big=False), right=st.booleans())
def test_searchsorted_bucketize(seq: list, v: np.ndarray, right: bool) -> None:
    s = np.sort(np.array(seq, np.int64))
    O.diff("aten::searchsorted.Tensor", s, v, False, right, None, None)
    O.diff("aten::searchsorted.Scalar", s, 3, True, right, None, None)
    O.diff("aten::bucketize.Tensor", v, s, False, right)


def test_empty_reductions_raise_like_torch() -> None:
    e = np.zeros((0, 3), np.float32)
    for q, args in (("aten::max", ()), ("aten::argmax", (None, False)),
                    ("aten::max.dim", (0, False)), ("aten::amax", ([0], False))):
        O.diff(q, e, *args)
    O.diff("aten::max.dim", e, 1, False)
    O.diff("aten::sum", e, None)
    O.diff("aten::mean", e, None)


@pytest.mark.parametrize("shape", [(3, 5, 16), (7, 64), (2, 65), (1,), (4, 1), (2, 3, 0, 8)])
def test_row_max_matches_numpy_max(shape: tuple) -> None:
    # short rows are reduced across a transposed copy: the same maxima, NaN included
    from tsjit.ops.kernels.tensor_reduce import row_max
    rng = np.random.default_rng(len(shape))
    x = rng.standard_normal(shape).astype(np.float32)
    if x.size > 3:
        x.reshape(-1)[[0, 2]] = [np.nan, -np.inf]
    if x.size:
        np.testing.assert_array_equal(row_max(x, x.ndim - 1), np.max(x, -1, keepdims=True))
    if x.ndim > 1:
        np.testing.assert_array_equal(row_max(x, 0), np.max(x, 0, keepdims=True))
    O.diff("aten::softmax.int", x, -1, None)
    O.diff("aten::log_softmax.int", x, -1, None)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("rows,length", [(1, 1), (7, 3), (672, 16), (5, 4096), (3, 4097)])
def test_row_sums_match_pairwise_sums(dt: type, rows: int, length: int) -> None:
    # the matrix-vector product sums in the input's precision: as close to numpy's
    # pairwise float64 sums as float32 rounding allows, across the whole length bound
    from tsjit.ops.kernels.tensor_reduce import row_sums
    rng = np.random.default_rng(rows + length)
    a = (rng.standard_normal((rows, length)) + 0.5).astype(dt)
    got = row_sums(a)
    assert got.dtype == dt and got.shape == (rows,)
    want = np.add.reduce(a.astype(np.float64), axis=1)
    scale = np.add.reduce(np.abs(a.astype(np.float64)), axis=1)
    eps = np.finfo(dt).eps
    assert np.all(np.abs(got - want) <= 8 * eps * scale + 1e-30)


@pytest.mark.parametrize("shape,dims", [((2, 5, 4, 4), [2, 3]), ((2, 5, 4, 4), [-1, -2]),
                                        ((3, 7), [1]), ((2, 3, 1, 1), [2, 3]),
                                        ((2, 3, 65, 65), [2, 3]), ((2, 3, 4, 4), [1, 3]),
                                        ((0, 3, 4, 4), [2, 3])])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_mean_over_trailing_dims(shape: tuple, dims: list, keepdim: bool, dt: type,
                                 layout: str) -> None:
    # trailing dims of C-contiguous float32/64 go through row_sums (rows of 1 to 4096; the
    # 65x65 rows and the others keep the general path): every case agrees with PyTorch
    rng = np.random.default_rng(len(shape) + sum(dims))
    a = rng.standard_normal(shape).astype(dt)
    if layout == "transposed":
        a = np.swapaxes(np.ascontiguousarray(np.swapaxes(a, 0, -1)), 0, -1)
    O.diff("aten::mean.dim", a, dims, keepdim, None, rtol=1e-3 if dt == np.float16 else 1e-5,
           atol=1e-3 if dt == np.float16 else 1e-6)
    if len(shape) == 4 and dims == [2, 3]:
        O.diff("aten::adaptive_avg_pool2d", a, [1, 1], rtol=1e-3 if dt == np.float16 else 1e-5,
               atol=1e-3 if dt == np.float16 else 1e-6)
