"""Slices: the `slice()` builtin (also held in a variable), slices of tuples and named
tuples (constant bounds), of module containers, and `del x[a:b]` refused as in PyTorch."""
from typing import List, NamedTuple, Tuple

import pytest
from hypothesis import given, strategies as st

import tsjit

BOUND = st.one_of(st.none(), st.integers(-7, 7))


@given(BOUND, BOUND, st.one_of(st.none(), st.integers(-3, 3).filter(bool)))
def test_slice_builtin_matches_python(start, stop, step):
    src = (f"def f(x: List[int]) -> List[int]:\n"
           f"    s = slice({start}, {stop}, {step})\n"
           f"    return x[s]\n")
    cu = tsjit.jit.CompilationUnit(src, {"List": List})
    xs = list(range(6))
    assert cu.f(xs) == xs[slice(start, stop, step)]


@given(BOUND, BOUND, st.one_of(st.none(), st.integers(-3, 3).filter(bool)))
def test_tuple_slices_with_constant_bounds_match_python(start, stop, step):
    def bound(b):
        return "" if b is None else str(b)
    src = (f"def f(a: int):\n"
           f"    t = (a, 1, 2.5, 'x', a + 1)\n"
           f"    return t[{bound(start)}:{bound(stop)}:{bound(step)}]\n")
    cu = tsjit.jit.CompilationUnit(src)
    t = (4, 1, 2.5, "x", 5)
    assert cu.f(4) == t[start:stop:step]


class P(NamedTuple):
    a: int
    b: str
    c: float


def test_a_named_tuple_slice_is_a_plain_tuple():
    def f(x: int) -> Tuple[str, float]:
        p = P(x, "s", 1.5)
        return p[1:]
    assert tsjit.jit.script(f)(1) == ("s", 1.5)


def test_a_tuple_slice_needs_constant_bounds():
    def f(i: int) -> Tuple[int, int]:
        t = (1, 2, 3)
        return t[i:]
    with pytest.raises(RuntimeError, match="tuple slice indices must be integer constants"):
        tsjit.jit.script(f)


def test_slice_refuses_keyword_arguments():
    def f(x: List[int]) -> List[int]:
        return x[slice(1, stop=2)]
    with pytest.raises(RuntimeError, match="Slice does not accept any keyword arguments"):
        tsjit.jit.script(f)


def test_slice_builtin_on_tensors():
    def f(x: tsjit.Tensor) -> tsjit.Tensor:
        return x[slice(None, 3, 1), slice(1, None)]
    x = tsjit.arange(20).reshape(4, 5)
    assert tsjit.equal(tsjit.jit.script(f)(x), f(x))


def test_module_list_slices_give_the_picked_modules():
    class Leaf(tsjit.nn.Module):
        def __init__(self, tag: str) -> None:
            super().__init__()
            self.tag = tag

        def forward(self) -> int:
            return 0

    class Holder(tsjit.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.items = tsjit.nn.ModuleList([Leaf(t) for t in "ABCDE"])

        def forward(self):
            return self.items[::-2], self.items[1:3]

    back, middle = tsjit.jit.script(Holder())()
    assert [m.tag for m in back] == ["E", "C", "A"] and [m.tag for m in middle] == ["B", "C"]


def test_deleting_a_slice_is_refused():
    def f(x: List[int]) -> List[int]:
        del x[1:3]
        return x
    with pytest.raises(RuntimeError, match="deletion at a single index") as err:
        tsjit.jit.script(f)
    assert "x[1:3]" in str(err.value)
