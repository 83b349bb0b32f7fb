"""Enums as module attributes, iterated over, and refused when their values mix types."""
import enum
from typing import List

import pytest

import tsjit


class Color(enum.Enum):
    RED = 1
    GREEN = 2
    BLUE = 3


class Word(enum.Enum):
    HELLO = "hello"
    BYE = "bye"


class Mixed(enum.Enum):
    ONE = 1
    TWO = "two"


def test_enum_module_attributes_are_typed_and_returned_as_python_members():
    class Holder(tsjit.nn.Module):
        def __init__(self, c: Color, w: Word) -> None:
            super().__init__()
            self.c = c
            self.w = w

        def forward(self):
            return self.c, self.c.value, self.w.name, self.w.value

    m = Holder(Color.GREEN, Word.BYE)
    assert tsjit.jit.script(m)() == m() == (Color.GREEN, 2, "BYE", "bye")


def test_iterating_an_enum_class_visits_its_members_in_order():
    def others(x: Color) -> List[int]:
        out: List[int] = []
        for c in Color:
            if c != x:
                out.append(c.value)
        return out
    for c in Color:
        assert tsjit.jit.script(others)(c) == others(c)


def test_an_enum_with_values_of_different_types_is_refused():
    def same(x: Mixed, y: Mixed) -> bool:
        return x == y
    with pytest.raises(RuntimeError, match="Could not unify type list"):
        tsjit.jit.script(same)
