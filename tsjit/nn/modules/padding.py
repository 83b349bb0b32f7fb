"""Padding layers: constant (and zero), reflection, replication and circular."""
from __future__ import annotations

from typing import Sequence

from ..._tensor import Tensor
from .. import functional as F
from .module import Module
from .utils import _ntuple, _pair, _quadruple

_sextuple = _ntuple(6)


class _CircularPadNd(Module):
    __constants__ = ["padding"]
    padding: Sequence[int]

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        return F.pad(input, self.padding, "circular")

    def extra_repr(self) -> str:
        return f"{self.padding}"


class CircularPad1d(_CircularPadNd):
    """Pad the last dim by wrapping around."""

    def __init__(self, padding: Sequence[int]) -> None:
        super().__init__()
        self.padding = _pair(padding)

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError("expected 2D or 3D input (got {}D input)".format(input.dim()))


class CircularPad2d(_CircularPadNd):
    """Pad the last two dims by wrapping around."""

    def __init__(self, padding: Sequence[int]) -> None:
        super().__init__()
        self.padding = _quadruple(padding)

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 3 and input.dim() != 4:
            raise ValueError("expected 3D or 4D input (got {}D input)".format(input.dim()))


class CircularPad3d(_CircularPadNd):
    """Pad the last three dims by wrapping around."""

    def __init__(self, padding: Sequence[int]) -> None:
        super().__init__()
        self.padding = _sextuple(padding)

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 4 and input.dim() != 5:
            raise ValueError("expected 4D or 5D input (got {}D input)".format(input.dim()))


class _ConstantPadNd(Module):
    __constants__ = ["padding", "value"]
    value: float
    padding: Sequence[int]

    def __init__(self, value: float) -> None:
        super().__init__()
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim with a constant."""

    def __init__(self, padding: Sequence[int], value: float) -> None:
        super().__init__(value)
        self.padding = _pair(padding)


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dims with a constant."""

    def __init__(self, padding: Sequence[int], value: float) -> None:
        super().__init__(value)
        self.padding = _quadruple(padding)


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three dims with a constant."""

    def __init__(self, padding: Sequence[int], value: float) -> None:
        super().__init__(value)
        self.padding = _sextuple(padding)


class ZeroPad1d(ConstantPad1d):
    """Pad the last dim with zeros."""

    def __init__(self, padding: Sequence[int]) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pad the last two dims with zeros."""

    def __init__(self, padding: Sequence[int]) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pad the last three dims with zeros."""

    def __init__(self, padding: Sequence[int]) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ReflectionPadNd(Module):
    __constants__ = ["padding"]
    padding: Sequence[int]

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "reflect")

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_ReflectionPadNd):
    """Pad the last dim by reflecting at the border."""

    def __init__(self, padding: Sequence[int]) -> None:
        super().__init__()
        self.padding = _pair(padding)


class ReflectionPad2d(_ReflectionPadNd):
    """Pad the last two dims by reflecting at the border."""

    def __init__(self, padding: Sequence[int]) -> None:
        super().__init__()
        self.padding = _quadruple(padding)


class ReflectionPad3d(_ReflectionPadNd):
    """Pad the last three dims by reflecting at the border."""

    def __init__(self, padding: Sequence[int]) -> None:
        super().__init__()
        self.padding = _sextuple(padding)


class _ReplicationPadNd(Module):
    __constants__ = ["padding"]
    padding: Sequence[int]

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "replicate")

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReplicationPad1d(_ReplicationPadNd):
    """Pad the last dim by repeating the border value."""

    def __init__(self, padding: Sequence[int]) -> None:
        super().__init__()
        self.padding = _pair(padding)


class ReplicationPad2d(_ReplicationPadNd):
    """Pad the last two dims by repeating the border values."""

    def __init__(self, padding: Sequence[int]) -> None:
        super().__init__()
        self.padding = _quadruple(padding)


class ReplicationPad3d(_ReplicationPadNd):
    """Pad the last three dims by repeating the border values."""

    def __init__(self, padding: Sequence[int]) -> None:
        super().__init__()
        self.padding = _sextuple(padding)


__all__ = ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d",
           "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
           "ReplicationPad2d", "ReplicationPad3d"]
