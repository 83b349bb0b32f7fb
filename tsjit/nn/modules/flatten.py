"""Flatten and Unflatten."""
from __future__ import annotations

from typing import List

from ..._tensor import Tensor
from .module import Module


class Flatten(Module):
    """Flatten dims start_dim..end_dim into one."""

    __constants__ = ["start_dim", "end_dim"]
    start_dim: int
    end_dim: int

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Expand dim `dim` into the shape `unflattened_size`."""

    __constants__ = ["dim", "unflattened_size"]
    dim: int
    unflattened_size: List[int]

    def __init__(self, dim: int, unflattened_size: List[int]) -> None:
        super().__init__()
        if not isinstance(dim, int):
            raise TypeError("invalid argument type for dim parameter, expected `int`")
        if not isinstance(unflattened_size, (tuple, list)) or \
                not all(isinstance(e, int) for e in unflattened_size):
            raise TypeError("unflattened_size must be tuple of ints, but found type "
                            f"{type(unflattened_size).__name__}")
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


__all__ = ["Flatten", "Unflatten"]
