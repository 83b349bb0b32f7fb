"""The subtyping relation: unions are subtypes of what all their members are."""
import typing

import pytest

import tsjit
from tsjit.ir import types as T

U = T.UnionType((T.FloatType, T.IntType))


@pytest.mark.parametrize("a, b, expected", [
    (U, T.NumberType, True),                                  # a Scalar argument
    (T.UnionType((T.IntType, T.StrType)), T.NumberType, False),
    (U, T.OptionalType(T.NumberType), True),
    (U, T.UnionType((T.IntType, T.FloatType, T.StrType)), True),
    (U, T.FloatType, False),
    (T.IntType, U, True),
    (T.OptionalType(T.IntType), U, False),
    (U, T.AnyType, True),
])
def test_is_subtype(a, b, expected):
    assert T.is_subtype(a, b) is expected


def test_union_of_numbers_calls_scalar_overloads():
    # as nn.functional.lp_pool2d's scripted code does: `norm_type == 1.0`, norm_type a Union
    cu = tsjit.jit.CompilationUnit('''
def eq(x: Union[float, int], y: float) -> bool:
    return x == y

def scaled(x: Union[float, int]) -> float:
    return x * 2.0
''', {"Union": typing.Union})
    assert cu.eq(2, 2.0) is True and cu.eq(2.5, 2.0) is False
    assert cu.scaled(3) == 6.0 and cu.scaled(1.5) == 3.0
    assert "aten::Float" in str(cu.scaled.graph)   # the Scalar result converted, as PyTorch does
