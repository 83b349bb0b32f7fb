"""Reductions: sum, mean, prod, max / min, argmax, any / all, std / var, norms, logsumexp,
median, kthvalue, mode, cumulative ops and softmax.

Floating reductions accumulate in float64 (complex128) and round once at the end, so
results are at least as accurate as PyTorch's; integer and bool sums / products are int64.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from ..._tensor import dtypes as D
from ..registry import op
from ..._tensor.kernel_util import (NATIVE_FLOATS, cast, float_result, native_float,
                                    not_implemented, numel, quiet, reduce_axes, to_np, wrap)
from ..._tensor.tensor import Tensor, wrap_dim
from .row_math import softmax_last


def acc(a: np.ndarray) -> np.ndarray:
    """`a` in the accumulation type: float64 for real floats, complex128 for complex."""
    if a.dtype.kind == "f" and a.dtype != np.float64:
        return a.astype(np.float64)
    if a.dtype.kind == "c" and a.dtype != np.complex128:
        return a.astype(np.complex128)
    return a


def _result(r: Any, dt: D.dtype) -> Tensor:
    return wrap(cast(np.asarray(r), dt))


def _input(self: Tensor, dtype: Optional[int]) -> tuple[np.ndarray, D.dtype]:
    if dtype is not None:
        dt = D.as_dtype(dtype)
        return to_np(self, dt), dt
    dt = self.dtype
    return self._a, (D.int64 if dt.kind in "bi" else dt)


# --- sum / mean / prod ---------------------------------------------------------------------
@op("aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor")
def sum_all(self: Tensor, dtype: Optional[int] = None) -> Tensor:
    """Sum of all elements."""
    return sum(self, None, False, dtype)


@op("aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, "
    "ScalarType? dtype=None) -> Tensor")
@quiet
def sum(self: Tensor, dim: Any = None, keepdim: bool = False, dtype: Optional[int] = None) -> Tensor:
    """Sum over dims (all when None or []); integers and bools sum as int64."""
    a, dt = _input(self, dtype)
    axes = reduce_axes(dim, a.ndim)
    src = acc(a) if dt.kind in "fc" else cast(a, dt)
    return _result(np.sum(src, axis=axes, keepdims=keepdim), dt)


@op("aten::nansum(Tensor self, int[1]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None) -> Tensor")
@quiet
def nansum(self: Tensor, dim: Any = None, keepdim: bool = False,
           dtype: Optional[int] = None) -> Tensor:
    """sum treating NaN as zero."""
    a, dt = _input(self, dtype)
    if dt.kind == "c":
        raise RuntimeError("nansum does not support complex inputs")
    axes = reduce_axes(dim, a.ndim)
    src = acc(a) if dt.kind == "f" else cast(a, dt)
    return _result(np.nansum(src, axis=axes, keepdims=keepdim), dt)


def _mean_dtype(self: Tensor, dtype: Optional[int], name: str) -> tuple[np.ndarray, D.dtype]:
    if dtype is not None:
        dt = D.as_dtype(dtype)
        if dt.kind not in "fc":
            raise RuntimeError(f"{name}(): could not infer output dtype. Optional dtype must be "
                               f"either a floating point or complex dtype. Got: {dt.cname}")
        return to_np(self, dt), dt
    dt = self.dtype
    if dt.kind not in "fc":
        raise RuntimeError(f"{name}(): could not infer output dtype. Input dtype must be either "
                           "a floating point or complex dtype. Got: " + dt.cname)
    return self._a, dt


# rows up to this long are summed by row_sums: its sums run in the input's float precision
# (BLAS keeps several partial sums: errors grow with the row's length over their number),
# so longer rows keep float64 accumulation
ROW_SUMS_MAX = 4096


def row_sums(a: np.ndarray) -> np.ndarray:
    """The sums of the rows of a 2-D float32 / float64 array, as one matrix-vector product
    with a vector of ones: BLAS, in the array's precision. numpy's reduction of short
    contiguous rows runs row by row (672 rows of 16: 16 us, the product 3)."""
    return a @ np.ones(a.shape[1], a.dtype)


def trailing_mean(a: np.ndarray, axes: Optional[tuple[int, ...]],
                  keepdim: bool) -> Optional[np.ndarray]:
    """The mean over `axes` by row_sums when they are a's last ones (global average
    pooling's (2, 3)), a is a C-contiguous float32 / float64 array and its rows are 1 to
    ROW_SUMS_MAX long; None otherwise."""
    if axes is None or not axes or a.dtype not in NATIVE_FLOATS or not a.flags.c_contiguous:
        return None
    k = len(axes)
    if sorted(axes) != list(range(a.ndim - k, a.ndim)):
        return None
    lead = a.shape[:a.ndim - k]
    length = numel(a.shape[a.ndim - k:])
    if not 0 < length <= ROW_SUMS_MAX:
        return None
    r = row_sums(a.reshape(-1, length))
    r /= r.dtype.type(length)
    return r.reshape(lead + (1,) * k if keepdim else lead)


@op("aten::mean(Tensor self, *, ScalarType? dtype=None) -> Tensor")
def mean_all(self: Tensor, dtype: Optional[int] = None) -> Tensor:
    """Mean of all elements."""
    return mean(self, None, False, dtype)


@op("aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) "
    "-> Tensor")
@quiet
def mean(self: Tensor, dim: Any = None, keepdim: bool = False,
         dtype: Optional[int] = None) -> Tensor:
    """Arithmetic mean over dims (floating types only; empty gives NaN)."""
    a, dt = _mean_dtype(self, dtype, "mean")
    axes = reduce_axes(dim, a.ndim)
    r = trailing_mean(a, axes, keepdim)
    if r is not None:
        return wrap(r)
    # np.mean's own arithmetic (a sum, then one division by the count), without its
    # Python layers: this runs in every RMS norm
    count = a.size if axes is None else numel(a.shape[d] for d in axes)
    return _result(np.add.reduce(acc(a), axis=axes, keepdims=keepdim) / count, dt)


@op("aten::nanmean(Tensor self, int[1]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None) -> Tensor")
@quiet
def nanmean(self: Tensor, dim: Any = None, keepdim: bool = False,
            dtype: Optional[int] = None) -> Tensor:
    """mean ignoring NaN."""
    a, dt = _mean_dtype(self, dtype, "nanmean")
    axes = reduce_axes(dim, a.ndim)
    return _result(np.nanmean(acc(a), axis=axes, keepdims=keepdim), dt)


@op("aten::prod(Tensor self, *, ScalarType? dtype=None) -> Tensor")
def prod_all(self: Tensor, dtype: Optional[int] = None) -> Tensor:
    """Product of all elements."""
    return prod(self, None, False, dtype)


@op("aten::prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) "
    "-> Tensor")
@quiet
def prod(self: Tensor, dim: Optional[int] = None, keepdim: bool = False,
         dtype: Optional[int] = None) -> Tensor:
    """Product over one dim (or all); integers and bools multiply as int64."""
    a, dt = _input(self, dtype)
    axes = None if dim is None else reduce_axes(dim, a.ndim)
    src = acc(a) if dt.kind in "fc" else cast(a, dt)
    return _result(np.prod(src, axis=axes, keepdims=keepdim), dt)


# --- max / min / argmax ---------------------------------------------------------------------
def _check_nonempty(name: str, a: np.ndarray, axes: Optional[tuple]) -> None:
    if a.size == 0:
        if axes is None:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for "
                               "input.numel() == 0. Specify the reduction dim with the 'dim' "
                               "argument.")
        for d in axes:
            if a.shape[d] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _no_complex(name: str, a: np.ndarray) -> None:
    if a.dtype.kind == "c":
        raise RuntimeError(f"{name}(): does not support complex input")


@op("aten::max(Tensor self) -> Tensor")
def max_all(self: Tensor) -> Tensor:
    """The largest element (NaN if any)."""
    _no_complex("max", self._a)
    _check_nonempty("max", self._a, None)
    return wrap(np.asarray(np.max(self._a)))


@op("aten::min(Tensor self) -> Tensor")
def min_all(self: Tensor) -> Tensor:
    """The smallest element (NaN if any)."""
    _no_complex("min", self._a)
    _check_nonempty("min", self._a, None)
    return wrap(np.asarray(np.min(self._a)))


def _arg_along(a: np.ndarray, d: int, largest: bool) -> np.ndarray:
    # numpy's argmax/argmin return the first NaN, like PyTorch
    return np.argmax(a, axis=d) if largest else np.argmin(a, axis=d)


def _minmax_dim(name: str, self: Tensor, dim: int, keepdim: bool,
                largest: bool) -> tuple[Tensor, Tensor]:
    a = self._a
    _no_complex(name, a)
    d = wrap_dim(dim, a.ndim)
    if a.ndim == 0:
        return wrap(a.copy()), wrap(np.zeros((), np.int64))
    _check_nonempty(name, a, (d,))
    idx = _arg_along(a, d, largest)
    vals = np.take_along_axis(a, np.expand_dims(idx, d), d)
    if not keepdim:
        vals = np.squeeze(vals, d)
    else:
        idx = np.expand_dims(idx, d)
    return wrap(vals), wrap(idx.astype(np.int64))


@op("aten::max.dim(Tensor self, int dim, bool keepdim=False) -> "
    "(Tensor values, Tensor indices)")
def max_dim(self: Tensor, dim: int, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    """Largest values along dim and their (first) indices."""
    return _minmax_dim("max", self, dim, keepdim, True)


@op("aten::min.dim(Tensor self, int dim, bool keepdim=False) -> "
    "(Tensor values, Tensor indices)")
def min_dim(self: Tensor, dim: int, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    """Smallest values along dim and their (first) indices."""
    return _minmax_dim("min", self, dim, keepdim, False)


def _amaxmin(name: str, self: Tensor, dim: Sequence[int], keepdim: bool) -> Tensor:
    a = self._a
    _no_complex(name, a)
    axes = reduce_axes(list(dim), a.ndim)
    _check_nonempty(name, a, axes if axes is not None else tuple(range(a.ndim)))
    fn = np.max if name == "amax" else np.min
    return wrap(np.asarray(fn(a, axis=axes, keepdims=keepdim)))


@op("aten::amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor")
def amax(self: Tensor, dim: Sequence[int] = (), keepdim: bool = False) -> Tensor:
    """Largest values over dims (all when empty)."""
    return _amaxmin("amax", self, dim, keepdim)


@op("aten::amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor")
def amin(self: Tensor, dim: Sequence[int] = (), keepdim: bool = False) -> Tensor:
    """Smallest values over dims (all when empty)."""
    return _amaxmin("amin", self, dim, keepdim)


@op("aten::aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> "
    "(Tensor min, Tensor max)")
def aminmax(self: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> tuple:
    """(amin, amax) over one dim or all."""
    dims = [] if dim is None else [dim]
    return _amaxmin("amin", self, dims, keepdim), _amaxmin("amax", self, dims, keepdim)


def _argext(name: str, self: Tensor, dim: Optional[int], keepdim: bool, largest: bool) -> Tensor:
    a = self._a
    kind = a.dtype.kind
    if kind == "c":
        _no_complex(name, a)
    if kind == "b":
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is None:
        if a.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                             "input.numel() == 0.")
        r = a.argmax() if largest else a.argmin()     # (of the flattened array, C order)
        if keepdim:
            return wrap(np.full((1,) * a.ndim, r, np.int64))
        return wrap(np.asarray(r, np.int64))
    d = wrap_dim(dim, a.ndim)
    if a.ndim == 0:
        return wrap(np.zeros((), np.int64))
    _check_nonempty(name, a, (d,))
    r = _arg_along(a, d, largest).astype(np.int64)
    return wrap(np.expand_dims(r, d) if keepdim else r)


@op("aten::argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor")
def argmax(self: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Tensor:
    """Index of the (first) largest element, along dim or of the flattened tensor."""
    return _argext("argmax", self, dim, keepdim, True)


@op("aten::argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor")
def argmin(self: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Tensor:
    """Index of the (first) smallest element, along dim or of the flattened tensor."""
    return _argext("argmin", self, dim, keepdim, False)


# --- any / all / count_nonzero ------------------------------------------------------------------
def _anyall(self: Tensor, dim: Any, keepdim: bool, fn: Any) -> Tensor:
    a = self._a
    if isinstance(dim, (list, tuple)) and len(dim) == 0:
        axes: Any = ()          # an explicit empty list reduces nothing
    else:
        axes = reduce_axes(dim, a.ndim)
    r = np.asarray(fn(a.astype(bool, copy=False), axis=axes, keepdims=keepdim))
    # uint8 inputs keep uint8 results (a legacy PyTorch rule)
    return wrap(r.astype(np.uint8) if a.dtype == np.uint8 else r)


@op("aten::any(Tensor self) -> Tensor", "aten::any.dim(Tensor self, int dim, bool keepdim=False) "
    "-> Tensor", "aten::any.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor")
def any(self: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Whether any element is nonzero (over dims)."""
    return _anyall(self, dim, keepdim, np.any)


@op("aten::all(Tensor self) -> Tensor", "aten::all.dim(Tensor self, int dim, bool keepdim=False) "
    "-> Tensor", "aten::all.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor")
def all(self: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Whether all elements are nonzero (over dims)."""
    return _anyall(self, dim, keepdim, np.all)


@op("aten::count_nonzero(Tensor self, int? dim=None) -> Tensor",
    "aten::count_nonzero.dim_IntList(Tensor self, int[] dim) -> Tensor")
def count_nonzero(self: Tensor, dim: Any = None) -> Tensor:
    """Number of nonzero elements (over dims), as int64."""
    a = self._a
    axes = reduce_axes(dim, a.ndim)
    return wrap(np.asarray(np.count_nonzero(a, axis=axes), dtype=np.int64))


# --- std / var --------------------------------------------------------------------------------
def _correction(unbiased: Optional[bool], correction: Any) -> float:
    if correction is not None:
        return float(correction)
    return 1.0 if unbiased is None or unbiased else 0.0


def _welford_mean(a: np.ndarray, axes: Optional[tuple], m: np.ndarray) -> np.ndarray:
    """The mean PyTorch's (sequential Welford) var_mean reports when infinities occur: an
    infinity followed by any element turns the running mean into NaN."""
    if a.dtype.kind != "f" or not np.isinf(a).any():
        return m
    ax = tuple(range(a.ndim)) if axes is None else axes
    x = np.moveaxis(a, ax, tuple(range(a.ndim - len(ax), a.ndim)))
    x = x.reshape(x.shape[:a.ndim - len(ax)] + (-1,))
    inf = np.isinf(x)
    cnt = inf.sum(axis=-1)
    last = x[..., -1] if x.shape[-1] else np.zeros(x.shape[:-1])
    w = np.where(cnt == 0, m.reshape(cnt.shape),
                 np.where((cnt == 1) & np.isinf(last) & ~np.isnan(x).any(axis=-1), last,
                          np.nan))
    return w.reshape(m.shape)


@quiet
def _var(self: Tensor, dim: Any, correction: float, keepdim: bool) -> tuple[np.ndarray,
                                                                             np.ndarray, D.dtype]:
    dt = self.dtype
    if dt.kind not in "fc":
        raise RuntimeError("std and var only support floating point and complex dtypes")
    a = acc(self._a)
    axes = reduce_axes(dim, a.ndim)
    n = a.size if axes is None else int(np.prod([a.shape[d] for d in axes]))
    m = np.mean(a, axis=axes, keepdims=True)
    dev = np.abs(a - m) ** 2
    v = np.sum(dev, axis=axes, keepdims=keepdim) / max(0.0, n - correction)
    mean_ = m if keepdim else np.squeeze(m, axis=axes) if axes is not None else m.reshape(())
    return np.asarray(v), _welford_mean(a, axes, np.asarray(mean_)), dt.to_real()


@op("aten::var(Tensor self, bool unbiased=True) -> Tensor")
def var_all(self: Tensor, unbiased: bool = True) -> Tensor:
    """var of all elements."""
    return var(self, None, unbiased, False)


@op("aten::var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor")
def var(self: Tensor, dim: Any = None, unbiased: bool = True, keepdim: bool = False) -> Tensor:
    """Variance over dims (Bessel-corrected unless unbiased=False)."""
    v, _, dt = _var(self, dim, _correction(unbiased, None), keepdim)
    return _result(v, dt)


@op("aten::var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
    "bool keepdim=False) -> Tensor")
def var_correction(self: Tensor, dim: Any = None, correction: Any = None,
                   keepdim: bool = False) -> Tensor:
    """Variance with divisor N - correction."""
    v, _, dt = _var(self, dim, _correction(None, correction), keepdim)
    return _result(v, dt)


@op("aten::std(Tensor self, bool unbiased=True) -> Tensor")
def std_all(self: Tensor, unbiased: bool = True) -> Tensor:
    """std of all elements."""
    return std(self, None, unbiased, False)


@op("aten::std.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor")
def std(self: Tensor, dim: Any = None, unbiased: bool = True, keepdim: bool = False) -> Tensor:
    """Standard deviation over dims."""
    v, _, dt = _var(self, dim, _correction(unbiased, None), keepdim)
    return _result(np.sqrt(v), dt)


@op("aten::std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
    "bool keepdim=False) -> Tensor")
def std_correction(self: Tensor, dim: Any = None, correction: Any = None,
                   keepdim: bool = False) -> Tensor:
    """Standard deviation with divisor N - correction."""
    v, _, dt = _var(self, dim, _correction(None, correction), keepdim)
    return _result(np.sqrt(v), dt)


@op("aten::var_mean(Tensor self, bool unbiased=True) -> (Tensor, Tensor)")
def var_mean_all(self: Tensor, unbiased: bool = True) -> tuple[Tensor, Tensor]:
    """var_mean over all elements."""
    return var_mean(self, None, unbiased, False)


@op("aten::var_mean.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> "
    "(Tensor, Tensor)")
def var_mean(self: Tensor, dim: Any = None, unbiased: bool = True,
             keepdim: bool = False) -> tuple[Tensor, Tensor]:
    """(var, mean)."""
    v, m, dt = _var(self, dim, _correction(unbiased, None), keepdim)
    return _result(v, dt), _result(m, self.dtype)


@op("aten::var_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
    "bool keepdim=False) -> (Tensor, Tensor)")
def var_mean_correction(self: Tensor, dim: Any = None, correction: Any = None,
                        keepdim: bool = False) -> tuple[Tensor, Tensor]:
    """(var, mean) with divisor N - correction."""
    v, m, dt = _var(self, dim, _correction(None, correction), keepdim)
    return _result(v, dt), _result(m, self.dtype)


@op("aten::std_mean(Tensor self, bool unbiased=True) -> (Tensor, Tensor)")
def std_mean_all(self: Tensor, unbiased: bool = True) -> tuple[Tensor, Tensor]:
    """std_mean over all elements."""
    return std_mean(self, None, unbiased, False)


@op("aten::std_mean.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> "
    "(Tensor, Tensor)")
def std_mean(self: Tensor, dim: Any = None, unbiased: bool = True,
             keepdim: bool = False) -> tuple[Tensor, Tensor]:
    """(std, mean)."""
    v, m, dt = _var(self, dim, _correction(unbiased, None), keepdim)
    return _result(np.sqrt(v), dt), _result(m, self.dtype)


@op("aten::std_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
    "bool keepdim=False) -> (Tensor, Tensor)")
def std_mean_correction(self: Tensor, dim: Any = None, correction: Any = None,
                        keepdim: bool = False) -> tuple[Tensor, Tensor]:
    """(std, mean) with divisor N - correction."""
    v, m, dt = _var(self, dim, _correction(None, correction), keepdim)
    return _result(np.sqrt(v), dt), _result(m, self.dtype)


# --- logsumexp / cumulative ----------------------------------------------------------------------
@op("aten::logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor")
@quiet
def logsumexp(self: Tensor, dim: Sequence[int], keepdim: bool = False) -> Tensor:
    """log(sum(exp(x))) over dims, computed stably."""
    dt = float_result(self.dtype)
    a = acc(to_np(self, dt))
    if len(dim) == 0 and not keepdim and a.ndim and a.size:
        # PyTorch reduces everything but then fails to write the kept-dims maximum back
        raise RuntimeError(f"output with shape [] doesn't match the broadcast shape "
                           f"[{', '.join(['1'] * a.ndim)}]")
    axes = reduce_axes(list(dim), a.ndim)
    if a.size == 0:
        return _result(np.log(np.sum(np.exp(a), axis=axes, keepdims=keepdim)), dt)
    m = np.max(a, axis=axes, keepdims=True)
    m = np.where(np.isinf(m), 0, m)
    r = np.log(np.sum(np.exp(a - m), axis=axes, keepdims=True)) + m
    if not keepdim:
        r = np.squeeze(r, axis=axes) if axes is not None else r.reshape(())
    return _result(r, dt)


def _cum(self: Tensor, dim: int, dtype: Optional[int], fn: Any) -> Tensor:
    a, dt = _input(self, dtype)
    d = wrap_dim(dim, a.ndim)
    if a.ndim == 0:
        return _result(a.copy(), dt)
    src = acc(a) if dt.kind in "fc" else cast(a, dt)
    return _result(fn(src, axis=d), dt)


@op("aten::cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor")
@quiet
def cumsum(self: Tensor, dim: int, dtype: Optional[int] = None) -> Tensor:
    """Running sums along dim (integers as int64)."""
    return _cum(self, dim, dtype, np.cumsum)


@op("aten::cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor")
@quiet
def cumprod(self: Tensor, dim: int, dtype: Optional[int] = None) -> Tensor:
    """Running products along dim (integers as int64)."""
    return _cum(self, dim, dtype, np.cumprod)


@op("aten::cumsum_(Tensor(a!) self, int dim, *, ScalarType? dtype=None) -> Tensor(a!)")
def cumsum_(self: Tensor, dim: int, dtype: Optional[int] = None) -> Tensor:
    """cumsum in place."""
    self._writable()[...] = cast(cumsum(self, dim, dtype)._a, self.dtype)
    return self


@op("aten::cumprod_(Tensor(a!) self, int dim, *, ScalarType? dtype=None) -> Tensor(a!)")
def cumprod_(self: Tensor, dim: int, dtype: Optional[int] = None) -> Tensor:
    """cumprod in place."""
    self._writable()[...] = cast(cumprod(self, dim, dtype)._a, self.dtype)
    return self


def _cumext(self: Tensor, dim: int, largest: bool) -> tuple[Tensor, Tensor]:
    a = self._a
    if a.size == 0:
        # PyTorch returns early for empty inputs, before looking at dim
        return wrap(a.copy()), wrap(np.zeros(a.shape, np.int64))
    d = wrap_dim(dim, a.ndim)
    if a.ndim == 0:
        return wrap(a.copy()), wrap(np.zeros((), np.int64))
    x = np.moveaxis(a, d, 0)
    vals = np.empty_like(x)
    idx = np.zeros(x.shape, np.int64)
    if x.shape[0]:
        vals[0], idx[0] = x[0], 0
        for i in range(1, x.shape[0]):
            cur, prev = x[i], vals[i - 1]
            # ties move to the later index; a NaN always wins (so later NaNs take over)
            better = (cur >= prev if largest else cur <= prev)
            if x.dtype.kind in "fc":
                better = better | np.isnan(cur)
            vals[i] = np.where(better, cur, prev)
            idx[i] = np.where(better, i, idx[i - 1])
    return wrap(np.moveaxis(vals, 0, d)), wrap(np.moveaxis(idx, 0, d))


@op("aten::cummax(Tensor self, int dim) -> (Tensor values, Tensor indices)")
def cummax(self: Tensor, dim: int) -> tuple[Tensor, Tensor]:
    """Running maxima along dim and where they occurred."""
    return _cumext(self, dim, True)


@op("aten::cummin(Tensor self, int dim) -> (Tensor values, Tensor indices)")
def cummin(self: Tensor, dim: int) -> tuple[Tensor, Tensor]:
    """Running minima along dim and where they occurred."""
    return _cumext(self, dim, False)


@op("aten::logcumsumexp(Tensor self, int dim) -> Tensor")
@quiet
def logcumsumexp(self: Tensor, dim: int) -> Tensor:
    """log(cumsum(exp(x))) along dim, computed stably."""
    dt = float_result(self.dtype)
    a = acc(to_np(self, dt))
    if a.ndim == 0:
        return _result(a.copy(), dt)
    return _result(np.logaddexp.accumulate(a, axis=wrap_dim(dim, a.ndim)), dt)


# --- softmax --------------------------------------------------------------------------------------
def _softmax_input(self: Tensor, dim: int, dtype: Optional[int], name: str) -> tuple:
    if dtype is not None:
        dt = D.as_dtype(dtype)
        a = to_np(self, dt)
    else:
        dt = self.dtype
        a = self._a
    if dt.kind not in "f":
        last = a.ndim == 0 or wrap_dim(dim, a.ndim) == a.ndim - 1
        raise not_implemented(f"{name}_lastdim_kernel_impl" if last else f"{name}_kernel_impl",
                              dt)
    d = wrap_dim(dim, a.ndim)
    # in the input's precision like PyTorch (half precision in float32): float64 would cost a
    # conversion each way and twice the memory traffic; the sums are pairwise either way
    return native_float(a), dt, (d if a.ndim else None)


def row_max(a: np.ndarray, d: Optional[int]) -> np.ndarray:
    """np.max(a, axis=d, keepdims=True). numpy reduces short contiguous rows one at a time
    (16-long rows: 55 us for 8 K elements, against 6 us across rows), so rows of the last
    axis up to 64 long are reduced across a transposed copy instead (the maximum is the
    same whatever the order; NaN propagates either way)."""
    if d is not None and d == a.ndim - 1 and 0 < a.shape[-1] <= 64 and a.size:
        t = np.ascontiguousarray(np.moveaxis(a, -1, 0))
        return np.maximum.reduce(t, axis=0)[..., None]
    return np.max(a, axis=d, keepdims=True)


@op("aten::softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor")
@quiet
def softmax(self: Tensor, dim: int, dtype: Optional[int] = None) -> Tensor:
    """exp(x) / sum(exp(x)) along dim."""
    a, dt, d = _softmax_input(self, dim, dtype, "softmax")
    if a.size == 0:
        return _result(a, dt)
    if d == a.ndim - 1:     # the last dim (attention's): row sums as BLAS products
        return _result(softmax_last(a, inplace=False), dt)
    e = np.asarray(a - row_max(a, d))    # (0-d gives a numpy scalar)
    np.exp(e, out=e)
    e /= np.sum(e, axis=d, keepdims=True)
    return _result(e, dt)


@op("aten::log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor")
@quiet
def log_softmax(self: Tensor, dim: int, dtype: Optional[int] = None) -> Tensor:
    """x - logsumexp(x) along dim."""
    a, dt, d = _softmax_input(self, dim, dtype, "log_softmax")
    if a.size == 0:
        return _result(a, dt)
    s = np.asarray(a - row_max(a, d))
    s -= np.log(np.sum(np.exp(s), axis=d, keepdims=True))
    return _result(s, dt)


@op("aten::_softmax(Tensor self, int dim, bool half_to_float) -> Tensor")
def _softmax(self: Tensor, dim: int, half_to_float: bool) -> Tensor:
    """softmax (half_to_float: compute a float16 input as float32)."""
    return softmax(self, dim, D.float32 if half_to_float and self.dtype == D.float16 else None)


@op("aten::_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor")
def _log_softmax(self: Tensor, dim: int, half_to_float: bool) -> Tensor:
    """log_softmax (half_to_float: compute a float16 input as float32)."""
    return log_softmax(self, dim,
                       D.float32 if half_to_float and self.dtype == D.float16 else None)
