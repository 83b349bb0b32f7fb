"""Loss functionals (re-exported by tsjit.nn.functional, which they are named after)."""
from __future__ import annotations

from typing import Optional

from ..tensor import Tensor
from ..tensor import functional as torch


def _reduction_enum(reduction: str) -> int:
    if reduction == "none":
        ret = 0
    elif reduction == "mean":
        ret = 1
    elif reduction == "sum":
        ret = 2
    else:
        raise ValueError("{} is not a valid value for reduction".format(reduction))
    return ret


def cross_entropy(input: Tensor, target: Tensor, weight: Optional[Tensor] = None,
                  size_average: Optional[bool] = None, ignore_index: int = -100,
                  reduce: Optional[bool] = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """Cross entropy of logits against class indices or class probabilities."""
    return torch.cross_entropy_loss(input, target, weight, _reduction_enum(reduction),
                                    ignore_index, label_smoothing)


def nll_loss(input: Tensor, target: Tensor, weight: Optional[Tensor] = None,
             size_average: Optional[bool] = None, ignore_index: int = -100,
             reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    """Negative log likelihood of log-probabilities at the target classes."""
    return torch.nll_loss_nd(input, target, weight, _reduction_enum(reduction), ignore_index)


def mse_loss(input: Tensor, target: Tensor, size_average: Optional[bool] = None,
             reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    """Mean squared error (broadcasting input against target)."""
    expanded_input, expanded_target = torch.broadcast_tensors([input, target])
    return torch.mse_loss(expanded_input, expanded_target, _reduction_enum(reduction))


def l1_loss(input: Tensor, target: Tensor, size_average: Optional[bool] = None,
            reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    """Mean absolute error (broadcasting input against target)."""
    expanded_input, expanded_target = torch.broadcast_tensors([input, target])
    return torch.l1_loss(expanded_input, expanded_target, _reduction_enum(reduction))


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,
                                     weight: Optional[Tensor] = None,
                                     size_average: Optional[bool] = None,
                                     reduce: Optional[bool] = None, reduction: str = "mean",
                                     pos_weight: Optional[Tensor] = None) -> Tensor:
    """Binary cross entropy of logits (computed stably)."""
    if not (target.size() == input.size()):
        raise ValueError("Target size ({}) must be the same as input size ({})".format(
            target.size(), input.size()))
    return torch.binary_cross_entropy_with_logits(input, target, weight, pos_weight,
                                                  _reduction_enum(reduction))
