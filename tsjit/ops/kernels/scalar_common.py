"""Shared helpers for the scalar kernels: C-style int64 and IEEE double arithmetic.

TorchScript computes with C++ `int64_t` and `double`: integer results wrap, integer
division truncates, and float operations never raise (1.0 / 0.0 is inf, sqrt(-1) is
nan). Python raises in several of those places, so the kernels go through these helpers.
No operators are registered here.
"""
from __future__ import annotations

import ctypes
import math
import struct
from typing import Callable

import numpy as np

from ..formatting import INT64_MAX, INT64_MIN, wrap_int64

__all__ = ["INT64_MAX", "INT64_MIN", "wrap_int64", "ts_error", "c_div", "c_rem",
           "f_div", "f_floor_to_int", "c_hypot", "c_format_f", "wrap_int32", "checked_int32", "libm", "libm2", "to_f32", "num", "cast_int",
           "pow_float", "int_zero_division"]

_INT_ZERO_DIV = "ZeroDivisionError: integer division or modulo by zero"


def wrap_int32(x: int) -> int:
    """Truncate to a C `int` (32 bits, two's complement): some Scalar paths in PyTorch
    read an int64 through a 32-bit `int`."""
    return ((x + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


def checked_int32(x: float) -> int:
    """c10's checked double -> int conversion (NaN / out of int32 range raise)."""
    if not -2147483648.0 <= x <= 2147483647.0:
        raise ts_error("value cannot be converted to type int without overflow")
    return int(x)


def ts_error(msg: str) -> RuntimeError:
    """The exception TorchScript surfaces for a failed operator: a RuntimeError."""
    return RuntimeError(msg)


def int_zero_division() -> RuntimeError:
    # PyTorch's `a % 0` and `__round_to_zero_floordiv(a, 0)` die with SIGFPE; we raise the
    # message its divmod uses for the same condition instead.
    return ts_error(_INT_ZERO_DIV)


def c_div(a: int, b: int) -> int:
    """C++ `a / b` on int64: truncating division (b != 0), wrapped."""
    q = abs(a) // abs(b)
    return wrap_int64(q if (a < 0) == (b < 0) else -q)


def c_rem(a: int, b: int) -> int:
    """C++ `a % b` on int64: the remainder has the sign of `a` (b != 0)."""
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def f_div(a: float, b: float) -> float:
    """IEEE double division (x / 0.0 is ±inf or nan instead of raising)."""
    if b == 0.0:
        if a != a or a == 0.0:
            return math.nan
        neg = (math.copysign(1.0, a) < 0) != (math.copysign(1.0, b) < 0)
        return -math.inf if neg else math.inf
    return a / b


def f_floor_to_int(x: float) -> int:
    """Convert an integral-valued double to int64 as PyTorch's checked float->int does."""
    # The bound check compares against INT64_MAX converted to double (== 2**63), so 2**63
    # itself passes and then wraps like the C++ cast does.
    if x != x or x > 2.0 ** 63 or x < -(2.0 ** 63):
        raise ts_error(f"Cannot convert float {c_format_f(x)} to integer")
    return wrap_int64(int(x))


def c_format_f(x: float) -> str:
    """C's "%f" (std::to_string): like Python's, but a negative NaN prints as -nan."""
    if x != x:
        return "-nan" if struct.pack(">d", x)[0] >= 0x80 else "nan"
    return "%f" % x


def cast_int(x: float) -> int:
    """C++ `static_cast<int64_t>(double)` on x86: truncation; NaN / overflow -> INT64_MIN."""
    if x != x or x >= 2.0 ** 63 or x < -(2.0 ** 63):
        return INT64_MIN
    return int(x)


def num(x: object) -> object:
    """A Scalar argument with bools read as ints (TorchScript Scalars are int/float/complex)."""
    return int(x) if isinstance(x, bool) else x


def libm(name: str) -> Callable[[float], float]:
    """A one-argument C math function with IEEE results instead of Python exceptions."""
    if name in _C_GAMMA:
        c_fn = _C_GAMMA[name]
        return lambda x: c_fn(float(x))
    py = getattr(math, name)

    def fn(x: float) -> float:
        try:
            return py(x)
        except (ValueError, OverflowError) as e:
            return _special1(name, float(x), isinstance(e, OverflowError))
    fn.__name__ = name
    return fn


def _open_libm() -> ctypes.CDLL:
    # glibc's name first: find_library runs ldconfig or a compiler (~10 ms in a subprocess)
    try:
        return ctypes.CDLL("libm.so.6")
    except OSError:
        from ctypes.util import find_library
        return ctypes.CDLL(find_library("m") or "libm.so.6")


def _load_libm() -> dict[str, Callable[..., float]]:
    # Python's math.gamma, math.lgamma and math.hypot are CPython's own algorithms and
    # differ from the C library's tgamma / lgamma / hypot (which PyTorch calls) in the
    # last bits; call the C library directly when it can be found.
    try:
        lib = _open_libm()
        fns = {}
        for py_name, c_name, n in (("gamma", "tgamma", 1), ("lgamma", "lgamma", 1),
                                   ("hypot", "hypot", 2)):
            f = getattr(lib, c_name)
            f.restype, f.argtypes = ctypes.c_double, [ctypes.c_double] * n
            fns[py_name] = f
        return fns
    except (OSError, AttributeError):  # pragma: no cover - no C math library found
        return {}


_LIBM = _load_libm()
_C_GAMMA = {k: v for k, v in _LIBM.items() if k in ("gamma", "lgamma")}


def c_hypot(x: float, y: float) -> float:
    """C's hypot (what std::abs of a complex computes)."""
    f = _LIBM.get("hypot")
    return f(float(x), float(y)) if f else math.hypot(x, y)


def _special1(name: str, x: float, overflow: bool) -> float:
    # Python raises where C returns a special value; reproduce the C99 Annex F results.
    if name == "lgamma":
        return math.inf                                   # poles and overflow
    if name == "gamma":                                   # C's tgamma
        if overflow:                                      # huge x, or x tiny near 0
            return math.copysign(math.inf, x)
        if x == 0.0:
            return math.copysign(math.inf, x)
        return math.nan                                   # negative integers, -inf
    with np.errstate(all="ignore"):
        return float(getattr(np, _NP_NAMES.get(name, name))(np.float64(x)))


_NP_NAMES = {"acos": "arccos", "asin": "arcsin", "atan": "arctan", "acosh": "arccosh",
             "asinh": "arcsinh", "atanh": "arctanh"}


def libm2(name: str) -> Callable[[float, float], float]:
    """A two-argument C math function (fmod, remainder, atan2, copysign) without raising."""
    py = getattr(math, name)

    def fn(a: float, b: float) -> float:
        try:
            return py(a, b)
        except (ValueError, OverflowError):
            return math.nan                 # fmod / remainder domain errors
    fn.__name__ = name
    return fn


def pow_float(a: float, b: float) -> float:
    """C `pow` on doubles, with TorchScript's error for 0.0 to a negative power."""
    if a == 0.0 and b < 0:
        raise ts_error("0.0 cannot be raised to a negative power")
    try:
        return math.pow(a, b)
    except (ValueError, OverflowError):
        with np.errstate(all="ignore"):
            return float(np.power(np.float64(a), np.float64(b)))


_F32 = struct.Struct("f")


def to_f32(x: float) -> float:
    """Round a double to the nearest float32 (±inf on overflow), returned as a double."""
    try:
        return _F32.unpack(_F32.pack(x))[0]
    except OverflowError:
        with np.errstate(all="ignore"):
            return float(np.float32(x))
