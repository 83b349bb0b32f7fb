"""Neural-network building blocks: dropout, embedding, layer / batch / instance / group /
RMS normalisation, one_hot, cosine similarity and pairwise distances.

Statistics are computed in float64 and results rounded to the input dtype.
"""
from __future__ import annotations

import math
from typing import Any, Optional, Sequence

import numpy as np

from ..._tensor import dtypes as D
from ..._tensor.creation import generator as _gen
from ..registry import op
from ..._tensor.kernel_util import (NATIVE_FLOATS, fmt_shape, native_float, not_implemented,
                                    quiet, wrap, write_into)
from ..._tensor.tensor import Tensor, wrap_dim
from .tensor_reduce import acc


# --- dropout ------------------------------------------------------------------------------------
def _check_p(p: float) -> None:
    if not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout(input: Tensor, p: float, train: bool, feature: bool, alpha: bool) -> Tensor:
    _check_p(p)
    if not train or p == 0 or input._a.size == 0:
        return input      # PyTorch returns the input itself in eval mode
    a = input._a
    if feature:
        shape = a.shape[:2] + (1,) * (a.ndim - 2) if a.ndim >= 2 else a.shape
    else:
        shape = a.shape
    keep = _gen().random(shape) >= p
    x = a.astype(np.float64)
    if alpha:
        sa = 1.7580993408473766     # SELU's negative saturation value (alpha * scale)
        aa = ((1 - p) * (1 + p * sa * sa)) ** -0.5 if p < 1 else 0.0
        b = aa * sa * p   # -a * alpha * p with alpha = -sa: keeps the mean at 0
        r = np.where(keep, x, -sa) * aa + b
    else:
        r = np.where(keep, x / (1 - p), 0.0) if p < 1 else np.zeros_like(x)
    return wrap(r.astype(a.dtype))


@op("aten::dropout(Tensor input, float p, bool train) -> Tensor")
def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Zero elements with probability p and scale by 1/(1-p) when training; else identity."""
    return _dropout(input, p, train, False, False)


@op("aten::feature_dropout(Tensor input, float p, bool train) -> Tensor")
def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Dropout of whole channels."""
    return _dropout(input, p, train, True, False)


@op("aten::alpha_dropout(Tensor input, float p, bool train) -> Tensor")
def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Dropout keeping SELU's self-normalising mean and variance."""
    return _dropout(input, p, train, False, True)


@op("aten::feature_alpha_dropout(Tensor input, float p, bool train) -> Tensor")
def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """alpha_dropout of whole channels."""
    return _dropout(input, p, train, True, True)


def _dropout_inplace(feature: bool, alpha: bool) -> Any:
    def kernel(self: Tensor, p: float, train: bool) -> Tensor:
        r = _dropout(self, p, train, feature, alpha)
        return self if r is self else write_into(self, r._a)
    return kernel


op("aten::dropout_(Tensor(a!) self, float p, bool train) -> Tensor(a!)")(
    _dropout_inplace(False, False))
op("aten::feature_dropout_(Tensor(a!) self, float p, bool train) -> Tensor(a!)")(
    _dropout_inplace(True, False))
op("aten::alpha_dropout_(Tensor(a!) self, float p, bool train) -> Tensor(a!)")(
    _dropout_inplace(False, True))


@op("aten::native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)")
def native_dropout(input: Tensor, p: float, train: Optional[bool]) -> tuple[Tensor, Tensor]:
    """(dropout result, keep mask)."""
    if train is False or p == 0:
        return input.clone(), wrap(np.ones(input._a.shape, bool))
    _check_p(p)
    keep = _gen().random(input._a.shape) >= p
    scale = 1 / (1 - p) if p < 1 else 0.0
    return wrap((input._a * keep * scale).astype(input._a.dtype)), wrap(keep)


# --- embedding ----------------------------------------------------------------------------------
@op("aten::embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, "
    "bool scale_grad_by_freq=False, bool sparse=False) -> Tensor")
def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of weight selected by integer indices (result: indices.shape + [dim])."""
    if indices.dtype not in (D.int64, D.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           "following scalar types: Long, Int; but got "
                           f"torch.{indices.dtype.cname}Tensor instead (while checking arguments "
                           "for embedding)")
    if weight._a.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    idx = indices._a
    n = weight._a.shape[0]
    if idx.size and (idx.max() >= n or idx.min() < 0):
        raise IndexError("index out of range in self")
    return wrap(weight._a[idx])


@op("aten::embedding_bag(Tensor weight, Tensor indices, Tensor offsets, "
    "bool scale_grad_by_freq=False, int mode=0, bool sparse=False, "
    "Tensor? per_sample_weights=None, bool include_last_offset=False) -> "
    "(Tensor, Tensor, Tensor, Tensor)",
    "aten::embedding_bag.padding_idx(Tensor weight, Tensor indices, Tensor offsets, "
    "bool scale_grad_by_freq, int mode, bool sparse, Tensor? per_sample_weights, "
    "bool include_last_offset, int? padding_idx) -> (Tensor, Tensor, Tensor, Tensor)")
def embedding_bag(weight: Tensor, indices: Tensor, offsets: Tensor,
                  scale_grad_by_freq: bool = False, mode: int = 0, sparse: bool = False,
                  per_sample_weights: Optional[Tensor] = None,
                  include_last_offset: bool = False, padding_idx: Optional[int] = None) -> tuple:
    """Sums (mode 0), means (1) or maxima (2) of bags of embeddings; entries equal to
    padding_idx are left out of their bag (and of a mean's count)."""
    w = weight._a
    idx = indices._a.reshape(-1)
    offs = list(offsets._a.reshape(-1))
    if indices._a.ndim == 2:
        bags = [indices._a[i] for i in range(indices._a.shape[0])]
        starts = [i * indices._a.shape[1] for i in range(len(bags))]
    else:
        ends = offs[1:] + ([] if include_last_offset else [idx.size])
        starts = offs[:len(ends)]
        bags = [idx[s:e] for s, e in zip(starts, ends)]
    psw = None if per_sample_weights is None else per_sample_weights._a.reshape(-1)
    out = np.zeros((len(bags), w.shape[1]), np.float64)
    if padding_idx is not None and padding_idx < 0:
        padding_idx += w.shape[0]
    for b, (bag, s) in enumerate(zip(bags, starts)):
        keep = np.ones(len(bag), bool) if padding_idx is None else bag != padding_idx
        if not keep.any():
            continue
        rows = acc(w[bag[keep]])
        if psw is not None:
            rows = rows * psw[s:s + len(bag)][keep][:, None]
        out[b] = rows.sum(0) if mode == 0 else rows.mean(0) if mode == 1 else rows.max(0)
    empty = wrap(np.zeros(0, np.int64))
    return wrap(out.astype(w.dtype)), empty, empty, empty


# --- normalisation ------------------------------------------------------------------------------
def _affine(y: np.ndarray, weight: Optional[Tensor], bias: Optional[Tensor],
            shape: Sequence[int]) -> np.ndarray:
    if weight is not None:
        y = y * acc(weight._a).reshape(shape)
    if bias is not None:
        y = y + acc(bias._a).reshape(shape)
    return y


@op("aten::layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, "
    "Tensor? bias=None, float eps=1.0000000000000001e-05, bool cudnn_enable=True) -> Tensor")
@quiet
def layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Optional[Tensor] = None,
               bias: Optional[Tensor] = None, eps: float = 1e-05,
               cudnn_enable: bool = True) -> Tensor:
    """Normalise over the trailing normalized_shape dims, then scale and shift."""
    return wrap(_layer_norm(input, normalized_shape, weight, bias, eps)[0])


@op("aten::native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, "
    "Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)")
@quiet
def native_layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Optional[Tensor],
                      bias: Optional[Tensor], eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """(layer_norm result, mean, 1/std) with the statistics keeping reduced dims."""
    y, mean, rstd = _layer_norm(input, normalized_shape, weight, bias, eps)
    a = input._a
    stat = a.shape[:a.ndim - len(normalized_shape)] + (1,) * len(normalized_shape)
    return (wrap(y), wrap(mean.reshape(stat).astype(a.dtype)),
            wrap(rstd.reshape(stat).astype(a.dtype)))


_INVERSE_COUNTS: dict[tuple[int, np.dtype], np.ndarray] = {}


def _inverse_count(n: int, dt: np.dtype) -> np.ndarray:
    """A read-only vector of n entries 1/n of dtype dt (a row mean is a product with it)."""
    v = _INVERSE_COUNTS.get((n, dt))
    if v is None:
        v = np.full(n, 1.0 / n, dt)
        v.flags.writeable = False
        _INVERSE_COUNTS[(n, dt)] = v
    return v


def _layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Optional[Tensor],
                bias: Optional[Tensor], eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The layer norm of input in its dtype, and the rows' mean and 1/std (compute dtype)."""
    a = input._a
    ns = tuple(normalized_shape)
    k = len(ns)
    if a.dtype not in NATIVE_FLOATS and input.dtype.kind != "f":
        raise not_implemented("LayerNormKernelImpl", input.dtype)
    if k == 0 or a.shape[a.ndim - k:] != ns or a.ndim < k:
        raise RuntimeError(f"Given normalized_shape={fmt_shape(ns)}, expected input with shape "
                           f"[*, {', '.join(map(str, ns))}], but got input of size"
                           f"{fmt_shape(a.shape)}")
    if (weight is not None and weight._a.shape != ns) or (bias is not None and bias._a.shape != ns):
        name, t = ("weight", weight) if weight is not None and weight._a.shape != ns else ("bias", bias)
        raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got "
                           f"{name} of shape {fmt_shape(t._a.shape)} and normalized_shape = "
                           f"{fmt_shape(ns)}")
    # rows of the trailing size, in the input's precision (half in float32), like PyTorch.
    # The row means and the variances are products with a 1/n vector (one BLAS
    # matrix-vector call each; np.mean's bookkeeping and reduction, or an einsum, cost
    # several times more on short rows), and 1/std scales the rows in place: 12x32 rows
    # 18 -> 9 -> 7 us, swin's 256x16 19 -> 16 us (einsum before)
    x = native_float(a)
    n = ns[0] if k == 1 else math.prod(ns)
    if not n:
        rows = x.reshape(x.shape[:x.ndim - k] + (0,))
        nan = np.full(rows.shape[:-1], np.nan, x.dtype)     # (native_layer_norm reshapes)
        return x.reshape(a.shape).astype(a.dtype), nan, nan.copy()
    rows = x.reshape(-1, n)
    inv = _inverse_count(n, x.dtype)
    mean = rows @ inv
    y = np.subtract(rows, mean[:, None])
    rstd = np.multiply(y, y) @ inv
    rstd += eps
    np.sqrt(rstd, out=rstd)
    np.reciprocal(rstd, out=rstd)
    y *= rstd[:, None]
    if weight is not None:
        y *= weight._a.reshape(-1)
    if bias is not None:
        y += bias._a.reshape(-1)
    return y.reshape(a.shape).astype(a.dtype, copy=False), mean, rstd


@op("aten::rms_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, "
    "float? eps=None) -> Tensor")
@quiet
def rms_norm(input: Tensor, normalized_shape: Sequence[int], weight: Optional[Tensor] = None,
             eps: Optional[float] = None) -> Tensor:
    """x / sqrt(mean(x^2) + eps) over the trailing dims, times weight."""
    a = input._a
    k = len(normalized_shape)
    if a.shape[a.ndim - k:] != tuple(normalized_shape):
        raise RuntimeError(f"Given normalized_shape={fmt_shape(normalized_shape)}, expected input "
                           f"with shape [*, {', '.join(map(str, normalized_shape))}], but got "
                           f"input of size{fmt_shape(a.shape)}")
    if eps is None:
        eps = float(np.finfo(a.dtype).eps)
    x = acc(a)
    axes = tuple(range(a.ndim - k, a.ndim))
    y = x / np.sqrt((x * x).mean(axis=axes, keepdims=True) + eps)
    return wrap(_affine(y, weight, None, normalized_shape).astype(a.dtype))


def row_stats32(x: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """The mean (float32) and 1 / sqrt(variance + eps) (float64) of each row of a 2-D
    float32 array, from row sums taken as BLAS products with a vector of ones (float32).

    PyTorch accumulates these statistics in float64; a float32 sum alone loses accuracy on
    rows whose mean is large against their spread, so the mean is corrected by the sum of
    the deviations from the first estimate (small numbers, summed accurately), and the
    variance is the mean square of the deviations from the corrected mean, all positive
    terms. Four passes over x instead of float64 copies (3-5x faster)."""
    n = x.shape[1]
    ones = np.ones(n, np.float32)
    m0 = x @ ones
    m0 /= np.float32(n)
    d = x - m0[:, None]
    corr = (d @ ones).astype(np.float64) / n
    mean = (m0 + corr).astype(np.float32)
    # sum (x - mean)^2 = sum (d - c)^2 with c = mean - m0: sum d^2 - 2 c sum d + n c^2
    c = mean.astype(np.float64) - m0
    sq = np.einsum("ij,ij->i", d, d).astype(np.float64)
    var = (sq - 2 * c * corr * n + n * c * c) / n
    return mean, 1 / np.sqrt(np.maximum(var, 0) + eps)


def _scale_shift(mean: np.ndarray, inv: np.ndarray, weight: Optional[np.ndarray],
                 bias: Optional[np.ndarray], dt: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """Per-channel scale and shift of a normalisation, y = x * scale + shift, computed in
    `dt` as PyTorch's kernels do: scale = inv (* weight), shift = (bias -) mean * scale."""
    scale = inv.astype(dt) if weight is None else np.multiply(inv, weight, dtype=dt)
    shift = np.multiply(mean, scale, dtype=dt)
    if bias is None:
        np.negative(shift, out=shift)
    else:
        np.subtract(bias, shift, out=shift, dtype=dt)
    return scale, shift


def rows_affine(x: np.ndarray, scale: np.ndarray, shift: np.ndarray,
                out: Optional[np.ndarray] = None) -> np.ndarray:
    """x (rows, ...) * scale[row] + shift[row], into `out` (a new array by default)."""
    shape = (-1,) + (1,) * (x.ndim - 1)
    y = np.multiply(x, scale.reshape(shape), out=out)
    y += shift.reshape(shape)
    return y


def _channel_shape(a: np.ndarray) -> list[int]:
    return [1, a.shape[1]] + [1] * (a.ndim - 2)


def _batch_norm(input: Tensor, weight: Optional[Tensor], bias: Optional[Tensor],
                running_mean: Optional[Tensor], running_var: Optional[Tensor], training: bool,
                momentum: float, eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = input._a
    if a.ndim < 2:
        raise ValueError(f"Expected 2D or higher input (got {a.ndim}D input)")
    c = a.shape[1]
    for name, t in (("weight", weight), ("bias", bias), ("running_mean", running_mean),
                    ("running_var", running_var)):
        if t is not None and t._a.size != c:
            raise RuntimeError(f"running_mean should contain {c} elements not {t._a.size}"
                               if name.startswith("running") else
                               f"{name} should contain {c} elements not {t._a.size}")
    shape = _channel_shape(a)
    if not training and running_mean is not None and running_var is not None and \
            a.dtype == np.float32:
        # eval: one multiply-add per element, the per-channel scale and shift in the input's
        # precision (as PyTorch's kernel), instead of float64 temporaries of float32 data.
        # float64 input keeps the plain formula below: nothing to gain there, and the zoo's
        # float64 Keypoint R-CNN (ill-conditioned: NMS cut-offs) matches PyTorch with it only
        inv = np.add(running_var._a.reshape(-1), eps, dtype=a.dtype)
        np.sqrt(inv, out=inv)
        np.divide(1, inv, out=inv)
        scale = inv if weight is None else np.multiply(inv, weight._a.reshape(-1),
                                                       dtype=a.dtype)
        shift = np.multiply(running_mean._a.reshape(-1), scale, dtype=a.dtype)
        if bias is None:
            np.negative(shift, out=shift)
        else:
            np.subtract(bias._a.reshape(-1), shift, out=shift, dtype=a.dtype)
        y = np.multiply(a, scale.reshape(shape))
        y += shift.reshape(shape)
        return y, running_mean._a.reshape(-1), inv
    x = acc(a)
    axes = tuple(k for k in range(a.ndim) if k != 1)
    if training or running_mean is None or running_var is None:
        n = a.size // c if c else 0
        if training and n <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {fmt_shape(a.shape)}")
        mean = x.mean(axis=axes)
        var = x.var(axis=axes)
        if training:
            # running statistics are updated in place with the unbiased variance
            if running_mean is not None:
                rm = acc(running_mean._a)
                write_into(running_mean, (1 - momentum) * rm + momentum * mean)
            if running_var is not None:
                rv = acc(running_var._a)
                write_into(running_var, (1 - momentum) * rv + momentum * var * n / max(n - 1, 1))
    else:
        mean = acc(running_mean._a).reshape(-1)
        var = acc(running_var._a).reshape(-1)
    inv = 1 / np.sqrt(var + eps)
    y = (x - mean.reshape(shape)) * inv.reshape(shape)
    return _affine(y, weight, bias, shape), mean, inv


@op("aten::batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
    "Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled) -> "
    "Tensor")
@quiet
def batch_norm(input: Tensor, weight: Optional[Tensor], bias: Optional[Tensor],
               running_mean: Optional[Tensor], running_var: Optional[Tensor], training: bool,
               momentum: float, eps: float, cudnn_enabled: bool) -> Tensor:
    """Per-channel (dim 1) normalisation with running or batch statistics."""
    y, _, _ = _batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
                          eps)
    return wrap(y.astype(input._a.dtype, copy=False))


@op("aten::native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, "
    "Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps) -> "
    "(Tensor, Tensor, Tensor)")
@quiet
def native_batch_norm(input: Tensor, weight: Optional[Tensor], bias: Optional[Tensor],
                      running_mean: Optional[Tensor], running_var: Optional[Tensor],
                      training: bool, momentum: float, eps: float) -> tuple:
    """(batch_norm result, saved mean, saved 1/std)."""
    y, m, inv = _batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
                            eps)
    dt = input._a.dtype
    if not training:
        m, inv = np.zeros(0), np.zeros(0)
    return wrap(y.astype(dt, copy=False)), wrap(m.astype(dt)), wrap(inv.astype(dt))


@op("aten::_native_batch_norm_legit_no_training(Tensor input, Tensor? weight, Tensor? bias, "
    "Tensor running_mean, Tensor running_var, float momentum, float eps) -> "
    "(Tensor, Tensor, Tensor)")
def _native_batch_norm_legit_no_training(input: Tensor, weight: Optional[Tensor],
                                         bias: Optional[Tensor], running_mean: Tensor,
                                         running_var: Tensor, momentum: float,
                                         eps: float) -> tuple:
    """batch_norm in eval mode, returning empty saved statistics."""
    return native_batch_norm(input, weight, bias, running_mean, running_var, False, momentum,
                             eps)


@op("aten::instance_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
    "Tensor? running_var, bool use_input_stats, float momentum, float eps, "
    "bool cudnn_enabled) -> Tensor")
@quiet
def instance_norm(input: Tensor, weight: Optional[Tensor], bias: Optional[Tensor],
                  running_mean: Optional[Tensor], running_var: Optional[Tensor],
                  use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> Tensor:
    """Normalisation of each (sample, channel) over its spatial dims."""
    a = input._a
    if a.dtype == np.float32 and a.ndim >= 3 and a.size and \
            (running_mean is None or running_var is None) and \
            all(t is None or t._a.size == a.shape[1] for t in (weight, bias)):
        # the statistics of each (sample, channel) row: float32 passes where the float64
        # formula below costs 3-4x PyTorch (RAFT's encoders: 21 calls, half its time)
        x2 = a.reshape(a.shape[0] * a.shape[1], -1)
        mean, inv = row_stats32(x2, eps)
        c = a.shape[1]
        w = None if weight is None else np.tile(weight._a.reshape(c), a.shape[0])
        b = None if bias is None else np.tile(bias._a.reshape(c), a.shape[0])
        scale, shift = _scale_shift(mean, inv, w, b, np.float32)
        return wrap(rows_affine(x2, scale, shift).reshape(a.shape))
    x = acc(a)
    shape = _channel_shape(a)
    axes = tuple(range(2, a.ndim))
    if use_input_stats or running_mean is None:
        mean = x.mean(axis=axes, keepdims=True)
        var = x.var(axis=axes, keepdims=True)
        if use_input_stats and running_mean is not None and running_var is not None:
            n = int(np.prod(a.shape[2:]))
            bm = mean.reshape(a.shape[:2]).mean(0)
            bv = (var.reshape(a.shape[:2]) * n / max(n - 1, 1)).mean(0)
            write_into(running_mean, (1 - momentum) * acc(running_mean._a) + momentum * bm)
            write_into(running_var, (1 - momentum) * acc(running_var._a) + momentum * bv)
    else:
        mean = acc(running_mean._a).reshape(shape)
        var = acc(running_var._a).reshape(shape)
    y = (x - mean) / np.sqrt(var + eps)
    return wrap(_affine(y, weight, bias, shape).astype(a.dtype))


@op("aten::group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, "
    "float eps=1.0000000000000001e-05, bool cudnn_enabled=True) -> Tensor")
@quiet
def group_norm(input: Tensor, num_groups: int, weight: Optional[Tensor] = None,
               bias: Optional[Tensor] = None, eps: float = 1e-05,
               cudnn_enabled: bool = True) -> Tensor:
    """Normalisation over groups of channels (and all spatial dims)."""
    a = input._a
    n, c = a.shape[0], a.shape[1]
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups,"
                           f" but got input of shape {fmt_shape(a.shape)} and num_groups="
                           f"{num_groups}")
    x = acc(a).reshape(n, num_groups, -1)
    mean = x.mean(axis=2, keepdims=True)
    var = x.var(axis=2, keepdims=True)
    y = ((x - mean) / np.sqrt(var + eps)).reshape(a.shape)
    return wrap(_affine(y, weight, bias, _channel_shape(a)).astype(a.dtype))


# --- misc ---------------------------------------------------------------------------------------
@op("aten::one_hot(Tensor self, int num_classes=-1) -> Tensor")
def one_hot(self: Tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot encoding (num_classes -1: max + 1)."""
    if self.dtype != D.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    a = self._a
    if a.size and a.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        if a.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(a.max()) + 1
    elif a.size and a.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return wrap((a[..., None] == np.arange(num_classes)).astype(np.int64))


@op("aten::cosine_similarity(Tensor x1, Tensor x2, int dim=1, float eps=1e-08) -> Tensor")
@quiet
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-08) -> Tensor:
    """x1 . x2 / (max(|x1|, eps) * max(|x2|, eps)) along dim (shapes broadcast)."""
    a, b = np.broadcast_arrays(acc(x1._a), acc(x2._a))
    d = wrap_dim(dim, a.ndim)
    n1 = np.sqrt((a * a).sum(axis=d))
    n2 = np.sqrt((b * b).sum(axis=d))
    r = (a * b).sum(axis=d) / (np.maximum(n1, eps) * np.maximum(n2, eps))
    dt = D.promote_types(x1.dtype, x2.dtype)
    return wrap(np.asarray(r).astype(dt.np))


@op("aten::pairwise_distance(Tensor x1, Tensor x2, float p=2., "
    "float eps=9.9999999999999995e-07, bool keepdim=False) -> Tensor")
@quiet
def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-06,
                      keepdim: bool = False) -> Tensor:
    """||x1 - x2 + eps||_p over the last dim."""
    from .tensor_norm import vector_norm_array
    d = acc(x1._a) - acc(x2._a) + eps
    nd = max(x1._a.ndim, x2._a.ndim)
    if nd == 0:
        return wrap(np.asarray(np.abs(d)).astype(x1._a.dtype))
    r = vector_norm_array(d, p, (d.ndim - 1,), keepdim)
    return wrap(np.asarray(r).astype(x1._a.dtype))


@op("aten::pdist(Tensor self, float p=2.) -> Tensor")
@quiet
def pdist(self: Tensor, p: float = 2.0) -> Tensor:
    """Distances between all row pairs i < j of a matrix."""
    from .tensor_norm import vector_norm_array
    a = acc(self._a)
    if a.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {a.ndim}D")
    i, j = np.triu_indices(a.shape[0], 1)
    return wrap(np.asarray(vector_norm_array(a[i] - a[j], p, (1,), False)).astype(self._a.dtype))


@op("aten::channel_shuffle(Tensor self, SymInt groups) -> Tensor",
    "aten::native_channel_shuffle(Tensor self, SymInt groups) -> Tensor")
def channel_shuffle(self: Tensor, groups: int) -> Tensor:
    """Interleave channel groups: (N, g*c, ...) -> (N, c*g, ...)."""
    a = self._a
    n, c = a.shape[:2]
    if groups <= 0 or c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {groups} groups.")
    x = a.reshape((n, groups, c // groups) + a.shape[2:])
    return wrap(np.swapaxes(x, 1, 2).reshape(a.shape).copy())
