"""Type annotations (AST expressions) -> Types."""
from __future__ import annotations

from typing import Any, Optional

from ..ir import types as T
from ..ir.diagnostics import CompileError
from . import ast
from .parser import parse_expr

_BY_NAME = {
    "Tensor": T.TensorType, "int": T.IntType, "float": T.FloatType, "bool": T.BoolType,
    "str": T.StrType, "complex": T.ComplexType, "None": T.NoneType, "NoneType": T.NoneType,
    "Any": T.AnyType, "Device": T.DeviceType, "device": T.DeviceType, "number": T.NumberType,
    "Generator": T.GeneratorType, "Storage": T.StorageType, "Stream": T.StreamType,
}


# What a bare name denotes where nothing shadows it (archive code: class bodies).
BUILTIN_TYPE_NAMES: dict[str, T.Type] = dict(_BY_NAME)


# `isinstance(x, tuple)`: any tuple / list / dict.
_BARE_CONTAINERS = {"tuple": T.AnyTupleType, "list": T.AnyListType, "dict": T.DictType(T.AnyType, T.AnyType)}


# typing's bare generics: PyTorch's wording for each.
_NEEDS_ARGUMENTS = {
    "List": "Attempted to use List without a contained type. Please add a contained type, "
            "e.g. List[int]",
    "Dict": "Attempted to use Dict without contained types. Please add contained type, "
            "e.g. Dict[int, int]",
    "Optional": "Attempted to use Optional without a contained type. Please add a contained "
                "type, e.g. Optional[int]",
}


def _last_atom(e: ast.Expr) -> str:
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Attribute):
        return e.attr
    return ""


def _dotted(e: ast.Expr) -> str:
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Attribute):
        base = _dotted(e.value)
        return f"{base}.{e.attr}" if base else ""
    return ""


def broadcast_size(e: ast.Expr) -> Optional[int]:
    """N of a `BroadcastingListN[T]` annotation (also inside Optional[...]), else None: such
    a parameter also accepts a single value, repeated N times."""
    if isinstance(e, ast.Subscript):
        ctor = _last_atom(e.value)
        if ctor.startswith("BroadcastingList") and ctor[len("BroadcastingList"):].isdigit():
            return int(ctor[len("BroadcastingList"):])
        if ctor == "Optional":
            return broadcast_size(e.index)
    return None


def type_from_expr(c: Any, e: ast.Expr) -> T.Type:
    """The type annotation `e` denotes, resolving class names through the compiler's resolver."""
    if isinstance(e, ast.Constant):
        if e.value is None:
            return T.NoneType
        if isinstance(e.value, str):
            return type_from_expr(c, parse_expr(e.value, e.range.source.filename))
        raise CompileError("this is not a type", e.range)
    if isinstance(e, ast.BinOp) and e.op == "|":
        # PEP 604: `int | None` is Optional[int], `int | str` a Union.
        return T.union_of([type_from_expr(c, e.left), type_from_expr(c, e.right)])
    if isinstance(e, ast.Subscript):
        ctor = _last_atom(e.value)
        idx = e.index
        args = list(idx.elts) if isinstance(idx, ast.TupleLit) else [idx]
        if ctor in ("List", "list"):
            _arity(e, args, 1)
            return T.ListType(type_from_expr(c, args[0]))
        if ctor in ("Dict", "dict"):
            _arity(e, args, 2)
            return T.DictType(type_from_expr(c, args[0]), type_from_expr(c, args[1]))
        if ctor in ("Tuple", "tuple"):
            if len(args) == 1 and isinstance(args[0], ast.TupleLit) and not args[0].elts:
                return T.TupleType(())
            return T.TupleType(tuple(type_from_expr(c, a) for a in args))
        if ctor == "Optional":
            _arity(e, args, 1)
            return T.optional(type_from_expr(c, args[0]))
        if ctor == "Union":
            return T.union_of([type_from_expr(c, a) for a in args])
        if ctor.startswith("BroadcastingList"):
            _arity(e, args, 1)   # an N-element list that also accepts a single value
            return T.ListType(type_from_expr(c, args[0]))
        if ctor == "Final":
            _arity(e, args, 1)
            return type_from_expr(c, args[0])
        if ctor == "Future":
            return T.FutureType(type_from_expr(c, args[0]))
        raise CompileError(f"unknown type constructor {ctor}", e.value.range)
    dotted = _dotted(e)
    if dotted.startswith("__torch__."):
        t = c.resolver.resolve_type(dotted, c, e.range)
        if t is not None:
            return t
    atom = _last_atom(e)
    if atom in _NEEDS_ARGUMENTS and (dotted == atom or dotted == "typing." + atom):
        raise CompileError(_NEEDS_ARGUMENTS[atom], e.range)
    if isinstance(e, ast.Name) and atom in _BARE_CONTAINERS and c.env.lookup(atom) is None:
        return _BARE_CONTAINERS[atom]
    if isinstance(e, ast.Name) and atom in _BY_NAME and c.env.lookup(atom) is None:
        return _BY_NAME[atom]
    if isinstance(e, (ast.Name, ast.Attribute)):
        sv = c.resolver.resolve_annotation(e, c)
        if sv is not None:
            t = sv.to_type(c, e.range)
            if t is not None:
                return t
        if atom in _BY_NAME and (isinstance(e, ast.Name) or dotted in (
                "torch.Tensor", "torch.device", "torch.Generator", "typing.Any")):
            return _BY_NAME[atom]
    raise CompileError(f"unknown type annotation {dotted or 'expression'}", e.range)


def _arity(e: ast.Subscript, args: list, n: int) -> None:
    if len(args) != n:
        raise CompileError(f"{_last_atom(e.value)}[...] takes {n} type argument(s)", e.range)
