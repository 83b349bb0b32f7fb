"""Instance normalisation: InstanceNorm1d/2d/3d (statistics per sample and channel)."""
from __future__ import annotations

import warnings
from typing import Any, Optional

from ..._tensor import Tensor
from .. import functional as F
from .batchnorm import _NormBase


class _InstanceNorm(_NormBase):
    # forward shared by InstanceNorm1d/2d/3d; they differ in the accepted ranks.
    def __init__(self, num_features: int, eps: float = 1e-5, momentum: Optional[float] = 0.1,
                 affine: bool = False, track_running_stats: bool = False, device: Any = None,
                 dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def _get_no_batch_dim(self) -> int:
        raise NotImplementedError

    def _handle_no_batch_input(self, input: Tensor) -> Tensor:
        return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)

    def _apply_instance_norm(self, input: Tensor) -> Tensor:
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                               self.bias, self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        feature_dim = input.dim() - self._get_no_batch_dim()
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError("expected input's size at dim={} to match num_features ({}), "
                                 "but got: {}.".format(feature_dim, self.num_features,
                                                       input.size(feature_dim)))
            else:
                warnings.warn("input's size at dim={} does not match num_features. You can "
                              "silence this warning by not passing in num_features, which is "
                              "not used because affine=False".format(feature_dim))
        if input.dim() == self._get_no_batch_dim():
            return self._handle_no_batch_input(input)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of (N, C, L) or (C, L) input."""

    def _get_no_batch_dim(self) -> int:
        return 2

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (2, 3):
            raise ValueError("expected 2D or 3D input (got {}D input)".format(input.dim()))


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of (N, C, H, W) or (C, H, W) input."""

    def _get_no_batch_dim(self) -> int:
        return 3

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (3, 4):
            raise ValueError("expected 3D or 4D input (got {}D input)".format(input.dim()))


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of (N, C, D, H, W) or (C, D, H, W) input."""

    def _get_no_batch_dim(self) -> int:
        return 4

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (4, 5):
            raise ValueError("expected 4D or 5D input (got {}D input)".format(input.dim()))


__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]
