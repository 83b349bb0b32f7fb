"""The IR verifier: run after every pass and in tests."""
from __future__ import annotations

from .diagnostics import TsjitError
from .graph import Block, Graph, Node, Value


class LintError(TsjitError):
    """The graph breaks an IR invariant; the message includes the graph."""


def lint(graph: Graph) -> None:
    """Check ownership, def-before-use, use lists both ways and block structure."""
    defined: set[int] = set()

    def fail(msg: str) -> None:
        raise LintError(f"{msg}\n{graph}")

    def check_uses(n: Node) -> None:
        for i, v in enumerate(n.inputs):
            if id(v) not in defined:
                fail(f"{n.kind} uses {v} before it is defined (or from another scope)")
            if not any(u.user is n and u.offset == i for u in v.uses):
                fail(f"use list of {v} misses input {i} of {n.kind}")

    def check_value_uses(v: Value) -> None:
        for u in v.uses:
            if u.offset >= len(u.user.inputs) or u.user.inputs[u.offset] is not v:
                fail(f"use list of {v} names {u.user.kind} input {u.offset}, which is not it")
            if u.user.graph is not graph:
                fail(f"{v} is used by a node of another graph")

    def visit_block(b: Block, scope: list[int]) -> None:
        if b.graph is not graph or b.param_node.owning_block is not b:
            fail("block ownership is broken")
        for v in b.inputs:
            if v.node is not b.param_node:
                fail(f"block input {v} is not owned by the block's Param node")
            defined.add(id(v))
            scope.append(id(v))
            check_value_uses(v)
        for n in b.nodes:
            if n.owning_block is not b:
                fail(f"{n.kind} is listed in a block it does not belong to")
            if n.graph is not graph:
                fail(f"{n.kind} belongs to another graph")
            check_uses(n)
            if n.kind == "prim::If" and len(n.blocks) != 2:
                fail("prim::If must have two blocks")
            if n.kind == "prim::Loop" and len(n.blocks) != 1:
                fail("prim::Loop must have one block")
            for sub in n.blocks:
                if sub.owning_node is not n:
                    fail(f"a block of {n.kind} names another owner")
                inner: list[int] = []
                visit_block(sub, inner)
                for i in inner:
                    defined.discard(i)
            for j, o in enumerate(n.outputs):
                if o.node is not n or o.offset != j:
                    fail(f"output {j} of {n.kind} has a wrong owner or offset")
                defined.add(id(o))
                scope.append(id(o))
                check_value_uses(o)
        check_uses(b.return_node)

    visit_block(graph.block, [])
