"""Comparisons, bitwise / logical operators and identity tests on non-tensor values.

An int compared with a float is first converted to double (so `2**53 + 1 == 2.0**53`
holds, unlike Python); strings compare by their UTF-8 bytes. `is` compares immutable
primitives (None, bool, int, float, str) by value and everything else by identity.
"""
from __future__ import annotations

import operator
from typing import Any, Callable, Union

from ..registry import op
from .scalar_common import num, wrap_int64
from .str_common import to_bytes

Number = Union[int, float, complex]

_CMP: dict[str, Callable[[Any, Any], bool]] = {
    "eq": operator.eq, "ne": operator.ne, "lt": operator.lt,
    "le": operator.le, "gt": operator.gt, "ge": operator.ge,
}


def _str_cmp(fn: Callable[[Any, Any], bool], a: str, b: str) -> bool:
    # ASCII strings order the same as their bytes; others are compared as bytes so lone
    # surrogates (undecodable bytes) sort where their byte value says.
    if a.isascii() and b.isascii():
        return fn(a, b)
    return fn(to_bytes(a), to_bytes(b))


def _register(name: str, fn: Callable[[Any, Any], bool]) -> None:
    def int_int(a: int, b: int) -> bool:
        return fn(a, b)

    def real(a: float, b: float) -> bool:
        return fn(float(a), float(b))

    def scalar(a: Number, b: Number) -> bool:
        a, b = num(a), num(b)
        if isinstance(a, int) and isinstance(b, int):
            return fn(a, b)
        if isinstance(a, complex) or isinstance(b, complex):
            return fn(complex(a), complex(b))
        return fn(float(a), float(b))

    def string(a: str, b: str) -> bool:
        if name in ("eq", "ne"):
            return fn(a, b)
        return _str_cmp(fn, a, b)

    for kernel, doc in ((int_int, "ints"), (real, "doubles (ints converted)"),
                        (scalar, "Scalars"), (string, "strings (bytewise)")):
        kernel.__name__ = f"{name}_{doc.split()[0]}"
        kernel.__doc__ = f"`{name}` on {doc}."
    op(f"aten::{name}.int(int a, int b) -> bool")(int_int)
    op(f"aten::{name}.float(float a, float b) -> bool",
       f"aten::{name}.int_float(int a, float b) -> bool",
       f"aten::{name}.float_int(float a, int b) -> bool")(real)
    op(f"aten::{name}(Scalar a, Scalar b) -> bool")(scalar)
    op(f"aten::{name}.str(str a, str b) -> bool")(string)


for _name, _fn in _CMP.items():
    _register(_name, _fn)


@op("aten::eq.bool(bool a, bool b) -> bool")
def eq_bool(a: bool, b: bool) -> bool:
    """bool equality."""
    return bool(a) == bool(b)


@op("aten::ne.bool(bool a, bool b) -> bool")
def ne_bool(a: bool, b: bool) -> bool:
    """bool inequality."""
    return bool(a) != bool(b)


@op("aten::eq.complex(complex a, complex b) -> bool",
    "aten::eq.complex_float(complex a, float b) -> bool",
    "aten::eq.float_complex(float a, complex b) -> bool")
def eq_complex(a: Number, b: Number) -> bool:
    """complex equality (a real number has a zero imaginary part)."""
    return complex(a) == complex(b)


@op("aten::ne.complex(complex a, complex b) -> bool",
    "aten::ne.complex_float(complex a, float b) -> bool",
    "aten::ne.float_complex(float a, complex b) -> bool")
def ne_complex(a: Number, b: Number) -> bool:
    """complex inequality."""
    return complex(a) != complex(b)


# ---- bitwise and logical -------------------------------------------------------------------

@op("aten::__and__.bool(bool a, bool b) -> bool")
def and_bool(a: bool, b: bool) -> bool:
    """Logical and (both operands already evaluated)."""
    return bool(a) and bool(b)


@op("aten::__or__.bool(bool a, bool b) -> bool")
def or_bool(a: bool, b: bool) -> bool:
    """Logical or (both operands already evaluated)."""
    return bool(a) or bool(b)


@op("aten::__xor__.bool(bool a, bool b) -> bool")
def xor_bool(a: bool, b: bool) -> bool:
    """Logical exclusive or."""
    return bool(a) != bool(b)


@op("aten::__and__.int(int a, int b) -> int")
def and_int(a: int, b: int) -> int:
    """Bitwise and on int64."""
    return int(a) & int(b)


@op("aten::__or__.int(int a, int b) -> int")
def or_int(a: int, b: int) -> int:
    """Bitwise or on int64."""
    return int(a) | int(b)


@op("aten::__xor__.int(int a, int b) -> int")
def xor_int(a: int, b: int) -> int:
    """Bitwise xor on int64."""
    return int(a) ^ int(b)


@op("aten::__lshift__.int(int a, int b) -> int")
def lshift_int(a: int, b: int) -> int:
    """x86 `a << b` on int64: the shift count is taken modulo 64 and the result wraps."""
    return wrap_int64(int(a) << (int(b) & 63))


@op("aten::__rshift__.int(int a, int b) -> int")
def rshift_int(a: int, b: int) -> int:
    """x86 arithmetic `a >> b` on int64, shift count modulo 64."""
    return int(a) >> (int(b) & 63)


@op("aten::__not__(bool self) -> bool")
def not_(self: bool) -> bool:
    """Logical not."""
    return not self


# ---- identity ------------------------------------------------------------------------------

_PRIMITIVES = (bool, int, float, str)


def _same_identity(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    for t in _PRIMITIVES:            # bool first: it is an int subclass
        if isinstance(a, t) or isinstance(b, t):
            return isinstance(a, t) and isinstance(b, t) and a == b
    return a is b


@op("aten::__is__(t1 self, t2 obj) -> bool")
def is_(self: Any, obj: Any) -> bool:
    """`a is b`: value equality for None / bool / int / float / str, else identity."""
    return _same_identity(self, obj)


@op("aten::__isnot__(t1 self, t2 obj) -> bool")
def isnot(self: Any, obj: Any) -> bool:
    """`a is not b`."""
    return not _same_identity(self, obj)
