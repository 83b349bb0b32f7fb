"""The interpreter: Graph -> Code, the run loop, run-time objects and errors.

Submodules load on first use of a name, so `import tsjit` (which needs only the error
class) does not load the operator library.
"""
from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "Code": "code", "build_code": "code", "ScriptError": "errors", "OPCODES": "instructions",
    "disassemble": "instructions", "UNINITIALIZED": "objects", "Object": "objects",
    "call_function": "run", "code_for": "run", "Executor": "executor",
    "executor_for": "executor", "set_policy": "executor", "POLICY": "executor",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'tsjit.interpreter' has no attribute '{name}'")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = sorted(_WHERE)
