"""Running passes: in order, or repeated until none changes the graph; with the
verifier before the first pass and after each one that changed the graph when asked (or
when `TSJIT_VERIFY=1`, as under the tests), so a broken graph is blamed on the pass that
broke it.

The fixed point reruns a pass only when a change since its last run can give it work:
a pass declares (`@rerun_after`) whose changes those are, by pass name (its module's).
A pass without a declaration (a lambda, a freezing fold) reruns after any change, and its
own changes count as any change for the others. Under verification the fixed point is
checked: a last round runs every declared pass, and one that still changes the graph was
wrongly skipped (its declaration misses a change that gives it work): a LintError.
"""
from __future__ import annotations

from typing import Callable, Optional, TypeVar

from ..graph import Graph
from ..verifier import LintError, lint, verify_enabled

Pass = Callable[[Graph], bool]
F = TypeVar("F", bound=Callable[..., bool])


def rerun_after(*names: str) -> Callable[[F], F]:
    """Declare the passes (module names, e.g. "dead_code") whose changes can give the
    decorated pass work; it is rerun in a fixed point only after one of them changed the
    graph (list its own name if its changes can give itself more)."""
    def declare(fn: F) -> F:
        fn.rerun_after = frozenset(names)   # type: ignore[attr-defined]
        return fn
    return declare


def run_pipeline(graph: Graph, passes: list[Pass], verify: Optional[bool] = None) -> bool:
    """Run `passes` in order; whether any changed the graph. With `verify` (default:
    `TSJIT_VERIFY`), the verifier checks the graph before the passes and after each
    one that changed it."""
    if verify is None:
        verify = verify_enabled()
    if verify:
        _lint(graph, "before the first pass")
    changed = False
    for i, p in enumerate(passes):
        changed |= _run_one(graph, p, verify, last=i == len(passes) - 1)
    return changed


def run_to_fixed_point(graph: Graph, passes: list[Pass], verify: Optional[bool] = None,
                       max_rounds: int = 20) -> bool:
    """Run `passes` in order, again and again, each only when a change since its last run
    can give it work (see the module docstring), until none has any (at most `max_rounds`
    rounds: folding exposes dead branches and removing them exposes more folding);
    whether anything changed."""
    if verify is None:
        verify = verify_enabled()
    if verify:
        _lint(graph, "before the first pass")
    changes: list[Optional[str]] = []   # who made each change, in order (None: undeclared)
    # For each pass, how many changes there were when it last ran. By identity: a pass
    # listed twice (CLEANUP's constant pooling) has work once, wherever it is met first.
    seen: dict[Pass, int] = {}
    for _ in range(max_rounds):
        ran = False
        for i, p in enumerate(passes):
            if p in seen and not _has_work(p, changes[seen[p]:]):
                continue
            ran, seen[p] = True, len(changes)
            if _run_one(graph, p, verify, last=i == len(passes) - 1):
                changes.append(_name(p))
        if not ran:
            if verify:
                _check_fixed_point(graph, passes)
            break
    return bool(changes)


def _has_work(p: Pass, changes: list[Optional[str]]) -> bool:
    """Whether `changes` (by pass name) can give `p` work."""
    after = _declaration(p)
    if after is None:
        return bool(changes)
    return any(c is None or c in after for c in changes)


def _declaration(p: Pass) -> Optional[frozenset[str]]:
    # (a functools.partial binding a pass's arguments declares what the pass does)
    return getattr(getattr(p, "func", p), "rerun_after", None)


def _name(p: Pass) -> Optional[str]:
    """The name other passes' declarations give `p` by, if it declares its own."""
    if _declaration(p) is None:
        return None
    return getattr(p, "func", p).__module__.rsplit(".", 1)[-1]


def _check_fixed_point(graph: Graph, passes: list[Pass]) -> None:
    """Every declared pass, once more: none may change the graph (else a skip was wrong;
    a pass without a declaration ran after the last change anyway)."""
    for p in passes:
        if _declaration(p) is not None and p(graph):
            name = _name(p) or _label(p)
            raise LintError(f"pass {name} still changes the graph after the fixed point: a "
                            f"change that gives it work is missing from its rerun_after "
                            f"{sorted(_declaration(p) or ())}\n{graph}")


def _run_one(graph: Graph, p: Pass, verify: bool, last: bool) -> bool:
    changed = p(graph)
    # A pass that changed nothing left a verified graph (the last pass is checked
    # anyway, should one change the graph without saying so).
    if verify and (changed or last):
        _lint(graph, f"after pass {_label(p)}")
    return changed


def _label(p: Pass) -> str:
    fn = getattr(p, "func", p)
    return f"{fn.__module__}.{fn.__qualname__}"


def _lint(graph: Graph, when: str) -> None:
    try:
        lint(graph)
    except LintError as e:
        raise e.add_context(when) from None
