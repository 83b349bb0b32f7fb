"""Indexing with tensors and writing into tensors: index / index_put_, index_select,
index_add, masked_fill, masked_select, gather / scatter, take, nonzero, copy_, fill_."""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import numpy as np

from ..._tensor import dtypes as D
from ..registry import op
from ..._tensor.kernel_util import (broadcast_shapes, checked_scalar, fmt_shape, scalar_to_np,
                                    to_np, wrap, write_into)
from ..._tensor.tensor import Tensor, wrap_dim


# --- advanced indexing ------------------------------------------------------------------------
_INT64 = np.dtype(np.int64)


def index_tuple(self: Tensor, indices: Sequence[Optional[Tensor]],
                masks_to_ints: bool = False) -> tuple:
    """The numpy index for aten::index's `indices` (None = the whole dimension)."""
    a = self._a
    used = sum((i._a.ndim if i is not None and i._a.dtype in (np.bool_, np.uint8) else 1)
               for i in indices)
    if used > a.ndim and not (a.ndim == 0 and used == 1):
        raise IndexError(f"too many indices for tensor of dimension {a.ndim} (got {used})")
    out: list[Any] = []
    dim = 0
    for i in indices:
        if i is None:
            out.append(slice(None))
            dim += 1
            continue
        x = i._a
        if x.dtype in (np.bool_, np.uint8):
            m = x.astype(bool, copy=False)
            for k in range(m.ndim):
                if dim + k < a.ndim and m.shape[k] != a.shape[dim + k]:
                    raise IndexError(f"The shape of the mask {fmt_shape(m.shape)} at index {k} "
                                     "does not match the shape of the indexed tensor "
                                     f"{fmt_shape(a.shape[dim:])} at index {dim + k}")
            if masks_to_ints:
                out.extend(np.nonzero(m) if m.ndim else [m])
            else:
                out.append(m)
            dim += m.ndim
        elif x.dtype.kind in "iu":
            if a.ndim and x.size:
                n = a.shape[dim]
                hi, lo = np.maximum.reduce(x, axis=None), np.minimum.reduce(x, axis=None)
                if hi >= n or lo < -n:
                    bad = int(hi) if hi >= n else int(lo)
                    raise IndexError(f"index {bad} is out of bounds for dimension {dim} with "
                                     f"size {n}")
            out.append(x.astype(np.int64, copy=False))
            dim += 1
        else:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    arrays = [x for x in out if isinstance(x, np.ndarray) and x.dtype != np.bool_]
    if len(arrays) > 1 and any(x.shape != arrays[0].shape for x in arrays):
        try:
            np.broadcast_shapes(*(x.shape for x in arrays))
        except ValueError:
            raise IndexError("shape mismatch: indexing tensors could not be broadcast together "
                             "with shapes " + ", ".join(fmt_shape(x.shape) for x in arrays)) \
                from None
    return tuple(out)


@op("aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
    "aten::index.Tensor_hacked_twin(Tensor self, Tensor[] indices) -> Tensor")
def index(self: Tensor, indices: Sequence[Optional[Tensor]]) -> Tensor:
    """self[indices] with tensor indices (a copy, numpy / PyTorch placement rules)."""
    a = self._a
    if 0 < len(indices) <= a.ndim:
        # int64 indices only (relative positions, gathered rows): numpy's own indexing,
        # whose bounds and broadcast checks are PyTorch's; their errors take the checked
        # path for PyTorch's messages
        idx = tuple(i._a for i in indices if i is not None and i._a.dtype == _INT64)
        if len(idx) == len(indices):
            try:
                return wrap(a[idx])
            except IndexError:
                pass
    idx = index_tuple(self, indices)
    return wrap(np.asarray(self._a[idx]).copy())


@op("aten::index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, "
    "bool accumulate=False) -> Tensor(a!)",
    "aten::index_put_.hacked_twin(Tensor(a!) self, Tensor[] indices, Tensor values, "
    "bool accumulate=False) -> Tensor(a!)",
    "aten::_index_put_impl_(Tensor(a!) self, Tensor?[] indices, Tensor values, "
    "bool accumulate=False, bool unsafe=False) -> Tensor(a!)",
    "aten::_index_put_impl_.hacked_twin(Tensor(a!) self, Tensor[] indices, Tensor values, "
    "bool accumulate=False, bool unsafe=False) -> Tensor(a!)")
def index_put_(self: Tensor, indices: Sequence[Optional[Tensor]], values: Tensor,
               accumulate: bool = False, unsafe: bool = False) -> Tensor:
    """self[indices] = values (or += with accumulate), in place."""
    masks = [i for i in indices if i is not None]
    if len(masks) == 1 and masks[0]._a.dtype in (np.bool_, np.uint8) and \
            values._a.size == 1 and not accumulate:
        # PyTorch turns a single mask (other indices None) and one value into masked_fill_,
        # which converts the value; the mask is aligned at its position
        lead = next(k for k, i in enumerate(indices) if i is not None)
        m = masks[0]._a.astype(bool)
        for k, s in enumerate(m.shape):
            if lead + k >= self._a.ndim or s != self._a.shape[lead + k]:
                raise IndexError(f"The shape of the mask {fmt_shape(m.shape)} at index {k} does "
                                 f"not match the shape of the indexed tensor "
                                 f"{fmt_shape(self._a.shape)} at index {lead + k}")
        m = m.reshape(m.shape + (1,) * (self._a.ndim - lead - m.ndim))
        a = self._writable()
        np.copyto(a, checked_scalar(values._a.reshape(-1)[0].item(), self.dtype),
                  where=np.broadcast_to(m, a.shape))
        return self
    if values.dtype != self.dtype:
        raise RuntimeError("Index put requires the source and destination dtypes match, got "
                           f"{self.dtype.cname} for the destination and {values.dtype.cname} "
                           "for the source.")
    a = self._writable()
    idx = index_tuple(self, indices, masks_to_ints=accumulate)
    target = np.empty(a.shape, np.int8)[idx].shape
    v = values._a
    try:
        np.broadcast_to(v, target)
    except ValueError:
        raise RuntimeError(f"shape mismatch: value tensor of shape {fmt_shape(v.shape)} cannot "
                           f"be broadcast to indexing result of shape {fmt_shape(target)}") \
            from None
    if accumulate:
        np.add.at(a, idx, np.broadcast_to(v, target))
    else:
        a[idx] = v
    return self


@op("aten::index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) "
    "-> Tensor",
    "aten::index_put.hacked_twin(Tensor self, Tensor[] indices, Tensor values, "
    "bool accumulate=False) -> Tensor")
def index_put(self: Tensor, indices: Sequence[Optional[Tensor]], values: Tensor,
              accumulate: bool = False) -> Tensor:
    """index_put_ on a copy."""
    return index_put_(self.clone(), indices, values, accumulate)


def _index_vector(index: Tensor, name: str) -> np.ndarray:
    if index._a.ndim > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector")
    if index.dtype.kind != "i":
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    return index._a.reshape(-1).astype(np.int64)


@op("aten::index_select(Tensor self, int dim, Tensor index) -> Tensor")
def index_select(self: Tensor, dim: int, index: Tensor) -> Tensor:
    """The slices of self at `index` along dim."""
    a = self._a
    d = wrap_dim(dim, a.ndim)
    idx = _index_vector(index, "index_select")
    n = a.shape[d] if a.ndim else 1
    if idx.size and (idx.max() >= n or idx.min() < 0):
        raise IndexError("index out of range in self")
    if a.ndim == 0:
        if idx.size != 1:
            raise IndexError(f"index_select(): Index to scalar can have only 1 value, got "
                             f"{idx.size} value(s)")
        return wrap(np.take(a.reshape(1), idx).reshape(()))
    return wrap(np.take(a, idx, axis=d))


def _moved(a: np.ndarray, d: int) -> np.ndarray:
    return np.moveaxis(a, d, 0) if a.ndim else a.reshape(1)


def _index_source(self: Tensor, dim: int, index: Tensor, source: Tensor,
                  name: str) -> tuple[np.ndarray, int, np.ndarray, np.ndarray]:
    if source.dtype != self.dtype:
        raise RuntimeError(f"{name}(): self ({self.dtype.cname}) and source "
                           f"({source.dtype.cname}) must have the same scalar type")
    a = self._a.copy()
    d = wrap_dim(dim, a.ndim)
    idx = _index_vector(index, name)
    n = a.shape[d] if a.ndim else 1
    # indices are only checked while copying, so an empty source never fails
    if idx.size and source._a.size and (idx.max() >= n or idx.min() < 0):
        if name == "index_add_":
            raise IndexError("index out of range in self")
        bad = int(idx.max()) if idx.max() >= n else int(idx.min())
        raise IndexError(f"{name}(): index {bad} is out of bounds for dimension {d} with size "
                         f"{n}")
    return a, d, idx, source._a


@op("aten::index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) "
    "-> Tensor")
def index_add(self: Tensor, dim: int, index: Tensor, source: Tensor, alpha: Any = 1) -> Tensor:
    """A copy of self with alpha * source's slices added at `index` along dim."""
    a, d, idx, src = _index_source(self, dim, index, source, "index_add_")
    if src.size == 0:
        return wrap(a)
    src = _moved(src, d) if src.ndim else src.reshape(1)
    if alpha != 1:
        src = src * scalar_to_np(alpha, self.dtype)
    np.add.at(_moved(a, d), idx, src.astype(a.dtype, copy=False))
    return wrap(a)


@op("aten::index_add_(Tensor(a!) self, int dim, Tensor index, Tensor source, *, "
    "Scalar alpha=1) -> Tensor(a!)")
def index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor, alpha: Any = 1) -> Tensor:
    """index_add in place."""
    return write_into(self, index_add(self, dim, index, source, alpha)._a)


@op("aten::index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor")
def index_copy(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """A copy of self with source's slices written at `index` along dim."""
    a, d, idx, src = _index_source(self, dim, index, source, "index_copy_")
    if src.size == 0:
        return wrap(a)
    _moved(a, d)[idx] = _moved(src, d) if src.ndim else src.reshape(1)
    return wrap(a)


@op("aten::index_copy_(Tensor(a!) self, int dim, Tensor index, Tensor source) -> Tensor(a!)")
def index_copy_(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """index_copy in place."""
    return write_into(self, index_copy(self, dim, index, source)._a)


@op("aten::index_fill.int_Scalar(Tensor self, int dim, Tensor index, Scalar value) -> Tensor",
    "aten::index_fill.int_Tensor(Tensor self, int dim, Tensor index, Tensor value) -> Tensor")
def index_fill(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """A copy of self with the slices at `index` along dim set to value."""
    a = self._a.copy()
    d = wrap_dim(dim, a.ndim)
    idx = _index_vector(index, "index_fill_")
    if a.size == 0:
        return wrap(a)
    if isinstance(value, Tensor):
        if value._a.ndim:
            raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value._a.ndim} dimension(s).")
        value = value.item()
    _moved(a, d)[idx] = checked_scalar(value, self.dtype)
    return wrap(a)


@op("aten::index_fill_.int_Scalar(Tensor(a!) self, int dim, Tensor index, Scalar value) -> "
    "Tensor(a!)",
    "aten::index_fill_.int_Tensor(Tensor(a!) self, int dim, Tensor index, Tensor value) -> "
    "Tensor(a!)")
def index_fill_(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """index_fill in place."""
    return write_into(self, index_fill(self, dim, index, value)._a)


# --- masks ----------------------------------------------------------------------------------------
def _mask(mask: Tensor, name: str) -> np.ndarray:
    if mask.dtype != D.bool_:
        raise RuntimeError(f"{name} only supports boolean masks, but got mask with dtype "
                           f"{_legacy_name(mask.dtype)}")
    return mask._a


def _legacy_name(dt: D.dtype) -> str:
    return {"int64": "long int", "int32": "int", "uint8": "unsigned char", "float32": "float",
            "float64": "double", "int16": "short int", "int8": "signed char"}.get(dt.name,
                                                                                   dt.name)


def _fill_value(value: Any, dt: D.dtype, name: str) -> np.ndarray:
    if isinstance(value, Tensor):
        if value._a.ndim:
            raise RuntimeError(f"{name} only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value._a.ndim} dimension(s).")
        value = value.item()
    return checked_scalar(value, dt)


@op("aten::masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor",
    "aten::masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor")
def masked_fill(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    """self with value where mask holds (shapes broadcast)."""
    m = _mask(mask, "masked_fill_")
    v = _fill_value(value, self.dtype, "masked_fill_")
    broadcast_shapes(self._a.shape, m.shape)
    return wrap(np.where(m, v, self._a))


@op("aten::masked_fill_.Scalar(Tensor(a!) self, Tensor mask, Scalar value) -> Tensor(a!)",
    "aten::masked_fill_.Tensor(Tensor(a!) self, Tensor mask, Tensor value) -> Tensor(a!)")
def masked_fill_(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    """masked_fill in place (mask must broadcast to self's shape)."""
    m = _mask(mask, "masked_fill_")
    v = _fill_value(value, self.dtype, "masked_fill_")
    a = self._writable()
    if broadcast_shapes(a.shape, m.shape) != a.shape:
        raise RuntimeError(f"expand(torch.BoolTensor{{{fmt_shape(m.shape)}}}, size="
                           f"{fmt_shape(a.shape)}): the number of sizes provided "
                           f"({a.ndim}) must be greater or equal to the number of dimensions "
                           f"in the tensor ({m.ndim})")
    np.copyto(a, v, where=np.broadcast_to(m, a.shape))
    return self


@op("aten::masked_select(Tensor self, Tensor mask) -> Tensor")
def masked_select(self: Tensor, mask: Tensor) -> Tensor:
    """The elements where mask holds, as a 1-D tensor (shapes broadcast)."""
    m = _mask(mask, "masked_select")
    shape = broadcast_shapes(self._a.shape, m.shape)
    return wrap(np.broadcast_to(self._a, shape)[np.broadcast_to(m, shape)].copy())


@op("aten::masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor")
def masked_scatter(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """self with consecutive source elements written where mask holds."""
    m = _mask(mask, "masked_scatter_")
    shape = broadcast_shapes(self._a.shape, m.shape)
    out = np.broadcast_to(self._a, shape).copy()
    mm = np.broadcast_to(m, shape)
    k = int(mm.sum())
    src = source._a.reshape(-1)
    if src.size < k:
        raise RuntimeError("masked_scatter: expected source to have at least as many elements "
                           "as ones in mask")
    out[mm] = src[:k].astype(out.dtype)
    return wrap(out)


@op("aten::masked_scatter_(Tensor(a!) self, Tensor mask, Tensor source) -> Tensor(a!)")
def masked_scatter_(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """masked_scatter in place."""
    return write_into(self, masked_scatter(self, mask, source)._a)


# --- gather / scatter -----------------------------------------------------------------------------
def _gs_prepare(self: Tensor, dim: int, index: Tensor, name: str) -> tuple[int, np.ndarray]:
    a = self._a
    d = wrap_dim(dim, a.ndim)
    idx = index._a
    if index.dtype != D.int64:
        raise RuntimeError(f"{name}(): Expected dtype int64 for index")
    if idx.ndim != a.ndim and not (idx.ndim <= 1 and a.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as "
                           f"{'input' if name == 'gather' else 'self'} tensor")
    n = a.shape[d] if a.ndim else 1
    if idx.size and (idx.max() >= n or idx.min() < -n):
        bad = int(idx.max()) if idx.max() >= n else int(idx.min())
        raise RuntimeError(f"index {bad} is out of bounds for dimension {d} with size {n}")
    return d, idx


def _lead(a: np.ndarray, shape: Sequence[int], d: int) -> np.ndarray:
    """The part of `a` that an index of `shape` addresses (all of dim d)."""
    sl = tuple(slice(None) if k == d else slice(0, s) for k, s in enumerate(shape))
    return a[sl]


@op("aten::gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor")
def gather(self: Tensor, dim: int, index: Tensor, sparse_grad: bool = False) -> Tensor:
    """out[i][j] = self[index[i][j]][j] (for dim 0), etc."""
    d, idx = _gs_prepare(self, dim, index, "gather")
    a = self._a
    if a.ndim == 0:
        return wrap(np.broadcast_to(a, idx.shape).copy())
    for k in range(a.ndim):
        if k != d and idx.shape[k] > a.shape[k]:
            raise RuntimeError(f"Size does not match at dimension {k} expected index "
                               f"{fmt_shape(idx.shape)} to be no larger than self "
                               f"{fmt_shape(a.shape)} apart from dimension {d}")
    return wrap(np.take_along_axis(_lead(a, idx.shape, d), idx, d))


def _full_index(idx: np.ndarray, d: int) -> tuple:
    grids = list(np.indices(idx.shape, sparse=True))
    grids[d] = idx
    return tuple(grids)


_REDUCE_UFUNC: dict[str, Callable] = {"add": np.add, "sum": np.add, "multiply": np.multiply,
                                      "prod": np.multiply, "amax": np.maximum,
                                      "amin": np.minimum}


def _scatter_into(out: np.ndarray, d: int, idx: np.ndarray, src: Any,
                  reduce: Optional[str]) -> None:
    if out.ndim == 0:
        out = out.reshape(1)
        idx = idx.reshape(-1)
    view = _lead(out, idx.shape, d)
    if isinstance(src, np.ndarray):
        src = _lead(src, idx.shape, d) if src.ndim else src
        src = src[tuple(slice(0, s) for s in idx.shape)] if src.ndim else src
    if reduce is None:
        np.put_along_axis(view, idx, src, d)
    else:
        _REDUCE_UFUNC[reduce].at(view, _full_index(idx, d), src)


def _scatter(self: Tensor, dim: int, index: Tensor, src: Any, reduce: Optional[str],
             name: str = "scatter") -> Tensor:
    d, idx = _gs_prepare(self, dim, index, name)
    if reduce is not None and reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    out = self._a.copy()
    if isinstance(src, Tensor):
        if src.dtype != self.dtype:
            raise RuntimeError(f"{name}(): Expected self.dtype to be equal to src.dtype")
        s: Any = src._a
    else:
        s = scalar_to_np(src, self.dtype)
    _scatter_into(out, d, idx, s, reduce)
    return wrap(out)


@op("aten::scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
    "aten::scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor",
    "aten::scatter.reduce(Tensor self, int dim, Tensor index, Tensor src, *, str reduce) -> "
    "Tensor",
    "aten::scatter.value_reduce(Tensor self, int dim, Tensor index, Scalar value, *, "
    "str reduce) -> Tensor")
def scatter(self: Tensor, dim: int, index: Tensor, src: Any, reduce: Optional[str] = None) -> Tensor:
    """A copy of self with src (or value) written at index along dim (gather's inverse)."""
    return _scatter(self, dim, index, src, reduce)


@op("aten::scatter_.src(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)",
    "aten::scatter_.value(Tensor(a!) self, int dim, Tensor index, Scalar value) -> Tensor(a!)",
    "aten::scatter_.reduce(Tensor(a!) self, int dim, Tensor index, Tensor src, *, "
    "str reduce) -> Tensor(a!)",
    "aten::scatter_.value_reduce(Tensor(a!) self, int dim, Tensor index, Scalar value, *, "
    "str reduce) -> Tensor(a!)")
def scatter_(self: Tensor, dim: int, index: Tensor, src: Any,
             reduce: Optional[str] = None) -> Tensor:
    """scatter in place."""
    return write_into(self, _scatter(self, dim, index, src, reduce)._a)


@op("aten::scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor")
def scatter_add(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """A copy of self with src accumulated at index along dim."""
    return _scatter(self, dim, index, src, "add", "scatter_add")


@op("aten::scatter_add_(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)")
def scatter_add_(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """scatter_add in place."""
    return write_into(self, scatter_add(self, dim, index, src)._a)


@op("aten::scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, "
    "bool include_self=True) -> Tensor")
def scatter_reduce(self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str,
                   include_self: bool = True) -> Tensor:
    """Reduce src into self at index along dim with sum / prod / mean / amax / amin."""
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got "
                           + reduce)
    d, idx = _gs_prepare(self, dim, index, "scatter_reduce")
    if src.dtype != self.dtype:
        raise RuntimeError("scatter_reduce(): Expected self.dtype to be equal to src.dtype")
    out = self._a.copy()
    hit = np.zeros(out.shape, bool)
    _scatter_into(hit, d, idx, np.ones(idx.shape, bool), None)
    if not include_self:
        ident = {"sum": 0, "mean": 0, "prod": 1,
                 "amax": -np.inf if out.dtype.kind == "f" else np.iinfo(out.dtype).min
                 if out.dtype.kind in "iu" else False,
                 "amin": np.inf if out.dtype.kind == "f" else np.iinfo(out.dtype).max
                 if out.dtype.kind in "iu" else True}[reduce]
        out[hit] = ident
    _scatter_into(out, d, idx, src._a, "sum" if reduce == "mean" else reduce)
    if reduce == "mean":
        count = np.zeros(out.shape, np.int64)
        _scatter_into(count, d, idx, np.ones(idx.shape, np.int64), "sum")
        count = count + (1 if include_self else 0)
        count = np.maximum(count, 1)
        res = out / count
        out = np.floor_divide(out, count) if out.dtype.kind in "iu" else res.astype(out.dtype)
    return wrap(out)


@op("aten::scatter_reduce_.two(Tensor(a!) self, int dim, Tensor index, Tensor src, "
    "str reduce, *, bool include_self=True) -> Tensor(a!)")
def scatter_reduce_(self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str,
                    include_self: bool = True) -> Tensor:
    """scatter_reduce in place."""
    return write_into(self, scatter_reduce(self, dim, index, src, reduce, include_self)._a)


@op("aten::take(Tensor self, Tensor index) -> Tensor")
def take(self: Tensor, index: Tensor) -> Tensor:
    """Elements of the flattened self at index (result shaped like index)."""
    flat = self._a.reshape(-1)
    idx = index._a
    if index.dtype.kind != "i":
        raise RuntimeError("take(): Expected a long tensor for index, but got " +
                           index.dtype.cname)
    n = flat.size
    if idx.size and (idx.max() >= n or idx.min() < -n):
        bad = int(idx.max()) if idx.max() >= n else int(idx.min())
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} "
                         "elements.")
    return wrap(np.take(flat, idx))


@op("aten::take_along_dim(Tensor self, Tensor indices, int? dim=None) -> Tensor")
def take_along_dim(self: Tensor, indices: Tensor, dim: Optional[int] = None) -> Tensor:
    """gather with broadcasting (on the flattened tensor when dim is None)."""
    if dim is None:
        return take(wrap(self._a.reshape(-1)), wrap(indices._a.reshape(-1)))
    a = self._a
    d = wrap_dim(dim, a.ndim)
    idx = indices._a
    shape_a = list(a.shape)
    shape_i = list(idx.shape)
    shape_a[d] = shape_i[d] = 1
    b = broadcast_shapes(shape_a, shape_i)
    ta = list(b)
    ta[d] = a.shape[d]
    ti = list(b)
    ti[d] = idx.shape[d]
    return wrap(np.take_along_axis(np.broadcast_to(a, ta), np.broadcast_to(idx, ti), d))


@op("aten::put_(Tensor(a!) self, Tensor index, Tensor source, bool accumulate=False) -> "
    "Tensor(a!)")
def put_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """Write source into the flattened self at index (or add with accumulate)."""
    a = self._writable()
    flat = a.reshape(-1)
    idx = index._a.reshape(-1)
    src = source._a.reshape(-1).astype(a.dtype)
    if accumulate:
        np.add.at(flat, idx, src)
    else:
        flat[idx] = src
    if not np.shares_memory(flat, a):
        a[...] = flat.reshape(a.shape)
    return self


@op("aten::put(Tensor self, Tensor index, Tensor source, bool accumulate=False) -> Tensor")
def put(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """put_ on a copy."""
    return put_(self.clone(), index, source, accumulate)


@op("aten::nonzero(Tensor self) -> Tensor", "aten::argwhere(Tensor self) -> Tensor")
def nonzero(self: Tensor) -> Tensor:
    """The indices of nonzero elements, one row per element (n x ndim, int64)."""
    a = self._a
    if a.ndim == 0:
        return wrap(np.zeros((int(bool(a)), 0), np.int64))
    return wrap(np.stack(np.nonzero(a), axis=1).astype(np.int64).reshape(-1, a.ndim))


@op("aten::nonzero_numpy(Tensor self) -> Tensor[]")
def nonzero_numpy(self: Tensor) -> list[Tensor]:
    """The indices of nonzero elements, one tensor per dimension."""
    a = self._a
    if a.ndim == 0:
        return [wrap(np.zeros(int(bool(a)), np.int64))]
    return [wrap(x.astype(np.int64)) for x in np.nonzero(a)]


# --- copy / fill ------------------------------------------------------------------------------------
@op("aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
    "aten::copy_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)")
def copy_(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    """Copy src's values (broadcast, converted) into self."""
    return write_into(self, to_np(src, self.dtype))


@op("aten::copy_.int(Tensor(a!) self, int other) -> Tensor(a!)",
    "aten::copy_.float(Tensor(a!) self, float other) -> Tensor(a!)")
def copy_scalar_(self: Tensor, other: Any) -> Tensor:
    """Fill self with a number."""
    self._writable()[...] = scalar_to_np(other, self.dtype)
    return self


@op("aten::fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)",
    "aten::fill_.Tensor(Tensor(a!) self, Tensor value) -> Tensor(a!)")
def fill_(self: Tensor, value: Any) -> Tensor:
    """Set every element to value."""
    if isinstance(value, Tensor):
        if value._a.ndim:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value._a.ndim} dimensions.")
        # a tensor value is copied (converted like copy_, unchecked); a Scalar is checked
        self._writable()[...] = to_np(value, self.dtype)
        return self
    self._writable()[...] = checked_scalar(value, self.dtype)
    return self


@op("aten::zero_(Tensor(a!) self) -> Tensor(a!)")
def zero_(self: Tensor) -> Tensor:
    """Set every element to zero."""
    self._writable()[...] = 0
    return self


@op("aten::fill_diagonal_(Tensor(a!) self, Scalar fill_value, bool wrap=False) -> Tensor(a!)")
def fill_diagonal_(self: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    """Set the main diagonal (all indices equal) to fill_value."""
    a = self._writable()
    if a.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if a.ndim > 2 and len(set(a.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    np.fill_diagonal(a, checked_scalar(fill_value, self.dtype), wrap=wrap)
    return self
