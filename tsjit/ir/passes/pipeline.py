"""Running passes: in order, or repeated until none changes the graph; with the
verifier before the first pass and after each one that changed the graph when asked (or
when `TSJIT_VERIFY=1`, as under the tests), so a broken graph is blamed on the pass that
broke it."""
from __future__ import annotations

from typing import Callable, Optional

from ..graph import Graph
from ..verifier import LintError, lint, verify_enabled

Pass = Callable[[Graph], bool]


def run_pipeline(graph: Graph, passes: list[Pass], verify: Optional[bool] = None) -> bool:
    """Run `passes` in order; whether any changed the graph. With `verify` (default:
    `TSJIT_VERIFY`), the verifier checks the graph before the passes and after each
    one that changed it."""
    if verify is None:
        verify = verify_enabled()
    if verify:
        _lint(graph, "before the first pass")
    return _run(graph, passes, verify)


def run_to_fixed_point(graph: Graph, passes: list[Pass], verify: Optional[bool] = None,
                       max_rounds: int = 20) -> bool:
    """Run `passes` again and again until a round changes nothing (at most `max_rounds`
    rounds: folding exposes dead branches and removing them exposes more folding);
    whether anything changed."""
    if verify is None:
        verify = verify_enabled()
    if verify:
        _lint(graph, "before the first pass")
    changed = False
    for _ in range(max_rounds):
        if not _run(graph, passes, verify):
            break
        changed = True
    return changed


def _run(graph: Graph, passes: list[Pass], verify: bool) -> bool:
    changed = False
    for i, p in enumerate(passes):
        changed_now = p(graph)
        changed |= changed_now
        # A pass that changed nothing left a verified graph (the last pass is checked
        # anyway, should one change the graph without saying so).
        if verify and (changed_now or i == len(passes) - 1):
            _lint(graph, f"after pass {p.__module__}.{p.__qualname__}")
    return changed


def _lint(graph: Graph, when: str) -> None:
    try:
        lint(graph)
    except LintError as e:
        raise e.add_context(when) from None
