"""The interpreter: Graph -> Code, the run loop, run-time objects and errors.

Submodules load on first use of a name, so `import tsjit` (which needs only the error
class) does not load the operator library.
"""
from __future__ import annotations

import importlib

from ..ir.lazy_names import lazy_getattr

_WHERE = {
    "Code": "code", "build_code": "code", "ScriptError": "errors", "OPCODES": "instructions",
    "disassemble": "instructions", "UNINITIALIZED": "objects", "Object": "objects",
    "call_function": "run", "code_for": "run", "Executor": "executor",
    "executor_for": "executor", "set_policy": "executor", "POLICY": "executor",
}


__getattr__ = lazy_getattr(__name__, _WHERE,
                           lambda m: importlib.import_module(f".{m}", __name__))

__all__ = sorted(_WHERE)
