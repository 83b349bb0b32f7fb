"""The remembered overload choices of tsjit.frontend.schema_matching.

A call's overload is chosen once per (candidates, argument types); a warm choice must
print the very graph a cold one prints (value numbers included), and must never outlive
a change of the candidates.
"""
from __future__ import annotations

import math
from typing import List, Optional

import tsjit
from tsjit.frontend import schema_matching as SM
from tsjit.ops import registry


def _calls(x: tsjit.Tensor, i: int, f: float, xs: List[int], o: Optional[int]) -> float:
    a = x + 1
    b = i + 2
    c = f * i                        # float * int
    d = math.sqrt(i)                 # int -> float conversion
    e = x.view(2, 3)                 # trailing ints packed into int[]
    g = tsjit.zeros([2, 3]).sum(dim=0)
    h = max(i, b) + len(xs)
    if o is not None:
        h += o
    return float(a.sum()) + b + c + d + float(e.sum()) + float(g.sum()) + h


def _graph_text() -> str:
    # A fresh copy of the function: a new Function, compiled from scratch.
    fn = type(_calls)(_calls.__code__, _calls.__globals__, "_calls")
    return str(tsjit.script(fn).graph)


def test_warm_choice_prints_the_cold_graph() -> None:
    SM._SELECTIONS.clear()
    cold = _graph_text()
    assert SM._SELECTIONS, "operator calls should have been remembered"
    warm = _graph_text()
    assert warm == cold


def test_choice_is_not_cached_across_new_overloads() -> None:
    registry.register("test_cache::pick(float x) -> float", lambda x: x)

    def pick(x: float) -> float:  # stands for the operator in scripted code
        return x
    pick.__tsjit_op__ = "test_cache::pick"  # type: ignore[attr-defined]

    def call(i: int):
        return pick(i)

    def scripted_return() -> str:
        fn = type(call)(call.__code__, {**call.__globals__, "pick": pick}, "call",
                        None, call.__closure__)
        return str(tsjit.script(fn).graph.outputs[0].type)

    assert scripted_return() == "float"      # only the float overload: int converts
    # Two candidates now, so the choice is remembered; a third changes the candidates.
    registry.register("test_cache::pick.str(str x) -> str", lambda x: x)
    assert scripted_return() == "float"
    assert scripted_return() == "float"
    registry.register("test_cache::pick.int(int x) -> int", lambda x: x)
    assert scripted_return() == "int"        # the new exact overload wins
