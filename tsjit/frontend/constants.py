"""Compile-time evaluation of constant expressions (parameter defaults, class constants)."""
from __future__ import annotations

from typing import Any

from ..ir import types as T
from ..ir.diagnostics import CompileError
from . import ast


def eval_constant(e: ast.Expr, t: T.Type | None = None) -> Any:
    """The value of a literal expression: numbers, strings, None, tuples/lists of them."""
    if isinstance(e, ast.Constant):
        v = e.value
        if t == T.FloatType and isinstance(v, int) and not isinstance(v, bool):
            return float(v)
        return v
    if isinstance(e, ast.UnaryOp) and e.op in ("-", "+"):
        v = eval_constant(e.operand, t)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return -v if e.op == "-" else v
    if isinstance(e, (ast.TupleLit, ast.ListLit)):
        elem = t.elem if isinstance(t, T.ListType) else None
        items = [eval_constant(x, elem) for x in e.elts]
        return tuple(items) if isinstance(e, ast.TupleLit) else items
    if isinstance(e, ast.Name) and e.id in ("inf", "nan"):
        return float(e.id)
    if isinstance(e, ast.Attribute) and e.attr in ("inf", "nan"):
        return float(e.attr)
    raise CompileError("a default value must be a constant expression", e.range)
