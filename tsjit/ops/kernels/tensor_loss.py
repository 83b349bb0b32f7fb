"""Loss functions: mse, l1, smooth_l1, huber, binary cross entropy (with logits), nll,
cross entropy (class indices or probabilities, label smoothing), kl_div, soft margin,
margin ranking. reduction: 0 none, 1 mean, 2 sum."""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..registry import op
from ..._tensor.kernel_util import broadcast_shapes, fmt_shape, quiet, wrap
from ..._tensor.tensor import Tensor
from .tensor_reduce import acc


def _reduce(loss: np.ndarray, reduction: int, dt: np.dtype) -> Tensor:
    if reduction == 1:
        loss = np.asarray(loss.mean() if loss.size else np.nan)
    elif reduction == 2:
        loss = np.asarray(loss.sum())
    elif reduction != 0:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return wrap(np.asarray(loss).astype(dt))


def _pair(self: Tensor, target: Tensor) -> tuple[np.ndarray, np.ndarray]:
    broadcast_shapes(self._a.shape, target._a.shape)
    return acc(self._a), acc(target._a)


@op("aten::mse_loss(Tensor self, Tensor target, int reduction=1) -> Tensor")
@quiet
def mse_loss(self: Tensor, target: Tensor, reduction: int = 1) -> Tensor:
    """(x - y)^2."""
    x, y = _pair(self, target)
    return _reduce((x - y) ** 2, reduction, self._a.dtype)


@op("aten::l1_loss(Tensor self, Tensor target, int reduction=1) -> Tensor")
@quiet
def l1_loss(self: Tensor, target: Tensor, reduction: int = 1) -> Tensor:
    """|x - y|."""
    x, y = _pair(self, target)
    return _reduce(np.abs(x - y), reduction, self._a.dtype)


@op("aten::smooth_l1_loss(Tensor self, Tensor target, int reduction=1, float beta=1.) -> Tensor")
@quiet
def smooth_l1_loss(self: Tensor, target: Tensor, reduction: int = 1, beta: float = 1.0) -> Tensor:
    """0.5 d^2 / beta below beta, |d| - 0.5 beta above."""
    x, y = _pair(self, target)
    d = np.abs(x - y)
    loss = d if beta == 0 else np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)
    return _reduce(loss, reduction, self._a.dtype)


@op("aten::huber_loss(Tensor self, Tensor target, int reduction=1, float delta=1.) -> Tensor")
@quiet
def huber_loss(self: Tensor, target: Tensor, reduction: int = 1, delta: float = 1.0) -> Tensor:
    """0.5 d^2 up to delta, delta (|d| - 0.5 delta) above."""
    x, y = _pair(self, target)
    d = np.abs(x - y)
    return _reduce(np.where(d <= delta, 0.5 * d * d, delta * (d - 0.5 * delta)), reduction,
                   self._a.dtype)


@op("aten::binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, "
    "int reduction=1) -> Tensor")
@quiet
def binary_cross_entropy(self: Tensor, target: Tensor, weight: Optional[Tensor] = None,
                         reduction: int = 1) -> Tensor:
    """-(y log x + (1 - y) log(1 - x)), logs clamped at -100."""
    x, y = acc(self._a), acc(target._a)
    if x.shape != y.shape:
        raise ValueError(f"Using a target size ({fmt_shape(y.shape)}) that is different to the "
                         f"input size ({fmt_shape(x.shape)}) is deprecated. Please ensure they "
                         "have the same size.")
    if x.size and (x.min() < 0 or x.max() > 1):
        raise RuntimeError("all elements of input should be between 0 and 1")
    loss = -(y * np.maximum(np.log(x), -100) + (1 - y) * np.maximum(np.log(1 - x), -100))
    if weight is not None:
        loss = loss * acc(weight._a)
    return _reduce(loss, reduction, self._a.dtype)


@op("aten::binary_cross_entropy_with_logits(Tensor self, Tensor target, Tensor? weight=None, "
    "Tensor? pos_weight=None, int reduction=1) -> Tensor")
@quiet
def binary_cross_entropy_with_logits(self: Tensor, target: Tensor,
                                     weight: Optional[Tensor] = None,
                                     pos_weight: Optional[Tensor] = None,
                                     reduction: int = 1) -> Tensor:
    """BCE on sigmoid(x), computed stably (pos_weight scales the positive term)."""
    x, y = _pair(self, target)
    softplus_neg = np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0)   # -log(sigmoid(x))
    if pos_weight is not None:
        pw = acc(pos_weight._a)
        loss = (1 - y) * x + (1 + (pw - 1) * y) * softplus_neg
    else:
        loss = (1 - y) * x + softplus_neg
    if weight is not None:
        loss = loss * acc(weight._a)
    return _reduce(loss, reduction, self._a.dtype)


def _nll(logp: np.ndarray, target: np.ndarray, weight: Optional[np.ndarray], reduction: int,
         ignore_index: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-element losses and weights; logp is (N, C, ...) or (C,), target (N, ...) or ()."""
    if logp.ndim == 1:
        logp, target = logp[None], target.reshape(1)
    c = logp.shape[1]
    if target.shape != (logp.shape[0],) + logp.shape[2:]:
        raise RuntimeError(f"Expected target size {fmt_shape((logp.shape[0],) + logp.shape[2:])},"
                           f" got {fmt_shape(target.shape)}")
    valid = target != ignore_index
    t = np.where(valid, target, 0)
    if t.size and (t.min() < 0 or t.max() >= c):
        raise IndexError(f"Target {int(t.max() if t.max() >= c else t.min())} is out of bounds.")
    picked = np.take_along_axis(logp, t[:, None], axis=1)[:, 0]
    w = (weight[t] if weight is not None else np.ones(t.shape)) * valid
    return -picked * w, w


def _nll_reduce(loss: np.ndarray, w: np.ndarray, reduction: int, dt: np.dtype,
                squeeze: bool) -> Tensor:
    if reduction == 0:
        return wrap((loss[0] if squeeze else loss).astype(dt))
    if reduction == 2:
        return wrap(np.asarray(loss.sum()).astype(dt))
    tot = w.sum()
    return wrap(np.asarray(loss.sum() / tot if tot else np.nan).astype(dt))


@op("aten::nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, "
    "SymInt ignore_index=-100) -> Tensor",
    "aten::nll_loss_nd(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, "
    "SymInt ignore_index=-100) -> Tensor",
    "aten::nll_loss2d(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, "
    "SymInt ignore_index=-100) -> Tensor")
@quiet
def nll_loss(self: Tensor, target: Tensor, weight: Optional[Tensor] = None, reduction: int = 1,
             ignore_index: int = -100) -> Tensor:
    """-weight[y] * x[y] per element (mean divides by the sum of the weights)."""
    if target.dtype.kind != "i":
        raise RuntimeError(f"expected scalar type Long but found {target.dtype.cname}")
    loss, w = _nll(acc(self._a), target._a, None if weight is None else acc(weight._a),
                   reduction, ignore_index)
    return _nll_reduce(loss, w, reduction, self._a.dtype, self._a.ndim == 1)


def _log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    s = x - x.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


@op("aten::cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, "
    "SymInt ignore_index=-100, float label_smoothing=0.) -> Tensor")
@quiet
def cross_entropy_loss(self: Tensor, target: Tensor, weight: Optional[Tensor] = None,
                       reduction: int = 1, ignore_index: int = -100,
                       label_smoothing: float = 0.0) -> Tensor:
    """nll_loss(log_softmax(x)) for class targets, -sum(p log_softmax(x)) for probabilities."""
    x = acc(self._a)
    cdim = 0 if x.ndim == 1 else 1
    logp = _log_softmax(x, cdim)
    c = x.shape[cdim]
    w = None if weight is None else acc(weight._a)
    wshape = [1] * x.ndim
    wshape[cdim] = c
    dt = self._a.dtype
    if target.dtype.kind == "f":
        y = acc(target._a)
        if label_smoothing > 0:
            y = y * (1 - label_smoothing) + label_smoothing / c
        terms = logp * y * (w.reshape(wshape) if w is not None else 1.0)
        loss = -terms.sum(axis=cdim)
        if reduction == 1:
            n = x.size // c if c else 0
            return wrap(np.asarray(loss.sum() / n if n else np.nan).astype(dt))
        return _reduce(loss, reduction, dt)
    t = target._a
    loss, tw = _nll(logp, t, w, reduction, ignore_index)
    nll = _nll_reduce(loss, tw, reduction, np.dtype(np.float64), x.ndim == 1)._a
    if label_smoothing <= 0:
        return wrap(nll.astype(dt))
    lp = logp if x.ndim > 1 else logp[None]
    tt = t if x.ndim > 1 else t.reshape(1)
    ignore = tt == ignore_index
    smooth = -(lp * (w.reshape([1, c] + [1] * (lp.ndim - 2)) if w is not None else 1.0)).sum(1)
    smooth = np.where(ignore, 0.0, smooth)
    if reduction == 1:
        denom = (w[np.where(ignore, 0, tt)] * ~ignore).sum() if w is not None else (~ignore).sum()
        ret = smooth.sum() / denom if denom else np.nan
    elif reduction == 2:
        ret = smooth.sum()
    else:
        ret = smooth if x.ndim > 1 else smooth[0]
    return wrap(np.asarray((1 - label_smoothing) * nll + ret * (label_smoothing / c)).astype(dt))


@op("aten::kl_div(Tensor self, Tensor target, int reduction=1, *, bool log_target=False) -> "
    "Tensor")
@quiet
def kl_div(self: Tensor, target: Tensor, reduction: int = 1, log_target: bool = False) -> Tensor:
    """target * (log target - input) (input holds log-probabilities)."""
    x, y = _pair(self, target)
    if log_target:
        loss = np.exp(y) * (y - x)
    else:
        loss = np.where(y > 0, y * (np.log(np.where(y > 0, y, 1)) - x),
                        np.where(np.isnan(y), np.nan, 0.0 * x))
    return _reduce(loss, reduction, self._a.dtype)


@op("aten::soft_margin_loss(Tensor self, Tensor target, int reduction=1) -> Tensor")
@quiet
def soft_margin_loss(self: Tensor, target: Tensor, reduction: int = 1) -> Tensor:
    """log(1 + exp(-y x))."""
    x, y = _pair(self, target)
    return _reduce(np.log1p(np.exp(-y * x)), reduction, self._a.dtype)


@op("aten::margin_ranking_loss(Tensor input1, Tensor input2, Tensor target, float margin=0., "
    "int reduction=1) -> Tensor")
@quiet
def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: int = 1) -> Tensor:
    """max(0, -y (x1 - x2) + margin)."""
    a, b, y = acc(input1._a), acc(input2._a), acc(target._a)
    return _reduce(np.maximum(0, -y * (a - b) + margin), reduction, input1._a.dtype)
