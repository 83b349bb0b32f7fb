"""int() / float() / bool() conversions and the two-argument min / max of numbers.

`int(float)` is C++'s truncating cast (NaN and out-of-range values give INT64_MIN);
`int(str)` and `float(str)` follow `std::stoll` / `std::stod`: leading C whitespace is
skipped, trailing characters are an error, overflow (and for floats, underflow to a
subnormal or zero) raises "stoll" / "stod", and `float()` also accepts hex floats,
"infinity" and "nan(...)".
"""
from __future__ import annotations

import math
import re
from typing import Union

from ..registry import op
from .scalar_common import INT64_MAX, INT64_MIN, cast_int, checked_int32, num, ts_error
from .str_common import C_SPACE

Number = Union[int, float, complex]

_WS = "[" + re.escape(C_SPACE.decode()) + "]*"
_INT_RE = re.compile(_WS + r"([+-]?)([0-9]+)")
_FLOAT_RE = re.compile(_WS + r"""([+-]?)(?:
      (?P<hex>0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?)
    | (?P<inf>[iI][nN][fF](?:[iI][nN][iI][tT][yY])?)
    | (?P<nan>[nN][aA][nN](?:\([0-9A-Za-z_]*\))?)
    | (?P<dec>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)
)""", re.VERBOSE)
_MIN_NORMAL = 2.2250738585072014e-308


def parse_int(s: str) -> int:
    """TorchScript's int(str)."""
    m = _INT_RE.match(s)
    if m is None:
        raise ts_error("stoll")
    v = int(m.group(2))
    v = -v if m.group(1) == "-" else v
    if not INT64_MIN <= v <= INT64_MAX:
        raise ts_error("stoll")
    if m.end() != len(s):
        raise ts_error(f"invalid literal for int() with base 10: '{s}'")
    return v


def parse_float(s: str) -> float:
    """TorchScript's float(str)."""
    m = _FLOAT_RE.match(s)
    if m is None:
        raise ts_error("stod")
    neg = m.group(1) == "-"
    if m.group("hex"):
        text = m.group("hex")
        if "p" not in text.lower():
            text += "p0"
        v = float.fromhex(text)
    elif m.group("inf"):
        v = math.inf
    elif m.group("nan"):
        v = math.nan
    else:
        text = m.group("dec")
        v = float(text)
        # strtod reports ERANGE for overflow and for underflow to zero / subnormals.
        mantissa = re.split("[eE]", text)[0]
        if math.isinf(v) or (abs(v) < _MIN_NORMAL and mantissa.strip("0.")):
            raise ts_error("stod")
    if m.end() != len(s):
        raise ts_error(f"could not convert string to float: '{s}'")
    return -v if neg else v


@op("aten::Int.float(float a) -> int")
def int_float(a: float) -> int:
    """Truncation toward zero; NaN / out of range give INT64_MIN like the C++ cast."""
    return cast_int(float(a))


@op("aten::Int.bool(bool a) -> int")
def int_bool(a: bool) -> int:
    """0 or 1."""
    return 1 if a else 0


@op("aten::Int.Scalar(Scalar a) -> int")
def int_scalar(a: Number) -> int:
    """int() of a Scalar; a float must fit a C `int` (32 bits) or it raises."""
    if type(a) is int:
        return a
    a = num(a)
    if isinstance(a, int):
        return a
    if isinstance(a, complex):
        if a.imag != 0:
            raise ts_error("value cannot be converted to type int without overflow")
        a = a.real
    return checked_int32(float(a))


@op("aten::Int.str(str a) -> int")
def int_str(a: str) -> int:
    """Parse a base-10 int64 like std::stoll, rejecting trailing characters."""
    return parse_int(a)


@op("aten::Float.int(int a) -> float")
def float_int(a: int) -> float:
    """Nearest double."""
    return float(a)


@op("aten::Float.bool(bool a) -> float")
def float_bool(a: bool) -> float:
    """0.0 or 1.0."""
    return 1.0 if a else 0.0


@op("aten::Float.Scalar(Scalar a) -> float")
def float_scalar(a: Number) -> float:
    """float() of an int, float or complex Scalar (a complex gives its real part)."""
    if type(a) is float:
        return a
    a = num(a)
    if isinstance(a, complex):
        return a.real
    return float(a)


@op("aten::Float.str(str a) -> float")
def float_str(a: str) -> float:
    """Parse a double like std::stod, rejecting trailing characters."""
    return parse_float(a)


@op("aten::Bool.int(int a) -> bool")
def bool_int(a: int) -> bool:
    """a != 0."""
    return a != 0


@op("aten::Bool.float(float a) -> bool")
def bool_float(a: float) -> bool:
    """a != 0.0 (NaN is True)."""
    return a != 0.0


# ---- two-argument min / max -----------------------------------------------------------------
# min(a, b) is `a < b ? a : b` and max(a, b) is `a > b ? a : b`, which fixes how NaN and
# signed zeros come out: min(nan, 1.0) == 1.0 but min(1.0, nan) is nan.

@op("prim::min.int(int a, int b) -> int")
def min_int(a: int, b: int) -> int:
    """The smaller int."""
    return a if a < b else b


@op("prim::min.float(float a, float b) -> float",
    "prim::min.int_float(int a, float b) -> float",
    "prim::min.float_int(float a, int b) -> float")
def min_float(a: float, b: float) -> float:
    """`a < b ? a : b` on doubles."""
    a, b = float(a), float(b)
    return a if a < b else b


@op("prim::min(Scalar a, Scalar b) -> Scalar")
def min_scalar(a: Number, b: Number) -> Number:
    """min of two Scalars: int if both are ints, else float."""
    a, b = num(a), num(b)
    if isinstance(a, int) and isinstance(b, int):
        return min_int(a, b)
    return min_float(a, b)  # type: ignore[arg-type]


@op("prim::max.int(int a, int b) -> int")
def max_int(a: int, b: int) -> int:
    """The larger int."""
    return a if a > b else b


@op("prim::max.float(float a, float b) -> float",
    "prim::max.int_float(int a, float b) -> float",
    "prim::max.float_int(float a, int b) -> float")
def max_float(a: float, b: float) -> float:
    """`a > b ? a : b` on doubles."""
    a, b = float(a), float(b)
    return a if a > b else b


@op("prim::max(Scalar a, Scalar b) -> Scalar")
def max_scalar(a: Number, b: Number) -> Number:
    """max of two Scalars: int if both are ints, else float."""
    a, b = num(a), num(b)
    if isinstance(a, int) and isinstance(b, int):
        return max_int(a, b)
    return max_float(a, b)  # type: ignore[arg-type]
