"""The IR: types, graphs, schemas, functions and the compilation unit. Imports nothing else of tsjit.

Submodules load on first use of a name (PEP 562), so importing `tsjit.ir.diagnostics`
alone (as `import tsjit` does) stays cheap.
"""
from __future__ import annotations

import importlib

from .lazy_names import lazy_getattr

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


__getattr__ = lazy_getattr(__name__, {"types": "types", **_WHERE},
                           lambda m: importlib.import_module(f".{m}", __name__))

__all__ = ["types"] + sorted(_WHERE)
