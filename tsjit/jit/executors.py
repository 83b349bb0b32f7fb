"""Choosing the executor: the interpreter, generated code, or both with tiering.

`TSJIT_EXECUTOR` (interpreter | codegen | auto) and `TSJIT_JIT_THRESHOLD` (calls before
a function is compiled in `auto`) set the starting policy; `set_executor` changes it.
"""
from __future__ import annotations

import os
from typing import Any, Callable, Optional

from ..interpreter.executor import MODES, POLICY, set_policy
from ..ir import Function
from ..ir.diagnostics import TsjitError

DEFAULT_MODE = "auto"
DEFAULT_THRESHOLD = 2


def _compile(fn: Function) -> Callable[[list], Any]:
    from ..codegen import compile_function    # loaded when something first gets hot
    return compile_function(fn)


def set_executor(mode: str, threshold: Optional[int] = None) -> None:
    """Run functions in the `interpreter`, in generated `codegen`, or `auto` (the interpreter
    for the first `threshold` calls, then generated code)."""
    set_policy(mode, threshold, _compile)


def get_executor() -> tuple[str, int]:
    """The executor mode and tier-up threshold in force."""
    return POLICY.mode, POLICY.threshold


def _from_environment() -> None:
    mode = os.environ.get("TSJIT_EXECUTOR", DEFAULT_MODE) or DEFAULT_MODE
    raw = os.environ.get("TSJIT_JIT_THRESHOLD", "")
    try:
        threshold = int(raw) if raw else DEFAULT_THRESHOLD
    except ValueError:
        raise TsjitError(f"TSJIT_JIT_THRESHOLD must be an integer, not '{raw}'") from None
    if mode not in MODES:
        raise TsjitError(f"TSJIT_EXECUTOR must be one of {', '.join(MODES)}, not '{mode}'")
    set_executor(mode, threshold)


_from_environment()
