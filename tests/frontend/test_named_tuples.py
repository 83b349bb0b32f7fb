"""NamedTuples: string (forward-reference) field annotations, fields checked at
construction with PyTorch's wording, keyword construction, Python class on return."""
from typing import List, NamedTuple

import pytest

import tsjit


class Features(NamedTuple):
    score: "float"
    history: "List[float]"
    weight: "tsjit.Tensor"


class Cool(NamedTuple):
    a: int
    b: float
    c: List[int]


def test_string_annotations_of_fields_are_evaluated_where_the_class_is():
    def total(x: int) -> float:
        f = Features(3.0, [1.0, 2.0], tsjit.ones(1))
        s = f.score
        for h in f.history:
            s += h
        return s * x
    assert tsjit.jit.script(total)(2) == total(2) == 12.0


def test_a_named_tuple_argument_with_string_annotations_converts():
    def use(f: Features) -> float:
        return f.score + float(len(f.history))
    f = Features(1.5, [1.0], tsjit.ones(2))
    assert tsjit.jit.script(use)(f) == use(f)


def test_fields_of_the_wrong_type_are_refused():
    def make():
        return Cool("foo", "bar", "baz")
    with pytest.raises(RuntimeError, match="Expected a value of type 'int' for argument 'a' but "
                                           "instead found type 'str'"):
        tsjit.jit.script(make)


def test_keyword_construction_returns_the_python_class():
    def make() -> Cool:
        return Cool(c=[1, 2, 3], b=3.5, a=9)
    got = tsjit.jit.script(make)()
    assert isinstance(got, Cool) and got == make()


def test_more_arguments_than_fields_is_a_compile_error():
    # (found by the hostile-archive fuzzer: a field's declaration dropped from archive code)
    def make() -> int:
        return Cool(1, 2.0, [3], 4).a
    with pytest.raises(tsjit.TsjitError, match=r"Cool\(\) takes 3 arguments but 4 were given"):
        tsjit.jit.script(make)
