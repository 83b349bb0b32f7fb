"""Parameter: a Tensor that a Module registers as a learnable parameter."""
from __future__ import annotations

from typing import Any

from .._tensor import Tensor, tensor


class Parameter(Tensor):
    """A tensor marked as a module parameter (shares the data it is given)."""

    __tsjit_parameter__ = True    # (how layers below nn, such as saving, recognise one)

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        if data is None:
            data = tensor([])
        if not isinstance(data, Tensor):
            data = tensor(data)
        super().__init__(data._a)
        self.requires_grad = requires_grad

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()
