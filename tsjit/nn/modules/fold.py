"""Fold and Unfold: sliding local blocks to columns and back, as torch.nn.modules.fold."""
from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from .. import functional as F
from .module import Module


class Fold(Module):
    """Columns of local blocks summed back into an image (col2im)."""

    __constants__ = ["output_size", "kernel_size", "dilation", "padding", "stride"]

    def __init__(self, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
                 stride: Any = 1) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)

    def extra_repr(self) -> str:
        return ("output_size={output_size}, kernel_size={kernel_size}, dilation={dilation}, "
                "padding={padding}, stride={stride}".format(**self.__dict__))


class Unfold(Module):
    """Sliding local blocks of a batched image as columns (im2col)."""

    __constants__ = ["kernel_size", "dilation", "padding", "stride"]

    def __init__(self, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
                 stride: Any = 1) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return ("kernel_size={kernel_size}, dilation={dilation}, padding={padding}, "
                "stride={stride}".format(**self.__dict__))


__all__ = ["Fold", "Unfold"]
