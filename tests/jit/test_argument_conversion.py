"""Python values passed to scripted code are converted to the declared types, as PyTorch's
toIValue does; results come back as the Python classes they were compiled from."""
import enum
from typing import Dict, List, NamedTuple, Optional, Tuple

import pytest

import tsjit


class Color(enum.Enum):
    RED = 1
    GREEN = 2


class Pair(NamedTuple):
    a: int
    b: float


def test_an_int_fits_a_float_parameter():
    @tsjit.jit.script
    def half(x: float) -> float:
        return x / 2
    assert half(3) == 1.5


def test_a_tuple_fits_a_list_parameter_and_nested_containers_convert():
    @tsjit.jit.script
    def join(xs: List[str], d: Dict[str, List[float]]) -> str:
        return ",".join(xs) + str(len(d["a"]))
    assert join(("x", "y"), {"a": (1, 2)}) == "x,y2"


def test_lists_and_dicts_passed_in_are_not_mutated():
    @tsjit.jit.script
    def grow(xs: List[int], d: Dict[str, int]) -> int:
        xs.append(1)
        d["new"] = 1
        return len(xs)
    xs, d = [5], {"a": 1}
    assert grow(xs, d) == 2 and xs == [5] and d == {"a": 1}


@pytest.mark.parametrize("bad", ["1", [1.5], None, (1, "2"), {1: 2}])
def test_a_value_that_does_not_fit_is_a_type_error(bad):
    @tsjit.jit.script
    def total(xs: List[int]) -> int:
        return sum(xs)
    with pytest.raises(TypeError, match="expected a value of type 'List\\[int\\]'"):
        total(bad)


def test_optional_and_union_parameters_take_their_members():
    @tsjit.jit.script
    def f(x: Optional[float]) -> float:
        return -1.0 if x is None else x
    assert f(None) == -1.0 and f(2) == 2.0


def test_enum_members_go_in_and_come_back_as_python_members():
    @tsjit.jit.script
    def other(c: Color) -> Color:
        return Color.GREEN if c == Color.RED else Color.RED
    assert other(Color.RED) is Color.GREEN


def test_a_named_tuple_comes_back_as_its_python_class():
    @tsjit.jit.script
    def make(a: int) -> Pair:
        return Pair(a, 2.0)
    p = make(1)
    assert isinstance(p, Pair) and p.a == 1 and p.b == 2.0


def test_tuples_of_named_tuples_come_back_converted():
    @tsjit.jit.script
    def make2(a: int) -> Tuple[Pair, List[Color]]:
        return Pair(a, 1.0), [Color.RED]
    p, colors = make2(3)
    assert isinstance(p, Pair) and colors == [Color.RED]
