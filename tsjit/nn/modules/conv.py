"""Convolutions: Conv1d/2d/3d and ConvTranspose1d/2d/3d."""
from __future__ import annotations

import math
from typing import Any, List, Optional, Tuple, Union

from ..._tensor import Tensor, empty
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module
from .utils import _pair, _reverse_repeat_tuple, _single, _triple


class _ConvNd(Module):
    # Shared state of every convolution; subclasses give forward and the rank.
    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode",
                     "output_padding", "in_channels", "out_channels", "kernel_size"]

    _in_channels: int
    _reversed_padding_repeated_twice: List[int]
    out_channels: int
    kernel_size: Tuple[int, ...]
    stride: Tuple[int, ...]
    padding: Union[str, Tuple[int, ...]]
    dilation: Tuple[int, ...]
    transposed: bool
    output_padding: Tuple[int, ...]
    groups: int
    padding_mode: str
    weight: Tensor
    bias: Optional[Tensor]

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Tuple[int, ...],
                 stride: Tuple[int, ...], padding: Union[str, Tuple[int, ...]],
                 dilation: Tuple[int, ...], transposed: bool,
                 output_padding: Tuple[int, ...], groups: int, bias: bool, padding_mode: str,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{valid_padding_strings}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_padding_modes:
            raise ValueError(f"padding_mode must be one of {valid_padding_modes}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's order (last dim first, each side) for the non-'zeros' padding modes
        if isinstance(self.padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * len(kernel_size)
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
                    total_padding = d * (k - 1)
                    left_pad = total_padding // 2
                    self._reversed_padding_repeated_twice[2 * i] = left_pad
                    self._reversed_padding_repeated_twice[2 * i + 1] = total_padding - left_pad
        else:
            self._reversed_padding_repeated_twice = list(
                _reverse_repeat_tuple(self.padding, 2))
        if transposed:
            shape = (in_channels, out_channels // groups, *kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *kernel_size)
        self.weight = Parameter(empty(*shape, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Kaiming-uniform weight (a=sqrt(5)), U(-1/sqrt(fan_in), 1/sqrt(fan_in)) bias."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**{k: getattr(self, k) for k in (
            "in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation",
            "output_padding", "groups", "padding_mode")})


def _padding_arg(padding: Any, n: Any) -> Any:
    return padding if isinstance(padding, str) else n(padding)


class Conv1d(_ConvNd):
    """1-D convolution over (N, C_in, L) or (C_in, L) input."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, _single(kernel_size), _single(stride),
                         _padding_arg(padding, _single), _single(dilation), False, _single(0),
                         groups, bias, padding_mode, device, dtype)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Optional[Tensor]) -> Tensor:
        if self.padding_mode != "zeros":
            return F.conv1d(F.pad(input, self._reversed_padding_repeated_twice,
                                  mode=self.padding_mode),
                            weight, bias, self.stride, _single(0), self.dilation, self.groups)
        return F.conv1d(input, weight, bias, self.stride, self.padding, self.dilation,
                        self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class Conv2d(_ConvNd):
    """2-D convolution over (N, C_in, H, W) or (C_in, H, W) input."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, _pair(kernel_size), _pair(stride),
                         _padding_arg(padding, _pair), _pair(dilation), False, _pair(0),
                         groups, bias, padding_mode, device, dtype)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Optional[Tensor]) -> Tensor:
        if self.padding_mode != "zeros":
            return F.conv2d(F.pad(input, self._reversed_padding_repeated_twice,
                                  mode=self.padding_mode),
                            weight, bias, self.stride, _pair(0), self.dilation, self.groups)
        return F.conv2d(input, weight, bias, self.stride, self.padding, self.dilation,
                        self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class Conv3d(_ConvNd):
    """3-D convolution over (N, C_in, D, H, W) or (C_in, D, H, W) input."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, _triple(kernel_size), _triple(stride),
                         _padding_arg(padding, _triple), _triple(dilation), False, _triple(0),
                         groups, bias, padding_mode, device, dtype)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Optional[Tensor]) -> Tensor:
        if self.padding_mode != "zeros":
            return F.conv3d(F.pad(input, self._reversed_padding_repeated_twice,
                                  mode=self.padding_mode),
                            weight, bias, self.stride, _triple(0), self.dilation, self.groups)
        return F.conv3d(input, weight, bias, self.stride, self.padding, self.dilation,
                        self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class _ConvTransposeNd(_ConvNd):
    # Transposed convolutions: only 'zeros' padding; output_size picks output_padding.
    def __init__(self, in_channels: int, out_channels: int, kernel_size: Tuple[int, ...],
                 stride: Tuple[int, ...], padding: Tuple[int, ...], dilation: Tuple[int, ...],
                 transposed: bool, output_padding: Tuple[int, ...], groups: int, bias: bool,
                 padding_mode: str, device: Any = None, dtype: Any = None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f"{self.__class__.__name__}")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         transposed, output_padding, groups, bias, padding_mode, device, dtype)

    def _output_padding(self, input: Tensor, output_size: Optional[List[int]],
                        stride: List[int], padding: List[int], kernel_size: List[int],
                        num_spatial_dims: int, dilation: Optional[List[int]] = None
                        ) -> List[int]:
        if output_size is None:
            ret = _single(self.output_padding)
        else:
            has_batch_dim = input.dim() == num_spatial_dims + 2
            num_non_spatial_dims = 2 if has_batch_dim else 1
            if len(output_size) == num_non_spatial_dims + num_spatial_dims:
                output_size = output_size[num_non_spatial_dims:]
            if len(output_size) != num_spatial_dims:
                raise ValueError(
                    "ConvTranspose{}D: for {}D input, output_size must have {} or {} elements "
                    "(got {})".format(num_spatial_dims, input.dim(), num_spatial_dims,
                                      num_non_spatial_dims + num_spatial_dims,
                                      len(output_size)))
            min_sizes: List[int] = []
            max_sizes: List[int] = []
            for d in range(num_spatial_dims):
                dim_size = ((input.size(d + num_non_spatial_dims) - 1) * stride[d]
                            - 2 * padding[d]
                            + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1)
                            + 1)
                min_sizes.append(dim_size)
                max_sizes.append(min_sizes[d] + stride[d] - 1)
            for i in range(len(output_size)):
                size = output_size[i]
                min_size = min_sizes[i]
                max_size = max_sizes[i]
                if size < min_size or size > max_size:
                    raise ValueError(
                        "requested an output size of {}, but valid sizes range from {} to {} "
                        "(for an input of {})".format(output_size, min_sizes, max_sizes,
                                                      input.size()[2:]))
            res: List[int] = []
            for d in range(num_spatial_dims):
                res.append(output_size[d] - min_sizes[d])
            ret = res
        return ret


class ConvTranspose1d(_ConvTransposeNd):
    """1-D transposed convolution ("deconvolution")."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, output_padding: Any = 0, groups: int = 1, bias: bool = True,
                 dilation: Any = 1, padding_mode: str = "zeros", device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, _single(kernel_size), _single(stride),
                         _single(padding), _single(dilation), True, _single(output_padding),
                         groups, bias, padding_mode, device, dtype)

    def forward(self, input: Tensor, output_size: Optional[List[int]] = None) -> Tensor:
        if self.padding_mode != "zeros":
            raise ValueError("Only `zeros` padding mode is supported for ConvTranspose1d")
        assert isinstance(self.padding, tuple)
        num_spatial_dims = 1
        output_padding = self._output_padding(input, output_size, self.stride, self.padding,
                                              self.kernel_size, num_spatial_dims,
                                              self.dilation)
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding,
                                  output_padding, self.groups, self.dilation)


class ConvTranspose2d(_ConvTransposeNd):
    """2-D transposed convolution ("deconvolution")."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, output_padding: Any = 0, groups: int = 1, bias: bool = True,
                 dilation: Any = 1, padding_mode: str = "zeros", device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, _pair(kernel_size), _pair(stride),
                         _pair(padding), _pair(dilation), True, _pair(output_padding),
                         groups, bias, padding_mode, device, dtype)

    def forward(self, input: Tensor, output_size: Optional[List[int]] = None) -> Tensor:
        if self.padding_mode != "zeros":
            raise ValueError("Only `zeros` padding mode is supported for ConvTranspose2d")
        assert isinstance(self.padding, tuple)
        num_spatial_dims = 2
        output_padding = self._output_padding(input, output_size, self.stride, self.padding,
                                              self.kernel_size, num_spatial_dims,
                                              self.dilation)
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                  output_padding, self.groups, self.dilation)


class ConvTranspose3d(_ConvTransposeNd):
    """3-D transposed convolution ("deconvolution")."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, output_padding: Any = 0, groups: int = 1, bias: bool = True,
                 dilation: Any = 1, padding_mode: str = "zeros", device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, _triple(kernel_size), _triple(stride),
                         _triple(padding), _triple(dilation), True, _triple(output_padding),
                         groups, bias, padding_mode, device, dtype)

    def forward(self, input: Tensor, output_size: Optional[List[int]] = None) -> Tensor:
        if self.padding_mode != "zeros":
            raise ValueError("Only `zeros` padding mode is supported for ConvTranspose3d")
        assert isinstance(self.padding, tuple)
        num_spatial_dims = 3
        output_padding = self._output_padding(input, output_size, self.stride, self.padding,
                                              self.kernel_size, num_spatial_dims,
                                              self.dilation)
        return F.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding,
                                  output_padding, self.groups, self.dilation)


__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
           "ConvTranspose3d"]
