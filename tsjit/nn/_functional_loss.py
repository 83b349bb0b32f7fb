"""Loss functionals (re-exported by tsjit.nn.functional, which they are named after)."""
from __future__ import annotations

import math
import warnings
from typing import Optional, Union

from .._tensor import Tensor
from ..ops import functions as torch


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


def _check_sizes(input: Tensor, target: Tensor) -> None:
    if not (target.size() == input.size()):
        raise ValueError("Using a target size ({}) that is different to the input size ({}) is "
                         "deprecated. Please ensure they have the same size.".format(
                             target.size(), input.size()))


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Optional[Tensor] = None,
                         size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                         reduction: str = "mean") -> Tensor:
    """Binary cross entropy of probabilities against targets in [0, 1]."""
    _check_sizes(input, target)
    if weight is not None:
        weight = weight.expand(target.size())
    return torch.binary_cross_entropy(input, target, weight, _reduction_enum(reduction))


def kl_div(input: Tensor, target: Tensor, size_average: Optional[bool] = None,
           reduce: Optional[bool] = None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """Kullback-Leibler divergence of target from input (input as log-probabilities)."""
    if reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the "
                      "support size.'batchmean' divides only by the batch size, and aligns with "
                      "the KL div math definition.'mean' will be changed to behave the same as "
                      "'batchmean' in the next major release.")
    if reduction == "batchmean":
        reduction_enum = 2
    else:
        reduction_enum = _reduction_enum(reduction)
    reduced = torch.kl_div(input, target, reduction_enum, log_target=log_target)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: Optional[bool] = None,
                   reduce: Optional[bool] = None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    """Squared error below beta, absolute error (less beta / 2) above."""
    if not (target.size() == input.size()):
        warnings.warn("Using a target size ({}) that is different to the input size ({}). This "
                      "will likely lead to incorrect results due to broadcasting. Please ensure "
                      "they have the same size.".format(target.size(), input.size()))
    expanded_input, expanded_target = torch.broadcast_tensors([input, target])
    if beta == 0.0:
        return torch.l1_loss(expanded_input, expanded_target, _reduction_enum(reduction))
    return torch.smooth_l1_loss(expanded_input, expanded_target, _reduction_enum(reduction),
                                beta)


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Optional[Tensor] = None) -> Tensor:
    """Squared error below delta, delta-scaled absolute error above."""
    if not (target.size() == input.size()):
        warnings.warn("Using a target size ({}) that is different to the input size ({}). This "
                      "will likely lead to incorrect results due to broadcasting. Please ensure "
                      "they have the same size.".format(target.size(), input.size()))
    expanded_input, expanded_target = torch.broadcast_tensors([input, target])
    if weight is None:
        return torch.huber_loss(expanded_input, expanded_target, _reduction_enum(reduction),
                                delta)
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    unweighted = torch.huber_loss(expanded_input, expanded_target, 0, delta)
    weighted = unweighted * weight
    if reduction == "none":
        return weighted
    elif reduction == "sum":
        return torch.sum(weighted)
    elif reduction == "mean":
        return weighted.mean()
    raise ValueError("Invalid reduction mode: {}. Expected one of 'none', 'mean', "
                     "'sum'.".format(reduction))


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                        reduction: str = "mean") -> Tensor:
    """max(0, -target * (input1 - input2) + margin)."""
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError("margin_ranking_loss : All input tensors should have same dimension "
                           "but got sizes: input1: {}, input2: {}, target: {} ".format(
                               input1.size(), input2.size(), target.size()))
    return torch.margin_ranking_loss(input1, input2, target, margin,
                                     _reduction_enum(reduction))


def soft_margin_loss(input: Tensor, target: Tensor, size_average: Optional[bool] = None,
                     reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    """log(1 + exp(-target * input)): two-class logistic loss."""
    return torch.soft_margin_loss(input, target, _reduction_enum(reduction))


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,
                         size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                         reduction: str = "mean") -> Tensor:
    """input where target is 1, max(0, margin - input) where it is -1."""
    return torch.hinge_embedding_loss(input, target, margin, _reduction_enum(reduction))


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                          reduction: str = "mean") -> Tensor:
    """1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where it is -1."""
    return torch.cosine_embedding_loss(input1, input2, target, margin,
                                       _reduction_enum(reduction))


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average: Optional[bool] = None, eps: float = 1e-8,
                     reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    """Negative log likelihood of target under Poisson(input) (input as log-rate if log_input)."""
    if reduction != "none" and reduction != "mean" and reduction != "sum":
        ret = input
        raise ValueError(reduction + " is not a valid value for reduction")
    ret = torch.poisson_nll_loss(input, target, log_input, full, eps,
                                 _reduction_enum(reduction))
    return ret


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Union[Tensor, float],
                      full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> Tensor:
    """Negative log likelihood of target under Normal(input, var)."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * torch.ones_like(input)
    elif var.size() != input.size():
        if input.size()[:-1] == var.size():
            # one variance per sample: a trailing unit dimension broadcasts it
            var = torch.unsqueeze(var, -1)
        elif input.size()[:-1] == var.size()[:-1] and var.size(-1) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction != "none" and reduction != "mean" and reduction != "sum":
        raise ValueError(reduction + " is not valid")
    if torch.any(var < 0):
        raise ValueError("var has negative entry/entries")
    var = var.clamp(min=eps)
    loss = 0.5 * (torch.log(var) + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    elif reduction == "sum":
        return loss.sum()
    else:
        return loss


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor,
                        margin: float = 1.0, p: float = 2.0, eps: float = 1e-6,
                        swap: bool = False, size_average: Optional[bool] = None,
                        reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    """max(0, d(anchor, positive) - d(anchor, negative) + margin), d a p-norm distance."""
    a_dim, p_dim, n_dim = anchor.ndim, positive.ndim, negative.ndim
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the "
                           "same number of dimensions, but got: anchor {}D, positive {}D, and "
                           "negative {}D inputs".format(a_dim, p_dim, n_dim))
    return torch.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                     _reduction_enum(reduction))


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0,
                      weight: Optional[Tensor] = None, size_average: Optional[bool] = None,
                      reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    """Multi-class hinge loss: mean over classes j != y of max(0, margin - x[y] + x[j]) ** p."""
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None:
        if weight.dim() != 1:
            raise ValueError("weight must be one-dimensional")
    return torch.multi_margin_loss(input, target, p, margin, weight,
                                   _reduction_enum(reduction))


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average: Optional[bool] = None,
                           reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    """Multi-label hinge loss between each target class and each other class."""
    return torch.multilabel_margin_loss(input, target, _reduction_enum(reduction))


def multilabel_soft_margin_loss(input: Tensor, target: Tensor,
                                weight: Optional[Tensor] = None,
                                size_average: Optional[bool] = None,
                                reduce: Optional[bool] = None,
                                reduction: str = "mean") -> Tensor:
    """Per sample, the class mean of the binary logistic losses of input against target."""
    loss = -(target * torch.log_sigmoid(input) + (1 - target) * torch.log_sigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    C = input.size(class_dim)
    loss = loss.sum(dim=class_dim) / C
    if reduction == "none":
        ret = loss
    elif reduction == "mean":
        ret = loss.mean()
    elif reduction == "sum":
        ret = loss.sum()
    else:
        ret = input
        raise ValueError(reduction + " is not valid")
    return ret


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Tensor, target_lengths: Tensor,
             blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """Connectionist temporal classification loss of unsegmented target sequences."""
    return torch.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                          _reduction_enum(reduction), zero_infinity)
