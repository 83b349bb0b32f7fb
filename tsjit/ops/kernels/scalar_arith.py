"""Arithmetic on int / float / complex / Scalar: add, sub, mul, div, floordiv, %, neg, abs.

TorchScript semantics: ints are int64 and wrap; `int / int` is a float computed as
double(a) / double(b); float division by zero gives inf / nan (no exception); int `//`
by zero raises "division by 0"; `%` follows `(b + a % b) % b` with C's truncating `%`
(`fmod(b + fmod(a, b), b)` for floats, so signs of zero differ from Python's); float
`//` is `floor(a / b)`. Mixed int/float operands convert the int to double first.
"""
from __future__ import annotations

import math
from typing import Union

from ..registry import op
from .scalar_common import (c_hypot, c_rem, f_div, f_floor_to_int, int_zero_division, libm2, num, to_f32,
                            ts_error, wrap_int32, wrap_int64)
from .math_complex import complex_div

Number = Union[int, float, complex]

_fmod = libm2("fmod")


# ---- add / sub / mul --------------------------------------------------------------------

@op("aten::add.int(int a, int b) -> int")
def add_int(a: int, b: int) -> int:
    """int64 addition, wrapping."""
    return wrap_int64(a + b)


@op("aten::add.float(float a, float b) -> float",
    "aten::add.int_float(int a, float b) -> float",
    "aten::add.float_int(float a, int b) -> float")
def add_float(a: float, b: float) -> float:
    """Double addition."""
    return float(a) + float(b)


@op("aten::add.complex(complex a, complex b) -> complex")
def add_complex(a: Number, b: Number) -> complex:
    """Complex addition."""
    return complex(a) + complex(b)


@op("aten::add(Scalar a, Scalar b) -> Scalar")
def add_scalar(a: Number, b: Number) -> Number:
    """Scalar addition: int if both are ints, complex if either is, else float."""
    return _scalar_binary(num(a), num(b), add_int, add_float, add_complex)


@op("aten::sub.int(int a, int b) -> int")
def sub_int(a: int, b: int) -> int:
    """int64 subtraction, wrapping."""
    return wrap_int64(a - b)


@op("aten::sub.float(float a, float b) -> float",
    "aten::sub.int_float(int a, float b) -> float",
    "aten::sub.float_int(float a, int b) -> float")
def sub_float(a: float, b: float) -> float:
    """Double subtraction."""
    return float(a) - float(b)


@op("aten::sub.complex(complex a, complex b) -> complex")
def sub_complex(a: Number, b: Number) -> complex:
    """Complex subtraction."""
    return complex(a) - complex(b)


@op("aten::sub(Scalar a, Scalar b) -> Scalar")
def sub_scalar(a: Number, b: Number) -> Number:
    """Scalar subtraction."""
    return _scalar_binary(num(a), num(b), sub_int, sub_float, sub_complex)


@op("aten::mul.int(int a, int b) -> int")
def mul_int(a: int, b: int) -> int:
    """int64 multiplication, wrapping."""
    return wrap_int64(a * b)


@op("aten::mul.float(float a, float b) -> float",
    "aten::mul.int_float(int a, float b) -> float",
    "aten::mul.float_int(float a, int b) -> float")
def mul_float(a: float, b: float) -> float:
    """Double multiplication."""
    return float(a) * float(b)


@op("aten::mul.complex(complex a, complex b) -> complex")
def mul_complex(a: Number, b: Number) -> complex:
    """Complex multiplication with the textbook formula (no inf/nan recovery)."""
    a, b = complex(a), complex(b)
    return complex(a.real * b.real - a.imag * b.imag, a.real * b.imag + a.imag * b.real)


@op("aten::mul(Scalar a, Scalar b) -> Scalar")
def mul_scalar(a: Number, b: Number) -> Number:
    """Scalar multiplication."""
    return _scalar_binary(num(a), num(b), mul_int, mul_float, mul_complex)


def _scalar_binary(a, b, fi, ff, fc):  # type: ignore[no-untyped-def]
    if isinstance(a, int) and isinstance(b, int):
        return fi(a, b)
    if isinstance(a, complex) or isinstance(b, complex):
        return fc(a, b)
    return ff(float(a), float(b))


# ---- div / floordiv / remainder ---------------------------------------------------------

@op("aten::div.float(float a, float b) -> float",
    "aten::div.int(int a, int b) -> float")
def div_float(a: float, b: float) -> float:
    """True division on doubles; division by zero yields inf or nan."""
    return f_div(float(a), float(b))


@op("aten::div.complex(complex a, complex b) -> complex")
def div_complex(a: complex, b: complex) -> complex:
    """Complex division (Smith's algorithm, as c10::complex)."""
    return complex_div(complex(a), complex(b))


@op("aten::div(Scalar a, Scalar b) -> float")
def div_scalar(a: Number, b: Number) -> float:
    """Scalar true division, always a float."""
    a, b = num(a), num(b)
    if isinstance(a, complex) or isinstance(b, complex):
        raise ts_error("div(Scalar, Scalar) expects real numbers")
    return f_div(float(a), float(b))


@op("aten::floordiv.int(int a, int b) -> int")
def floordiv_int(a: int, b: int) -> int:
    """Python-style floor division on int64."""
    if b == 0:
        raise ts_error("division by 0")
    return wrap_int64(a // b)


@op("aten::floordiv.float(float a, float b) -> float",
    "aten::floordiv.int_float(int a, float b) -> float",
    "aten::floordiv.float_int(float a, int b) -> float")
def floordiv_float(a: float, b: float) -> float:
    """floor(a / b) on doubles (differs from Python's `//`, e.g. 1.0 // 0.1 == 10.0)."""
    q = f_div(float(a), float(b))
    # math.floor returns an int; keep infinities, NaN and the sign of a zero quotient.
    return float(math.floor(q)) if math.isfinite(q) and q != 0.0 else q


@op("aten::floordiv(Scalar a, Scalar b) -> Scalar")
def floordiv_scalar(a: Number, b: Number) -> Number:
    """Scalar floor division: int if both are ints, else float."""
    a, b = num(a), num(b)
    if isinstance(a, int) and isinstance(b, int):
        return floordiv_int(a, b)
    return floordiv_float(float(a), float(b))  # type: ignore[arg-type]


@op("aten::remainder.int(int a, int b) -> int")
def remainder_int(a: int, b: int) -> int:
    """Python-sign modulo computed as (b + a % b) % b with C's `%` (intermediate wraps)."""
    if b == 0:
        raise int_zero_division()
    return c_rem(wrap_int64(b + c_rem(a, b)), b)


@op("aten::remainder.float(float a, float b) -> float",
    "aten::remainder.int_float(int a, float b) -> float",
    "aten::remainder.float_int(float a, int b) -> float")
def remainder_float(a: float, b: float) -> float:
    """fmod(b + fmod(a, b), b) on doubles."""
    a, b = float(a), float(b)
    return _fmod(b + _fmod(a, b), b)


@op("aten::remainder(Scalar a, Scalar b) -> Scalar")
def remainder_scalar(a: Number, b: Number) -> Number:
    """Scalar modulo: int if both are ints, else float."""
    a, b = num(a), num(b)
    if isinstance(a, int) and isinstance(b, int):
        return remainder_int(a, b)
    return remainder_float(float(a), float(b))  # type: ignore[arg-type]


@op("aten::__round_to_zero_floordiv.int(int a, int b) -> int")
def round_to_zero_floordiv(a: int, b: int) -> int:
    """C++ truncating integer division."""
    if b == 0:
        raise int_zero_division()
    q = abs(a) // abs(b)
    return wrap_int64(q if (a < 0) == (b < 0) else -q)


@op("aten::divmod.int(int x, int y) -> (int, int)")
def divmod_int(x: int, y: int) -> tuple[int, int]:
    """Python divmod on int64."""
    if y == 0:
        raise int_zero_division()
    q, r = divmod(x, y)
    return wrap_int64(q), r


@op("aten::divmod.float(float x, float y) -> (float, float)")
def divmod_float(x: float, y: float) -> tuple[float, float]:
    """mod = fmod(x, y) moved to y's sign; div = (x - mod) / y, not rounded to an integer."""
    x, y = float(x), float(y)
    if y == 0.0:
        raise ts_error("ZeroDivisionError: float divmod()")
    mod = _fmod(x, y)
    if mod and (y < 0) != (mod < 0):
        mod += y
    return f_div(x - mod, y), mod


@op("aten::divmod.int_float(int x, float y) -> (float, float)",
    "aten::divmod.float_int(float x, int y) -> (float, float)")
def divmod_mixed(x: Union[int, float], y: Union[int, float]) -> tuple[float, float]:
    """PyTorch's mixed divmod: ints read as C `int`, floats as float32, a float32 quotient
    floored through a checked int64 conversion, then a double remainder."""
    a, b = _narrow(x), _narrow(y)
    if b == 0:
        raise ts_error("ZeroDivisionError: float divmod()")
    # The C++ division is float32 (int32 operands convert to float32 first).
    q = to_f32(f_div(to_f32(float(a)), to_f32(float(b))))
    quot = float(f_floor_to_int(float(math.floor(q)) if math.isfinite(q) else q))
    return quot, float(a) - float(b) * quot


def _narrow(v: Union[int, float]) -> Union[int, float]:
    return wrap_int32(v) if isinstance(v, int) else to_f32(float(v))


# ---- neg / abs ---------------------------------------------------------------------------

@op("aten::neg.int(int a) -> int")
def neg_int(a: int) -> int:
    """int64 negation (-INT64_MIN wraps to itself)."""
    return wrap_int64(-a)


@op("aten::neg.float(float a) -> float")
def neg_float(a: float) -> float:
    """Double negation."""
    return -float(a)


@op("aten::neg.complex(complex a) -> complex")
def neg_complex(a: complex) -> complex:
    """Complex negation."""
    return -complex(a)


@op("prim::abs.int(int a) -> int")
def abs_int(a: int) -> int:
    """int64 absolute value (abs(INT64_MIN) wraps to itself)."""
    return wrap_int64(abs(a))


@op("prim::abs.float(float a) -> float")
def abs_float(a: float) -> float:
    """Double absolute value."""
    return abs(float(a))


@op("prim::abs.complex(complex a) -> float")
def abs_complex(a: complex) -> float:
    """Complex magnitude (C's hypot)."""
    return c_hypot(complex(a).real, complex(a).imag)
