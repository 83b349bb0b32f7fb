"""The graph a function is compiled from: a copy of its graph, with small calls inlined
and the passes that then pay for themselves run to a fixed point."""
from __future__ import annotations

import functools
from typing import Optional

from ..ir import Function, Graph
from ..ir.cloning import copy_graph
from ..ir.passes import (CLEANUP, constant_propagation, inlining, peephole, run_pipeline,
                         run_to_fixed_point)
from ..ops import registry


def optimized_graph(fn: Function, inline_limit: int = inlining.SMALL_FUNCTION_NODES,
                    verify: Optional[bool] = None) -> Graph:
    """`fn`'s graph, copied and optimized for code generation (the original is untouched);
    with `verify` (default: `TSJIT_VERIFY`), the verifier checks the graph after every pass."""
    g = copy_graph(fn.graph)

    def inline_small_calls(g: Graph) -> bool:
        return inlining.run(g, lambda callee: inlining.is_small(callee, inline_limit))

    run_pipeline(g, [inline_small_calls], verify)
    fold = functools.partial(constant_propagation.run, kernel_for=registry.kernel_for)
    run_to_fixed_point(g, [peephole.run, fold] + CLEANUP, verify)
    return g
