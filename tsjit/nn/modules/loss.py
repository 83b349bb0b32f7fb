"""Losses, as torch.nn.modules.loss."""
from __future__ import annotations

import warnings
from typing import Optional

from ..._tensor import Tensor
from .. import functional as F
from .module import Module


def _legacy_reduction(size_average: Optional[bool], reduce: Optional[bool]) -> str:
    # the deprecated size_average / reduce flags as a reduction string
    warnings.warn("size_average and reduce args will be deprecated, please use "
                  "reduction='{}' instead.")
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


class _Loss(Module):
    reduction: str

    def __init__(self, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                 reduction: str = "mean") -> None:
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = _legacy_reduction(size_average, reduce)
        self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(self, weight: Optional[Tensor] = None, size_average: Optional[bool] = None,
                 reduce: Optional[bool] = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.weight: Optional[Tensor]


class L1Loss(_Loss):
    """Mean (or sum) absolute error."""

    __constants__ = ["reduction"]

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    """Mean (or sum) squared error."""

    __constants__ = ["reduction"]

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


class NLLLoss(_WeightedLoss):
    """Negative log likelihood of log-probabilities at the target classes."""

    __constants__ = ["ignore_index", "reduction"]
    ignore_index: int

    def __init__(self, weight: Optional[Tensor] = None, size_average: Optional[bool] = None,
                 ignore_index: int = -100, reduce: Optional[bool] = None,
                 reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """Cross entropy of logits against class indices or class probabilities."""

    __constants__ = ["ignore_index", "reduction", "label_smoothing"]
    ignore_index: int
    label_smoothing: float

    def __init__(self, weight: Optional[Tensor] = None, size_average: Optional[bool] = None,
                 ignore_index: int = -100, reduce: Optional[bool] = None,
                 reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(input, target, weight=self.weight,
                               ignore_index=self.ignore_index, reduction=self.reduction,
                               label_smoothing=self.label_smoothing)


class BCEWithLogitsLoss(_Loss):
    """Binary cross entropy of logits (sigmoid folded in, computed stably)."""

    def __init__(self, weight: Optional[Tensor] = None, size_average: Optional[bool] = None,
                 reduce: Optional[bool] = None, reduction: str = "mean",
                 pos_weight: Optional[Tensor] = None) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)
        self.weight: Optional[Tensor]
        self.pos_weight: Optional[Tensor]

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


class NLLLoss2d(NLLLoss):
    """Deprecated: NLLLoss, which handles images itself."""

    def __init__(self, weight: Optional[Tensor] = None, size_average: Optional[bool] = None,
                 ignore_index: int = -100, reduce: Optional[bool] = None,
                 reduction: str = "mean") -> None:
        warnings.warn("NLLLoss2d has been deprecated. Please use NLLLoss instead as a drop-in "
                      "replacement and see https://pytorch.org/docs/main/nn.html#torch.nn."
                      "NLLLoss for more details.")
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


class BCELoss(_WeightedLoss):
    """Binary cross entropy of probabilities."""

    __constants__ = ["reduction"]

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy(input, target, weight=self.weight,
                                      reduction=self.reduction)


class HuberLoss(_Loss):
    """Squared error below delta, delta-scaled absolute error above."""

    __constants__ = ["reduction", "delta"]
    delta: float

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence (input as log-probabilities)."""

    __constants__ = ["reduction"]
    log_target: bool

    def __init__(self, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                 reduction: str = "mean", log_target: bool = False) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class SmoothL1Loss(_Loss):
    """Squared error below beta, absolute error above."""

    __constants__ = ["reduction"]
    beta: float

    def __init__(self, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                 reduction: str = "mean", beta: float = 1.0) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class SoftMarginLoss(_Loss):
    """Two-class logistic loss."""

    __constants__ = ["reduction"]

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    """Multi-label hinge loss."""

    __constants__ = ["reduction"]

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Multi-label one-versus-all logistic loss."""

    __constants__ = ["reduction"]

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight,
                                             reduction=self.reduction)


class _MarginLoss(_Loss):
    # the losses whose only parameter is a margin
    __constants__ = ["margin", "reduction"]
    margin: float

    def __init__(self, margin: float = 0.0, size_average: Optional[bool] = None,
                 reduce: Optional[bool] = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin


class MarginRankingLoss(_MarginLoss):
    """max(0, -target * (input1 - input2) + margin)."""

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin,
                                     reduction=self.reduction)


class CosineEmbeddingLoss(_MarginLoss):
    """1 - cos(x1, x2) for similar pairs, max(0, cos(x1, x2) - margin) for dissimilar ones."""

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin,
                                       reduction=self.reduction)


class HingeEmbeddingLoss(_MarginLoss):
    """input for similar pairs, max(0, margin - input) for dissimilar ones."""

    def __init__(self, margin: float = 1.0, size_average: Optional[bool] = None,
                 reduce: Optional[bool] = None, reduction: str = "mean") -> None:
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.hinge_embedding_loss(input, target, margin=self.margin,
                                      reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """Negative log likelihood of target under Normal(input, var)."""

    __constants__ = ["full", "eps", "reduction"]
    full: bool
    eps: float

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(None, None, reduction)
        self.full = full
        self.eps = eps

    def forward(self, input: Tensor, target: Tensor, var: Tensor) -> Tensor:
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps,
                                   reduction=self.reduction)


class PoissonNLLLoss(_Loss):
    """Negative log likelihood of target under Poisson(input)."""

    __constants__ = ["log_input", "full", "eps", "reduction"]
    log_input: bool
    full: bool
    eps: float

    def __init__(self, log_input: bool = True, full: bool = False,
                 size_average: Optional[bool] = None, eps: float = 1e-8,
                 reduce: Optional[bool] = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input: Tensor, target: Tensor) -> Tensor:
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full,
                                  eps=self.eps, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """max(0, d(anchor, positive) - d(anchor, negative) + margin)."""

    __constants__ = ["margin", "p", "eps", "swap", "reduction"]
    margin: float
    p: float
    eps: float
    swap: bool

    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6,
                 swap: bool = False, size_average: Optional[bool] = None,
                 reduce: Optional[bool] = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError("TripletMarginLoss: expected margin to be greater than 0, got "
                             "{} instead".format(margin))
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p,
                                     eps=self.eps, swap=self.swap, reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """Multi-class hinge loss."""

    __constants__ = ["p", "margin", "reduction"]
    margin: float
    p: int

    def __init__(self, p: int = 1, margin: float = 1.0, weight: Optional[Tensor] = None,
                 size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                 reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        if p != 1 and p != 2:
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError("MultiMarginLoss: expected weight to be None or 1D tensor, got "
                             "{}D instead".format(weight.dim()))
        self.p = p
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin,
                                   weight=self.weight, reduction=self.reduction)


class CTCLoss(_Loss):
    """Connectionist temporal classification loss."""

    __constants__ = ["blank", "reduction"]
    blank: int
    zero_infinity: bool

    def __init__(self, blank: int = 0, reduction: str = "mean",
                 zero_infinity: bool = False) -> None:
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs: Tensor, targets: Tensor, input_lengths: Tensor,
                target_lengths: Tensor) -> Tensor:
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                          self.reduction, self.zero_infinity)


__all__ = ["L1Loss", "MSELoss", "NLLLoss", "CrossEntropyLoss", "BCEWithLogitsLoss",
           "NLLLoss2d", "BCELoss", "HuberLoss", "KLDivLoss", "SmoothL1Loss", "SoftMarginLoss",
           "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "MarginRankingLoss",
           "CosineEmbeddingLoss", "HingeEmbeddingLoss", "GaussianNLLLoss", "PoissonNLLLoss",
           "TripletMarginLoss", "MultiMarginLoss", "CTCLoss"]
