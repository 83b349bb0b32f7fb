"""Two-argument `math` functions on numbers: pow, fmod, remainder, atan2, copysign, log(x, b).

All compute on doubles with C semantics (an int operand is converted to double first):
`int ** int` is a float, `0.0 ** negative` raises "0.0 cannot be raised to a negative
power", fmod / remainder by zero give NaN, `log(x, 1)` is inf.
"""
from __future__ import annotations

import math
from typing import Callable, Union

from ..registry import op
from .scalar_common import f_div, libm, libm2, num, pow_float, ts_error, wrap_int64

Number = Union[int, float, complex]
Real = Union[int, float]

_log = libm("log")


def _real(a: Number, b: Number, what: str) -> tuple[float, float]:
    a, b = num(a), num(b)
    if isinstance(a, complex) or isinstance(b, complex):
        raise ts_error(f"{what}() expects real Scalars")
    return float(a), float(b)  # type: ignore[arg-type]


def _register(name: str, fn: Callable[[float, float], float], scalar_overload: str) -> None:
    def real(a: Real, b: Real) -> float:
        return fn(float(a), float(b))

    def scalar(a: Number, b: Number) -> float:
        return fn(*_real(a, b, name))

    real.__name__, real.__doc__ = f"{name}_real", f"C `{name}` on doubles."
    scalar.__name__, scalar.__doc__ = f"{name}_scalar", f"`{name}` of two real Scalars."
    op(f"aten::{name}.float(float a, float b) -> float",
       f"aten::{name}.int(int a, int b) -> float",
       f"aten::{name}.int_float(int a, float b) -> float",
       f"aten::{name}.float_int(float a, int b) -> float")(real)
    op(f"aten::{name}{scalar_overload}(Scalar a, Scalar b) -> float")(scalar)


def _log_base(a: float, b: float) -> float:
    return f_div(_log(a), _log(b))


_register("fmod", libm2("fmod"), "")
_register("mathremainder", libm2("remainder"), "")
_register("copysign", libm2("copysign"), "")
_register("atan2", libm2("atan2"), ".Scalar_Scalar")


@op("aten::log.float_float(float a, float b) -> float",
    "aten::log.int_int(int a, int b) -> float",
    "aten::log.int_float(int a, float b) -> float",
    "aten::log.float_int(float a, int b) -> float")
def log_base(a: Real, b: Real) -> float:
    """log(a) / log(b) on doubles."""
    return _log_base(float(a), float(b))


@op("aten::log.Scalar_Scalar(Scalar a, Scalar b) -> float")
def log_base_scalar(a: Number, b: Number) -> float:
    """log(a) / log(b) of two real Scalars."""
    return _log_base(*_real(a, b, "log"))


@op("aten::pow.float(float a, float b) -> float",
    "aten::pow.int(int a, int b) -> float",
    "aten::pow.int_float(int a, float b) -> float",
    "aten::pow.float_int(float a, int b) -> float")
def pow_real(a: Real, b: Real) -> float:
    """C `pow` on doubles; `int ** int` is a float too."""
    return pow_float(float(a), float(b))


@op("aten::pow.Scalar_Scalar(Scalar a, Scalar b) -> float")
def pow_scalar(a: Number, b: Number) -> float:
    """`**` of two real Scalars, as a float; unlike the typed overloads, 0 ** -n is inf."""
    a, b = _real(a, b, "pow")
    if a == 0.0 and b < 0:
        return _zero_pow(a, b)
    return pow_float(a, b)


def _zero_pow(a: float, b: float) -> float:
    # C pow(±0, y < 0): ±inf for an odd integer y (sign of the zero), +inf otherwise.
    odd = b == math.floor(b) and abs(b) < 2 ** 53 and int(b) % 2 == 1
    return math.copysign(math.inf, a) if odd else math.inf


@op("aten::pow.int_to_int(int a, int b) -> int")
def pow_int_to_int(a: int, b: int) -> int:
    """Integer power modulo 2**64 (signed); a negative exponent truncates 1 / a**-b."""
    # PyTorch's kernel pushes a double despite the schema; we return the int the schema
    # promises, computed exactly and wrapped.
    if b < 0:
        if a == 0:
            raise ts_error("0.0 cannot be raised to a negative power")
        return int(pow_float(float(a), float(b)))
    return wrap_int64(pow(a, b, 1 << 64))
