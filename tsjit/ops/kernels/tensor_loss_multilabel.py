"""multilabel_margin_loss: what F.multilabel_margin_loss and nn.MultiLabelMarginLoss call.
reduction: 0 none, 1 mean, 2 sum."""
from __future__ import annotations

import numpy as np

from ..registry import op
from ..._tensor.kernel_util import fmt_shape, quiet
from ..._tensor.tensor import Tensor
from .tensor_loss import _reduce
from .tensor_reduce import acc


@op("aten::multilabel_margin_loss(Tensor self, Tensor target, int reduction=1) -> Tensor")
@quiet
def multilabel_margin_loss(self: Tensor, target: Tensor, reduction: int = 1) -> Tensor:
    """Per sample, sum over target classes j and other classes i of max(0, 1 - x[j] + x[i]),
    divided by the number of classes; a sample's targets end at its first -1."""
    x, y = self._a, target._a
    if x.ndim > 2 or (x.ndim == 2 and x.shape[1] == 0) or (x.ndim < 2 and x.size == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {fmt_shape(x.shape)}")
    if y.shape != x.shape:
        raise RuntimeError(f"inconsistent target size: {fmt_shape(y.shape)} for input of size: "
                           f"{fmt_shape(x.shape)}")
    c = x.shape[-1] if x.ndim else 1
    if x.size == 0:      # PyTorch checks neither dtype for an empty batch
        return _reduce(np.zeros(x.shape[:-1], np.float64), reduction, x.dtype)
    if target.dtype.name != "int64":
        raise RuntimeError(f"expected scalar type Long but found {target.dtype.cname}")
    if self.dtype.kind != "f":
        raise NotImplementedError("\"multilabel_margin_loss_forward_out_frame\" not implemented "
                                  f"for '{self.dtype.cname}'")
    x2, y2 = acc(x).reshape(-1, c), y.reshape(-1, c)
    if y2.size and (y2.min() < -1 or y2.max() >= c):
        raise RuntimeError("argument #2 'target' is out of range")
    # targets are the labels before the first -1 of each row
    valid = np.cumprod(y2 >= 0, axis=1).astype(bool)
    labels = np.where(valid, y2, 0)
    rows = np.arange(x2.shape[0])[:, None]
    is_target = np.zeros(x2.shape, bool)
    is_target[np.broadcast_to(rows, labels.shape)[valid], labels[valid]] = True
    xt = np.where(valid, x2[rows, labels], np.nan)          # (n, targets) scores
    hinge = np.maximum(1 - xt[:, :, None] + x2[:, None, :], 0)
    hinge = np.where(valid[:, :, None] & ~is_target[:, None, :], hinge, 0)
    loss = hinge.sum((1, 2)) / c
    if x.ndim < 2:
        loss = loss.reshape(())
    return _reduce(loss, reduction, x.dtype)
