"""Constant pooling: one node per distinct constant (and per uninitialized type), all at
the top of the graph."""
from __future__ import annotations

import struct
from typing import Any

from ..graph import Graph, Node
from ..node_kinds import prim
from .pipeline import rerun_after


def _key(n: Node) -> Any:
    v = n.attrs.get("value", None)
    t = n.output().type
    if "name" in n.attrs:
        return ("fn", n.attrs["name"], t)
    if isinstance(v, (bool, int, float, str, complex)) or v is None:
        # bool/int/float must not merge (True == 1 == 1.0); -0.0 and 0.0 must not either,
        # nor nan and -nan (their reprs are equal, their bits are not).
        return (type(v), _exact(v), t)
    if isinstance(v, (list, tuple)) and all(isinstance(x, (bool, int, float, str)) for x in v):
        return (type(v), tuple(_exact(x) for x in v), t)
    return ("id", id(v), t)


def _exact(v: Any) -> Any:
    """A key that tells apart values that compare or print equal but differ."""
    return (type(v), struct.pack("<d", v)) if isinstance(v, float) else (type(v), repr(v))


# New constants (folding, peephole) or nodes moved out of a branch; one run hoists and
# merges all of them.
@rerun_after("constant_propagation", "peephole", "simplify_control_flow")
def run(graph: Graph) -> bool:
    """Hoist every prim::Constant to the start of the graph and merge equal ones."""
    seen: dict[Any, Node] = {}
    hoisted: list[Node] = []
    merged: list[Node] = []
    for n in list(graph.walk()):
        if n.kind == prim.Uninitialized:
            k: Any = ("uninitialized", n.output().type)
        elif n.kind == prim.Constant:
            k = _key(n)
        else:
            continue
        first = seen.get(k)
        if first is not None:
            n.output().replace_all_uses_with(first.output())
            merged.append(n)
        else:
            seen[k] = n
            hoisted.append(n)
    # The hoisted constants go first in the top block, in the order met; each node moved
    # or removed costs the same whatever the length of the method.
    changed = bool(merged)
    for n in merged:
        n.destroy()
    at = graph.block.param_node
    for n in hoisted:
        if at._next is not n:
            n._unlink()
            n.insert_after(at)
            changed = True
        at = n
    return changed
