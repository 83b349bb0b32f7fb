"""The rest of torch.linalg's operators: linalg_matmul, linalg_vecdot, linalg_diagonal,
linalg_svdvals, linalg_eigvalsh, linalg_eigvals.

The decompositions, solvers and norms themselves live in `tensor_linalg.py` and
`tensor_norm.py`; `tsjit.linalg.<name>` reaches all of them (see `tsjit/linalg.py`).
"""
from __future__ import annotations

import numpy as np

from ..._tensor import dtypes as D
from ..registry import op
from ..._tensor.kernel_util import wrap
from ..._tensor.tensor import Tensor, wrap_dim
from .tensor_linalg import _float_input, linalg_eigh, matmul
from .tensor_reduce import acc
from .tensor_slice import diagonal

op("aten::linalg_matmul(Tensor self, Tensor other) -> Tensor")(matmul)


@op("aten::linalg_diagonal(Tensor(a) A, *, int offset=0, int dim1=-2, int dim2=-1) -> Tensor(a)")
def linalg_diagonal(A: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """A view of the diagonals of (batches of) matrices."""
    return diagonal(A, offset, dim1, dim2)


@op("aten::linalg_vecdot(Tensor x, Tensor y, *, int dim=-1) -> Tensor")
def linalg_vecdot(x: Tensor, y: Tensor, dim: int = -1) -> Tensor:
    """sum(conj(x) * y) along dim, broadcasting the other dimensions."""
    if x.dtype.kind not in "fc":
        raise RuntimeError("linalg.vecdot: Expected a floating point or complex tensor as "
                           f"input. Got {x.dtype.cname}")
    if x.dtype != y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found "
                           f"x of type {x.dtype.cname} and y of type {y.dtype.cname} instead")
    if x._a.ndim == 1 and y._a.ndim == 1 and x._a.shape != y._a.shape:
        # two vectors go to PyTorch's dot, which does not broadcast
        n, m = x._a.shape[0], y._a.shape[0]
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to "
                           f"have the same number of elements, but got {n} and {m} elements "
                           "respectively")
    try:
        a, b = np.broadcast_arrays(x._a, y._a)
    except ValueError:
        raise RuntimeError(f"linalg.vecdot: shapes {list(x.shape)} and {list(y.shape)} are not "
                           "broadcastable") from None
    d = wrap_dim(dim, a.ndim)   # a zero-dim input counts as one element along dim 0 / -1
    with np.errstate(all="ignore"):
        r = np.sum(np.conj(acc(a)) * acc(b), axis=d if a.ndim else None)
    return wrap(np.asarray(r).astype(a.dtype, copy=False))


@op("aten::linalg_svdvals(Tensor A, *, str? driver=None) -> Tensor")
def linalg_svdvals(A: Tensor, driver: str | None = None) -> Tensor:
    """The singular values, in descending order."""
    s = np.linalg.svd(acc(A._a), compute_uv=False)
    return wrap(s.astype(A.dtype.to_real().np))


@op("aten::linalg_eigvalsh(Tensor self, str UPLO=\"L\") -> Tensor")
def linalg_eigvalsh(self: Tensor, UPLO: str = "L") -> Tensor:
    """The eigenvalues of symmetric / Hermitian matrices, ascending."""
    return linalg_eigh(self, UPLO)[0]


@op("aten::linalg_eigvals(Tensor self) -> Tensor")
def linalg_eigvals(self: Tensor) -> Tensor:
    """The (complex) eigenvalues of square matrices."""
    a = _float_input(self, "linalg.eigvals")
    w = np.linalg.eigvals(acc(a))
    return wrap(w.astype(D.promote_types(self.dtype, D.complex64).np))
