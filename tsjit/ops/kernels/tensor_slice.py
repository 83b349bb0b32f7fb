"""Selecting parts of tensors: select, slice, narrow, split / chunk / unbind, diagonal,
unfold, as_strided (views) and flip, roll, rot90, tril / triu, diag, pixel_shuffle."""
from __future__ import annotations

import itertools
from typing import Any, Optional, Sequence

import numpy as np

from ..registry import op
from ..._tensor.kernel_util import fmt_shape, wrap, wrap_dims
from ..._tensor.tensor import Tensor, _root, wrap_dim
from .tensor_shape import _el_strides, strided_view


def _take(a: np.ndarray, d: int, sl: slice) -> np.ndarray:
    idx = [slice(None)] * a.ndim
    idx[d] = sl
    return a[tuple(idx)]


@op("aten::select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)")
def select(self: Tensor, dim: int, index: int) -> Tensor:
    """A view of one index along `dim` (that dimension removed)."""
    a = self._a
    if dim == 0 and a.ndim and -a.shape[0] <= index < a.shape[0]:
        return wrap(a[index, ...])      # the common case (rows of a loop), without the list
    if a.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, a.ndim)
    n = a.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{fmt_shape(a.shape)} at dimension {dim}")
    idx: list[Any] = [slice(None)] * a.ndim
    idx[d] = index
    return wrap(a[tuple(idx) + (Ellipsis,)])


@op("aten::slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, "
    "SymInt step=1) -> Tensor(a)")
def slice_(self: Tensor, dim: int = 0, start: Optional[int] = None, end: Optional[int] = None,
           step: int = 1) -> Tensor:
    """A view of start:end:step along `dim`."""
    a = self._a
    if a.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    d = wrap_dim(dim, a.ndim)
    return wrap(_take(a, d, slice(start, end, step)))


def _narrow_impl(self: Tensor, dim: int, start: int, length: int) -> Tensor:
    a = self._a
    if a.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = wrap_dim(dim, a.ndim)
    n = a.shape[d]
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got "
                         f"{start})")
    if start < 0:
        start += n
    if start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return wrap(_take(a, d, slice(start, start + length)))


@op("aten::narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)",
    "aten::narrow.Tensor(Tensor(a) self, int dim, Tensor start, SymInt length) -> Tensor(a)")
def narrow(self: Tensor, dim: int, start: Any, length: int) -> Tensor:
    """A view of `length` elements from `start` along `dim`."""
    if isinstance(start, Tensor):
        if start._a.ndim != 0 or start.dtype.kind != "i":
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        start = int(start)
    return _narrow_impl(self, dim, start, length)


@op("aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
    "aten::unsafe_split.Tensor(Tensor self, SymInt split_size, int dim=0) -> Tensor[]")
def split(self: Tensor, split_size: int, dim: int = 0) -> list[Tensor]:
    """Views of consecutive pieces of `split_size` along dim (the last may be smaller)."""
    a = self._a
    if a.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got "
                           f"split_size={split_size}")
    d = wrap_dim(dim, a.ndim)
    n = a.shape[d]
    if split_size == 0 and n != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                           f"dimension size of {n}")
    if n == 0:
        return [wrap(a.view())]
    return [wrap(_take(a, d, slice(i, i + split_size))) for i in range(0, n, split_size)]


@op("aten::split.sizes(Tensor(a -> *) self, SymInt[] split_size, int dim=0) -> Tensor(a)[]",
    "aten::split(Tensor(a -> *) self, int[] split_sizes, int dim=0) -> Tensor(a)[]",
    "aten::split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> "
    "Tensor(a)[]")
def split_with_sizes(self: Tensor, split_sizes: Sequence[int], dim: int = 0) -> list[Tensor]:
    """Views of pieces of the given sizes along dim."""
    a = self._a
    if a.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, a.ndim)
    n = a.shape[d]
    if sum(split_sizes) != n or any(s < 0 for s in split_sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input "
                           f"tensor's size at dimension {d}), but got "
                           f"split_sizes={fmt_shape(split_sizes)}")
    out, pos = [], 0
    for s in split_sizes:
        out.append(wrap(_take(a, d, slice(pos, pos + s))))
        pos += s
    return out


@op("aten::chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]",
    "aten::unsafe_chunk(Tensor self, int chunks, int dim=0) -> Tensor[]")
def chunk(self: Tensor, chunks: int, dim: int = 0) -> list[Tensor]:
    """At most `chunks` views of equal size ceil(n / chunks) along dim."""
    a = self._a
    if a.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = wrap_dim(dim, a.ndim)
    n = a.shape[d]
    size = -(-n // chunks)
    if size == 0 and n == 0:
        # PyTorch splits an empty dimension into `chunks` empty pieces
        return [wrap(a.view()) for _ in range(chunks)]
    return split(self, size, d)


@op("aten::unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]")
def unbind(self: Tensor, dim: int = 0) -> list[Tensor]:
    """Views of every index along dim (that dimension removed)."""
    a = self._a
    if a.ndim == 0:
        raise RuntimeError("Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, a.ndim)
    return [select(self, d, i) for i in range(a.shape[d])]


def _split_at(self: Tensor, bounds: Sequence[int], d: int) -> list[Tensor]:
    # piece i runs from index i-1 to index i (clamped); decreasing indices give empty pieces
    a = self._a
    n = a.shape[d]

    def clamp(b: int) -> int:
        return max(min(b if b >= 0 else b + n, n), 0)
    out, prev = [], 0
    for b in list(bounds):
        cb = clamp(b)
        out.append(wrap(_take(a, d, slice(prev, max(cb, prev)))))
        prev = cb
    out.append(wrap(_take(a, d, slice(prev, n))))
    return out


def _tensor_split(self: Tensor, spec: Any, dim: int) -> list[Tensor]:
    a = self._a
    if a.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    d = wrap_dim(dim, a.ndim)
    if isinstance(spec, int):
        if spec <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {spec}")
        n = a.shape[d]
        q, r = divmod(n, spec)
        bounds, pos = [], 0
        for i in range(spec - 1):
            pos += q + (1 if i < r else 0)
            bounds.append(pos)
        return _split_at(self, bounds, d)
    return _split_at(self, list(spec), d)


@op("aten::tensor_split.sections(Tensor(a -> *) self, SymInt sections, int dim=0) -> "
    "Tensor(a)[]",
    "aten::tensor_split.indices(Tensor(a -> *) self, SymInt[] indices, int dim=0) -> "
    "Tensor(a)[]",
    "aten::tensor_split.tensor_indices_or_sections(Tensor(a -> *) self, "
    "Tensor tensor_indices_or_sections, int dim=0) -> Tensor(a)[]")
def tensor_split(self: Tensor, spec: Any, dim: int = 0) -> list[Tensor]:
    """Views split into n near-equal sections, or at the given indices."""
    if isinstance(spec, Tensor):
        if spec.dtype.kind != "i" or spec.dtype.itemsize != 8:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have "
                               f"integer dtype, but got {spec.dtype.cname}")
        if spec._a.ndim > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a "
                               "zero-dimensional or one-dimensional tensor, but got a tensor "
                               f"with {spec._a.ndim} dims")
        spec = int(spec._a) if spec._a.ndim == 0 else [int(x) for x in spec._a]
    return _tensor_split(self, spec, dim)


def _hvd_split(name: str, self: Tensor, spec: Any, d: int, min_dims: int) -> list[Tensor]:
    a = self._a
    if a.ndim < min_dims:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, "
                           f"but got a tensor with {a.ndim} dimensions!")
    if isinstance(spec, int):
        if spec == 0 or a.shape[d] % spec != 0:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but the "
                               f"size of the dimension {a.shape[d]} is not divisible by the "
                               f"split_size {spec}!")
    return _tensor_split(self, spec, d)


@op("aten::hsplit.int(Tensor(a -> *) self, int sections) -> Tensor(a)[]",
    "aten::hsplit.array(Tensor(a -> *) self, int[] indices) -> Tensor(a)[]")
def hsplit(self: Tensor, spec: Any) -> list[Tensor]:
    """Split along dim 1 (dim 0 for 1-D)."""
    return _hvd_split("hsplit", self, spec, 1 if self._a.ndim > 1 else 0, 1)


@op("aten::vsplit.int(Tensor(a -> *) self, int sections) -> Tensor(a)[]",
    "aten::vsplit.array(Tensor(a -> *) self, int[] indices) -> Tensor(a)[]")
def vsplit(self: Tensor, spec: Any) -> list[Tensor]:
    """Split along dim 0."""
    return _hvd_split("vsplit", self, spec, 0, 2)


@op("aten::dsplit.int(Tensor(a -> *) self, int sections) -> Tensor(a)[]",
    "aten::dsplit.array(Tensor(a -> *) self, int[] indices) -> Tensor(a)[]")
def dsplit(self: Tensor, spec: Any) -> list[Tensor]:
    """Split along dim 2."""
    return _hvd_split("dsplit", self, spec, 2, 3)


@op("aten::diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)")
def diagonal(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """A (writeable) view of a diagonal, moved to the last dimension."""
    a = self._a
    d1, d2 = wrap_dim(dim1, a.ndim), wrap_dim(dim2, a.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if offset >= 0:
        a = _take(a, d2, slice(offset, None))
    else:
        a = _take(a, d1, slice(-offset, None))
    n = max(0, min(a.shape[d1], a.shape[d2]))
    st = _el_strides(a)
    keep = [k for k in range(a.ndim) if k not in (d1, d2)]
    shape = [a.shape[k] for k in keep] + [n]
    strides = [st[k] for k in keep] + [st[d1] + st[d2]]
    if n == 0 or a.size == 0:
        return wrap(np.zeros(shape, a.dtype))
    return wrap(strided_view(a, shape, strides))


@op("aten::diag(Tensor self, int diagonal=0) -> Tensor")
def diag(self: Tensor, diagonal: int = 0) -> Tensor:
    """A diagonal matrix from a vector, or a matrix's diagonal as a vector (copies)."""
    a = self._a
    if a.ndim == 1:
        return wrap(np.diag(a, diagonal))
    if a.ndim == 2:
        return wrap(np.diag(a, diagonal).copy())
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {a.ndim}D")


@op("aten::diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor")
def diag_embed(self: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Matrices whose (offset) diagonals are the last dimension of self."""
    a = self._a
    n = a.shape[-1] + abs(offset) if a.ndim else 1 + abs(offset)
    ndim = a.ndim + 1
    d1, d2 = wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)
    out = np.zeros(a.shape[:-1] + (n, n), a.dtype)
    idx = np.arange(a.shape[-1] if a.ndim else 1)
    r, c = (idx, idx + offset) if offset >= 0 else (idx - offset, idx)
    out[..., r, c] = a
    # the two new dims were placed last; move them where asked
    return wrap(np.moveaxis(out, (ndim - 2, ndim - 1), (d1, d2)))


@op("aten::trace(Tensor self) -> Tensor")
def trace(self: Tensor) -> Tensor:
    """Sum of the main diagonal of a matrix (integers sum as int64)."""
    a = self._a
    if a.ndim != 2:
        raise RuntimeError("trace: expected a matrix, but got tensor with dim " + str(a.ndim))
    if a.dtype == np.bool_:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    s = np.trace(a, dtype=np.int64 if a.dtype.kind in "biu" else a.dtype)
    return wrap(np.asarray(s))


@op("aten::unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)")
def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """A view of sliding windows of `size` every `step` along `dimension` (new last dim)."""
    a = self._a
    if a.ndim == 0:
        a = a.reshape(1)
    d = wrap_dim(dimension, a.ndim)
    n = a.shape[d]
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    st = _el_strides(a)
    shape = list(a.shape)
    shape[d] = (n - size) // step + 1
    strides = list(st)
    strides[d] = st[d] * step
    return wrap(strided_view(a, shape + [size], strides + [st[d]]))


@op("aten::as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, "
    "SymInt? storage_offset=None) -> Tensor(a)")
def as_strided(self: Tensor, size: Sequence[int], stride: Sequence[int],
               storage_offset: Optional[int] = None) -> Tensor:
    """A view of the underlying storage with explicit sizes, strides and offset."""
    root = _root(self._a)
    if not root.flags.c_contiguous:
        raise RuntimeError("as_strided: tsjit needs a contiguous base storage")
    flat = root.reshape(-1).view(self._a.dtype) if root.dtype == self._a.dtype else \
        root.reshape(-1).view(np.uint8).view(self._a.dtype)
    off = self.storage_offset() if storage_offset is None else storage_offset
    need = off + 1 + sum((s - 1) * st for s, st in zip(size, stride)) if all(size) else 0
    if need > flat.size:
        raise RuntimeError(f"setStorage: sizes {fmt_shape(size)}, strides {fmt_shape(stride)}, "
                           f"storage offset {off}, and itemsize {flat.itemsize} requiring a "
                           f"storage size of {need * flat.itemsize} are out of bounds for "
                           f"storage of size {flat.size * flat.itemsize}")
    return wrap(strided_view(flat[off:], size, stride))


@op("aten::flip(Tensor self, int[] dims) -> Tensor")
def flip(self: Tensor, dims: Sequence[int]) -> Tensor:
    """A copy with the order of elements reversed along dims."""
    a = self._a
    ds = wrap_dims(dims, a.ndim)
    if a.ndim == 0 or not ds:
        return wrap(a.copy())
    return wrap(np.flip(a, ds).copy())


@op("aten::fliplr(Tensor self) -> Tensor")
def fliplr(self: Tensor) -> Tensor:
    """flip along dim 1."""
    if self._a.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(self, [1])


@op("aten::flipud(Tensor self) -> Tensor")
def flipud(self: Tensor) -> Tensor:
    """flip along dim 0."""
    if self._a.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(self, [0])


@op("aten::roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor")
def roll(self: Tensor, shifts: Sequence[int], dims: Sequence[int] = ()) -> Tensor:
    """A copy with elements shifted cyclically along dims (flattened when dims is empty)."""
    a = self._a
    if a.size == 0:
        return wrap(a.copy())        # PyTorch returns before validating dims
    if not dims:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                               "dims:0")
        return wrap(np.roll(a.reshape(-1), shifts[0]).reshape(a.shape))
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                           f"dims:{len(dims)}")
    ds = [wrap_dim(d, a.ndim) for d in dims]
    if not a.ndim:
        return wrap(a.copy())
    if len(ds) <= 3 and len(set(ds)) == len(ds):
        return wrap(_roll_blocks(a, shifts, ds))
    return wrap(np.roll(a, tuple(shifts), tuple(ds)))


def _roll_blocks(a: np.ndarray, shifts: Sequence[int], dims: Sequence[int]) -> np.ndarray:
    """np.roll of `a` along distinct `dims` as 2^len(dims) block copies into one new array
    (np.roll copies the whole array once per dim, through Python; swin's shifted windows:
    12 -> 4 us)."""
    out = np.empty_like(a, order="C")
    # per dim, the (destination, source) slices of the two blocks a shift splits it into
    parts: list[list[tuple[slice, slice]]] = []
    for s, d in zip(shifts, dims):
        n = a.shape[d]
        k = int(s) % n if n else 0
        parts.append([(slice(0, k), slice(n - k, n)), (slice(k, n), slice(0, n - k))] if k
                     else [(slice(None), slice(None))])
    full = [slice(None)] * a.ndim
    for combo in itertools.product(*parts):
        dst, src = list(full), list(full)
        for (ds_, ss), d in zip(combo, dims):
            dst[d], src[d] = ds_, ss
        out[tuple(dst)] = a[tuple(src)]
    return out


@op("aten::rot90(Tensor self, int k=1, int[] dims=[0, 1]) -> Tensor")
def rot90(self: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:
    """A copy rotated by 90 degrees k times in the plane of dims."""
    a = self._a
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if a.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {a.ndim}")
    d = wrap_dims(dims, a.ndim)
    return wrap(np.rot90(a, k, d).copy())


def _tri(self: Tensor, diagonal: int, lower: bool) -> Tensor:
    a = self._a
    name = "tril" if lower else "triu"
    if a.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    r, c = a.shape[-2:]
    keep = np.tri(r, c, diagonal, dtype=bool) if lower else ~np.tri(r, c, diagonal - 1,
                                                                       dtype=bool)
    return wrap(np.where(keep, a, np.zeros((), a.dtype)))


@op("aten::tril(Tensor self, SymInt diagonal=0) -> Tensor")
def tril(self: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle (elements above the diagonal zeroed)."""
    return _tri(self, diagonal, True)


@op("aten::triu(Tensor self, SymInt diagonal=0) -> Tensor")
def triu(self: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle (elements below the diagonal zeroed)."""
    return _tri(self, diagonal, False)


@op("aten::tril_(Tensor(a!) self, SymInt diagonal=0) -> Tensor(a!)")
def tril_(self: Tensor, diagonal: int = 0) -> Tensor:
    """tril in place."""
    self._writable()[...] = tril(self, diagonal)._a
    return self


@op("aten::triu_(Tensor(a!) self, SymInt diagonal=0) -> Tensor(a!)")
def triu_(self: Tensor, diagonal: int = 0) -> Tensor:
    """triu in place."""
    self._writable()[...] = triu(self, diagonal)._a
    return self


@op("aten::pixel_shuffle(Tensor self, int upscale_factor) -> Tensor")
def pixel_shuffle(self: Tensor, upscale_factor: int) -> Tensor:
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r)."""
    a = self._a
    r = upscale_factor
    if a.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got "
                           f"input with {a.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    *lead, c, h, w = a.shape
    if c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c} "
                           f"is not divisible by {r * r}")
    oc = c // (r * r)
    x = a.reshape(*lead, oc, r, r, h, w)
    n = len(lead)
    x = x.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return wrap(x.reshape(*lead, oc, h * r, w * r))


@op("aten::pixel_unshuffle(Tensor self, int downscale_factor) -> Tensor")
def pixel_unshuffle(self: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W)."""
    a = self._a
    r = downscale_factor
    if a.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but "
                           f"got input with {a.ndim} dimension(s)")
    *lead, c, h, w = a.shape
    if h % r or w % r:
        raise RuntimeError("pixel_unshuffle expects height and width to be divisible by "
                           "downscale_factor")
    n = len(lead)
    x = a.reshape(*lead, c, h // r, r, w // r, r)
    x = x.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return wrap(x.reshape(*lead, c * r * r, h // r, w // r))


@op("aten::meshgrid(Tensor[] tensors) -> Tensor[]",
    "aten::meshgrid.indexing(Tensor[] tensors, *, str indexing) -> Tensor[]")
def meshgrid(tensors: Sequence[Tensor], indexing: str = "ij") -> list[Tensor]:
    """Coordinate grids from 1-D tensors ('ij' or 'xy' indexing)."""
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                           f"received: {indexing}")
    if len({t.dtype for t in tensors}) > 1:
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    for t in tensors:
        if t._a.ndim > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: {t}")
    grids = np.meshgrid(*(t._a.reshape(-1) for t in tensors), indexing=indexing)
    return [wrap(g.copy()) for g in grids]
