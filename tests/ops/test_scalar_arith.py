"""Scalar arithmetic, comparison, bitwise and conversion kernels against TorchScript."""
from __future__ import annotations

import pytest

from tests.helpers import scalar_oracle as T

from tsjit.ops import find  # noqa: E402
from tsjit.ops.formatting import INT64_MIN  # noqa: E402

I, F, C, S, B = "int", "float", "complex", "Union[int, float]", "bool"


def _no_int_crash(a: int, b: int) -> bool:
    # PyTorch dies with SIGFPE on int `%` by zero and on INT64_MIN / -1; keep the oracle
    # away from those (tsjit's behaviour there is pinned by plain tests below).
    return b != 0 and not (a == INT64_MIN and b == -1)


def _binary(name: str, op: str, kinds: str = "", overloads=None):  # type: ignore[no-untyped-def]
    cases = []
    for ov, (ta, tb) in (overloads or {
            "int": (I, I), "float": (F, F), "int_float": (I, F), "float_int": (F, I),
            "": (S, S)}).items():
        q = f"aten::{name}.{ov}" if ov else f"aten::{name}"
        kinds = "".join({I: "i", F: "f", S: "s", C: "c", B: "b"}[t] for t in (ta, tb))
        cases.append((q, f"def f(a: {ta}, b: {tb}): {op}", kinds, None))
    return cases


CX = {"complex": (C, C), "complex_float": (C, F), "complex_int": (C, I),
      "float_complex": (F, C), "int_complex": (I, C)}

CASES = [
    *_binary("add", "a + b"), *_binary("sub", "a - b"), *_binary("mul", "a * b"),
    *_binary("add", "a + b", overloads=CX), *_binary("sub", "a - b", overloads=CX),
    *_binary("mul", "a * b", overloads=CX),
    *_binary("div", "a / b", overloads={"int": (I, I), "float": (F, F), "": (S, S),
                                        "complex": (C, C)}),
    *_binary("floordiv", "a // b", overloads={"float": (F, F), "int_float": (I, F),
                                              "float_int": (F, I), "": (S, S)}),
    *_binary("remainder", "a % b", overloads={"float": (F, F), "int_float": (I, F),
                                              "float_int": (F, I)}),
    ("aten::floordiv.int", "def f(a: int, b: int): a // b", "ii",
     lambda a, b: not (a == INT64_MIN and b == -1)),
    ("aten::remainder.int", "def f(a: int, b: int): a % b", "ii", _no_int_crash),
    ("aten::divmod.int", "def f(a: int, b: int): divmod(a, b)", "ii", _no_int_crash),
    ("aten::divmod.float", "def f(a: float, b: float): divmod(a, b)", "ff", None),
    ("aten::divmod.int_float", "def f(a: int, b: float): divmod(a, b)", "if", None),
    ("aten::divmod.float_int", "def f(a: float, b: int): divmod(a, b)", "fi", None),
    ("aten::neg.int", "def f(a: int): -a", "i", None),
    ("aten::neg.float", "def f(a: float): -a", "f", None),
    ("aten::neg.complex", "def f(a: complex): -a", "c", None),
    ("aten::neg.Scalar", "def f(a: Union[int, float]): -a", "s", None),
    ("prim::abs.int", "def f(a: int): abs(a)", "i", None),
    ("prim::abs.float", "def f(a: float): abs(a)", "f", None),
    ("prim::abs.complex", "def f(a: complex): abs(a)", "c", None),
    ("prim::abs.Scalar", "def f(a: Union[int, float]): abs(a)", "s", None),
]
for _n, _op in (("eq", "=="), ("ne", "!="), ("lt", "<"), ("le", "<="), ("gt", ">"),
                ("ge", ">=")):
    CASES += _binary(_n, f"a {_op} b")
    CASES.append((f"aten::{_n}.str", f"def f(a: str, b: str): a {_op} b", "tt", None))
for _n, _op in (("eq", "=="), ("ne", "!=")):
    CASES += _binary(_n, f"a {_op} b", overloads={"bool": (B, B), "complex": (C, C),
                                                  "complex_float": (C, F),
                                                  "float_complex": (F, C)})
for _n, _op in (("__and__", "&"), ("__or__", "|"), ("__xor__", "^")):
    CASES += _binary(_n, f"a {_op} b", overloads={"int": (I, I), "bool": (B, B)})
CASES += [
    ("aten::__lshift__.int", "def f(a: int, b: int): a << b", "ii", None),
    ("aten::__rshift__.int", "def f(a: int, b: int): a >> b", "ii", None),
    ("aten::__not__", "def f(a: bool): not a", "b", None),
    ("aten::Int.float", "def f(a: float): int(a)", "f", None),
    ("aten::Int.bool", "def f(a: bool): int(a)", "b", None),
    ("aten::Int.Scalar", "def f(a: Union[int, float]): int(a)", "s", None),
    ("aten::Float.int", "def f(a: int): float(a)", "i", None),
    ("aten::Float.bool", "def f(a: bool): float(a)", "b", None),
    ("aten::Float.Scalar", "def f(a: Union[int, float]): float(a)", "s", None),
    ("aten::Bool.int", "def f(a: int): bool(a)", "i", None),
    ("aten::Bool.float", "def f(a: float): bool(a)", "f", None),
    ("aten::Complex.Scalar", "def f(a: Union[int, float]): complex(a)", "s", None),
    ("aten::Complex.float_int", "def f(a: float, b: int): complex(a, b)", "fi", None),
    ("aten::Complex.bool_float", "def f(a: bool, b: float): complex(a, b)", "bf", None),
    ("prim::min.int", "def f(a: int, b: int): min(a, b)", "ii", None),
    ("prim::min.float", "def f(a: float, b: float): min(a, b)", "ff", None),
    ("prim::min.int_float", "def f(a: int, b: float): min(a, b)", "if", None),
    ("prim::min.float_int", "def f(a: float, b: int): min(a, b)", "fi", None),
    ("prim::min", "def f(a: Union[int, float], b: Union[int, float]): min(a, b)", "ss",
     None),
    ("prim::max.int", "def f(a: int, b: int): max(a, b)", "ii", None),
    ("prim::max.float", "def f(a: float, b: float): max(a, b)", "ff", None),
    ("prim::max.float_int", "def f(a: float, b: int): max(a, b)", "fi", None),
    ("prim::max", "def f(a: Union[int, float], b: Union[int, float]): max(a, b)", "ss",
     None),
]


@T.requires_torch
@pytest.mark.parametrize("qualified,src,kinds,valid", CASES,
                         ids=[f"{c[0]}:{i}" for i, c in enumerate(CASES)])
def test_matches_torchscript(qualified, src, kinds, valid):  # type: ignore[no-untyped-def]
    T.sweep(qualified, src, kinds, valid=valid)


# ---- exact expectations that need no oracle ---------------------------------------------

def k(q: str):  # type: ignore[no-untyped-def]
    return find(q).kernel


def test_int64_wraps() -> None:
    assert k("aten::add.int")(2 ** 63 - 1, 1) == -(2 ** 63)
    assert k("aten::mul.int")(2 ** 62, 4) == 0
    assert k("aten::neg.int")(-(2 ** 63)) == -(2 ** 63)
    assert k("prim::abs.int")(-(2 ** 63)) == -(2 ** 63)
    assert k("aten::__lshift__.int")(1, 64) == 1


def test_division_semantics() -> None:
    assert k("aten::div.int")(1, 0) == float("inf")
    assert k("aten::div.float")(-1.0, 0.0) == float("-inf")
    assert k("aten::floordiv.float")(1.0, 0.1) == 10.0       # floor(a / b), not Python's 9.0
    with pytest.raises(RuntimeError, match="^division by 0$"):
        k("aten::floordiv.int")(1, 0)
    assert k("aten::remainder.int")(-5, 2) == 1
    assert k("aten::remainder.float")(-1e-20, 1.0) == 0.0    # Python gives 1.0


def test_int_zero_modulo_raises_instead_of_crashing() -> None:
    # PyTorch dies with SIGFPE here; tsjit raises like its divmod does.
    for q in ("aten::remainder.int", "aten::__round_to_zero_floordiv.int",
              "aten::divmod.int"):
        with pytest.raises(RuntimeError, match="integer division or modulo by zero"):
            k(q)(7, 0)
    assert k("aten::floordiv.int")(INT64_MIN, -1) == INT64_MIN
    assert k("aten::remainder.int")(INT64_MIN, -1) == 0


def test_comparisons_convert_int_to_double() -> None:
    assert k("aten::eq.int_float")(2 ** 53 + 1, 2.0 ** 53) is True
    assert k("aten::eq.int")(2 ** 53 + 1, 2 ** 53) is False
    assert k("aten::lt.str")("a", "é") is True


def test_is_compares_primitives_by_value() -> None:
    a, b = [1], [1]
    assert k("aten::__is__")(None, None) and not k("aten::__is__")(a, b)
    assert k("aten::__is__")(a, a) and k("aten::__is__")(3, 3)
    assert not k("aten::__is__")(True, 1) and k("aten::__isnot__")(a, b)


def test_string_to_number() -> None:
    assert k("aten::Int.str")(" 12") == 12 and k("aten::Int.str")("+5") == 5
    for s, msg in (("12 ", "invalid literal for int() with base 10: '12 '"),
                   ("", "stoll"), ("9223372036854775808", "stoll")):
        with pytest.raises(RuntimeError) as e:
            k("aten::Int.str")(s)
        assert str(e.value) == msg
    assert k("aten::Float.str")("0x1p3") == 8.0 and k("aten::Float.str")("-inf") < 0
    for s, msg in (("1e400", "stod"), ("1e-310", "stod"), ("abc", "stod"),
                   ("1e", "could not convert string to float: '1e'")):
        with pytest.raises(RuntimeError) as e:
            k("aten::Float.str")(s)
        assert str(e.value) == msg
    assert k("aten::Int.float")(float("nan")) == INT64_MIN
