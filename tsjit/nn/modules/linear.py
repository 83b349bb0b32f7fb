"""Linear layers."""
from __future__ import annotations

import math

from ...tensor import Tensor, rand
from .. import functional as F
from ..parameter import Parameter
from .module import Module


class Linear(Module):
    """y = x A^T + b, with A of shape (out_features, in_features)."""

    __constants__ = ["in_features", "out_features"]
    in_features: int
    out_features: int
    weight: Tensor

    def __init__(self, in_features: int, out_features: int, bias: bool = True) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        bound = 1.0 / math.sqrt(in_features) if in_features > 0 else 0.0
        # Kaiming-uniform-like initialisation bounds, as torch.nn.Linear uses.
        self.weight = Parameter(rand(out_features, in_features) * (2 * bound) - bound)
        if bias:
            self.bias = Parameter(rand(out_features) * (2 * bound) - bound)
        else:
            self.register_parameter("bias", None)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}"
