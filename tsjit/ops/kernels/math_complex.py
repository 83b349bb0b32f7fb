"""complex numbers: construction, mixed complex/real arithmetic, complex math functions.

TorchScript's complex is C++ `c10::complex<double>`: a complex op a real number acts on
the components (`(1-0j) + -0.0` keeps the -0.0 imaginary part, unlike Python), division
uses Smith's algorithm (x / 0 is inf/nan rather than an error), and `pow` follows the
C++ standard library (exp(y * log(x)), with a real-exponent shortcut).
"""
from __future__ import annotations

import cmath
import math
from typing import Callable, Union

import numpy as np

from ..registry import op
from .scalar_common import num, pow_float, ts_error, wrap_int32

Real = Union[int, float]


def complex_div(x: complex, y: complex) -> complex:
    """c10::complex division (Smith's algorithm, as numpy)."""
    a, b, c, d = x.real, x.imag, y.real, y.imag
    abs_c, abs_d = abs(c), abs(d)
    with np.errstate(all="ignore"):
        # numpy float64 scalars give IEEE results (inf / nan) where Python floats raise.
        a, b, c, d = np.float64(a), np.float64(b), np.float64(c), np.float64(d)
        if abs_c >= abs_d:
            if abs_c == 0 and abs_d == 0:
                return complex(float(a / abs_c), float(b / abs_d))
            rat = d / c
            scl = 1.0 / (c + d * rat)
            return complex(float((a + b * rat) * scl), float((b - a * rat) * scl))
        rat = c / d
        scl = 1.0 / (d + c * rat)
        return complex(float((a * rat + b) * scl), float((b * rat - a) * scl))


def complex_fn(name: str) -> Callable[[complex], complex]:
    """The complex function `name` (cmath), with C's infinities where cmath raises."""
    py = getattr(cmath, name)
    npname = {"acos": "arccos", "asin": "arcsin", "atan": "arctan", "acosh": "arccosh",
              "asinh": "arcsinh", "atanh": "arctanh"}.get(name, name)

    def fn(z: complex) -> complex:
        try:
            return py(complex(z))
        except (ValueError, OverflowError):
            # cmath raises at poles / overflow where C returns infinities.
            with np.errstate(all="ignore"):
                return complex(getattr(np, npname)(np.complex128(z)))
    return fn


def _clog(z: complex) -> complex:
    return complex_fn("log")(z)


def _cexp(z: complex) -> complex:
    try:
        return cmath.exp(z)
    except OverflowError:
        # e**x overflows: C gives infinities signed like cos(y) and sin(y).
        c, s = math.cos(z.imag), math.sin(z.imag)
        return complex(math.copysign(math.inf, c) if c else 0.0,
                       math.copysign(math.inf, s) if s else 0.0)
    except ValueError:
        return complex_fn("exp")(z)


def _cmul(a: complex, b: complex) -> complex:
    return complex(a.real * b.real - a.imag * b.imag, a.real * b.imag + a.imag * b.real)


def _exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _polar(r: float, theta: float) -> complex:
    return complex(r * math.cos(theta), r * math.sin(theta)) if math.isfinite(theta) \
        else complex(math.nan, math.nan)


# ---- construction ------------------------------------------------------------------------

@op("aten::Complex.Scalar(Scalar a) -> complex")
def complex_scalar(a: Union[Real, complex]) -> complex:
    """complex(x) for an int, float or complex."""
    return complex(num(a))


@op("aten::Complex.bool_bool(bool x, bool y) -> complex",
    "aten::Complex.bool_float(bool x, float y) -> complex",
    "aten::Complex.bool_int(bool x, int y) -> complex",
    "aten::Complex.float_bool(float x, bool y) -> complex",
    "aten::Complex.float_float(float x, float y) -> complex",
    "aten::Complex.float_int(float x, int y) -> complex",
    "aten::Complex.int_bool(int x, bool y) -> complex",
    "aten::Complex.int_float(int x, float y) -> complex",
    "aten::Complex.int_int(int x, int y) -> complex")
def complex_pair(x: Real, y: Real) -> complex:
    """complex(real, imag); an int part passes through a C `int` (32 bits) first."""
    return complex(_part(x), _part(y))


def _part(v: Real) -> float:
    if isinstance(v, int) and not isinstance(v, bool):
        return float(wrap_int32(v))
    return float(v)


# ---- mixed complex / real arithmetic (component-wise, as c10::complex) ----------------------

def _add_cr(a: complex, b: float) -> complex:
    return complex(a.real + b, a.imag)


@op("aten::add.complex_float(complex a, float b) -> complex",
    "aten::add.complex_int(complex a, int b) -> complex")
def add_complex_real(a: complex, b: Real) -> complex:
    """complex + real: only the real part changes."""
    return _add_cr(complex(a), float(b))


@op("aten::add.float_complex(float a, complex b) -> complex",
    "aten::add.int_complex(int a, complex b) -> complex")
def add_real_complex(a: Real, b: complex) -> complex:
    """real + complex: only the real part changes."""
    return _add_cr(complex(b), float(a))


@op("aten::sub.complex_float(complex a, float b) -> complex",
    "aten::sub.complex_int(complex a, int b) -> complex")
def sub_complex_real(a: complex, b: Real) -> complex:
    """complex - real."""
    a = complex(a)
    return complex(a.real - float(b), a.imag)


@op("aten::sub.float_complex(float a, complex b) -> complex",
    "aten::sub.int_complex(int a, complex b) -> complex")
def sub_real_complex(a: Real, b: complex) -> complex:
    """real - complex: the imaginary part is negated."""
    b = complex(b)
    return complex(float(a) - b.real, -b.imag)


@op("aten::mul.complex_float(complex a, float b) -> complex",
    "aten::mul.complex_int(complex a, int b) -> complex")
def mul_complex_real(a: complex, b: Real) -> complex:
    """complex * real, component-wise."""
    a, b = complex(a), float(b)
    return complex(a.real * b, a.imag * b)


@op("aten::mul.float_complex(float a, complex b) -> complex",
    "aten::mul.int_complex(int a, complex b) -> complex")
def mul_real_complex(a: Real, b: complex) -> complex:
    """real * complex, component-wise."""
    return mul_complex_real(b, a)


# ---- pow / log ---------------------------------------------------------------------------

@op("aten::pow.complex(complex a, complex b) -> complex")
def pow_complex(a: complex, b: complex) -> complex:
    """C's cpow: exp(b * log(a))."""
    return _cexp(_cmul(complex(b), _clog(complex(a))))


@op("aten::pow.complex_float(complex a, float b) -> complex")
def pow_complex_float(a: complex, b: float) -> complex:
    """std::pow(complex, real): real pow for a positive real base, else polar form."""
    a, b = complex(a), float(b)
    if a.imag == 0.0 and a.real > 0.0:
        return complex(pow_float(a.real, b), 0.0)
    t = _clog(a)
    return _polar(_exp(b * t.real), b * t.imag)


@op("aten::pow.float_complex(float a, complex b) -> complex")
def pow_float_complex(a: float, b: complex) -> complex:
    """std::pow(real, complex): polar form for a positive base, else cpow."""
    a, b = float(a), complex(b)
    if a > 0.0:
        return _polar(pow_float(a, b.real), b.imag * math.log(a))
    return pow_complex(complex(a), b)


@op("aten::log.complex_complex(complex a, complex b) -> complex",
    "aten::log.complex_float(complex a, float b) -> complex",
    "aten::log.complex_int(complex a, int b) -> complex",
    "aten::log.float_complex(float a, complex b) -> complex",
    "aten::log.int_complex(int a, complex b) -> complex")
def log_base_complex(a: Union[Real, complex], b: Union[Real, complex]) -> complex:
    """log(a) / log(b) in complex arithmetic."""
    return complex_div(_clog(complex(a)), _clog(complex(b)))


# ---- unary functions ---------------------------------------------------------------------

def _register_unary(name: str) -> None:
    fn = complex_fn(name)

    def kernel(a: complex) -> complex:
        return fn(complex(a))
    kernel.__name__ = f"{name}_complex"
    kernel.__doc__ = f"Complex {name}."
    op(f"aten::{name}.complex(complex a) -> complex")(kernel)


for _name in ("acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "sin",
              "sinh", "tan", "tanh", "exp", "log", "log10", "sqrt"):
    _register_unary(_name)


@op("aten::angle.complex(complex a) -> float")
def angle_complex(a: complex) -> float:
    """The argument of a complex number."""
    return math.atan2(complex(a).imag, complex(a).real)


@op("aten::isnan.complex(complex a) -> bool")
def isnan_complex(a: complex) -> bool:
    """Either part is NaN."""
    return cmath.isnan(complex(a))


@op("aten::isinf.complex(complex a) -> bool")
def isinf_complex(a: complex) -> bool:
    """Either part is infinite."""
    return cmath.isinf(complex(a))


@op("aten::isfinite.complex(complex a) -> bool")
def isfinite_complex(a: complex) -> bool:
    """Both parts are finite."""
    return cmath.isfinite(complex(a))


# ---- polar -------------------------------------------------------------------------------

@op("aten::polar.float(float a, float b) -> complex",
    "aten::polar.int(int a, int b) -> complex",
    "aten::polar.float_int(float a, int b) -> complex",
    "aten::polar.int_float(int a, float b) -> complex")
def polar(a: Real, b: Real) -> complex:
    """abs * (cos(angle) + i sin(angle))."""
    return _polar(float(a), float(b))


@op("aten::polar.Scalar_Scalar(Scalar a, Scalar b) -> Scalar")
def polar_scalar(a: Real, b: Real) -> complex:
    """polar() of two real Scalars."""
    a, b = num(a), num(b)
    if isinstance(a, complex) or isinstance(b, complex):
        raise ts_error("polar() expects real arguments")
    return _polar(float(a), float(b))
