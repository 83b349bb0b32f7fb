"""Inlining: calls of statically known functions and methods replaced by their bodies.

A `prim::CallFunction`, or a `prim::CallMethod` on a class (not an interface), names its
callee at compile time; the callee's graph is spliced in at the call, its inputs bound
to the call's arguments. Inlined nodes remember the calls they came through
(`Node.callstack`), so errors raised by them still show the callee's frame.
"""
from __future__ import annotations

from typing import Callable, Optional

from ..cloning import block_size, insert_graph
from ..function import Function
from ..graph import Graph, Node
from .. import types as T
from ..node_kinds import prim

# Callees up to this many nodes are inlined by default: enough for the small helper
# functions and layer methods whose call costs more than their body.
SMALL_FUNCTION_NODES = 40


def callee_of(n: Node) -> Optional[Function]:
    """The Function a call node will run, when it is known at compile time."""
    if n.kind == prim.CallFunction or \
            n.kind == prim.CallMethod and isinstance(n.input(0).type, T.ClassType):
        return n.callee
    return None


def is_small(fn: Function, limit: int = SMALL_FUNCTION_NODES) -> bool:
    """Whether `fn`'s body has at most `limit` nodes."""
    return block_size(fn.graph.block, limit) <= limit


def run(graph: Graph, should_inline: Callable[[Function], bool] = is_small) -> bool:
    """Inline every call whose callee satisfies `should_inline`, calls in inlined bodies too."""
    changed = False
    while True:
        calls = [(n, fn) for n in graph.walk()
                 if (fn := callee_of(n)) is not None and should_inline(fn)]
        if not calls:
            return changed
        for n, fn in calls:
            inline_call(n, fn)
        changed = True


def inline_call(n: Node, fn: Function) -> list:
    """Replace call node `n` by the body of `fn`; returns the values of its results."""
    args = list(n.inputs[1:] if n.kind == prim.CallFunction else n.inputs)
    frame = ((fn.qualified_name, n.source_range),)
    results = insert_graph(fn.graph, n, args, frame + n.callstack)
    for old, new in zip(n.outputs, results):
        old.replace_all_uses_with(new)
    n.destroy()
    return results
