"""Argument normalisers shared by the layers (`_pair(3) == (3, 3)`), as torch.nn.modules.utils."""
from __future__ import annotations

import collections.abc
from itertools import repeat
from typing import Any, Callable


def _ntuple(n: int, name: str = "parse") -> Callable[[Any], tuple]:
    def parse(x: Any) -> tuple:
        """x as an n-tuple (an iterable is converted, a scalar repeated)."""
        if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
            return tuple(x)
        return tuple(repeat(x, n))
    parse.__name__ = name
    if name in ("_single", "_pair", "_triple", "_quadruple"):
        # TorchScript knows these as builtins (`_pair(0)` is the list [0, 0]), so forward
        # methods may call them; the compiler finds the operator name here.
        parse.__tsjit_op__ = f"aten::{name}"  # type: ignore[attr-defined]
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t: Any, n: int) -> tuple:
    """(a, b) -> (b, b, a, a) for n == 2: the per-dimension padding in F.pad's order."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size: Any, defaults: Any) -> list:
    """An output size whose None entries take the input's size (adaptive pooling)."""
    if isinstance(out_size, int):
        return [out_size]
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]
