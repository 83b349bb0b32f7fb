"""Sparse tensors as values: what a checkpoint holds, converted with `to_dense()`.

tsjit computes on dense tensors only. A sparse COO or compressed (CSR/CSC/BSR/BSC)
tensor loaded from a file keeps its parts (indices and values, themselves tensors) and
its shape, and `to_dense()` makes the dense tensor, adding up repeated COO entries as
PyTorch does. `layout` objects print as PyTorch's (`torch.sparse_coo`).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .tensor import Size, Tensor


class layout(int):
    """A tensor memory layout; an int equal to PyTorch's Layout code."""

    _by_name: dict[str, "layout"] = {}

    def __new__(cls, code: int, name: str) -> "layout":
        self = super().__new__(cls, code)
        self.name = name
        cls._by_name[name] = self
        return self

    def __repr__(self) -> str:
        return "torch." + self.name

    __str__ = __repr__

    def __reduce__(self) -> Any:
        return (layout_named, (self.name,))


def layout_named(name: str) -> layout:
    """The layout called `name` (`sparse_coo`, `torch.sparse_csr` ...); KeyError if none."""
    return layout._by_name[name[6:] if name.startswith("torch.") else name]


strided = layout(0, "strided")
sparse_coo = layout(1, "sparse_coo")
sparse_csr = layout(2, "sparse_csr")
sparse_csc = layout(4, "sparse_csc")
sparse_bsr = layout(5, "sparse_bsr")
sparse_bsc = layout(6, "sparse_bsc")
_COMPRESSED = {sparse_csr, sparse_csc, sparse_bsr, sparse_bsc}


class SparseTensor:
    """A sparse tensor's parts: COO `indices` (sparse_dim x nnz) and `values`, or
    compressed and plain indices and `values`, with the dense `shape`."""

    is_sparse = True

    def __init__(self, layout: layout, parts: tuple, shape: Any) -> None:
        self.layout = layout
        self._parts = parts
        self.shape = Size(shape)
        self.dtype = parts[-1].dtype    # (the values)
        self.requires_grad = False

    @property
    def parts(self) -> tuple:
        """The index and value tensors, in PyTorch's order (what a checkpoint stores)."""
        return self._parts

    def is_coalesced(self) -> bool:
        """Whether COO indices are known sorted and unique (made by `to_sparse()`)."""
        return getattr(self, "coalesced", False)

    def size(self) -> Size:
        """The dense shape."""
        return self.shape

    def dim(self) -> int:
        """The number of dimensions."""
        return len(self.shape)

    def values(self) -> Tensor:
        """The stored values."""
        return self._parts[-1]

    def indices(self) -> Tensor:
        """COO indices, one row per sparse dimension."""
        if self.layout != sparse_coo:
            raise RuntimeError(f"indices() is for sparse_coo tensors, not {self.layout}")
        return self._parts[0]

    def _nnz(self) -> int:
        return int(self._parts[-1].shape[0]) if self._parts[-1].dim() else 0

    def to_dense(self) -> Tensor:
        """The dense tensor (repeated COO entries are added up)."""
        values = self._parts[-1].numpy()
        out = np.zeros(tuple(self.shape), dtype=values.dtype)
        if self.layout == sparse_coo:
            index = self._parts[0].numpy()
            np.add.at(out, tuple(index), values)
            return Tensor._wrap(out)
        compressed, plain = (p.numpy() for p in self._parts[:2])
        rows = np.repeat(np.arange(len(compressed) - 1), np.diff(compressed))
        if self.layout in (sparse_csc, sparse_bsc):
            rows, plain = plain, rows
        if self.layout in (sparse_csr, sparse_csc):
            np.add.at(out, (rows, plain), values)
            return Tensor._wrap(out)
        br, bc = values.shape[1:3]      # blocks: values are nnz x block rows x block cols
        for (r, c), block in zip(zip(rows, plain), values):
            out[r * br:(r + 1) * br, c * bc:(c + 1) * bc] += block
        return Tensor._wrap(out)

    def __repr__(self) -> str:
        return (f"tensor(sparse, layout={self.layout}, size={tuple(self.shape)}, "
                f"nnz={self._nnz()}, dtype={self.dtype})")


def sparse_tensor(kind: layout, parts: tuple, shape: Any) -> SparseTensor:
    """A sparse tensor from its parts, its indices checked against the shape (a file
    may hold any numbers)."""
    shape = tuple(shape)
    if any(type(n) is not int or n < 0 for n in shape):
        raise ValueError(f"bad sparse tensor shape {shape}")
    if not all(isinstance(p, Tensor) for p in parts):
        raise ValueError("the parts of a sparse tensor are not tensors")
    values = parts[-1]
    if kind == sparse_coo:
        index = parts[0].numpy()
        if index.ndim != 2 or index.shape[1] != values.shape[0] or \
                index.shape[0] > len(shape) or index.dtype.kind not in "iu":
            raise ValueError("sparse COO indices do not match their values")
        dense_dims = tuple(values.shape[1:])
        if index.shape[0] + len(dense_dims) != len(shape) or \
                dense_dims != shape[index.shape[0]:]:
            raise ValueError("sparse COO values do not match the shape")
        if index.size and (index.min() < 0 or
                           (index.max(axis=1) >= np.array(shape[:index.shape[0]])).any()):
            raise ValueError("sparse COO indices are out of bounds")
        return SparseTensor(kind, parts, shape)
    if kind not in _COMPRESSED or len(parts) != 3 or len(shape) != 2:
        raise ValueError(f"unsupported sparse tensor layout {kind} of {len(shape)} dimensions")
    compressed, plain = (p.numpy() for p in parts[:2])
    blocks = tuple(values.shape[1:3]) if kind in (sparse_bsr, sparse_bsc) else (1, 1)
    outer, inner = (shape[0], shape[1]) if kind in (sparse_csr, sparse_bsr) else (shape[1], shape[0])
    if kind in (sparse_csc, sparse_bsc):
        blocks = blocks[::-1]
    ok = (compressed.ndim == 1 and plain.ndim == 1 and compressed.dtype.kind in "iu"
          and plain.dtype.kind in "iu" and outer % blocks[0] == 0
          and len(compressed) == outer // blocks[0] + 1
          and len(plain) == values.shape[0] and (len(compressed) == 0 or (
              compressed[0] == 0 and compressed[-1] == len(plain)
              and (np.diff(compressed) >= 0).all()))
          and (plain.size == 0 or (plain.min() >= 0 and (plain.max() + 1) * blocks[1] <= inner)))
    if not ok:
        raise ValueError(f"{kind} indices do not match their values or the shape")
    return SparseTensor(kind, parts, shape)


def to_sparse(t: Tensor) -> SparseTensor:
    """`t.to_sparse()`: the COO form of dense tensor `t`, its nonzero elements in row-major
    order (coalesced, as PyTorch's)."""
    a = t._a
    nz = np.nonzero(a)
    indices = np.array(nz, dtype=np.int64).reshape(a.ndim, -1)
    s = SparseTensor(sparse_coo, (Tensor._wrap(indices), Tensor._wrap(a[nz].copy())), a.shape)
    s.coalesced = True
    return s


def to_sparse_csr(t: Tensor) -> SparseTensor:
    """`t.to_sparse_csr()`: the CSR form of matrix `t`."""
    a = t._a
    if a.ndim != 2:
        raise RuntimeError(f"to_sparse_csr: expected a 2-D tensor, got {a.ndim}-D")
    rows, cols = np.nonzero(a)
    crow = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=a.shape[0]))])
    parts = (Tensor._wrap(crow.astype(np.int64)), Tensor._wrap(cols.astype(np.int64)),
             Tensor._wrap(a[rows, cols].copy()))
    return SparseTensor(sparse_csr, parts, a.shape)
