"""Constant pooling: one node per distinct constant (and per uninitialized type), all at
the top of the graph."""
from __future__ import annotations

import struct
from typing import Any

from ..graph import Graph, Node
from ..node_kinds import prim


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


def run(graph: Graph) -> bool:
    """Hoist every prim::Constant to the start of the graph and merge equal ones."""
    changed = False
    seen: dict[Any, Node] = {}
    top = graph.block
    insert_at = 0
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
            n.destroy()
            changed = True
            continue
        seen[k] = n
        block = n.owning_block
        if block is not top or top.nodes.index(n) != insert_at:
            block.nodes.remove(n)
            n.owning_block = None
            top._insert_at(insert_at, n)
            changed = True
        insert_at += 1
    return changed
