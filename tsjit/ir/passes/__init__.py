"""IR passes: each a module with `run(graph) -> bool` (whether it changed the graph)."""
from . import (constant_pooling, constant_propagation, dead_code, inlining, peephole,
               simplify_control_flow)
from .pipeline import Pass, run_pipeline, run_to_fixed_point

# What every freshly compiled graph goes through, as PyTorch's cleanup passes do.
CLEANUP: list[Pass] = [constant_pooling.run, simplify_control_flow.run, dead_code.run,
                        constant_pooling.run]


__all__ = ["CLEANUP", "Pass", "run_pipeline", "run_to_fixed_point", "constant_pooling",
           "constant_propagation", "dead_code", "inlining", "peephole", "simplify_control_flow"]
