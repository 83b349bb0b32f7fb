"""`tsjit.jit.isinstance` in Python: a value against a typing annotation, elements too."""
from __future__ import annotations

import builtins
import typing
from typing import Any


def is_instance(obj: Any, ann: Any) -> bool:
    """Whether `obj` fits the annotation `ann` (List[int], Dict[str, Tensor], Tuple[...],
    Optional[...], Union[...], or a class), checking container elements."""
    origin = typing.get_origin(ann)
    args = typing.get_args(ann)
    if origin is None:
        if ann is typing.Any:
            return True
        if ann is None or ann is type(None):
            return obj is None
        if ann is float:
            return builtins.isinstance(obj, float)
        if ann is int:
            return builtins.isinstance(obj, int) and not builtins.isinstance(obj, bool)
        return builtins.isinstance(obj, ann)
    if origin is typing.Union or str(origin) == "<class 'types.UnionType'>":
        return any(is_instance(obj, a) for a in args)
    if origin is list:
        return builtins.isinstance(obj, list) and all(is_instance(x, args[0]) for x in obj)
    if origin is dict:
        return builtins.isinstance(obj, dict) and all(
            is_instance(k, args[0]) and is_instance(v, args[1]) for k, v in obj.items())
    if origin is tuple:
        return builtins.isinstance(obj, tuple) and len(obj) == len(args) and all(
            is_instance(x, a) for x, a in zip(obj, args))
    return builtins.isinstance(obj, origin)


__all__ = ["is_instance"]
