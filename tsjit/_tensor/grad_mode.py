"""The global grad-mode flag (the managers setting it, `no_grad` ..., are
`tsjit.autograd.grad_mode`), and `autocast`. tsjit has no autograd; the flag only exists so
that programs may query and set it."""
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
