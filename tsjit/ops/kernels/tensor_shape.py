"""Shape and view operators: view, reshape, squeeze, transpose, permute, expand, select,
slice, narrow, diagonal, unfold ... (views share memory) and the copying ones: cat,
stack, repeat, flip, roll, tril / triu, pixel_shuffle ...
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np
from numpy.lib.stride_tricks import as_strided as _np_as_strided

from ..._tensor import dtypes as D
from ..registry import op
from ..._tensor.kernel_util import fmt_shape, numel, to_np, wrap, wrap_dims
from ..._tensor.tensor import Tensor, wrap_dim


def strided_view(a: np.ndarray, shape: Sequence[int], strides_el: Sequence[int]) -> np.ndarray:
    """A view of `a`'s memory (starting at a's first element) with element strides."""
    it = a.itemsize
    if a.dtype.isbuiltin != 1:
        # numpy's as_strided cannot describe ml_dtypes' types: stride unsigned ints of
        # the same size and view the result back
        u = a.view(np.dtype(f"u{it}"))
        return strided_view(u, shape, strides_el).view(a.dtype)
    return _np_as_strided(a, tuple(shape), tuple(s * it for s in strides_el),
                          writeable=a.flags.writeable)


def _el_strides(a: np.ndarray) -> list[int]:
    return [s // a.itemsize for s in a.strides]


# --- view / reshape -----------------------------------------------------------------------
def infer_size(shape: Sequence[int], n: int) -> tuple[int, ...]:
    """Resolve one -1 in `shape` for `n` elements, with PyTorch's errors."""
    shape = list(shape)
    neg = None
    known = 1
    for i, s in enumerate(shape):
        if s == -1:
            if neg is not None:
                raise RuntimeError("only one dimension can be inferred")
            neg = i
        elif s >= 0:
            known *= s
        else:
            raise RuntimeError(f"invalid shape dimension {s}")
    if n == known or (neg is not None and known > 0 and n % known == 0):
        if neg is not None:
            if known == 0:
                raise RuntimeError(
                    f"cannot reshape tensor of 0 elements into shape {fmt_shape(shape)} because "
                    "the unspecified dimension size -1 can be any value and is ambiguous")
            shape[neg] = n // known
        return tuple(shape)
    if neg is not None and known == 0:
        raise RuntimeError(
            f"cannot reshape tensor of 0 elements into shape {fmt_shape(shape)} because the "
            "unspecified dimension size -1 can be any value and is ambiguous")
    raise RuntimeError(f"shape '{fmt_shape(shape)}' is invalid for input of size {n}")


def _view_array(a: np.ndarray, shape: tuple[int, ...]) -> Optional[np.ndarray]:
    try:
        return a.reshape(shape, copy=False)
    except ValueError:
        return None


@op("aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)")
def view(self: Tensor, size: Sequence[int]) -> Tensor:
    """A view with a new shape; fails when the strides do not allow one."""
    if not size or min(size) >= -1:     # (numpy takes any negative size as the unknown)
        try:    # numpy's own view (its -1 and size rules are PyTorch's); errors: checked below
            return wrap(self._a.reshape(size, copy=False))
        except (ValueError, TypeError):
            pass
    shape = infer_size(size, self._a.size)
    v = _view_array(self._a, shape)
    if v is None:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                           "least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.")
    return wrap(v)


@op("aten::view.dtype(Tensor(a) self, ScalarType dtype) -> Tensor(a)")
def view_dtype(self: Tensor, dtype: int) -> Tensor:
    """The same memory reinterpreted as another dtype; with another element size the last
    dimension (stride 1) grows or shrinks, and the offset and other strides are rescaled."""
    dt = D.as_dtype(dtype)
    a = self._a
    old, new = a.itemsize, dt.itemsize
    if old == new:
        return wrap(a.view(dt.np))
    what = f"to view {self.dtype.cname} as {dt.cname} (different element sizes)"
    if a.ndim == 0:
        raise RuntimeError(f"self.dim() cannot be 0 {what}")
    strides = self.stride()
    # (numpy gives empty and length-1 dimensions arbitrary strides; PyTorch's are 1 there)
    if strides[-1] != 1 and a.size and a.shape[-1] > 1:
        raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
    if new > old:
        ratio = new // old
        checks = [("self.size(-1)", a.shape[-1]), ("self.storage_offset()",
                                                   self.storage_offset())]
        checks += [(f"self.stride({i})", st) for i, st in enumerate(strides[:-1])]
        for name, value in checks:
            if value % ratio:
                raise RuntimeError(f"{name} must be divisible by {ratio} {what}, but got {value}")
    shape = a.shape[:-1] + (a.shape[-1] * old // new,)
    if a.size == 0:
        return wrap(np.empty(shape, dt.np))
    return wrap(a.view(dt.np))


@op("aten::reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)")
def reshape(self: Tensor, shape: Sequence[int]) -> Tensor:
    """A view with a new shape when possible, else a copy."""
    return wrap(self._a.reshape(infer_size(shape, self._a.size)))


@op("aten::view_as(Tensor(a) self, Tensor other) -> Tensor(a)")
def view_as(self: Tensor, other: Tensor) -> Tensor:
    """view(other.shape)."""
    return view(self, other._a.shape)


@op("aten::reshape_as(Tensor(a) self, Tensor other) -> Tensor(a)")
def reshape_as(self: Tensor, other: Tensor) -> Tensor:
    """reshape(other.shape)."""
    return reshape(self, other._a.shape)


@op("aten::flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)")
def flatten(self: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dims start_dim..end_dim into one."""
    a = self._a
    s = wrap_dim(start_dim, a.ndim)
    e = wrap_dim(end_dim, a.ndim)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if a.ndim == 0:
        return wrap(a.reshape(1))
    if s == e:
        return self
    shape = a.shape[:s] + (numel(a.shape[s:e + 1]),) + a.shape[e + 1:]
    return wrap(np.reshape(a, shape))


@op("aten::ravel(Tensor(a) self) -> Tensor(a)")
def ravel(self: Tensor) -> Tensor:
    """A 1-D view (or copy) of all elements."""
    return wrap(np.reshape(self._a, (-1,)))


@op("aten::unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)")
def unflatten(self: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:
    """Split dimension `dim` into `sizes`."""
    a = self._a
    if len(sizes) == 0:
        raise RuntimeError("unflatten: sizes must be non-empty")
    d = wrap_dim(dim, a.ndim)
    n = a.shape[d] if a.ndim else 1
    try:
        sz = infer_size(sizes, n)
    except RuntimeError:
        if -1 in sizes:
            raise
        raise RuntimeError(f"unflatten: Provided sizes {fmt_shape(sizes)} don't multiply up to "
                           f"the size of dim {dim} ({n}) in the input tensor") from None
    return wrap(np.reshape(a, a.shape[:d] + tuple(sz) + a.shape[d + 1:]))


# --- squeeze / unsqueeze / transpose / permute --------------------------------------------
@op("aten::squeeze(Tensor(a) self) -> Tensor(a)",
    "aten::squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)",
    "aten::squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)")
def squeeze(self: Tensor, dim: Any = None) -> Tensor:
    """Remove size-1 dimensions (all, or the given ones that have size 1)."""
    a = self._a
    if dim is None:
        return wrap(a.reshape([s for s in a.shape if s != 1]) if 1 in a.shape else a.view())
    dims = wrap_dims([dim] if isinstance(dim, int) else dim, a.ndim)
    if a.ndim == 0:
        return wrap(a.view())
    drop = tuple(d for d in dims if a.shape[d] == 1)
    return wrap(np.squeeze(a, drop) if drop else a.view())


@op("aten::unsqueeze(Tensor(a) self, int dim) -> Tensor(a)")
def unsqueeze(self: Tensor, dim: int) -> Tensor:
    """Insert a size-1 dimension at `dim`."""
    a = self._a
    d = wrap_dim(dim, a.ndim + 1)
    shape = a.shape
    return wrap(a.reshape(shape[:d] + (1,) + shape[d:]))     # a view, as np.expand_dims


@op("aten::transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
    "aten::swapaxes(Tensor(a) self, int axis0, int axis1) -> Tensor(a)",
    "aten::swapdims(Tensor(a) self, int dim0, int dim1) -> Tensor(a)")
def transpose(self: Tensor, dim0: int, dim1: int) -> Tensor:
    """A view with dims dim0 and dim1 swapped."""
    a = self._a
    d0, d1 = wrap_dim(dim0, a.ndim), wrap_dim(dim1, a.ndim)
    return wrap(a.swapaxes(d0, d1) if a.ndim else a.view())


@op("aten::t(Tensor(a) self) -> Tensor(a)")
def t(self: Tensor) -> Tensor:
    """Transpose of a matrix (vectors and scalars unchanged)."""
    a = self._a
    if a.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
    return wrap(a.T if a.ndim == 2 else a.view())


@op("aten::numpy_T(Tensor(a) self) -> Tensor(a)", "aten::numpy_T.a(Tensor(a) self) -> Tensor(a)")
def numpy_T(self: Tensor) -> Tensor:
    """All dimensions reversed (x.T)."""
    return wrap(self._a.transpose())


@op("aten::mT(Tensor(a) self) -> Tensor(a)", "aten::mT.a(Tensor(a) self) -> Tensor(a)")
def mT(self: Tensor) -> Tensor:
    """The last two dimensions swapped (zero-dim tensors are returned as they are)."""
    if self._a.ndim == 0:
        return wrap(self._a.view())
    return self.mT


@op("aten::mH(Tensor(a) self) -> Tensor(a)", "aten::mH.a(Tensor(a) self) -> Tensor(a)",
    "aten::matrix_H(Tensor(a) self) -> Tensor(a)",
    "aten::matrix_H.a(Tensor(a) self) -> Tensor(a)")
def mH(self: Tensor) -> Tensor:
    """Conjugate transpose of the last two dimensions."""
    r = transpose(self, -2, -1)
    return wrap(np.conj(r._a)) if self.is_complex() else r


@op("aten::permute(Tensor(a) self, int[] dims) -> Tensor(a)")
def permute(self: Tensor, dims: Sequence[int]) -> Tensor:
    """A view with dimensions reordered."""
    a = self._a
    if len(dims) != a.ndim:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does "
                           "not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {a.ndim} is not equal to len(dims) = {len(dims)}")
    ds = [wrap_dim(d, a.ndim) for d in dims]
    if len(set(ds)) != len(ds):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return wrap(a.transpose(ds) if a.ndim else a.view())


@op("aten::movedim.int(Tensor(a) self, int source, int destination) -> Tensor(a)",
    "aten::movedim.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)",
    "aten::moveaxis.int(Tensor(a) self, int source, int destination) -> Tensor(a)",
    "aten::moveaxis.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)")
def movedim(self: Tensor, source: Any, destination: Any) -> Tensor:
    """A view with the source dims moved to the destination positions."""
    a = self._a
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) "
                           f"should contain the same number of dims as destination ({dst} dims)")
    s = wrap_dims(src, a.ndim)
    d = wrap_dims(dst, a.ndim)
    return wrap(np.moveaxis(a, s, d) if a.ndim else a.view())


# --- in-place view changes ---------------------------------------------------------------
def _rebind(self: Tensor, r: Tensor) -> Tensor:
    self._a = r._a
    return self


@op("aten::squeeze_(Tensor(a!) self) -> Tensor(a!)",
    "aten::squeeze_.dim(Tensor(a!) self, int dim) -> Tensor(a!)",
    "aten::squeeze_.dims(Tensor(a!) self, int[] dim) -> Tensor(a!)")
def squeeze_(self: Tensor, dim: Any = None) -> Tensor:
    """squeeze in place (changes self's shape)."""
    return _rebind(self, squeeze(self, dim))


@op("aten::unsqueeze_(Tensor(a!) self, int dim) -> Tensor(a!)")
def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    """unsqueeze in place."""
    return _rebind(self, unsqueeze(self, dim))


@op("aten::transpose_(Tensor(a!) self, int dim0, int dim1) -> Tensor(a!)")
def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    """transpose in place."""
    return _rebind(self, transpose(self, dim0, dim1))


@op("aten::t_(Tensor(a!) self) -> Tensor(a!)")
def t_(self: Tensor) -> Tensor:
    """t in place."""
    return _rebind(self, t(self))


@op("aten::resize_(Tensor(a!) self, SymInt[] size, *, MemoryFormat? memory_format=None) -> "
    "Tensor(a!)")
def resize_(self: Tensor, size: Sequence[int], memory_format: Any = None) -> Tensor:
    """Give self a new shape, keeping the leading elements (new ones are zero)."""
    n = numel(size)
    if n == self._a.size and self._a.flags.c_contiguous:
        self._a = self._a.reshape(tuple(size))
        return self
    flat = np.zeros(n, self._a.dtype)
    old = self._a.reshape(-1)
    flat[:min(n, old.size)] = old[:min(n, old.size)]
    self._a = flat.reshape(tuple(size))
    return self


# --- expand / repeat ------------------------------------------------------------------------
def expand_array(a: np.ndarray, size: Sequence[int]) -> np.ndarray:
    """A (writeable, zero-stride) view of `a` expanded to `size` (-1 keeps a size)."""
    size = list(size)
    if len(size) < a.ndim:
        raise RuntimeError(f"expand(torch.{D.from_numpy_dtype(a.dtype).cname}Tensor"
                           f"{{{fmt_shape(a.shape)}}}, size={fmt_shape(size)}): the number of "
                           f"sizes provided ({len(size)}) must be greater or equal to the "
                           f"number of dimensions in the tensor ({a.ndim})")
    lead = len(size) - a.ndim
    strides = _el_strides(a)
    out_shape, out_strides = [], []
    for i, s in enumerate(size):
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a "
                                   "leading, non-existing dimension 0")
            out_shape.append(s)
            out_strides.append(0)
            continue
        cur = a.shape[i - lead]
        if s == -1:
            s = cur
        if cur == s:
            out_shape.append(s)
            out_strides.append(strides[i - lead])
        elif cur == 1:
            out_shape.append(s)
            out_strides.append(0)
        else:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing "
                               f"size ({cur}) at non-singleton dimension {i}.  Target sizes: "
                               f"{fmt_shape(size)}.  Tensor sizes: {fmt_shape(a.shape)}")
    if tuple(out_shape) == a.shape:
        return a.view()
    return strided_view(a, out_shape, out_strides)


@op("aten::expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)",
    "aten::broadcast_to(Tensor(a) self, SymInt[] size) -> Tensor(a)")
def expand(self: Tensor, size: Sequence[int], implicit: bool = False) -> Tensor:
    """A view with size-1 dimensions repeated (without copying) to `size`."""
    return wrap(expand_array(self._a, size))


@op("aten::expand_as(Tensor(a) self, Tensor other) -> Tensor(a)")
def expand_as(self: Tensor, other: Tensor) -> Tensor:
    """expand(other.shape)."""
    return expand(self, other._a.shape)


@op("aten::broadcast_tensors(Tensor[] tensors) -> Tensor[]")
def broadcast_tensors(tensors: list[Tensor]) -> list[Tensor]:
    """Views of all tensors expanded to their common broadcast shape."""
    from ..._tensor.kernel_util import broadcast_shapes
    shape = broadcast_shapes(*(t._a.shape for t in tensors))
    return [expand(t, shape) for t in tensors]


@op("aten::repeat(Tensor self, SymInt[] repeats) -> Tensor")
def repeat(self: Tensor, repeats: Sequence[int]) -> Tensor:
    """The tensor tiled `repeats` times along each dimension (a copy)."""
    a = self._a
    if len(repeats) < a.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    if any(r < 0 for r in repeats):
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{min(repeats)}: {fmt_shape(repeats)}")
    a = a.reshape((1,) * (len(repeats) - a.ndim) + a.shape)
    return wrap(np.tile(a, tuple(repeats)) if repeats else a.copy())


@op("aten::tile(Tensor self, SymInt[] dims) -> Tensor")
def tile(self: Tensor, dims: Sequence[int]) -> Tensor:
    """repeat, with missing leading repeat counts taken as 1."""
    dims = [1] * max(0, self._a.ndim - len(dims)) + list(dims)
    return repeat(self, dims)


@op("aten::repeat_interleave.self_int(Tensor self, SymInt repeats, int? dim=None, *, "
    "SymInt? output_size=None) -> Tensor",
    "aten::repeat_interleave.self_Tensor(Tensor self, Tensor repeats, int? dim=None, *, "
    "SymInt? output_size=None) -> Tensor")
def repeat_interleave(self: Tensor, repeats: Any, dim: Optional[int] = None,
                      output_size: Optional[int] = None) -> Tensor:
    """Each element (or slice along dim) repeated `repeats` times."""
    a = self._a
    r = repeats._a if isinstance(repeats, Tensor) else repeats
    if isinstance(repeats, Tensor) and repeats.dtype.kind != "i":
        raise RuntimeError("repeats has to be Long or Int tensor")
    if np.any(np.asarray(r) < 0):
        raise RuntimeError("repeats can not be negative")
    if dim is None:
        return wrap(np.repeat(a.reshape(-1), r))
    if a.ndim == 0:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    return wrap(np.repeat(a, r, axis=wrap_dim(dim, a.ndim)))


@op("aten::repeat_interleave.Tensor(Tensor repeats, *, SymInt? output_size=None) -> Tensor")
def repeat_interleave_counts(repeats: Tensor, output_size: Optional[int] = None) -> Tensor:
    """Index i repeated repeats[i] times."""
    r = repeats._a
    if r.ndim > 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    return wrap(np.repeat(np.arange(r.size, dtype=np.int64), r).astype(r.dtype))


# --- cat / stack ------------------------------------------------------------------------------
def _cat_dtype(tensors: Sequence[Tensor]) -> D.dtype:
    dt = tensors[0].dtype
    for t in tensors[1:]:
        dt = D.promote_types(dt, t.dtype)
    return dt


@op("aten::cat(Tensor[] tensors, int dim=0) -> Tensor",
    "aten::concat(Tensor[] tensors, int dim=0) -> Tensor",
    "aten::concatenate(Tensor[] tensors, int dim=0) -> Tensor")
def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Tensors joined along an existing dimension (dtypes promote)."""
    if len(tensors) == 0:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    arrays = [t._a for t in tensors]
    a0 = arrays[0]
    nd = a0.ndim
    # the common case (one dtype, one rank above 1, so no promotion and no legacy empty
    # rule) is numpy's own concatenation: densenet joins up to 24 tensors per call
    if nd > 1 and -nd <= dim < nd and all(a.dtype is a0.dtype and a.ndim == nd
                                          for a in arrays):
        try:
            return wrap(np.concatenate(arrays, axis=dim))
        except ValueError:
            pass        # sizes differ: the checks below say where, as PyTorch does
    for i, t in enumerate(tensors):
        if t._a.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated")
    dt = _cat_dtype(tensors)
    # legacy rule: 1-D empty tensors are skipped whatever the other shapes
    parts = [(i, t) for i, t in enumerate(tensors) if not (t._a.ndim == 1 and t._a.size == 0)]
    if not parts:
        return wrap(np.zeros((0,), D.to_numpy_dtype(dt)))
    ref_i, ref = parts[0]
    d = wrap_dim(dim, ref._a.ndim)
    for i, t in parts[1:]:
        if t._a.ndim != ref._a.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got "
                               f"{ref._a.ndim} and {t._a.ndim}")
        for k in range(ref._a.ndim):
            if k != d and t._a.shape[k] != ref._a.shape[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. "
                                   f"Expected size {ref._a.shape[k]} but got size "
                                   f"{t._a.shape[k]} for tensor number {i} in the list.")
    return wrap(np.concatenate([to_np(t, dt) for _, t in parts], axis=d))


@op("aten::stack(Tensor[] tensors, int dim=0) -> Tensor")
def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Equal-shaped tensors joined along a new dimension."""
    if len(tensors) == 0:
        raise RuntimeError("stack expects a non-empty TensorList")
    s0 = tensors[0]._a.shape
    for i, t in enumerate(tensors[1:], 1):
        if t._a.shape != s0:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{fmt_shape(s0)} at entry 0 and {fmt_shape(t._a.shape)} at "
                               f"entry {i}")
    d = wrap_dim(dim, len(s0) + 1)
    dt = _cat_dtype(tensors)
    return wrap(np.stack([to_np(t, dt) for t in tensors], axis=d))


def _atleast(t: Tensor, n: int) -> Tensor:
    a = t._a
    if a.ndim >= n:
        return t
    if n == 3 and a.ndim == 2:
        return wrap(a[:, :, None])
    if n == 3 and a.ndim == 1:
        return wrap(a[None, :, None])
    return wrap(a.reshape((1,) * (n - a.ndim) + a.shape))


for _n in (1, 2, 3):
    def _mk(n: int) -> tuple[Any, Any]:
        def one(self: Tensor) -> Tensor:
            return _atleast(self, n)

        def many(tensors: list[Tensor]) -> list[Tensor]:
            return [_atleast(t, n) for t in tensors]
        one.__name__, many.__name__ = f"atleast_{n}d", f"atleast_{n}d_seq"
        one.__doc__ = many.__doc__ = f"Views with at least {n} dimensions."
        return one, many
    _one, _many = _mk(_n)
    op(f"aten::atleast_{_n}d(Tensor self) -> Tensor")(_one)
    op(f"aten::atleast_{_n}d.Sequence(Tensor[] tensors) -> Tensor[]")(_many)
del _n, _one, _many


@op("aten::hstack(Tensor[] tensors) -> Tensor")
def hstack(tensors: Sequence[Tensor]) -> Tensor:
    """Concatenate along dim 1 (dim 0 for 1-D tensors)."""
    ts = [_atleast(t, 1) for t in tensors]
    if not ts:
        raise RuntimeError("hstack expects a non-empty TensorList")
    return cat(ts, 0 if ts[0]._a.ndim == 1 else 1)


@op("aten::vstack(Tensor[] tensors) -> Tensor")
def vstack(tensors: Sequence[Tensor]) -> Tensor:
    """Concatenate along dim 0 after making tensors at least 2-D."""
    if not tensors:
        raise RuntimeError("vstack expects a non-empty TensorList")
    return cat([_atleast(t, 2) for t in tensors], 0)


@op("aten::dstack(Tensor[] tensors) -> Tensor")
def dstack(tensors: Sequence[Tensor]) -> Tensor:
    """Concatenate along dim 2 after making tensors at least 3-D."""
    if not tensors:
        raise RuntimeError("dstack expects a non-empty TensorList")
    return cat([_atleast(t, 3) for t in tensors], 2)


@op("aten::column_stack(Tensor[] tensors) -> Tensor")
def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    """Stack 1-D tensors as columns, concatenate others along dim 1."""
    if not tensors:
        raise RuntimeError("column_stack expects a non-empty TensorList")
    ts = [wrap(t._a.reshape(-1, 1)) if t._a.ndim <= 1 else t for t in tensors]
    return cat(ts, 1)
