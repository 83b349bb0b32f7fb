"""tsjit.nn.functional: functional forms of the layers, scriptable like torch.nn.functional.

Operators with a kernel (`linear`, `conv2d`, ...) are the eager operators themselves and
compile to the operator; functions with logic of their own are Python functions that
`tsjit.script` compiles (and that archives name `__torch__.torch.nn.functional.*`).
"""
from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from ..tensor import functional as _ops


def __getattr__(name: str) -> Any:
    # Every eager operator is also a functional (`F.linear`, `F.conv2d`, ...).
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(_ops, name)


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(input, 0), elementwise."""
    if inplace:
        result = _ops.relu_(input)
    else:
        result = _ops.relu(input)
    return result
