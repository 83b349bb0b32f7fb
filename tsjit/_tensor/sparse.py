"""Sparse tensors, as far as checkpoints need them: COO and CSR values that hold their
index and value tensors, convert back with `to_dense()`, and save as PyTorch saves them.

tsjit computes nothing on sparse tensors; `Tensor.to_sparse()` / `to_sparse_csr()` make
them (the nonzero elements in row-major order, as PyTorch's, coalesced).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as D
from .tensor import Size, Tensor


class Layout:
    """A tensor layout (`tsjit.sparse_coo` ...), printed as PyTorch prints its own."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return "torch." + self.name

    __str__ = __repr__


sparse_coo = Layout("sparse_coo")
sparse_csr = Layout("sparse_csr")
LAYOUTS = {str(x): x for x in (sparse_coo, sparse_csr)}


class SparseTensor:
    """A sparse COO tensor (`indices` [ndim, nnz], `values` [nnz]) or CSR matrix
    (`crow_indices`, `col_indices`, `values`)."""

    is_sparse = True

    def __init__(self, layout: Layout, parts: tuple, size: Any, coalesced: bool = True) -> None:
        self.layout = layout
        self.parts = tuple(parts)       # the index and value tensors, in PyTorch's order
        self.shape = Size(size)
        self.coalesced = bool(coalesced)

    @property
    def dtype(self) -> D.dtype:
        return self.parts[-1].dtype

    def size(self) -> Size:
        """The dense shape."""
        return self.shape

    def is_coalesced(self) -> bool:
        """Whether the COO indices are sorted and unique."""
        return self.coalesced

    def values(self) -> Tensor:
        """The stored values."""
        return self.parts[-1]

    def to_dense(self) -> Tensor:
        """The dense tensor (duplicates of a COO index are summed, as in PyTorch)."""
        values = self.parts[-1]._a
        out = np.zeros(tuple(self.shape) + values.shape[1:], values.dtype)
        if self.layout is sparse_coo:
            idx = tuple(self.parts[0]._a.astype(np.intp))
            np.add.at(out, idx, values)
        else:
            crow, col = self.parts[0]._a, self.parts[1]._a
            for r in range(len(crow) - 1):
                np.add.at(out[r], col[crow[r]:crow[r + 1]].astype(np.intp),
                          values[crow[r]:crow[r + 1]])
        return Tensor._wrap(out)

    def __repr__(self) -> str:
        names = ("indices",) if self.layout is sparse_coo else ("crow_indices", "col_indices")
        parts = ", ".join(f"{n}={p!r}" for n, p in zip(names + ("values",), self.parts))
        return f"tensor({parts}, size={tuple(self.shape)}, layout={self.layout})"


def to_sparse(t: Tensor) -> SparseTensor:
    """The COO form of dense tensor `t`: its nonzero elements, in row-major order."""
    a = t._a
    nz = np.nonzero(a)
    indices = np.array(nz, dtype=np.int64).reshape(a.ndim, -1)
    return SparseTensor(sparse_coo, (Tensor._wrap(indices), Tensor._wrap(a[nz].copy())),
                        a.shape)


def to_sparse_csr(t: Tensor) -> SparseTensor:
    """The CSR form of matrix `t`."""
    a = t._a
    if a.ndim != 2:
        raise RuntimeError(f"to_sparse_csr: expected a 2-D tensor, got {a.ndim}-D")
    rows, cols = np.nonzero(a)
    crow = np.zeros(a.shape[0] + 1, np.int64)
    np.add.at(crow, rows + 1, 1)
    crow = np.cumsum(crow)
    return SparseTensor(sparse_csr, (Tensor._wrap(crow), Tensor._wrap(cols.astype(np.int64)),
                                     Tensor._wrap(a[rows, cols].copy())), a.shape)
