"""Tensor subscripts -> select / slice / unsqueeze / index (and their assignment forms).

As PyTorch lowers them: walking the index left to right with a dimension counter, an int
selects (the dimension disappears), a slice slices (`x[:]` is `torch.slice(x)`), None
unsqueezes, `...` makes the following dimensions count from the end, and tensors (or
lists) are gathered into one `aten::index` with a `List[Optional[Tensor]]` that has None
for the dimensions they do not index. Assignment writes through the selected view with
`copy_` (a scalar becomes a tensor of the view's dtype first), or with `index_put_` when
tensors index.
"""
from __future__ import annotations

from typing import Any, Optional

from ..ir import Value
from ..ir import types as T
from ..ir.diagnostics import CompileError, SourceRange
from . import ast
from .schema_matching import NamedValue
from .sugared import SimpleValue, SliceValue, SpecialForm

SliceParts = tuple[Optional[Value], Optional[Value], Optional[Value]]


def is_slice(c: Any, e: ast.Expr) -> bool:
    """Whether index `e` is a slice: `a:b:c`, `slice(a, b, c)` or a variable holding one
    (found without emitting anything)."""
    if isinstance(e, ast.Slice):
        return True
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Name):
        callee = c.emit_sugared(e.func)
        return isinstance(callee, SpecialForm) and callee.name == "slice"
    return isinstance(e, ast.Name) and isinstance(c.env.lookup(e.id), SliceValue)


def slice_parts(c: Any, e: ast.Expr) -> Optional[SliceParts]:
    """start, stop, step (Values or None) of a slice index (see is_slice); else None."""
    if not is_slice(c, e):
        return None
    if isinstance(e, ast.Slice):
        return tuple(None if x is None else c.emit_expr(x)   # type: ignore[return-value]
                     for x in (e.lower, e.upper, e.step))
    return c.emit_sugared(e).parts


def _parts(index: ast.Expr) -> list[ast.Expr]:
    return list(index.elts) if isinstance(index, ast.TupleLit) else [index]


def _views(c: Any, x: Value, index: ast.Expr, rng: SourceRange) -> tuple[Value, list[Optional[Value]]]:
    """Apply the int/slice/None/... parts; returns the view and the tensor indices by dim."""
    parts = _parts(index)
    dim = 0
    # After `...` the parts address the last dimensions, counted from the end, as PyTorch
    # emits them: `remaining` is how many dimensions the parts still to come consume.
    remaining: Optional[int] = None
    tensors: list[Optional[Value]] = []
    for k, p in enumerate(parts):
        if _is_constant(p, ...):
            remaining = sum(1 for q in parts[k + 1:] if not _is_constant(q, None))
            continue
        if _is_constant(p, None):
            at = dim if remaining is None else -(remaining + 1)
            x = _call(c, "aten::unsqueeze", [x, c.emit_constant(at, rng)], rng)
            dim += remaining is None
            tensors.append(None)
            continue
        here = dim if remaining is None else -remaining
        if is_slice(c, p):
            dim_value = c.emit_constant(here, rng)
            x = _slice(c, x, dim_value, slice_parts(c, p), rng)
            tensors.append(None)
        else:
            v = c.emit_expr(p)
            if v.type == T.IntType:
                x = _call(c, "aten::select", [x, c.emit_constant(here, rng), v], rng)
                if remaining is not None:
                    remaining -= 1
                continue
            if v.type != T.TensorType and not isinstance(v.type, T.ListType):
                raise CompileError(f"a tensor cannot be indexed by a value of type "
                                   f"{v.type.annotation_str()}", p.range)
            if isinstance(v.type, T.ListType):
                # A list index is a long tensor, whatever its elements (PyTorch's dtype=4).
                v = c.emit_builtin("aten::tensor", [NamedValue(v)],
                                   {"dtype": NamedValue(c.emit_constant(4, rng), "dtype")}, rng)
            tensors.append(v)
        if remaining is None:
            dim += 1
        else:
            remaining -= 1
    return x, tensors


def _is_constant(e: ast.Expr, value: Any) -> bool:
    return isinstance(e, ast.Constant) and e.value is value


def _call(c: Any, name: str, args: list[Value], rng: SourceRange) -> Value:
    return c.emit_builtin(name, [NamedValue(a) for a in args], {}, rng)


def _slice(c: Any, x: Value, dim: Value, parts: Any, rng: SourceRange) -> Value:
    # Trailing defaults are left to the schema, so `x[:]` prints as torch.slice(x).
    args = [x, dim]
    tail = [None if v is not None and v.type == T.NoneType else v for v in parts]
    while tail and tail[-1] is None:
        tail.pop()
    for i, v in enumerate(tail):
        args.append(v if v is not None else c.emit_constant(None if i < 2 else 1, rng))
    return _call(c, "aten::slice", args, rng)


def _index_list(c: Any, tensors: list[Optional[Value]], rng: SourceRange) -> Value:
    while tensors and tensors[-1] is None:
        tensors.pop()
    items = [v if v is not None else c.emit_constant(None, rng) for v in tensors]
    return c.emit_list(items, T.OptionalType(T.TensorType), rng)


def emit_tensor_getitem(c: Any, x: Value, index: ast.Expr, rng: SourceRange) -> Value:
    """`x[index]` for a tensor x."""
    view, tensors = _views(c, x, index, rng)
    if any(t is not None for t in tensors):
        return _call(c, "aten::index", [view, _index_list(c, tensors, rng)], rng)
    return view


def emit_tensor_setitem(c: Any, x: Value, index: ast.Expr, value: Value, rng: SourceRange) -> None:
    """`x[index] = value` for a tensor x: writes through the view (or index_put_)."""
    view, tensors = _views(c, x, index, rng)
    if value.type != T.TensorType:
        dtype = c.emit_builtin("prim::dtype", [NamedValue(view)], {}, rng)
        device = c.emit_builtin("prim::device", [NamedValue(view)], {}, rng)
        value = c.emit_builtin("aten::tensor", [NamedValue(value)],
                               {"dtype": NamedValue(dtype, "dtype"),
                                "device": NamedValue(device, "device")}, rng)
    if any(t is not None for t in tensors):
        _call(c, "aten::index_put_", [view, _index_list(c, tensors, rng), value], rng)
    else:
        _call(c, "aten::copy_", [view, value], rng)


def emit_slice(c: Any, v: Value, parts: SliceParts, rng: SourceRange) -> Value:
    """`v[start:stop:step]` of a tensor, list, string or (with constant bounds) tuple."""
    if v.type == T.TensorType:
        return _slice(c, v, c.emit_constant(0, rng), parts, rng)
    start, stop, step = (c.emit_constant(None, rng) if x is None else x for x in parts)
    if isinstance(v.type, T.TupleType):
        bounds = [c.constant_of(x) for x in (start, stop, step)]
        if any(b is ... or isinstance(b, bool) for b in bounds):
            raise CompileError("tuple slice indices must be integer constants", rng)
        picked = range(len(v.type.elems))[slice(*bounds)]
        return c.emit_tuple([c.emit_tuple_index(v, i, rng) for i in picked], rng)
    if step.type == T.NoneType:
        step = c.emit_constant(1, rng)
    return _call(c, "aten::slice", [v, start, stop, step], rng)


def is_advanced(v: Value) -> bool:
    """Whether `v` came from indexing with tensors (a copy, not a view)."""
    return v.node.kind == "aten::index"
