"""Dataclasses given to script(): their generated __init__ (InitVar, __post_init__,
defaults), __eq__ and ordering methods compile and agree with Python; a dataclass only
met in an annotation, or one with a default_factory, is refused as PyTorch refuses it."""
import dataclasses
import enum
import itertools
from dataclasses import InitVar, dataclass, field
from typing import List, Optional

import pytest

import tsjit


@dataclass(order=True)
class Point:
    x: float
    y: float
    norm: Optional[tsjit.Tensor] = None

    def __post_init__(self) -> None:
        self.norm = (tsjit.tensor(self.x) ** 2 + tsjit.tensor(self.y) ** 2) ** 0.5


@dataclass
class Scaled:
    x: float
    power: InitVar[int] = 2
    label: str = "s"

    def __post_init__(self, power: int) -> None:
        self.x = self.x ** power


class Mode(enum.Enum):
    A = 1
    B = 2


@dataclass
class WithEnumDefault:
    def __init__(self, alpha: float = 0.5, mode: Mode = Mode.B) -> None:
        self.alpha = alpha
        self.mode = mode


@dataclass
class NeverScripted:
    a: int


def test_generated_init_and_post_init():
    P = tsjit.jit.script(Point)

    def norm(x: float, y: float) -> Optional[tsjit.Tensor]:
        return P(x, y).norm
    assert float(tsjit.jit.script(norm)(3.0, 4.0)) == 5.0


def test_init_vars_and_defaults():
    S = tsjit.jit.script(Scaled)

    def make(x: float, p: int) -> float:
        return S(x, p).x + S(x).x
    assert tsjit.jit.script(make)(3.0, 3) == make(3.0, 3)


@pytest.mark.parametrize("a, b", list(itertools.product([(0.0, 0.0), (1.0, 2.0), (1.0, 3.0),
                                                         (2.0, 0.0)], repeat=2)))
def test_generated_comparisons_agree_with_python(a, b):
    P = tsjit.jit.script(Point)

    def compare(x1: float, y1: float, x2: float, y2: float):
        p, q = P(x1, y1), P(x2, y2)
        return p == q, p < q, p <= q, p > q, p >= q
    assert tsjit.jit.script(compare)(*a, *b) == compare(*a, *b)


def test_a_user_eq_is_kept():
    @tsjit.jit.script
    @dataclass
    class FirstOnly:
        a: int
        b: int

        def __eq__(self, other: "FirstOnly") -> bool:
            return self.a == other.a

    def same(a: int, b1: int, b2: int) -> bool:
        return FirstOnly(a, b1) == FirstOnly(a, b2)
    assert tsjit.jit.script(same)(1, 2, 3) is True


def test_an_enum_default_of_an_explicit_init():
    tsjit.jit.script(WithEnumDefault)

    def mode_value() -> int:
        return WithEnumDefault().mode.value
    assert tsjit.jit.script(mode_value)() == 2


def test_a_default_factory_is_not_implemented():
    @dataclass
    class Bag:
        xs: List[int] = field(default_factory=list)
    with pytest.raises(NotImplementedError, match="default_factory"):
        tsjit.jit.script(Bag)


def test_a_dataclass_not_given_to_script_has_no_source():
    def f(a: NeverScripted) -> int:
        return 0
    with pytest.raises(OSError, match="script the dataclass NeverScripted"):
        tsjit.jit.script(f)


def test_a_scripted_dataclass_is_usable_from_source_compilation_units():
    tsjit.jit.script(Scaled)
    cu = tsjit.jit.CompilationUnit("def f(x: float) -> float:\n    return Scaled(x, 3).x\n",
                                   {"Scaled": Scaled})
    assert cu.f(2.0) == 8.0


def test_a_scripted_dataclass_saves_and_loads():
    import io
    P = tsjit.jit.script(Point)

    class UsesPoint(tsjit.nn.Module):
        def forward(self, x: float, y: float) -> bool:
            return P(x, y) == P(y, x)

    buf = io.BytesIO()
    tsjit.jit.save(tsjit.jit.script(UsesPoint()), buf)
    loaded = tsjit.jit.load(buf.getvalue())
    assert loaded(1.0, 1.0) is True and loaded(1.0, 2.0) is False
