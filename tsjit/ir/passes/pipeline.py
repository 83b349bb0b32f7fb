"""Running passes: in order, or repeated until none changes the graph; with the
verifier after each pass when asked (or when `TSJIT_VERIFY=1`, as under the tests)."""
from __future__ import annotations

from typing import Callable, Optional

from ..graph import Graph
from ..verifier import lint, verify_enabled

Pass = Callable[[Graph], bool]


def run_pipeline(graph: Graph, passes: list[Pass], verify: Optional[bool] = None) -> bool:
    """Run `passes` in order; whether any changed the graph. With `verify` (default:
    `TSJIT_VERIFY`), the verifier checks the graph after each pass."""
    if verify is None:
        verify = verify_enabled()
    changed = False
    for p in passes:
        changed |= p(graph)
        if verify:
            lint(graph)
    return changed


def run_to_fixed_point(graph: Graph, passes: list[Pass], verify: Optional[bool] = None,
                       max_rounds: int = 20) -> bool:
    """Run `passes` again and again until a round changes nothing (at most `max_rounds`
    rounds: folding exposes dead branches and removing them exposes more folding);
    whether anything changed."""
    changed = False
    for _ in range(max_rounds):
        if not run_pipeline(graph, passes, verify):
            break
        changed = True
    return changed
