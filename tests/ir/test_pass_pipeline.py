"""The fixed point's skip rule (ir/passes/pipeline.py): a pass reruns only after a change
that its `rerun_after` declaration says can give it work, and under verification a last
round catches a declaration that misses one."""
from __future__ import annotations

import functools
from typing import Callable, Optional

import pytest

from tsjit.ir import Graph
from tsjit.ir.passes import CLEANUP, constant_propagation, run_to_fixed_point
from tsjit.ir.passes.pipeline import rerun_after
from tsjit.ir.verifier import LintError
from tsjit.ops import registry

from tests.helpers.hostile_code import LONG, script_source


class World:
    """Fake passes over a shared budget of work: what each has left to do, and a log."""

    def __init__(self, **work: int) -> None:
        self.work = dict(work)
        self.log: list[str] = []

    def make(self, name: str, after: tuple[str, ...] | None, gives: dict[str, int] = {},
             ) -> Callable[[Graph], bool]:
        """A pass `name` that does one unit of its work per run (changing the graph),
        handing `gives` units to others each time; declared with `after` (None: not)."""
        def run(g: Graph) -> bool:
            self.log.append(name)
            if self.work.get(name, 0) <= 0:
                return False
            self.work[name] -= 1
            for other, units in gives.items():
                self.work[other] = self.work.get(other, 0) + units
            return True

        run.__module__ = f"fake.{name}"    # a pass is named by its module
        return run if after is None else rerun_after(*after)(run)


def test_a_pass_reruns_after_a_change_it_depends_on() -> None:
    w = World(fold=1)
    fold = w.make("fold", after=("sweep",), gives={"sweep": 1})
    sweep = w.make("sweep", after=("fold",), gives={"fold": 1})
    w.work["sweep"] = 0
    # fold gives sweep work, sweep gives fold work back once more each time, until fold's
    # budget (refilled by sweep) runs out: here sweep's gift is consumed, so 3 rounds.
    w.make("unused", after=())
    assert run_to_fixed_point(Graph(), [fold, sweep], verify=False, max_rounds=3)
    assert w.log == ["fold", "sweep", "fold", "sweep", "fold", "sweep"]


def test_a_pass_is_skipped_after_changes_it_does_not_depend_on() -> None:
    w = World(fold=2, other=0)
    fold = w.make("fold", after=("fold",))       # its own changes give it more
    other = w.make("other", after=("sweep",))    # never given work by fold
    assert run_to_fixed_point(Graph(), [fold, other], verify=False)
    # other ran once (its first round) and was then skipped; fold ran until it had no work.
    assert w.log == ["fold", "other", "fold", "fold"]


def test_an_undeclared_pass_reruns_after_any_change_and_wakes_everyone() -> None:
    w = World(plain=1, fold=0)
    plain = w.make("plain", after=None)
    fold = w.make("fold", after=("nobody",))
    run_to_fixed_point(Graph(), [fold, plain], verify=False)
    # plain changed the graph in round 1: both run again in round 2 (plain as undeclared,
    # fold because an undeclared pass's change may be anything); then nothing changed.
    assert w.log == ["fold", "plain", "fold", "plain"]


def test_a_pass_listed_twice_has_work_once() -> None:
    w = World(pool=1, sweep=1)
    pool = w.make("pool", after=("fold",))
    sweep = w.make("sweep", after=())
    run_to_fixed_point(Graph(), [pool, sweep, pool], verify=False)
    # the second pool has nothing new to see: only sweep changed since pool ran
    assert w.log == ["pool", "sweep"]


def test_the_verify_round_catches_a_pass_that_lies() -> None:
    def passes(w: World) -> list:
        # fold gives sweep work (twice), but sweep claims only "nobody" can give it work
        return [w.make("fold", after=("fold",), gives={"sweep": 1}),
                w.make("sweep", after=("nobody",))]

    w = World(fold=2, sweep=0)
    run_to_fixed_point(Graph(), passes(w), verify=False)
    assert w.work["sweep"] == 1          # the wrong skip left work undone
    w = World(fold=2, sweep=0)
    with pytest.raises(LintError, match="sweep still changes the graph"):
        run_to_fixed_point(Graph(), passes(w), verify=True)
    # an honest declaration passes the same check
    w = World(fold=2, sweep=0)
    honest = [w.make("fold", after=("fold",), gives={"sweep": 1}), w.make("sweep", after=("fold",))]
    run_to_fixed_point(Graph(), honest, verify=True)
    assert w.work["sweep"] == 0


def test_partial_keeps_the_declaration() -> None:
    fold = functools.partial(constant_propagation.run, kernel_for=registry.kernel_for)
    from tsjit.ir.passes import pipeline
    assert pipeline._declaration(fold) == constant_propagation.run.rerun_after
    assert pipeline._name(fold) == "constant_propagation"
    assert pipeline._declaration(lambda g: constant_propagation.run(g)) is None


@pytest.mark.parametrize("shape", ["straight", "unused", "folded", "nested_ifs"])
def test_the_compiler_reaches_the_graph_every_pass_every_round_gives(
        shape: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Compiling with the skip rule gives the graph that rerunning every pass after any
    change gives (the rule as if no pass declared anything)."""
    import tsjit
    from tsjit.ir.passes import pipeline

    source = script_source(LONG[shape](12)) + _BRANCHY

    def compiled() -> str:
        cu = tsjit.jit.CompilationUnit(source, {"torch": tsjit, "Optional": Optional})
        return str(cu.f.graph) + str(cu.g.graph)

    skipping = compiled()
    monkeypatch.setattr(pipeline, "_declaration", lambda p: None)
    assert compiled() == skipping


# Constant conditions, merged constants and narrowed values: work the passes hand on.
_BRANCHY = """
def g(x: int) -> int:
    a = 2 * 3
    if a > 5:
        y = x + a
    else:
        y = x - 1
    n: Optional[int] = None
    if n is None:
        z = 1
    else:
        z = 1
    for i in range(0):
        y = y + i
    if x > 0:
        c = 1
    else:
        c = 1
    if c == 1:   # constant once the `if` above is simplified and `c == 1` folded
        w = y
    else:
        w = 0
    return w + z
"""


def test_one_dead_code_run_leaves_nothing_for_a_second(monkeypatch: pytest.MonkeyPatch) -> None:
    """dead_code declares that its own changes give it no work: one sweep also drops the
    loop-carried values that only pass through once the body's dead nodes are gone."""
    import tsjit
    from tsjit.frontend import compiler
    from tsjit.ir.passes import dead_code

    monkeypatch.setattr(compiler, "run_to_fixed_point", lambda g, passes: False)
    src = """
def f(x: int, n: int) -> int:
    b = x
    c = x
    for i in range(n):
        u = b * 2
        v = c + u
        b = b
        c = c
    return x
"""
    g = tsjit.jit.CompilationUnit(src, {}).f.graph
    assert "prim::Loop" in str(g)
    assert dead_code.run(g)
    assert str(g).count("prim::Loop") == 0 or "block0(%i : int)" in str(g)
    assert not dead_code.run(g)
