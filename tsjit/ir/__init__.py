"""The IR: types, graphs, schemas, functions and the compilation unit. Imports nothing else of tsjit.

Submodules load on first use of a name (PEP 562), so importing `tsjit.ir.diagnostics`
alone (as `import tsjit` does) stays cheap.
"""
from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "CompilationUnit": "compilation_unit", "QualifiedName": "compilation_unit",
    "CompileError": "diagnostics", "ParseError": "diagnostics", "Source": "diagnostics",
    "SourceRange": "diagnostics", "TsjitError": "diagnostics",
    "Function": "function", "schema_from_graph": "function",
    "Block": "graph", "Graph": "graph", "Node": "graph", "Use": "graph", "Value": "graph",
    "LintError": "verifier", "lint": "verifier",
    "format_float_literal": "printer", "graph_str": "printer",
    "NO_DEFAULT": "schema", "Argument": "schema", "FunctionSchema": "schema",
    "parse_schema": "schema", "parse_type": "schema",
}


def __getattr__(name: str) -> Any:
    if name == "types":
        return importlib.import_module(".types", __name__)
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'tsjit.ir' has no attribute '{name}'")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = ["types"] + sorted(_WHERE)
