"""Scripting markers for tsjit.nn (nn must not import tsjit.jit, which sits above it).

The frontend reads these attributes: `__tsjit_ignore__` (left to Python),
`__tsjit_unused__` (compiled as a raise), `__tsjit_boolean_dispatch__` (a function that
picks one of two implementations from a constant bool argument, like PyTorch's
`boolean_dispatch` for `F.max_pool2d(..., return_indices=...)`).
"""
from __future__ import annotations

import inspect
from typing import Any, Callable


def ignore(fn: Callable) -> Callable:
    """Leave a method to Python: the compiler does not compile it."""
    fn.__tsjit_ignore__ = True  # type: ignore[attr-defined]
    return fn


def unused(fn: Callable) -> Callable:
    """Compile calls to this method as raising an exception."""
    fn.__tsjit_unused__ = True  # type: ignore[attr-defined]
    return fn


def boolean_dispatch(arg_name: str, arg_index: int, default: bool, if_true: Callable,
                     if_false: Callable, module_name: str, func_name: str) -> Callable:
    """A function calling `if_true` or `if_false` depending on the bool argument `arg_name`
    (positional index `arg_index`), so each implementation has one fixed return type."""
    def fn(*args: Any, **kwargs: Any) -> Any:
        """Call if_true or if_false as the flag says."""
        if arg_name in kwargs:
            flag = kwargs[arg_name]
        elif arg_index < len(args):
            flag = args[arg_index]
        else:
            flag = default
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)

    # No functools.wraps: `__wrapped__` would make the compiler read if_false's source.
    fn.__doc__ = if_false.__doc__
    fn.__signature__ = inspect.signature(if_false)  # type: ignore[attr-defined]
    fn.__module__ = module_name
    fn.__name__ = fn.__qualname__ = func_name
    fn.__tsjit_boolean_dispatch__ = {  # type: ignore[attr-defined]
        "arg_name": arg_name, "arg_index": arg_index, "default": default,
        "if_true": if_true, "if_false": if_false}
    return fn


class _BroadcastingList:
    """`BroadcastingList2[int]`: an `int[2]` argument that also accepts one int (repeated),
    as PyTorch's annotation of the same name. The compiler reads `n` and the element type."""

    def __init__(self, n: int) -> None:
        self.__tsjit_broadcasting_list__ = n

    def __getitem__(self, elem: Any) -> Any:
        from typing import List
        return List[elem]


BroadcastingList1 = _BroadcastingList(1)
BroadcastingList2 = _BroadcastingList(2)
BroadcastingList3 = _BroadcastingList(3)
