"""Parameter: a Tensor that a Module registers as a learnable parameter."""
from __future__ import annotations

from typing import Any

from .._tensor import Tensor, tensor


class Parameter(Tensor):
    """A tensor marked as a module parameter (shares the data it is given)."""

    __tsjit_parameter__ = True    # (how layers below nn, such as saving, recognise one)

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        super().__init__(_data(data))
        self.requires_grad = requires_grad

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()


class Buffer(Tensor):
    """A tensor marked as a module buffer: assigning one to a module attribute registers
    it (`persistent=False` keeps it out of the state dict), as torch.nn.Buffer."""

    def __init__(self, data: Any = None, *, persistent: bool = True) -> None:
        super().__init__(_data(data))
        self.persistent = persistent


def _data(data: Any) -> Any:
    """The array a Parameter / Buffer shares: a tensor's, or a new one's."""
    if data is None:
        data = tensor([])
    return (data if isinstance(data, Tensor) else tensor(data))._a
