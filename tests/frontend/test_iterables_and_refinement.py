"""Nested iterables (`enumerate(zip(...))`, `zip(range(...), ...)`) and refinement that
accumulates through `elif` chains of early exits, against CPython."""
import typing

import pytest
from hypothesis import given, strategies as st

import tsjit
from tsjit.ir.diagnostics import CompileError

SRC = '''
def nested(xs: List[int], ys: List[float]) -> List[float]:
    out: List[float] = []
    for i, (x, y) in enumerate(zip(xs, ys), 5):
        out.append(i * 100 + x * y)
    for i, j in zip(range(3), enumerate(xs, start=2)):
        out.append(float(i + j[0] * j[1]))
    for a, (b, c) in zip(xs, zip(range(len(xs), 0, -1), enumerate(ys))):
        out.append(a + b + c[0] + c[1])
    return out

def narrow(x: Union[int, str, List[int]]) -> int:
    if isinstance(x, int):
        return x
    elif isinstance(x, str):
        return len(x)
    return sum(x)

def narrow_optional(x: Optional[int], y: Optional[int]) -> int:
    if x is None:
        return -1
    elif y is None:
        return x
    return x * y
'''
G = {"List": typing.List, "Union": typing.Union, "Optional": typing.Optional}
NS: dict = {}
exec(SRC, dict(G), NS)


@pytest.fixture(scope="module")
def cu():
    return tsjit.jit.CompilationUnit(SRC, G)


@given(st.lists(st.integers(-50, 50), max_size=6), st.lists(st.floats(-10, 10), max_size=6))
def test_nested_iterables_match_cpython(cu, xs, ys):
    assert cu.nested(xs, ys) == NS["nested"](xs, ys)


@pytest.mark.parametrize("x", [7, "four", [1, 2, 3], []])
def test_elif_chain_narrows_union(cu, x):
    assert cu.narrow(x) == NS["narrow"](x)


@pytest.mark.parametrize("x, y", [(None, None), (None, 2), (3, None), (3, 4)])
def test_elif_chain_narrows_optional(cu, x, y):
    assert cu.narrow_optional(x, y) == NS["narrow_optional"](x, y)


def test_reassignment_in_live_branch_drops_refinement():
    src = '''
def f(x: Optional[int]) -> int:
    if x is None:
        return 0
    else:
        x = None
    return x + 1
'''
    with pytest.raises(CompileError):
        tsjit.jit.CompilationUnit(src, G)


@pytest.mark.parametrize("call, message", [
    ("enumerate(xs, 1, 2)", "enumerate() takes an iterable and an optional start"),
    ("enumerate(xs, stop=2)", "enumerate() takes an iterable and an optional start"),
    ("enumerate(xs, 1.5)", "enumerate() start must be int, not float"),
    ("zip()", "zip() takes one or more positional arguments"),
])
def test_bad_iterable_calls_are_located_errors(call, message):
    src = f"def f(xs: List[int]) -> int:\n    for q in {call}:\n        pass\n    return 0\n"
    with pytest.raises(CompileError) as info:
        tsjit.jit.CompilationUnit(src, G)
    assert message in str(info.value)
    assert "line 2" in str(info.value) or ":2:" in str(info.value)


LIST_SRC = '''
def of_range(n: int, step: int) -> List[int]:
    return list(range(1, n, step))

def of_zip(a: List[int], b: List[str]) -> List[Tuple[int, str]]:
    return list(zip(a, b))

def of_enumerate(a: List[str]) -> List[Tuple[int, str]]:
    return list(enumerate(a, 1))

def copy(a: List[int]) -> List[int]:
    b = list(a)
    b.append(1)
    return b
'''


@pytest.mark.slow
@given(st.integers(-3, 12), st.integers(1, 4), st.lists(st.integers(), max_size=4),
       st.lists(st.text(max_size=2), max_size=4))
def test_list_of_iterables_matches_cpython(n, step, a, b):
    g = dict(G, Tuple=typing.Tuple)
    cu = tsjit.jit.CompilationUnit(LIST_SRC, g)
    ns: dict = {}
    exec(LIST_SRC, g, ns)
    assert cu.of_range(n, step) == ns["of_range"](n, step)
    assert cu.of_zip(a, b) == ns["of_zip"](a, b)
    assert cu.of_enumerate(b) == ns["of_enumerate"](b)
    before = list(a)
    assert cu.copy(a) == ns["copy"](before) and a == before   # a copy: the argument is unchanged


def test_list_of_range_prints_as_pytorch_writes_it():
    cu = tsjit.jit.CompilationUnit("def f(n: int) -> List[int]:\n    return list(range(n))\n", G)
    assert cu.f.code == ("def f(n: int) -> List[int]:\n  _0 = annotate(List[int], [])\n"
                         "  for _1 in range(n):\n    _2 = torch.append(_0, _1)\n  return _0\n")


def test_list_takes_one_argument():
    with pytest.raises(CompileError, match=r"list\(\) takes at most one positional argument"):
        tsjit.jit.CompilationUnit("def f(n: int) -> List[int]:\n    return list(n, n)\n", G)
