"""quantile / nanquantile and linalg_matrix_rank (its four overloads)."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..._tensor import dtypes as D
from ..registry import op
from ..._tensor.kernel_util import quiet, to_np, wrap
from ..._tensor.tensor import Tensor, wrap_dim

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _lerp(lo: np.ndarray, hi: np.ndarray, w: np.ndarray) -> np.ndarray:
    # PyTorch's lerp evaluates from the nearer end, which changes the last bit
    return np.where(np.abs(w) < 0.5, lo + w * (hi - lo), hi - (hi - lo) * (1 - w))


def _quantile(self: Tensor, q: Any, dim: Optional[int], keepdim: bool, interpolation: str,
              ignore_nan: bool) -> Tensor:
    name = "nanquantile()" if ignore_nan else "quantile()"
    a = self._a
    if a.size == 0:
        raise RuntimeError(f"{name} input tensor must be non-empty")
    if isinstance(q, Tensor) and q._a.ndim > 1:
        raise RuntimeError(f"{name} q must be a scalar or 1D tensor")
    if self.dtype not in (D.float32, D.float64):
        raise RuntimeError(f"{name} input tensor must be either float or double dtype")
    if isinstance(q, Tensor) and q.dtype != self.dtype:
        raise RuntimeError(f"{name} q tensor must be same dtype as the input tensor")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name} interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    qa = to_np(q, self.dtype)
    if isinstance(q, Tensor):
        if np.any(~((qa >= 0) & (qa <= 1))):
            raise RuntimeError(f"{name} q values must be in the range [0, 1]")
    elif not 0 <= q <= 1:
        raise RuntimeError(f"{name} q must be in the range [0, 1] but got {q}")
    # the values to reduce along a last axis; out_shape is what remains of self's dims
    if dim is None:
        flat = a.reshape(1, -1)
        out_shape = (1,) * a.ndim if keepdim else ()
    else:
        d = wrap_dim(dim, a.ndim)
        moved = np.moveaxis(a.reshape(a.shape or (1,)), d if a.ndim else 0, -1)
        flat = moved.reshape(-1, moved.shape[-1])
        kept = list(a.shape)
        if a.ndim:
            kept[d] = 1
        out_shape = tuple(kept) if keepdim else tuple(s for i, s in enumerate(a.shape) if i != d)
    srt = np.sort(flat, axis=-1)       # NaN sorts last
    nan = np.isnan(srt)
    last = srt.shape[-1] - 1
    qv = qa.reshape(-1)                 # ranks are computed in self's dtype, like PyTorch
    if ignore_nan:
        count = (~nan).sum(-1, keepdims=True).astype(a.dtype)
        ranks = qv[None, :] * (count - 1)
        ranks = np.where(ranks < 0, 0, ranks)   # all NaN: any rank gives NaN
    else:
        ranks = np.broadcast_to(qv[None, :] * a.dtype.type(last), (srt.shape[0], qv.size))
        ranks = np.where(nan.any(-1, keepdims=True), a.dtype.type(last), ranks)
    if interpolation == "lower":
        ranks = np.floor(ranks)
    elif interpolation == "higher":
        ranks = np.ceil(ranks)
    elif interpolation == "nearest":
        ranks = np.round(ranks)
    lo_i = np.floor(ranks).astype(np.int64)
    hi_i = np.ceil(ranks).astype(np.int64)
    lo = np.take_along_axis(srt, lo_i, -1)
    hi = np.take_along_axis(srt, hi_i, -1)
    if interpolation == "linear":
        r = _lerp(lo, hi, (ranks - lo_i).astype(a.dtype))
    elif interpolation == "midpoint":
        r = _lerp(lo, hi, np.full_like(lo, 0.5))
    else:
        r = lo
    r = r.astype(a.dtype, copy=False).T.reshape((qv.size,) + out_shape)   # q's dim first
    if not (isinstance(q, Tensor) and q._a.ndim == 1):
        r = r[0]
    return wrap(np.array(r))   # (ascontiguousarray would make a 0-d result 1-d)


@op('aten::quantile(Tensor self, Tensor q, int? dim=None, bool keepdim=False, *, '
    'str interpolation="linear") -> Tensor',
    'aten::quantile.scalar(Tensor self, float q, int? dim=None, bool keepdim=False, *, '
    'str interpolation="linear") -> Tensor')
@quiet
def quantile(self: Tensor, q: Any, dim: Optional[int] = None, keepdim: bool = False,
             interpolation: str = "linear") -> Tensor:
    """The q-th quantiles of self (flattened, or along dim); NaN where a slice has NaN."""
    return _quantile(self, q, dim, keepdim, interpolation, False)


@op('aten::nanquantile(Tensor self, Tensor q, int? dim=None, bool keepdim=False, *, '
    'str interpolation="linear") -> Tensor',
    'aten::nanquantile.scalar(Tensor self, float q, int? dim=None, bool keepdim=False, *, '
    'str interpolation="linear") -> Tensor')
@quiet
def nanquantile(self: Tensor, q: Any, dim: Optional[int] = None, keepdim: bool = False,
                interpolation: str = "linear") -> Tensor:
    """quantile ignoring NaN values (NaN where a slice is all NaN)."""
    return _quantile(self, q, dim, keepdim, interpolation, True)


# --- matrix rank -------------------------------------------------------------------------------
def _singular_values(a: np.ndarray, hermitian: bool) -> np.ndarray:
    m, n = a.shape[-2:]
    if m == 0 or n == 0:
        return np.zeros(a.shape[:-2] + (0,), a.real.dtype)
    if hermitian:
        return np.abs(np.linalg.eigvalsh(a))
    return np.linalg.svd(a, compute_uv=False)


def _matrix_rank(a_t: Tensor, atol: Any, rtol: Any, hermitian: bool) -> Tensor:
    a = a_t._a
    if a.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at "
                           "least 2 dimensions.")
    if a_t.dtype.kind not in "fc" or a_t.dtype == D.float16:
        raise RuntimeError("torch.linalg.matrix_rank: Expected a floating point or complex "
                           f"tensor as input. Got {a_t.dtype.cname}")
    s = _singular_values(a, hermitian)
    real = s.dtype
    at = None if atol is None else to_np(atol, D.from_numpy_dtype(real))
    rt = None if rtol is None else to_np(rtol, D.from_numpy_dtype(real))
    if rt is None:
        # without rtol: eps * max(m, n), unless a positive atol is given
        default = np.asarray(np.finfo(real).eps * max(a.shape[-2:]), real)
        rt = default if at is None else np.where(at > 0, np.zeros_like(default), default)
    if at is None:
        at = np.zeros((), real)
    smax = s.max(-1) if s.shape[-1] else np.zeros(s.shape[:-1], real)
    tol = np.maximum(at, rt * smax)
    return wrap(np.asarray((s > np.asarray(tol)[..., None]).sum(-1), np.int64))


@op("aten::linalg_matrix_rank(Tensor self, float tol, bool hermitian=False) -> Tensor",
    "aten::linalg_matrix_rank.tol_tensor(Tensor input, Tensor tol, bool hermitian=False) -> "
    "Tensor")
@quiet
def linalg_matrix_rank_tol(self: Tensor, tol: Any, hermitian: bool = False) -> Tensor:
    """The number of singular values above tol (an absolute tolerance)."""
    return _matrix_rank(self, tol, 0.0, hermitian)


@op("aten::linalg_matrix_rank.atol_rtol_tensor(Tensor input, *, Tensor? atol=None, "
    "Tensor? rtol=None, bool hermitian=False) -> Tensor",
    "aten::linalg_matrix_rank.atol_rtol_float(Tensor self, *, float? atol=None, "
    "float? rtol=None, bool hermitian=False) -> Tensor")
@quiet
def linalg_matrix_rank(self: Tensor, atol: Any = None, rtol: Any = None,
                       hermitian: bool = False) -> Tensor:
    """The number of singular values above max(atol, rtol * largest singular value)."""
    return _matrix_rank(self, atol, rtol, hermitian)
