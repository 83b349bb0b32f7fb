"""The grad-mode context managers (`torch.no_grad`, ...). tsjit has no autograd: they set
the global flag programs may query (`torch.is_grad_enabled()`), nothing more.

`no_grad` is also a TorchScript class, as in PyTorch: its own methods are written in
TorchScript, so `with torch.no_grad():` in scripted code makes a
`__torch__.torch.autograd.grad_mode.no_grad` object whose `__enter__`/`__exit__` set the
flag (TorchScript classes take only the methods of their own class body, so the decorator
support inherited from `_DecoratorContextManager` stays Python). The other managers are
refused in scripted code, as PyTorch refuses them: each names the operator PyTorch looks
for (`aten::set_grad_enabled` exists, so `torch.set_grad_enabled(False)` is a call).
"""
from __future__ import annotations

import functools
from typing import Any, Callable

from .._tensor.grad_mode import is_grad_enabled, set_grad_enabled_flag


class _DecoratorContextManager:
    """Use as a decorator: `@torch.no_grad()`, or `@torch.no_grad` without the call."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if not kwargs and len(args) == 1 and callable(args[0]) and \
                cls._takes_no_arguments and not isinstance(args[0], bool):
            return cls()(args[0])     # the bare decorator: a function, not a manager
        return super().__new__(cls)

    _takes_no_arguments = True

    def clone(self) -> "_DecoratorContextManager":
        """A fresh manager of the same kind (one per decorated call)."""
        return self.__class__()

    def __call__(self, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.clone():
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_DecoratorContextManager):  # noqa: N801  (torch's spelling)
    """Context manager / decorator turning grad mode off."""

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = is_grad_enabled()
        set_grad_enabled(False)

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        set_grad_enabled(self.prev)


class enable_grad(_DecoratorContextManager):  # noqa: N801
    """Context manager / decorator turning grad mode on."""

    __tsjit_op__ = "aten::enable_grad"

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = is_grad_enabled()
        set_grad_enabled_flag(True)

    def __exit__(self, *exc: Any) -> None:
        set_grad_enabled_flag(self.prev)


class inference_mode(_DecoratorContextManager):  # noqa: N801
    """`torch.inference_mode(mode=True)`: the same as `no_grad` in tsjit (when `mode`)."""

    __tsjit_op__ = "aten::inference_mode"
    _takes_no_arguments = False

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode
        self.prev = False

    def clone(self) -> "inference_mode":
        return self.__class__(self.mode)

    def __enter__(self) -> None:
        self.prev = is_grad_enabled()
        if self.mode:
            set_grad_enabled_flag(False)

    def __exit__(self, *exc: Any) -> None:
        set_grad_enabled_flag(self.prev)


class set_grad_enabled(_DecoratorContextManager):  # noqa: N801
    """Set grad mode now; as a context manager, restore it on exit; as a decorator, set
    it for each call (and restore it now)."""

    __tsjit_op__ = "aten::set_grad_enabled"
    _takes_no_arguments = False

    def __init__(self, mode: bool) -> None:
        self.prev = is_grad_enabled()
        self.mode = bool(mode)
        set_grad_enabled_flag(mode)

    def clone(self) -> "set_grad_enabled":
        return self.__class__(self.mode)

    def __call__(self, fn: Callable) -> Callable:
        set_grad_enabled_flag(self.prev)
        return super().__call__(fn)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        set_grad_enabled_flag(self.prev)
