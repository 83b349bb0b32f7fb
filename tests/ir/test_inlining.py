"""Graph copying and the inlining pass: the verifier holds, results are unchanged, and
inlined nodes keep the frames of the calls they came through."""
import pytest

import tsjit
from tsjit.interpreter import ScriptError, build_code
from tsjit.interpreter.run import run
from tsjit.ir.cloning import copy_graph
from tsjit.ir.passes import inlining
from tsjit.ir.verifier import lint

SOURCE = '''
def leaf(x: int) -> int:
    if x == 13:
        raise ValueError("unlucky")
    return x * 2

def mid(x: int) -> int:
    total = 0
    for i in range(x):
        total += leaf(i)
    return total

def top(a: int) -> int:
    return mid(a) + leaf(a)
'''


@pytest.fixture(scope="module")
def cu():
    return tsjit.jit.CompilationUnit(SOURCE)


def _run(fn, graph, *args):
    return run(build_code(fn, graph), list(args))


def test_copy_graph_prints_the_same_and_is_independent(cu):
    g = cu.top.function.graph
    c = copy_graph(g)
    lint(c)
    assert str(c) == str(g)
    inlining.run(c)
    assert str(c) != str(g)
    assert str(cu.top.function.graph) == str(g)


def test_inlining_removes_calls_and_keeps_results(cu):
    fn = cu.top.function
    g = copy_graph(fn.graph)
    assert inlining.run(g, lambda f: True)
    lint(g)
    assert not any(n.kind == "prim::CallFunction" for n in g.walk())
    for a in (0, 1, 5, 9):
        assert _run(fn, g, a) == cu.top(a)
    assert not inlining.run(g, lambda f: True)


def test_should_inline_is_respected(cu):
    g = copy_graph(cu.top.function.graph)
    inlining.run(g, lambda f: f.name == "mid")
    kinds = [n.callee.name for n in g.walk() if n.kind == "prim::CallFunction"]
    assert kinds == ["leaf", "leaf"]   # the call in top, and the one that came with mid


def test_small_function_rule(cu):
    assert inlining.is_small(cu.leaf.function)
    assert not inlining.is_small(cu.mid.function, limit=3)


def test_inlined_nodes_carry_their_call_frames(cu):
    fn = cu.top.function
    g = copy_graph(fn.graph)
    inlining.run(g, lambda f: True)
    raises = [n for n in g.walk() if n.kind == "prim::RaiseException"]
    stacks = sorted([name.rsplit(".", 1)[-1] for name, _ in n.callstack] for n in raises)
    assert stacks == [["leaf"], ["leaf", "mid"]]
    for n in raises:
        for _, site in n.callstack:
            assert site is not None and ("leaf(" in site.text or "mid(" in site.text)
    with pytest.raises(ScriptError, match="unlucky"):
        _run(fn, g, 13)


def test_interpreter_traceback_of_inlined_code_shows_every_call(cu):
    fn = cu.top.function
    g = copy_graph(fn.graph)
    inlining.run(g, lambda f: True)
    with pytest.raises(ScriptError) as inlined:
        _run(fn, g, 14)
    with pytest.raises(ScriptError) as called:
        cu.top(14)
    frames = [(name, r.lineno() if r else None) for name, r in inlined.value.frames]
    assert frames == [(name, r.lineno() if r else None) for name, r in called.value.frames]
    assert [name.rsplit(".", 1)[-1] for name, _ in frames] == ["leaf", "mid", "top"]
