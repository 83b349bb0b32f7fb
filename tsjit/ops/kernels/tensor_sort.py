"""Sorting and selection: sort, argsort, topk, kthvalue, median, mode, unique, bincount,
histc, searchsorted, bucketize.

NaN sorts as the largest value (last ascending, first descending), like PyTorch. Sorts with
`stable=True` keep equal elements in order; the others (and topk) give equal elements the order
PyTorch's CPU kernels do, replayed by std_order.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..registry import op
from ..._tensor.kernel_util import not_implemented, wrap
from ..._tensor.tensor import Tensor, wrap_dim
from . import std_order


def sort_indices(a: np.ndarray, d: int, descending: bool, stable: bool = True) -> np.ndarray:
    """Sort order along axis d: stable, or (stable=False) the order PyTorch's unstable CPU sort
    gives equal elements (std_order), which differs only in lanes holding ties."""
    if not descending:
        idx = np.argsort(a, axis=d, kind="stable")
    else:
        # sort the reversed array ascending and reverse the result: stable and NaN-first
        n = a.shape[d]
        s = np.argsort(np.flip(a, d), axis=d, kind="stable")
        idx = (n - 1) - np.flip(s, d)
    if stable or _radix_sorted(a, descending):
        return idx
    return _replace_lanes(a, d, idx, _tied_lanes(a, d, idx), lambda lane: std_order.sort_order(
        std_order.lane_ranks(lane, descending)))


def _radix_sorted(a: np.ndarray, descending: bool) -> bool:
    """PyTorch sorts a long 1-d integer tensor ascending with a radix sort, which is stable."""
    return a.ndim == 1 and a.dtype.kind in "iu" and not descending and a.size >= 32768


def _tied_lanes(a: np.ndarray, d: int, idx: np.ndarray) -> np.ndarray:
    """Per lane of a along d (idx: its stable sort order), whether two elements are equal."""
    if a.shape[d] < 2 or a.size == 0:
        return np.zeros(np.delete(a.shape, d), bool)
    sv = np.moveaxis(np.take_along_axis(a, idx, d), d, -1)
    eq = sv[..., 1:] == sv[..., :-1]
    if a.dtype.kind == "f":
        eq |= np.isnan(sv[..., 1:]) & np.isnan(sv[..., :-1])
    return eq.any(-1)


def _replace_lanes(a: np.ndarray, d: int, idx: np.ndarray, lanes: np.ndarray,
                   order: Any) -> np.ndarray:
    """idx (indices along d) with the lanes where `lanes` is true set to order(lane of a)."""
    if not lanes.any():
        return idx
    out = np.moveaxis(idx, d, -1).copy()
    src = np.moveaxis(a, d, -1)
    for pos in map(tuple, np.argwhere(lanes)):
        out[pos] = order(src[pos])
    return np.moveaxis(out, -1, d)


def _sort(self: Tensor, dim: int, descending: bool, stable: bool = False) -> tuple[Tensor, Tensor]:
    a = self._a
    if a.dtype.kind == "c":
        raise RuntimeError("sort(): input tensor must be of non-complex type")
    d = wrap_dim(dim, a.ndim)
    if a.ndim == 0:
        return wrap(a.copy()), wrap(np.zeros((), np.int64))
    idx = sort_indices(a, d, descending, stable)
    return wrap(np.take_along_axis(a, idx, d)), wrap(idx.astype(np.int64))


@op("aten::sort(Tensor self, int dim=-1, bool descending=False) -> "
    "(Tensor values, Tensor indices)")
def sort(self: Tensor, dim: int = -1, descending: bool = False) -> tuple[Tensor, Tensor]:
    """Values sorted along dim and the indices they came from."""
    return _sort(self, dim, descending)


@op("aten::sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> "
    "(Tensor values, Tensor indices)")
def sort_stable(self: Tensor, stable: Optional[bool], dim: int = -1,
                descending: bool = False) -> tuple[Tensor, Tensor]:
    """sort; stable=True keeps equal elements in their order."""
    return _sort(self, dim, descending, bool(stable))


@op("aten::argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor")
def argsort(self: Tensor, dim: int = -1, descending: bool = False) -> Tensor:
    """The indices that sort self along dim."""
    return _sort(self, dim, descending)[1]


@op("aten::argsort.stable(Tensor self, *, bool stable, int dim=-1, bool descending=False) -> "
    "Tensor")
def argsort_stable(self: Tensor, stable: bool, dim: int = -1, descending: bool = False) -> Tensor:
    """argsort; stable=True keeps equal elements in their order."""
    return _sort(self, dim, descending, stable)[1]


@op("aten::msort(Tensor self) -> Tensor")
def msort(self: Tensor) -> Tensor:
    """Values sorted along dim 0."""
    return _sort(self, 0, False)[0]


@op("aten::topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> "
    "(Tensor values, Tensor indices)")
def topk(self: Tensor, k: int, dim: int = -1, largest: bool = True,
         sorted: bool = True) -> tuple[Tensor, Tensor]:
    """The k largest (or smallest) values along dim with their indices: in order, or with
    sorted=False in the order PyTorch's selection leaves them."""
    a = self._a
    a1 = a.reshape(1) if a.ndim == 0 else a
    d = wrap_dim(dim, a1.ndim)
    n = a1.shape[d]
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    full = sort_indices(a1, d, largest)
    idx = np.take(full, np.arange(k), axis=d)
    # equal values, and (sorted=False) the selection's own order, follow PyTorch's kernel
    lanes = _tied_lanes(a1, d, full)
    if not sorted and k * 64 > n:
        lanes = np.ones_like(lanes)
    idx = _replace_lanes(a1, d, idx, lanes, lambda lane: std_order.topk_order(
        std_order.lane_ranks(lane, largest), k, sorted))
    vals = np.take_along_axis(a1, idx, d)
    if a.ndim == 0:
        # a zero-dim input gives zero-dim results even for k == 0
        return wrap(a.copy()), wrap(np.zeros((), np.int64))
    return wrap(vals), wrap(idx.astype(np.int64))


def _select_kth(self: Tensor, dim: int, keepdim: bool, pick: Any) -> tuple[Tensor, Tensor]:
    a = self._a
    d = wrap_dim(dim, a.ndim)
    if a.ndim == 0:
        return wrap(a.copy()), wrap(np.zeros((), np.int64))
    order = np.argsort(a, axis=d, kind="stable")
    pos = pick(a, d)                  # position in sorted order, per lane (keepdims shape)
    idx = np.take_along_axis(order, pos, d)
    vals = np.take_along_axis(a, idx, d)
    if not keepdim:
        idx, vals = np.squeeze(idx, d), np.squeeze(vals, d)
    return wrap(vals), wrap(idx.astype(np.int64))


@op("aten::kthvalue(Tensor self, SymInt k, int dim=-1, bool keepdim=False) -> "
    "(Tensor values, Tensor indices)")
def kthvalue(self: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> tuple:
    """The k-th smallest value along dim (1-based) and its index."""
    a = self._a
    n = a.shape[wrap_dim(dim, a.ndim)] if a.ndim else 1
    if not 1 <= k <= n:
        raise IndexError(f"kthvalue(): selected number k out of range for dimension {dim}")

    def pick(arr: np.ndarray, d: int) -> np.ndarray:
        shape = list(arr.shape)
        shape[d] = 1
        return np.full(shape, k - 1, np.int64)
    return _select_kth(self, dim, keepdim, pick)


def _median_pick(ignore_nan: bool) -> Any:
    def pick(arr: np.ndarray, d: int) -> np.ndarray:
        n = arr.shape[d]
        if arr.dtype.kind == "f":
            nans = np.sum(np.isnan(arr), axis=d, keepdims=True)
        else:
            nans = np.zeros([1 if i == d else s for i, s in enumerate(arr.shape)], np.int64)
        valid = n - nans
        if ignore_nan:
            # lower median of the non-NaN values; all-NaN lanes give a NaN
            return np.where(valid > 0, (valid - 1) // 2, 0)
        # any NaN makes the median NaN: pick the first NaN (sorted last)
        return np.where(nans > 0, valid, (n - 1) // 2)
    return pick


def _median_all(self: Tensor, ignore_nan: bool, name: str) -> Tensor:
    a = self._a.reshape(-1)
    if self.dtype.kind in "bc" and a.size:
        raise not_implemented(f"{name}_cpu", self.dtype)
    if a.size == 0:
        # PyTorch gives NaN, converted (like C) for integer dtypes
        with np.errstate(all="ignore"):
            return wrap(np.asarray(np.nan).astype(self._a.dtype))
    return _select_kth(wrap(a), 0, False, _median_pick(ignore_nan))[0]


def _median_dim(self: Tensor, dim: int, keepdim: bool, ignore_nan: bool, name: str) -> tuple:
    a = self._a
    if self.dtype.kind in "bc":
        raise not_implemented(f"{name}_cpu", self.dtype)
    if a.ndim and a.shape[wrap_dim(dim, a.ndim)] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {wrap_dim(dim, a.ndim)} to have "
                         "non-zero size.")
    return _select_kth(self, dim, keepdim, _median_pick(ignore_nan))


@op("aten::median(Tensor self) -> Tensor")
def median(self: Tensor) -> Tensor:
    """The lower median of all elements (NaN if any)."""
    return _median_all(self, False, "median")


@op("aten::median.dim(Tensor self, int dim, bool keepdim=False) -> "
    "(Tensor values, Tensor indices)")
def median_dim(self: Tensor, dim: int, keepdim: bool = False) -> tuple:
    """Lower medians along dim and their indices."""
    return _median_dim(self, dim, keepdim, False, "median")


@op("aten::nanmedian(Tensor self) -> Tensor")
def nanmedian(self: Tensor) -> Tensor:
    """The lower median ignoring NaN."""
    return _median_all(self, True, "nanmedian")


@op("aten::nanmedian.dim(Tensor self, int dim, bool keepdim=False) -> "
    "(Tensor values, Tensor indices)")
def nanmedian_dim(self: Tensor, dim: int, keepdim: bool = False) -> tuple:
    """Lower medians along dim ignoring NaN."""
    return _median_dim(self, dim, keepdim, True, "nanmedian")


@op("aten::mode(Tensor self, int dim=-1, bool keepdim=False) -> "
    "(Tensor values, Tensor indices)")
def mode(self: Tensor, dim: int = -1, keepdim: bool = False) -> tuple:
    """The most frequent value along dim (smallest on ties) and its last index."""
    a = self._a
    d = wrap_dim(dim, a.ndim)
    if a.ndim == 0:
        return wrap(a.copy()), wrap(np.zeros((), np.int64))
    x = np.moveaxis(a, d, -1)
    lead = x.shape[:-1]
    x2 = x.reshape(-1, x.shape[-1])
    vals = np.empty(x2.shape[0], a.dtype)
    idx = np.empty(x2.shape[0], np.int64)
    for r in range(x2.shape[0]):
        row = x2[r]
        u, counts = np.unique(row, return_counts=True)
        v = u[np.argmax(counts)]
        vals[r] = v
        idx[r] = np.nonzero(row == v)[0][-1] if v == v else np.nonzero(row != row)[0][-1]
    vals, idx = vals.reshape(lead), idx.reshape(lead)
    if keepdim:
        vals, idx = np.expand_dims(vals, d), np.expand_dims(idx, d)
    return wrap(vals), wrap(idx)


# --- unique ------------------------------------------------------------------------------------
def _empty_i64() -> Tensor:
    return wrap(np.zeros(0, np.int64))


@op("aten::_unique2(Tensor self, bool sorted=True, bool return_inverse=False, "
    "bool return_counts=False) -> (Tensor, Tensor, Tensor)")
def _unique2(self: Tensor, sorted: bool = True, return_inverse: bool = False,
             return_counts: bool = False) -> tuple[Tensor, Tensor, Tensor]:
    """Sorted unique values, the inverse mapping (input shape) and counts."""
    a = self._a
    u, inv, cnt = np.unique(a.reshape(-1), return_inverse=True, return_counts=True,
                            equal_nan=False)
    return (wrap(u),
            wrap(inv.reshape(a.shape).astype(np.int64)) if return_inverse else _empty_i64(),
            wrap(cnt.astype(np.int64)) if return_counts else _empty_i64())


@op("aten::_unique(Tensor self, bool sorted=True, bool return_inverse=False) -> "
    "(Tensor, Tensor)")
def _unique(self: Tensor, sorted: bool = True, return_inverse: bool = False) -> tuple:
    """Sorted unique values and the inverse mapping."""
    u, inv, _ = _unique2(self, sorted, return_inverse, False)
    return u, inv


@op("aten::unique_dim(Tensor self, int dim, bool sorted=True, bool return_inverse=False, "
    "bool return_counts=False) -> (Tensor, Tensor, Tensor)")
def unique_dim(self: Tensor, dim: int, sorted: bool = True, return_inverse: bool = False,
               return_counts: bool = False) -> tuple[Tensor, Tensor, Tensor]:
    """Unique slices along dim (sorted lexicographically), inverse and counts."""
    a = self._a
    d = wrap_dim(dim, a.ndim)
    zero = [k for k, s in enumerate(a.shape) if s == 0]
    if len(zero) > 1:
        raise RuntimeError("Number of zero sized dimensions is more than one, so unique cannot "
                           "be applied ")
    if zero and zero[0] != d:
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique "
                           "cannot be applied")
    u, inv, cnt = np.unique(a, axis=d, return_inverse=True, return_counts=True)
    # the dim form always returns the inverse and the counts
    return wrap(u), wrap(inv.reshape(-1).astype(np.int64)), wrap(cnt.astype(np.int64))


@op("aten::unique_consecutive(Tensor self, bool return_inverse=False, "
    "bool return_counts=False, int? dim=None) -> (Tensor, Tensor, Tensor)")
def unique_consecutive(self: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: Optional[int] = None) -> tuple[Tensor, Tensor, Tensor]:
    """Values with consecutive repeats collapsed, inverse and run lengths."""
    a = self._a
    if dim is not None and a.ndim == 1 and wrap_dim(dim, 1) == 0:
        dim = None              # PyTorch treats dim 0 of a vector like no dim
    if dim is None:
        x = a.reshape(-1)
        d = 0
    else:
        d = wrap_dim(dim, a.ndim)
        x = a
        zero = [k for k, s in enumerate(a.shape) if s == 0]
        if len(zero) > 1:
            raise RuntimeError("Number of zero sized dimensions is more than one, so unique "
                               "cannot be applied ")
        if zero and zero[0] != d:
            raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so "
                               "unique cannot be applied")
    n = x.shape[d] if x.ndim else 0
    if n == 0 or x.size == 0:
        inv = np.zeros(a.shape if dim is None else (n,), np.int64)
        return (wrap(x.copy()), wrap(inv) if return_inverse or dim is not None else _empty_i64(),
                _empty_i64())
    xs = np.moveaxis(x, d, 0).reshape(n, -1)
    change = np.ones(n, bool)
    change[1:] = np.any(xs[1:] != xs[:-1], axis=1)
    starts = np.nonzero(change)[0]
    out = np.take(x, starts, axis=d)
    inv = (np.cumsum(change) - 1).astype(np.int64)
    counts = np.diff(np.append(starts, n)).astype(np.int64)
    if dim is None:
        inv = inv.reshape(a.shape)
        return (wrap(out), wrap(inv) if return_inverse else _empty_i64(),
                wrap(counts) if return_counts else _empty_i64())
    return wrap(out), wrap(inv), wrap(counts)      # the dim form returns everything


# --- counting / binning ----------------------------------------------------------------------
@op("aten::bincount(Tensor self, Tensor? weights=None, SymInt minlength=0) -> Tensor")
def bincount(self: Tensor, weights: Optional[Tensor] = None, minlength: int = 0) -> Tensor:
    """Occurrences of each non-negative integer (weighted sums when weights are given)."""
    a = self._a
    if a.ndim != 1 or a.dtype.kind not in "iu" or (a.size and a.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None or a.size == 0:
        return wrap(np.bincount(a, minlength=minlength).astype(np.int64))
    w = weights._a
    if w.shape != a.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    out_dt = w.dtype if w.dtype.kind == "f" else np.float64
    r = np.bincount(a, weights=w.astype(np.float64), minlength=minlength)
    return wrap(r.astype(out_dt))


@op("aten::histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor")
def histc(self: Tensor, bins: int = 100, min: Any = 0, max: Any = 0) -> Tensor:
    """Histogram of `bins` equal-width bins over [min, max] (data range when equal)."""
    a = self._a
    if a.dtype.kind != "f":
        raise not_implemented("histogram_cpu", self.dtype)
    if bins <= 0:
        raise RuntimeError("torch.histc(): bins must be > 0, but got " + str(bins))
    lo, hi = float(min), float(max)
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc(): max must be larger than min")
    x = a.reshape(-1).astype(np.float64)
    x = x[(x >= lo) & (x <= hi)]
    pos = ((x - lo) * bins / (hi - lo)).astype(np.int64)
    pos = np.minimum(pos, bins - 1)
    return wrap(np.bincount(pos, minlength=bins).astype(a.dtype))


def _searchsorted(seq: np.ndarray, v: np.ndarray, right: bool, sorter: Optional[np.ndarray],
                  out_int32: bool) -> np.ndarray:
    side = "right" if right else "left"
    if seq.ndim <= 1:
        r = np.searchsorted(seq, v, side=side, sorter=sorter)
    else:
        if seq.shape[:-1] != v.shape[:-1]:
            raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or "
                               "the first N-1 dimensions of boundaries tensor and input value "
                               "tensor must match")
        s2 = seq.reshape(-1, seq.shape[-1])
        v2 = v.reshape(-1, v.shape[-1])
        so = None if sorter is None else sorter.reshape(-1, sorter.shape[-1])
        r = np.stack([np.searchsorted(s2[i], v2[i], side=side,
                                      sorter=None if so is None else so[i])
                      for i in range(s2.shape[0])]).reshape(v.shape)
    return np.asarray(r).astype(np.int32 if out_int32 else np.int64)


@op("aten::searchsorted.Tensor(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, "
    "bool right=False, str? side=None, Tensor? sorter=None) -> Tensor",
    "aten::searchsorted.Scalar(Tensor sorted_sequence, Scalar self, *, bool out_int32=False, "
    "bool right=False, str? side=None, Tensor? sorter=None) -> Tensor")
def searchsorted(sorted_sequence: Tensor, self: Any, out_int32: bool = False,
                 right: bool = False, side: Optional[str] = None,
                 sorter: Optional[Tensor] = None) -> Tensor:
    """Insertion points of values into the (innermost) sorted sequences."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites,"
                               " got side of left while right was True")
        right = side == "right"
    v = self._a if isinstance(self, Tensor) else np.asarray(self)
    return wrap(_searchsorted(sorted_sequence._a, v, right,
                              None if sorter is None else sorter._a, out_int32))


@op("aten::bucketize.Tensor(Tensor self, Tensor boundaries, *, bool out_int32=False, "
    "bool right=False) -> Tensor",
    "aten::bucketize.Scalar(Scalar self, Tensor boundaries, *, bool out_int32=False, "
    "bool right=False) -> Tensor")
def bucketize(self: Any, boundaries: Tensor, out_int32: bool = False,
              right: bool = False) -> Tensor:
    """The bucket of each value given 1-D sorted boundaries."""
    if boundaries._a.ndim != 1:
        raise RuntimeError("boundaries tensor must be 1 dimension, but got dim(" +
                           str(boundaries._a.ndim) + ")")
    v = self._a if isinstance(self, Tensor) else np.asarray(self)
    return wrap(_searchsorted(boundaries._a, v, right, None, out_int32))
