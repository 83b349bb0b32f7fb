"""Fractional max pooling (re-exported by tsjit.nn.functional, which they are named after):
`fractional_max_pool2d/3d(..., return_indices=...)` dispatch on the flag like PyTorch's."""
from __future__ import annotations

from typing import Optional, Tuple

from .._tensor import Tensor
from ..ops import functions as torch
from ._jit_internal import BroadcastingList2, BroadcastingList3, boolean_dispatch


def fractional_max_pool2d_with_indices(
        input: Tensor, kernel_size: BroadcastingList2[int],
        output_size: Optional[BroadcastingList2[int]] = None,
        output_ratio: Optional[BroadcastingList2[float]] = None,
        return_indices: bool = False,
        _random_samples: Optional[Tensor] = None) -> Tuple[Tensor, Tensor]:
    """2-D fractional max pooling returning (values, flat indices of the maxima)."""
    if output_size is None and output_ratio is None:
        raise ValueError("fractional_max_pool2d requires specifying either an output_size or "
                         "an output_ratio")
    if output_size is None:
        assert output_ratio is not None
        if len(output_ratio) > 2:
            raise ValueError("fractional_max_pool2d requires output_ratio to either be a single "
                             "Int or tuple of Ints.")
        # Scripted, a BroadcastingList2 already holds two ratios (PyTorch's _pair of a list
        # passes it through); the modules pass pairs.
        output_size = [int(input.size(-2) * output_ratio[0]),
                       int(input.size(-1) * output_ratio[1])]
    if _random_samples is None:
        n_batch = 1 if input.dim() == 3 else input.size(0)
        _random_samples = torch.rand(n_batch, input.size(-3), 2, dtype=input.dtype)
    return torch.fractional_max_pool2d(input, kernel_size, output_size, _random_samples)


def _fractional_max_pool2d(
        input: Tensor, kernel_size: BroadcastingList2[int],
        output_size: Optional[BroadcastingList2[int]] = None,
        output_ratio: Optional[BroadcastingList2[float]] = None,
        return_indices: bool = False, _random_samples: Optional[Tensor] = None) -> Tensor:
    return fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio,
                                              return_indices, _random_samples)[0]


def fractional_max_pool3d_with_indices(
        input: Tensor, kernel_size: BroadcastingList3[int],
        output_size: Optional[BroadcastingList3[int]] = None,
        output_ratio: Optional[BroadcastingList3[float]] = None,
        return_indices: bool = False,
        _random_samples: Optional[Tensor] = None) -> Tuple[Tensor, Tensor]:
    """3-D fractional max pooling returning (values, flat indices of the maxima)."""
    if output_size is None and output_ratio is None:
        raise ValueError("fractional_max_pool3d requires specifying either an output_size or "
                         "an output_ratio")
    if output_size is None:
        assert output_ratio is not None
        output_size = [int(input.size(-3) * output_ratio[0]),
                       int(input.size(-2) * output_ratio[1]),
                       int(input.size(-1) * output_ratio[2])]
    if _random_samples is None:
        n_batch = 1 if input.dim() == 4 else input.size(0)
        _random_samples = torch.rand(n_batch, input.size(-4), 3, dtype=input.dtype)
    return torch.fractional_max_pool3d(input, kernel_size, output_size, _random_samples)


def _fractional_max_pool3d(
        input: Tensor, kernel_size: BroadcastingList3[int],
        output_size: Optional[BroadcastingList3[int]] = None,
        output_ratio: Optional[BroadcastingList3[float]] = None,
        return_indices: bool = False, _random_samples: Optional[Tensor] = None) -> Tensor:
    return fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio,
                                              return_indices, _random_samples)[0]


_MODULE = "tsjit.nn.functional"
fractional_max_pool2d = boolean_dispatch("return_indices", 4, False,
                                         fractional_max_pool2d_with_indices,
                                         _fractional_max_pool2d, _MODULE, "fractional_max_pool2d")
fractional_max_pool3d = boolean_dispatch("return_indices", 4, False,
                                         fractional_max_pool3d_with_indices,
                                         _fractional_max_pool3d, _MODULE, "fractional_max_pool3d")
