"""Copying IR: whole graphs, and a graph's body spliced into another graph (inlining)."""
from __future__ import annotations

from typing import Optional

from .graph import Block, Graph, Node, Value

ValueMap = dict[Value, Value]


def clone_node(n: Node, graph: Graph, env: ValueMap,
               callstack: tuple = ()) -> Node:
    """A detached copy of `n` (and its blocks) in `graph`, inputs mapped through `env`.

    The copy's outputs (and its blocks' values) are added to `env`. `callstack` is
    appended to the copy's own call stack: the frames of the calls it was inlined through.
    """
    c = graph.create(n.kind, [env[v] for v in n.inputs], 0, n.source_range)
    c.attrs = dict(n.attrs)
    c.schema = n.schema
    c.callee = n.callee
    c.callstack = n.callstack + callstack
    for o in n.outputs:
        env[o] = c.add_output(o.type, o._name)
    for b in n.blocks:
        nb = c.add_block()
        for i in b.inputs:
            env[i] = nb.add_input(i.type, i._name)
        for inner in b.nodes:
            nb.append(clone_node(inner, graph, env, callstack))
        for o in b.outputs:
            nb.register_output(env[o])
    return c


def copy_graph(g: Graph) -> Graph:
    """An independent copy of `g` with the same names, types, attributes and ranges."""
    new = Graph()
    env: ValueMap = {}
    for v in g.inputs:
        env[v] = new.add_input(v.type, v._name)
    for n in g.nodes:
        new.block.append(clone_node(n, new, env))
    for o in g.outputs:
        new.register_output(env[o])
    # Keep the numbering too, so the copy prints exactly as the original.
    for old, v in env.items():
        v.unique = old.unique
    new._next = g._next
    return new


def insert_graph(src: Graph, before: Node, args: list[Value],
                 callstack: tuple = ()) -> list[Value]:
    """Splice a copy of `src`'s body in front of `before`, its inputs bound to `args`.

    Returns the values standing for `src`'s outputs.
    """
    if len(args) != len(src.inputs):
        raise AssertionError(f"inlining a graph of {len(src.inputs)} inputs with {len(args)} arguments")
    env: ValueMap = dict(zip(src.inputs, args))
    graph = before.graph
    for n in src.nodes:
        clone_node(n, graph, env, callstack).insert_before(before)
    return [env[o] for o in src.outputs]


def block_size(b: Block, limit: Optional[int] = None) -> int:
    """How many nodes `b` holds, nested blocks included (counting stops past `limit`)."""
    count = 0
    for _ in b.walk():
        count += 1
        if limit is not None and count > limit:
            break
    return count
