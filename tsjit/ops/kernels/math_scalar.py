"""One-argument `math` functions on int / float / Scalar, plus round / floor / ceil / abs / neg.

The `.int` and `.float` overloads compute in double with C semantics (sqrt(-1.0) is nan,
exp(1000.0) is inf, log(0.0) is -inf; nothing raises). The `.Scalar` overloads (reached
from a `Union[int, float]` value) return their result rounded to *float32* in PyTorch:
`math.sin(2)` gives 0.9092974066734314 and `-x` of the Scalar 0.1 gives
-0.10000000149011612; their int results come back through a 32-bit C `int`. floor / ceil
return int64 and raise "Cannot convert float ... to integer" outside the int64 range;
round is round-half-even.
"""
from __future__ import annotations

import math
from typing import Callable, Union

from ..registry import op
from .math_complex import complex_fn
from .scalar_common import c_hypot, cast_int, f_floor_to_int, libm, num, to_f32, ts_error, wrap_int32, wrap_int64

Number = Union[int, float, complex]

_PI = math.pi


def _degrees(x: float) -> float:
    return x * (180.0 / _PI)


def _radians(x: float) -> float:
    return x * (_PI / 180.0)


def _fabs(x: float) -> float:
    return math.fabs(x)


# name -> double implementation; the ones marked True also have a `.complex` overload.
_UNARY: dict[str, tuple[Callable[[float], float], bool]] = {
    name: (libm(name), has_complex) for name, has_complex in (
        ("acos", True), ("acosh", True), ("asin", True), ("asinh", True), ("atan", True),
        ("atanh", True), ("cos", True), ("cosh", True), ("sin", True), ("sinh", True),
        ("tan", True), ("tanh", True), ("sqrt", True), ("exp", True), ("log", True),
        ("log10", True), ("expm1", False), ("log1p", False), ("erf", False),
        ("erfc", False), ("gamma", False), ("lgamma", False))
}
_UNARY["fabs"] = (_fabs, False)
_UNARY["degrees"] = (_degrees, False)
_UNARY["radians"] = (_radians, False)


def _register_unary(name: str, fn: Callable[[float], float], has_complex: bool) -> None:
    cfn = complex_fn(name) if has_complex else None

    def real(a: float) -> float:
        return fn(float(a))

    def scalar(a: Number) -> Number:
        a = num(a)
        if isinstance(a, complex):
            if cfn is None:
                raise ts_error(f"{name}() does not support complex Scalars")
            return cfn(a)
        return to_f32(fn(float(a)))

    real.__name__, real.__doc__ = f"{name}_float", f"C `{name}` on a double."
    scalar.__name__ = f"{name}_scalar"
    scalar.__doc__ = f"`{name}` of a Scalar, rounded to float32 as PyTorch does."
    op(f"aten::{name}.int(int a) -> float", f"aten::{name}.float(float a) -> float")(real)
    op(f"aten::{name}.Scalar(Scalar a) -> Scalar")(scalar)


for _name, (_fn, _has_complex) in _UNARY.items():
    _register_unary(_name, _fn, _has_complex)


# ---- angle / isnan / isinf / isfinite ---------------------------------------------------------

def _angle(x: float) -> float:
    # The sign bit decides: -0.0 has angle pi and a (positive) NaN has angle 0.
    return _PI if math.copysign(1.0, x) < 0 else 0.0


@op("aten::angle.float(float a) -> float", "aten::angle.int(int a) -> float")
def angle_real(a: float) -> float:
    """pi when the sign bit is set (negative numbers, -0.0), else 0."""
    return _angle(float(a))


@op("aten::angle.Scalar(Scalar a) -> Scalar")
def angle_scalar(a: Number) -> Number:
    """angle() of a Scalar."""
    a = num(a)
    if isinstance(a, complex):
        return math.atan2(a.imag, a.real)
    return to_f32(_angle(float(a)))


@op("aten::isnan.float(float a) -> bool")
def isnan_float(a: float) -> bool:
    """a != a."""
    return math.isnan(a)


@op("aten::isinf.float(float a) -> bool")
def isinf_float(a: float) -> bool:
    """±inf."""
    return math.isinf(a)


@op("aten::isfinite.float(float a) -> bool")
def isfinite_float(a: float) -> bool:
    """Neither inf nor NaN."""
    return math.isfinite(a)


# ---- round / floor / ceil -------------------------------------------------------------------

def round_half_even(x: float) -> float:
    """C's nearbyint in the default rounding mode (keeps -0.0, inf and NaN)."""
    if not math.isfinite(x):
        return x
    r = float(round(x))
    return math.copysign(r, x) if r == 0.0 else r


@op("aten::round.float(float a) -> float")
def round_float(a: float) -> float:
    """Round half to even, as a float."""
    return round_half_even(float(a))


@op("aten::round.int(int a) -> float")
def round_int(a: int) -> float:
    """An int rounded is itself, as a float."""
    return float(a)


@op("aten::round.Scalar(Scalar a) -> Scalar")
def round_scalar(a: Number) -> Number:
    """round() of a Scalar, in float32."""
    a = num(a)
    if isinstance(a, complex):
        raise ts_error("round() does not support complex Scalars")
    return to_f32(round_half_even(float(a)))


def _floor(a: float) -> int:
    # Truncating cast, then one step down for negative non-integers; 2**63 passes the range
    # check and wraps to INT64_MIN.
    i = f_floor_to_int(a)
    return i - 1 if a < i else i


def _ceil(a: float) -> int:
    # Truncating cast, then one step up: ceil(2.0**63) is INT64_MIN + 1 as in PyTorch.
    i = f_floor_to_int(a)
    return i + 1 if a > i else i


@op("aten::floor.float(float a) -> int", "aten::floor.int(int a) -> int")
def floor_float(a: float) -> int:
    """Floor as an int64 (raises outside the int64 range); an int goes through double."""
    return _floor(float(a))


@op("aten::ceil.float(float a) -> int")
def ceil_float(a: float) -> int:
    """Ceiling as an int64 (raises outside the int64 range)."""
    return _ceil(float(a))


@op("aten::ceil.int(int a) -> int")
def ceil_int(a: int) -> int:
    """An int is its own ceiling (floor.int, by contrast, goes through double)."""
    return a


@op("aten::floor.Scalar(Scalar a) -> Scalar")
def floor_scalar(a: Number) -> Number:
    """floor() of a Scalar, handed back through a 32-bit C `int`."""
    a = _real(a, "floor")
    return wrap_int32(cast_int(float(a)) if isinstance(a, int) else _floor(a))


@op("aten::ceil.Scalar(Scalar a) -> Scalar")
def ceil_scalar(a: Number) -> Number:
    """ceil() of a Scalar, handed back through a 32-bit C `int`."""
    a = _real(a, "ceil")
    return wrap_int32(cast_int(float(a)) if isinstance(a, int) else _ceil(a))


def _real(a: Number, what: str) -> Union[int, float]:
    a = num(a)
    if isinstance(a, complex):
        raise ts_error(f"{what}() does not support complex Scalars")
    return a


# ---- abs / neg of a Scalar --------------------------------------------------------------------

@op("prim::abs.Scalar(Scalar a) -> Scalar")
def abs_scalar(a: Number) -> Number:
    """abs() of a Scalar: ints come back through a C `int`, floats rounded to float32."""
    a = num(a)
    if isinstance(a, int):
        return wrap_int32(wrap_int64(abs(a)))
    if isinstance(a, complex):
        return c_hypot(a.real, a.imag)
    return to_f32(abs(float(a)))


@op("aten::neg.Scalar(Scalar a) -> Scalar")
def neg_scalar(a: Number) -> Number:
    """-x of a Scalar: ints come back through a C `int`, floats rounded to float32."""
    a = num(a)
    if isinstance(a, int):
        return wrap_int32(wrap_int64(-a))
    if isinstance(a, complex):
        return -a
    return to_f32(-float(a))


# ---- integer functions ---------------------------------------------------------------------

@op("aten::gcd.int(int a, int b) -> int")
def gcd_int(a: int, b: int) -> int:
    """Euclid's algorithm with C's `%`; the result's absolute value wraps for INT64_MIN."""
    while b != 0:
        r = abs(a) % abs(b)
        a, b = b, (-r if a < 0 else r)
    return wrap_int64(abs(a))


@op("aten::factorial.int(int a) -> int")
def factorial_int(a: int) -> int:
    """n! modulo 2**64 (signed); raises for negative n."""
    if a < 0:
        raise ts_error("factorial() not defined for negative values")
    if a >= 66:
        return 0  # 66! has at least 64 factors of two, so the wrapped product is zero.
    return wrap_int64(math.factorial(a))


@op("aten::frexp(float a) -> (float, int)")
def frexp(a: float) -> tuple[float, int]:
    """Mantissa in [0.5, 1) and exponent."""
    return math.frexp(float(a))


@op("aten::ldexp(float x, int i) -> float")
def ldexp(x: float, i: int) -> float:
    """x * 2**i without raising on overflow."""
    try:
        return math.ldexp(float(x), i)
    except OverflowError:
        return math.copysign(math.inf, x)


@op("aten::modf(float a) -> (float, float)")
def modf(a: float) -> tuple[float, float]:
    """(fractional part, integral part), both with the sign of `a`."""
    return math.modf(float(a))

