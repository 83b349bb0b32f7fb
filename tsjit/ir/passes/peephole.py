"""Peephole simplifications: local rewrites that inlining exposes.

- a tuple built and then unpacked or indexed by a constant hands over its elements
  (a callee's `return a, b` meeting the caller's `x, y = f()`);
- `unchecked_cast` of a value whose type already fits is the value itself;
- `x is None` / `x is not None` on a value whose type cannot hold None is a constant;
- a number made a tensor and read back as a number of its own type is the number
  (`int(NumToTensor(n))`, the `x.size(0)` chains of traced models).
"""
from __future__ import annotations

from ..graph import Graph, Node, Value
from .. import types as T
from ..node_kinds import prim
from .pipeline import rerun_after


def _can_be_none(t: T.Type) -> bool:
    if t in (T.NoneType, T.AnyType) or isinstance(t, T.OptionalType):
        return True
    if isinstance(t, T.UnionType):
        return any(_can_be_none(m) for m in t.types)
    return False


def _is_none_constant(v: Value) -> bool:
    return v.node.kind == prim.Constant and v.type == T.NoneType


def _constant(graph: Graph, before: Node, value: bool) -> Value:
    c = graph.create(prim.Constant, [], 0, before.source_range)
    c.attrs["value"] = value
    out = c.add_output(T.BoolType)
    c.insert_before(before)
    return out


# Tensor -> number conversions, and the number type that passes through them unchanged
_UNBOX = {"aten::Int.Tensor": T.IntType, "aten::IntImplicit": T.IntType,
          "aten::Float.Tensor": T.FloatType, "aten::FloatImplicit": T.FloatType}


def _replacements(n: Node) -> list[Value] | None:
    """What `n`'s outputs can be replaced by, or None."""
    k = n.kind
    if k == prim.TupleUnpack:
        src = n.input(0).node
        if src.kind == prim.TupleConstruct and len(src.inputs) == len(n.outputs):
            return list(src.inputs)
    elif k == prim.TupleIndex:
        src, idx = n.input(0).node, n.input(1).node
        if src.kind == prim.TupleConstruct and idx.kind == prim.Constant:
            i = idx.attrs.get("value")
            if isinstance(i, int) and -len(src.inputs) <= i < len(src.inputs):
                return [src.inputs[i]]
    elif k == prim.unchecked_cast:
        if T.is_subtype(n.input(0).type, n.output().type):
            return [n.input(0)]
    elif n.schema is not None and n.schema.qualified in _UNBOX:
        src = n.input(0).node
        if src.schema is not None and src.schema.qualified == "prim::NumToTensor.Scalar" and \
                src.input(0).type == _UNBOX[n.schema.qualified]:
            return [src.input(0)]
    elif k in ("aten::__is__", "aten::__isnot__") and len(n.inputs) == 2:
        a, b = n.inputs
        if _is_none_constant(b) and not _can_be_none(a.type) or \
                _is_none_constant(a) and not _can_be_none(b.type):
            return [_constant(n.graph, n, k == "aten::__isnot__")]
    return None


# Inputs replaced by narrower or constant values (folding, simplified branches).
@rerun_after("constant_propagation", "simplify_control_flow")
def run(graph: Graph) -> bool:
    """Apply every rewrite that matches; the nodes left without uses are for dead-code removal."""
    changed = False
    for n in list(graph.walk()):
        if n.owning_block is None:
            continue
        new = _replacements(n)
        if new is None:
            continue
        for old, v in zip(n.outputs, new):
            old.replace_all_uses_with(v)
        n.destroy()
        changed = True
    return changed
