"""Vector and matrix norms: norm, linalg_norm, linalg_vector_norm, linalg_matrix_norm,
frobenius / nuclear norms, dist and renorm (accumulated in float64)."""
from __future__ import annotations

import math
from typing import Any, Optional, Sequence

import numpy as np

from ..._tensor import dtypes as D
from ..registry import op
from ..._tensor.kernel_util import quiet, reduce_axes, to_np, wrap, wrap_dims
from ..._tensor.tensor import Tensor
from .tensor_reduce import acc


def _float_in(self: Tensor, dtype: Optional[int], name: str) -> tuple[np.ndarray, D.dtype]:
    a = self._a
    if dtype is not None:
        dt = D.as_dtype(dtype)
        if self.dtype.kind not in "fc" or dt.kind not in "fc":
            raise RuntimeError(f"{name}: dtype should be floating point or complex. Got "
                               f"{dt.cname} instead.")
        a = to_np(self, dt)
    elif self.dtype.kind not in "fc":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{self.dtype.cname}")
    else:
        dt = self.dtype
    return a, dt.to_real()


@quiet
def vector_norm_array(a: np.ndarray, ord: float, axes: Optional[tuple], keepdim: bool) -> np.ndarray:
    """The ord-norm of |a| over axes (None: all) in float64."""
    x = np.abs(acc(a))
    if math.isinf(ord):
        if (axes is None and x.size == 0) or (axes is not None and
                                              any(x.shape[d] == 0 for d in axes)):
            raise RuntimeError("linalg.vector_norm cannot compute the inf norm on an empty "
                               "tensor because the operation does not have an identity")
        return (np.max if ord > 0 else np.min)(x, axis=axes, keepdims=keepdim)
    if ord == 0:
        return np.sum(x != 0, axis=axes, keepdims=keepdim).astype(np.float64)
    if ord == 1:
        return np.sum(x, axis=axes, keepdims=keepdim)
    if ord == 2:
        return np.sqrt(np.sum(x * x, axis=axes, keepdims=keepdim))
    return np.sum(x ** ord, axis=axes, keepdims=keepdim) ** (1.0 / ord)


def _vector_norm(self: Tensor, ord: Any, dim: Any, keepdim: bool, dtype: Optional[int],
                 name: str = "linalg.vector_norm") -> Tensor:
    a, rdt = _float_in(self, dtype, name)
    axes = reduce_axes(dim, a.ndim)
    r = vector_norm_array(a, float(2 if ord is None else ord), axes, keepdim)
    return wrap(np.asarray(r).astype(rdt.np))


@op("aten::norm.Scalar(Tensor self, Scalar p=2) -> Tensor")
def norm(self: Tensor, p: Any = 2) -> Tensor:
    """The p-norm of all elements."""
    return _vector_norm(self, p, None, False, None)


@op("aten::norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim=False) -> Tensor")
def norm_dim(self: Tensor, p: Any, dim: Sequence[int], keepdim: bool = False) -> Tensor:
    """The p-norm (default 2) over dims."""
    return _vector_norm(self, p, list(dim), keepdim, None)


@op("aten::norm.ScalarOpt_dim_dtype(Tensor self, Scalar? p, int[1] dim, bool keepdim, *, "
    "ScalarType dtype) -> Tensor")
def norm_dim_dtype(self: Tensor, p: Any, dim: Sequence[int], keepdim: bool,
                   dtype: int) -> Tensor:
    """The p-norm over dims, computed as dtype."""
    return _vector_norm(self, p, list(dim), keepdim, dtype)


@op("aten::norm.ScalarOpt_dtype(Tensor self, Scalar? p, *, ScalarType dtype) -> Tensor")
def norm_dtype(self: Tensor, p: Any, dtype: int) -> Tensor:
    """The p-norm of all elements, computed as dtype."""
    return _vector_norm(self, p, None, False, dtype)


@op("aten::linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, "
    "*, ScalarType? dtype=None) -> Tensor")
def linalg_vector_norm(self: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False,
                       dtype: Optional[int] = None) -> Tensor:
    """The ord-norm over dims (all when None), treating the input as a vector."""
    return _vector_norm(self, ord, dim, keepdim, dtype)


@quiet
def _matrix_norm(a: np.ndarray, ord: Any, d: tuple[int, int], keepdim: bool) -> np.ndarray:
    x = np.moveaxis(acc(a), d, (-2, -1))
    if ord == "fro":
        r = np.sqrt(np.sum(np.abs(x) ** 2, axis=(-2, -1)))
    elif ord == "nuc":
        r = np.sum(np.linalg.svd(x, compute_uv=False), axis=-1)
    elif ord in (2, -2):
        s = np.linalg.svd(x, compute_uv=False)
        r = s.max(axis=-1) if ord == 2 else s.min(axis=-1)
    elif ord in (1, -1):
        c = np.sum(np.abs(x), axis=-2)
        r = c.max(axis=-1) if ord == 1 else c.min(axis=-1)
    elif ord in (math.inf, -math.inf):
        rows = np.sum(np.abs(x), axis=-1)
        r = rows.max(axis=-1) if ord > 0 else rows.min(axis=-1)
    else:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if keepdim:
        for k in sorted(d):
            r = np.expand_dims(r, k)
    return r


def _matrix_norm_t(self: Tensor, ord: Any, dim: Sequence[int], keepdim: bool,
                   dtype: Optional[int]) -> Tensor:
    a, rdt = _float_in(self, dtype, "linalg.matrix_norm")
    if a.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    d = wrap_dims(dim, a.ndim)
    if len(d) != 2:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got " +
                           " ".join(map(str, dim)))
    return wrap(np.asarray(_matrix_norm(a, ord, (d[0], d[1]), keepdim)).astype(rdt.np))


@op("aten::linalg_matrix_norm(Tensor self, Scalar ord, int[] dim=[-2, -1], bool keepdim=False, "
    "*, ScalarType? dtype=None) -> Tensor",
    "aten::linalg_matrix_norm.str_ord(Tensor self, str ord=\"fro\", int[] dim=[-2, -1], "
    "bool keepdim=False, *, ScalarType? dtype=None) -> Tensor")
def linalg_matrix_norm(self: Tensor, ord: Any = "fro", dim: Sequence[int] = (-2, -1),
                       keepdim: bool = False, dtype: Optional[int] = None) -> Tensor:
    """Matrix norm (fro, nuc, +-1, +-2, +-inf) over two dims."""
    return _matrix_norm_t(self, ord, dim, keepdim, dtype)


@op("aten::linalg_norm(Tensor self, Scalar? ord=None, int[1]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None) -> Tensor",
    "aten::linalg_norm.ord_str(Tensor self, str ord, int[1]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None) -> Tensor")
def linalg_norm(self: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False,
                dtype: Optional[int] = None) -> Tensor:
    """Vector norm for one dim / 1-D input, matrix norm for two dims / 2-D input."""
    a = self._a
    if dim is not None and isinstance(dim, int):
        dim = [dim]
    if ord is None:
        if dim is not None and len(dim) == 2:
            return _matrix_norm_t(self, "fro", dim, keepdim, dtype)
        return _vector_norm(self, 2, dim, keepdim, dtype, "linalg.norm")
    if dim is None:
        if a.ndim == 2:
            return _matrix_norm_t(self, ord, (0, 1), keepdim, dtype)
        if a.ndim != 1:
            raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must "
                               f"be 1D or 2D. Got {a.ndim}D.")
        dim = [0]
    if isinstance(ord, str) or len(dim) == 2:
        return _matrix_norm_t(self, ord, dim, keepdim, dtype)
    return _vector_norm(self, ord, dim, keepdim, dtype, "linalg.norm")


@op("aten::frobenius_norm.dim(Tensor self, int[1] dim, bool keepdim=False) -> Tensor")
def frobenius_norm(self: Tensor, dim: Sequence[int], keepdim: bool = False) -> Tensor:
    """sqrt(sum |x|^2) over dims."""
    return _vector_norm(self, 2, list(dim), keepdim, None)


@op("aten::nuclear_norm(Tensor self, bool keepdim=False) -> Tensor")
def nuclear_norm(self: Tensor, keepdim: bool = False) -> Tensor:
    """Sum of singular values of a matrix."""
    return _matrix_norm_t(self, "nuc", (0, 1), keepdim, None)


@op("aten::nuclear_norm.dim(Tensor self, int[2] dim, bool keepdim=False) -> Tensor")
def nuclear_norm_dim(self: Tensor, dim: Sequence[int], keepdim: bool = False) -> Tensor:
    """Sum of singular values over two dims."""
    return _matrix_norm_t(self, "nuc", dim, keepdim, None)


@op("aten::dist(Tensor self, Tensor other, Scalar p=2) -> Tensor")
def dist(self: Tensor, other: Tensor, p: Any = 2) -> Tensor:
    """The p-norm of self - other."""
    from .tensor_arith import sub
    return norm(sub(self, other), p)


@op("aten::renorm(Tensor self, Scalar p, int dim, Scalar maxnorm) -> Tensor")
@quiet
def renorm(self: Tensor, p: Any, dim: int, maxnorm: Any) -> Tensor:
    """Sub-tensors along dim rescaled so that their p-norm is at most maxnorm."""
    a, _ = _float_in(self, None, "renorm")
    d = wrap_dims([dim], a.ndim)[0]
    axes = tuple(k for k in range(a.ndim) if k != d)
    n = vector_norm_array(a, float(p), axes, True)
    scale = np.where(n > maxnorm, maxnorm / (n + 1e-7), 1.0)
    return wrap((acc(a) * scale).astype(a.dtype))
