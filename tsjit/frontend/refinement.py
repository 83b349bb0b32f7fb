"""Type refinement: what a condition proves about variables on each of its branches.

`x is None` / `x is not None` narrow an Optional, `isinstance(x, T)` narrows to T (and,
on the false branch, removes T from a Union); `and` / `or` / `not` combine them. A
refinement is applied where the variable is next read: a `prim::unchecked_cast` to the
narrower type, bound in the refining block (so PythonPrint shows `x0 = unchecked_cast(T, x)`).
"""
from __future__ import annotations

from typing import Any, Optional

from ..ir import types as T
from . import ast
from .sugared import SimpleValue, SpecialForm

Refinements = dict[str, T.Type]


def _members(t: T.Type) -> list[T.Type]:
    if isinstance(t, T.OptionalType):
        return _members(t.elem) + [T.NoneType]
    if isinstance(t, T.UnionType):
        return [m for x in t.types for m in _members(x)]
    return [t]


def _without(t: T.Type, remove: list[T.Type]) -> Optional[T.Type]:
    kept = [m for m in _members(t) if not any(T.is_subtype(m, r) for r in remove)]
    return T.union_of(kept) if kept else None


def _only(t: T.Type, keep: list[T.Type]) -> Optional[T.Type]:
    # An Any is whatever the test names (PyTorch refines `x: Any` by isinstance too).
    kept = [k for m in _members(t) if m == T.AnyType for k in keep]
    kept += [m for m in _members(t) if any(T.is_subtype(m, k) for k in keep)]
    if not kept:
        return None
    return T.union_of(kept)


def refinements(c: Any, e: ast.Expr) -> tuple[Refinements, Refinements]:
    """(refinements when `e` is true, refinements when it is false)."""
    if isinstance(e, ast.UnaryOp) and e.op == "not":
        t, f = refinements(c, e.operand)
        return f, t
    if isinstance(e, ast.BoolOp):
        lt, lf = refinements(c, e.left)
        rt, rf = refinements(c, e.right)
        if e.op == "and":
            return {**lt, **rt}, {k: v for k, v in lf.items() if rf.get(k) == v}
        return {k: v for k, v in lt.items() if rt.get(k) == v}, {**lf, **rf}
    if isinstance(e, ast.Compare) and len(e.ops) == 1 and e.ops[0] in ("is", "is_not"):
        name, other = e.left, e.comparators[0]
        if isinstance(other, ast.Name) and isinstance(name, ast.Constant):
            name, other = other, name
        if isinstance(name, ast.Name) and isinstance(other, ast.Constant) and other.value is None:
            t = _var_type(c, name.id)
            if t is None:
                return {}, {}
            not_none = _without(t, [T.NoneType])
            refined = {name.id: not_none} if not_none is not None and not_none != t else {}
            # Only the not-None side narrows (as in PyTorch): the None side keeps the
            # variable's type, so a nested `x is not None` there still refines it.
            return ({}, refined) if e.ops[0] == "is" else (refined, {})
    if isinstance(e, ast.Call) and _is_isinstance(c, e.func) \
            and len(e.args) == 2 and isinstance(e.args[0], ast.Name):
        name = e.args[0].id
        t = _var_type(c, name)
        if t is None:
            return {}, {}
        exprs = e.args[1].elts if isinstance(e.args[1], ast.TupleLit) else (e.args[1],)
        try:
            types = [c.type_from_expr(x) for x in exprs]
        except Exception:  # noqa: BLE001  (not a type: nothing to refine)
            return {}, {}
        yes, no = _only(t, types), _without(t, types)
        return ({name: yes} if yes is not None and yes != t else {},
                {name: no} if no is not None and no != t else {})
    return {}, {}


def _is_isinstance(c: Any, func: ast.Expr) -> bool:
    """`isinstance` or `torch.jit.isinstance` (a dotted name resolving to the builtin)."""
    if isinstance(func, ast.Name):
        return func.id == "isinstance"
    if isinstance(func, ast.Attribute) and func.attr == "isinstance":
        callee = c.emit_sugared(func)
        return isinstance(callee, SpecialForm) and callee.name == "isinstance"
    return False


def _var_type(c: Any, name: str) -> Optional[T.Type]:
    sv = c.env.lookup(name)
    if not isinstance(sv, SimpleValue):
        return None
    return c.env.refinement(name) or sv.value.type
