"""The global grad-mode flag (`no_grad`, `enable_grad`). tsjit has no autograd; the flag
only exists so that programs may query and set it."""
from __future__ import annotations

import functools
from typing import Any, Callable

_enabled = True


def is_grad_enabled() -> bool:
    """Whether gradient mode is on (it has no effect in tsjit)."""
    return _enabled


def set_grad_enabled_flag(mode: bool) -> None:
    """Set the global grad-mode flag."""
    global _enabled
    _enabled = bool(mode)


class _GradMode:
    _mode = True

    def __init__(self) -> None:
        self._prev: list[bool] = []

    def __enter__(self) -> "_GradMode":
        self._prev.append(_enabled)
        set_grad_enabled_flag(self._mode)
        return self

    def __exit__(self, *exc: Any) -> None:
        set_grad_enabled_flag(self._prev.pop())

    def __call__(self, fn: Callable) -> Callable:
        """Use as a decorator."""
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_GradMode):
    """Context manager / decorator turning grad mode off."""
    _mode = False


class enable_grad(_GradMode):
    """Context manager / decorator turning grad mode on."""
    _mode = True


class set_grad_enabled(_GradMode):
    """Set grad mode now; as a context manager, restore it on exit."""

    def __init__(self, mode: bool) -> None:
        super().__init__()
        self._mode = bool(mode)
        self._prev.append(_enabled)
        set_grad_enabled_flag(mode)

    def __enter__(self) -> "set_grad_enabled":
        return self

    def __call__(self, fn: Callable) -> Callable:
        mode = self._mode
        set_grad_enabled_flag(self._prev.pop())

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)
        return wrapper


class inference_mode(no_grad):
    """Same as `no_grad` in tsjit."""

    def __init__(self, mode: bool = True) -> None:
        super().__init__()
        self._mode = not mode


class autocast:   # noqa: N801  (torch's spelling)
    """`torch.autocast(device_type, dtype=None, enabled=True)`: mixed precision is not
    modelled on tsjit's CPU runtime, so the region runs in the tensors' own dtypes (a
    context manager and decorator that changes nothing)."""

    def __init__(self, device_type: str = "cpu", dtype: Any = None, enabled: bool = True,
                 cache_enabled: Any = None) -> None:
        self.device_type, self.fast_dtype, self.enabled = device_type, dtype, enabled

    def __enter__(self) -> "autocast":
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def __call__(self, fn: Callable) -> Callable:
        """Use as a decorator."""
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fn(*args, **kwargs)
        return wrapper
