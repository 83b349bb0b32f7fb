"""The graph a function is compiled from: a copy of its graph, with small calls inlined
and the passes that then pay for themselves run to a fixed point."""
from __future__ import annotations

from typing import Any

from ..ir import Function, Graph
from ..ir.cloning import copy_graph
from ..ir.passes import CLEANUP, constant_propagation, inlining, peephole, run_pipeline
from ..ops import registry


def _kernel_for(n: Any) -> Any:
    o = registry.find_by_schema(n.schema)
    return o.kernel if o is not None else None


def optimized_graph(fn: Function, inline_limit: int = inlining.SMALL_FUNCTION_NODES,
                    verify: bool = False) -> Graph:
    """`fn`'s graph, copied and optimized for code generation (the original is untouched);
    with `verify`, the verifier checks the graph after every pass."""
    g = copy_graph(fn.graph)
    passes = [lambda g: inlining.run(g, lambda callee: inlining.is_small(callee, inline_limit))]
    run_pipeline(g, passes, verify)
    for _ in range(10):
        if not run_pipeline(g, [peephole.run, lambda g: constant_propagation.run(g, _kernel_for)]
                            + CLEANUP, verify):
            break
    return g
