"""IR passes: each a module with `run(graph) -> bool` (whether it changed the graph)."""
from typing import Callable

from ..graph import Graph
from ..verifier import lint
from . import constant_pooling, constant_propagation, dead_code, inlining, peephole, simplify_control_flow

Pass = Callable[[Graph], bool]

# What every freshly compiled graph goes through, as PyTorch's cleanup passes do.
CLEANUP: list[Pass] = [constant_pooling.run, simplify_control_flow.run, dead_code.run,
                        constant_pooling.run]


def run_pipeline(graph: Graph, passes: list[Pass], verify: bool = False) -> bool:
    """Run `passes` in order (with the verifier after each when `verify`)."""
    changed = False
    for p in passes:
        changed |= p(graph)
        if verify:
            lint(graph)
    return changed


__all__ = ["CLEANUP", "run_pipeline", "constant_pooling", "constant_propagation", "dead_code",
           "inlining", "peephole", "simplify_control_flow"]
