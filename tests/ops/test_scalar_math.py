"""math-module kernels (unary, binary, complex) against TorchScript."""
from __future__ import annotations

import math

import pytest

from tests.helpers import scalar_oracle as T

from tsjit.ops import find  # noqa: E402

UNARY = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "sin", "sinh",
         "tan", "tanh", "sqrt", "exp", "expm1", "log", "log10", "log1p", "erf", "erfc",
         "gamma", "lgamma", "fabs", "degrees", "radians"]
WITH_COMPLEX = {"acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "sin",
                "sinh", "tan", "tanh", "sqrt", "exp", "log", "log10"}
S = "Union[int, float]"

CASES = []
for _n in UNARY:
    CASES += [(f"aten::{_n}.float", f"def f(a: float): math.{_n}(a)", "f", 0.0),
              (f"aten::{_n}.int", f"def f(a: int): math.{_n}(a)", "I", 0.0),
              (f"aten::{_n}.Scalar", f"def f(a: {S}): math.{_n}(a)", "s", 0.0)]
    if _n in WITH_COMPLEX:
        CASES.append((f"aten::{_n}.complex", f"def f(a: complex): math.{_n}(a)", "c", 1e-9))
for _n, _src in (("floor", "math.floor(a)"), ("ceil", "math.ceil(a)"), ("round", "round(a)")):
    CASES += [(f"aten::{_n}.float", f"def f(a: float): {_src}", "f", 0.0),
              (f"aten::{_n}.int", f"def f(a: int): {_src}", "i", 0.0),
              (f"aten::{_n}.Scalar", f"def f(a: {S}): {_src}", "s", 0.0)]
for _n in ("isnan", "isinf", "isfinite"):
    CASES += [(f"aten::{_n}.float", f"def f(a: float): math.{_n}(a)", "f", 0.0),
              (f"aten::{_n}.complex", f"def f(a: complex): math.{_n}(a)", "c", 0.0)]
_PAIRS = {"float": ("float", "float", "ff"), "int": ("int", "int", "ii"),
          "int_float": ("int", "float", "if"), "float_int": ("float", "int", "fi")}
for _n, _src, _scalar in (("fmod", "math.fmod(a, b)", ""),
                          ("mathremainder", "math.remainder(a, b)", ""),
                          ("copysign", "math.copysign(a, b)", ""),
                          ("atan2", "math.atan2(a, b)", ".Scalar_Scalar"),
                          ("pow", "a ** b", ".Scalar_Scalar")):
    for _ov, (_ta, _tb, _k) in _PAIRS.items():
        CASES.append((f"aten::{_n}.{_ov}", f"def f(a: {_ta}, b: {_tb}): {_src}", _k, 0.0))
    CASES.append((f"aten::{_n}{_scalar}", f"def f(a: {S}, b: {S}): {_src}", "ss", 0.0))
for _ov, (_ta, _tb, _k) in {"float_float": ("float", "float", "ff"), "int_int": _PAIRS["int"],
                            "int_float": _PAIRS["int_float"],
                            "float_int": _PAIRS["float_int"]}.items():
    CASES.append((f"aten::log.{_ov}", f"def f(a: {_ta}, b: {_tb}): math.log(a, b)", _k, 0.0))
CASES += [
    ("aten::log.Scalar_Scalar", f"def f(a: {S}, b: {S}): math.log(a, b)", "ss", 0.0),
    ("aten::log.complex_complex", "def f(a: complex, b: complex): math.log(a, b)", "cc",
     1e-9),
    ("aten::pow.complex", "def f(a: complex, b: complex): a ** b", "cc", 1e-9),
    ("aten::pow.complex_float", "def f(a: complex, b: float): a ** b", "cf", 1e-9),
    ("aten::pow.float_complex", "def f(a: float, b: complex): a ** b", "fc", 1e-9),
    ("aten::div.complex", "def f(a: complex, b: complex): a / b", "cc", 0.0),
    ("aten::gcd.int", "def f(a: int, b: int): math.gcd(a, b)", "ii", 0.0),
    ("aten::factorial.int", "def f(a: int): math.factorial(a)", "I", 0.0),
    ("aten::frexp", "def f(a: float): math.frexp(a)", "f", 0.0),
    ("aten::ldexp", "def f(a: float, b: int): math.ldexp(a, b)", "fI", 0.0),
    ("aten::modf", "def f(a: float): math.modf(a)", "f", 0.0),
    ("aten::angle.float", "def f(a: float): torch.angle(a)", "f", 0.0),
    ("aten::angle.int", "def f(a: int): torch.angle(a)", "i", 0.0),
    ("aten::angle.complex", "def f(a: complex): torch.angle(a)", "c", 0.0),
]


def _finite_complex(args: tuple) -> bool:
    # Complex special values (inf / nan parts, overflowing powers) follow C99 Annex F
    # tables and libm scaling tricks we do not reproduce bit for bit; compare finite,
    # moderate inputs.
    return all(math.isfinite(v.real) and math.isfinite(v.imag) and
               max(abs(v.real), abs(v.imag)) < 1e6
               for v in args if isinstance(v, complex))


@T.requires_torch
@pytest.mark.parametrize("qualified,src,kinds,rel", CASES,
                         ids=[f"{c[0]}:{i}" for i, c in enumerate(CASES)])
def test_matches_torchscript(qualified, src, kinds, rel):  # type: ignore[no-untyped-def]
    T.sweep(qualified, src, kinds, valid=lambda *a: _finite_complex(a), rel=rel)


def k(q: str):  # type: ignore[no-untyped-def]
    return find(q).kernel


def test_c_semantics_instead_of_python_exceptions() -> None:
    assert math.isnan(k("aten::sqrt.float")(-1.0))
    assert k("aten::exp.float")(1000.0) == math.inf
    assert k("aten::log.float")(0.0) == -math.inf
    assert k("aten::gamma.float")(0.0) == math.inf
    assert k("aten::log.float_float")(8.0, 1.0) == math.inf
    assert math.isnan(k("aten::fmod.float")(1.0, 0.0))
    with pytest.raises(RuntimeError, match="^0.0 cannot be raised to a negative power$"):
        k("aten::pow.int")(0, -1)
    assert k("aten::pow.int")(2, 3) == 8.0 and isinstance(k("aten::pow.int")(2, 3), float)


def test_scalar_overloads_compute_in_float32() -> None:
    assert k("aten::sin.Scalar")(2) == 0.9092974066734314
    assert k("aten::neg.Scalar")(0.1) == -0.10000000149011612
    assert k("aten::floor.Scalar")(2 ** 31) == -(2 ** 31)


def test_round_floor_ceil() -> None:
    assert [k("aten::round.float")(x) for x in (2.5, 3.5, -2.5, 0.49999999999999994)] == \
        [2.0, 4.0, -2.0, 0.0]
    assert math.copysign(1.0, k("aten::round.float")(-0.4)) == -1.0
    assert k("aten::floor.float")(2.0 ** 63) == -(2 ** 63)      # passes the check, wraps
    with pytest.raises(RuntimeError, match="^Cannot convert float nan to integer$"):
        k("aten::floor.float")(math.nan)
    with pytest.raises(RuntimeError, match=r"^Cannot convert float 9300000000000000000\.000000"):
        k("aten::ceil.float")(9.3e18)


def test_integer_functions() -> None:
    assert k("aten::gcd.int")(-4, 6) == 2 and k("aten::gcd.int")(-(2 ** 63), 0) == -(2 ** 63)
    assert k("aten::factorial.int")(20) == 2432902008176640000
    assert k("aten::factorial.int")(21) == -4249290049419214848
    assert k("aten::factorial.int")(10 ** 12) == 0
