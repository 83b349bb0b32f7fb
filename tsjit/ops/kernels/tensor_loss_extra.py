"""More loss functions: cosine embedding, hinge embedding, poisson nll, triplet margin,
multi margin and CTC (forward only). reduction: 0 none, 1 mean, 2 sum."""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from ..._tensor import dtypes as D
from ..registry import op
from ..._tensor.kernel_util import broadcast_shapes, fmt_shape, quiet, wrap
from ..._tensor.tensor import Tensor
from .tensor_loss import _reduce
from .tensor_reduce import acc


def _float_dt(*ts: Tensor) -> np.dtype:
    dt = D.result_type(*ts)
    return D.to_numpy_dtype(dt if dt.kind in "fc" else D.get_default_dtype())


@op("aten::cosine_embedding_loss(Tensor input1, Tensor input2, Tensor target, "
    "float margin=0., int reduction=1) -> Tensor")
@quiet
def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: int = 1) -> Tensor:
    """1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where it is -1."""
    td = target._a.ndim
    if td > 1:
        raise RuntimeError(f"0D or 1D target tensor expected, multi-target not supported")
    if td == 1 and (input1._a.ndim != 2 or input2._a.ndim != 2):
        raise RuntimeError("1D target tensor expects 2D input tensors, but found inputs with "
                           f"sizes {fmt_shape(input1.shape)} and {fmt_shape(input2.shape)}.")
    if td == 0 and (input1._a.ndim != 1 or input2._a.ndim != 1):
        raise RuntimeError("0D target tensor expects 1D input tensors, but found inputs with "
                           f"sizes {fmt_shape(input1.shape)} and {fmt_shape(input2.shape)}.")
    x1, x2 = acc(input1._a), acc(input2._a)
    broadcast_shapes(x1.shape, x2.shape)
    eps = 1e-12      # keeps zero vectors from dividing by zero
    cos = (x1 * x2).sum(-1) / np.sqrt(((x1 * x1).sum(-1) + eps) * ((x2 * x2).sum(-1) + eps))
    t = target._a
    loss = np.where(t == 1, 1 - cos, 0) + np.where(t == -1, np.maximum(cos - margin, 0), 0)
    return _reduce(loss, reduction, _float_dt(input1, input2))


@op("aten::hinge_embedding_loss(Tensor self, Tensor target, float margin=1., int reduction=1) "
    "-> Tensor")
@quiet
def hinge_embedding_loss(self: Tensor, target: Tensor, margin: float = 1.0,
                         reduction: int = 1) -> Tensor:
    """x where target is 1, max(0, margin - x) where it is -1 (both for other values)."""
    x, t = acc(self._a), target._a
    broadcast_shapes(x.shape, t.shape)
    loss = np.where(t != 1, np.maximum(margin - x, 0), 0) + np.where(t != -1, x, 0)
    return _reduce(loss, reduction, _float_dt(self))


@op("aten::poisson_nll_loss(Tensor input, Tensor target, bool log_input, bool full, float eps, "
    "int reduction) -> Tensor")
@quiet
def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,
                     reduction: int) -> Tensor:
    """Negative log likelihood of target under Poisson(input) (or Poisson(exp(input)))."""
    x, t = acc(input._a), acc(target._a)
    broadcast_shapes(x.shape, t.shape)
    loss = np.exp(x) - t * x if log_input else x - t * np.log(x + eps)
    if full:
        # Stirling's approximation of log(target!), only where target > 1
        st = t * np.log(t) - t + 0.5 * np.log(2 * np.pi * t)
        loss = loss + np.where(t <= 1, 0, st)
    return _reduce(loss, reduction, _float_dt(input, target))


def _pairwise_distance(x1: np.ndarray, x2: np.ndarray, p: float, eps: float) -> np.ndarray:
    d = np.abs(x1 - x2 + eps)
    if d.ndim == 0:
        d = d[None]
    if p == np.inf:
        return d.max(-1) if d.shape[-1] else np.zeros(d.shape[:-1])
    if p == 0:
        return (d != 0).sum(-1).astype(np.float64)
    return (d ** p).sum(-1) ** (1 / p)


@op("aten::triplet_margin_loss(Tensor anchor, Tensor positive, Tensor negative, "
    "float margin=1., float p=2., float eps=9.9999999999999995e-07, bool swap=False, "
    "int reduction=1) -> Tensor")
@quiet
def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0,
                        p: float = 2.0, eps: float = 1e-06, swap: bool = False,
                        reduction: int = 1) -> Tensor:
    """max(0, margin + d(anchor, positive) - d(anchor, negative)), d the p-norm distance."""
    na, np_, nn = anchor._a.ndim, positive._a.ndim, negative._a.ndim
    if not na == np_ == nn:
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {na}D, positive {np_}D, "
                           f"and negative {nn}D inputs")
    a, pos, neg = acc(anchor._a), acc(positive._a), acc(negative._a)
    broadcast_shapes(a.shape, pos.shape, neg.shape)
    d_pos = _pairwise_distance(a, pos, p, eps)
    d_neg = _pairwise_distance(a, neg, p, eps)
    if swap:
        d_neg = np.minimum(d_neg, _pairwise_distance(pos, neg, p, eps))
    loss = np.maximum(margin + d_pos - d_neg, 0)
    return _reduce(loss, reduction, _float_dt(anchor, positive, negative))


@op("aten::multi_margin_loss(Tensor self, Tensor target, Scalar p=1, Scalar margin=1, "
    "Tensor? weight=None, int reduction=1) -> Tensor")
@quiet
def multi_margin_loss(self: Tensor, target: Tensor, p: Any = 1, margin: Any = 1,
                      weight: Optional[Tensor] = None, reduction: int = 1) -> Tensor:
    """Per sample, the mean over classes j != y of w[y] max(0, margin - x[y] + x[j]) ** p."""
    if p not in (1, 2):
        raise RuntimeError("only p == 1 and p == 2 supported")
    x = self._a
    if x.ndim > 2 or (x.ndim == 2 and x.shape[1] == 0) or (x.ndim < 2 and x.size == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {fmt_shape(x.shape)}")
    x2 = acc(x.reshape(-1, x.shape[-1]) if x.ndim == 2 else x.reshape(1, -1))
    n, c = x2.shape
    y = target._a
    if y.ndim > 1 or y.size != n:
        raise RuntimeError(f"inconsistent target size, expected {n} but got "
                           f"{fmt_shape(y.shape)}")
    y = y.reshape(-1).astype(np.int64)
    if y.size and (y.min() < 0 or y.max() >= c):
        raise IndexError("target out of range")
    if weight is not None and weight._a.ndim > 1:
        raise RuntimeError("weight must be a 1D tensor")   # noqa: F541
    rows = np.arange(n)
    z = np.maximum(margin - x2[rows, y][:, None] + x2, 0) ** p
    if weight is not None:
        z = z * acc(weight._a.reshape(-1))[y][:, None]
    z[rows, y] = 0
    loss = z.sum(1) / c
    if x.ndim < 2:
        loss = loss.reshape(())
    if reduction == 1 and loss.size == 0:
        return wrap(np.asarray(np.nan, _float_dt(self)))
    return _reduce(loss, reduction, _float_dt(self))


# --- CTC -------------------------------------------------------------------------------------
def _logaddexp3(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return np.logaddexp(np.logaddexp(a, b), c)


def _ctc(log_probs: Tensor, targets: Tensor, input_lengths: Sequence[int],
         target_lengths: Sequence[int], blank: int, reduction: int,
         zero_infinity: bool) -> Tensor:
    lp = log_probs._a
    batched = lp.ndim == 3
    if not batched:
        lp = lp[:, None]
    tg = targets._a if batched or targets._a.ndim != 1 else targets._a[None]
    t_max, nb, c = lp.shape
    if log_probs.dtype.kind != "f":
        raise RuntimeError(f'"ctc_loss_cpu" not implemented for \'{log_probs.dtype.cname}\'')
    in_len = [int(v) for v in input_lengths]
    tg_len = [int(v) for v in target_lengths]
    if len(in_len) != nb:
        raise RuntimeError(f"input_lengths must be of size batch_size")
    if len(tg_len) != nb:
        raise RuntimeError(f"target_lengths must be of size batch_size")
    if not 0 <= blank < c:
        raise RuntimeError("blank must be in label range")
    for i, v in enumerate(in_len):
        if v > t_max or v < 0:
            raise RuntimeError(f"Expected input_lengths to have value at most {t_max}, but got "
                               f"value {v} (while checking arguments for ctc_loss_cpu)")
    s_max = max(tg_len, default=0)
    # each sample's targets, padded to s_max: rows of a 2-d targets tensor, or consecutive
    # runs of a 1-d one
    lab = np.full((nb, s_max), blank, np.int64)
    if tg.ndim == 2:
        for b, n in enumerate(tg_len):
            if n > tg.shape[1]:
                raise RuntimeError(f"Expected tensor to have size at least {n} at dimension 1, "
                                   f"but got size {tg.shape[1]} for argument #2 'targets' "
                                   "(while checking arguments for ctc_loss_cpu)")
            lab[b, :n] = tg[b, :n]
    else:
        starts = np.concatenate([[0], np.cumsum(tg_len)[:-1]]).astype(np.int64)
        for b, n in enumerate(tg_len):
            lab[b, :n] = tg.reshape(-1)[starts[b]:starts[b] + n]
    ln = 2 * s_max + 1
    ext = np.full((nb, ln), blank, np.int64)       # blanks interleaved with the labels
    ext[:, 1::2] = lab
    ext_len = 2 * np.asarray(tg_len, np.int64) + 1
    valid = np.arange(ln)[None, :] < ext_len[:, None]
    # a label may be reached from two back unless it is blank or repeats that label
    skip = np.zeros((nb, ln), bool)
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    lpd = lp.astype(np.float64)
    rows = np.arange(nb)[:, None]
    neg_inf = -np.inf
    alpha = np.full((nb, ln), neg_inf)
    final = np.full(nb, neg_inf)
    in_len_a = np.asarray(in_len)
    for t in range(t_max):          # one vectorised step per time step
        emit = lpd[t][rows, ext]
        if t == 0:
            new = np.full((nb, ln), neg_inf)
            new[:, :2] = emit[:, :2]
        else:
            prev1 = np.concatenate([np.full((nb, 1), neg_inf), alpha[:, :-1]], 1)
            prev2 = np.concatenate([np.full((nb, 2), neg_inf), alpha[:, :-2]], 1)
            new = _logaddexp3(alpha, prev1, np.where(skip, prev2, neg_inf)) + emit
        new = np.where(valid, new, neg_inf)
        running = t < in_len_a
        alpha = np.where(running[:, None], new, alpha)
        ends = alpha[np.arange(nb), ext_len - 1]
        before = np.where(ext_len > 1, alpha[np.arange(nb), np.maximum(ext_len - 2, 0)], neg_inf)
        final = np.where(t == in_len_a - 1, np.logaddexp(ends, before), final)
    loss = -final     # an empty input can only emit an empty target
    loss = np.where((in_len_a == 0) & (np.asarray(tg_len) == 0), 0.0, loss)
    if zero_infinity:
        loss = np.where(np.isinf(loss), 0.0, loss)
    dt = lp.dtype
    if reduction == 1:
        return wrap(np.asarray((loss / np.maximum(np.asarray(tg_len), 1)).mean()).astype(dt))
    if reduction == 2:
        return wrap(np.asarray(loss.sum()).astype(dt))
    return wrap(np.asarray(loss if batched else loss[0]).astype(dt))


@op("aten::ctc_loss.IntList(Tensor log_probs, Tensor targets, int[] input_lengths, "
    "int[] target_lengths, int blank=0, int reduction=1, bool zero_infinity=False) -> Tensor")
@quiet
def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Sequence[int],
             target_lengths: Sequence[int], blank: int = 0, reduction: int = 1,
             zero_infinity: bool = False) -> Tensor:
    """Connectionist temporal classification loss (the forward pass, in log space)."""
    return _ctc(log_probs, targets, input_lengths, target_lengths, blank, reduction,
                zero_infinity)


@op("aten::ctc_loss.Tensor(Tensor log_probs, Tensor targets, Tensor input_lengths, "
    "Tensor target_lengths, int blank=0, int reduction=1, bool zero_infinity=False) -> Tensor")
@quiet
def ctc_loss_tensor(log_probs: Tensor, targets: Tensor, input_lengths: Tensor,
                    target_lengths: Tensor, blank: int = 0, reduction: int = 1,
                    zero_infinity: bool = False) -> Tensor:
    """ctc_loss with the lengths given as integer tensors."""
    for name, t in (("input_lengths", input_lengths), ("target_lengths", target_lengths)):
        if t.dtype.kind != "i":
            raise RuntimeError(f"{name} must be integral")
    return _ctc(log_probs, targets, input_lengths._a.reshape(-1).tolist(),
                target_lengths._a.reshape(-1).tolist(), blank, reduction, zero_infinity)
