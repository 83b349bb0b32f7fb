"""TorchScript's value-to-string rules (`str()`, `print`, `format`) and int64 helpers.

TorchScript prints values the way its C++ runtime streams them, not the way Python does:

* a float that is integral and fits int64 prints as that integer and a dot (`1.`, `-0.`
  prints as `0.`, `1e17` as `100000000000000000.`); every other float prints with 17
  significant digits like C's `%.17g` (`0.10000000000000001`, `1e+20`, `inf`, and `-nan`
  when the NaN's sign bit is set);
* complex numbers print as `<real><sign><|imag|>j` with both parts printed as floats
  (`1.+2.j`), the sign being `+` only when `imag >= 0` (so a NaN imaginary part is `-nan`);
* strings inside containers print raw, without quotes: `str(['a'])` is `[a]`;
* lists `[a, b]`, tuples `(a, b)` / `(a,)`, dicts `{k: v}`, None, True / False.
"""
from __future__ import annotations

import math
import struct
from typing import Any

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1
_MASK64 = (1 << 64) - 1


def wrap_int64(x: int) -> int:
    """Reduce a Python int modulo 2**64 into the signed int64 range (two's complement)."""
    if INT64_MIN <= x <= INT64_MAX:
        return x
    return ((x - INT64_MIN) & _MASK64) + INT64_MIN


def float_signbit(x: float) -> bool:
    """Whether the sign bit of `x` is set (true for -0.0 and negative NaNs)."""
    return struct.pack(">d", x)[0] >= 0x80


def format_float(x: float) -> str:
    """Print a float the way TorchScript's `str()` does."""
    # An integral value that survives a round trip through int64 prints as "<int>.";
    # 2**63 does not (the C++ cast overflows), so it falls through to %.17g.
    if math.isfinite(x) and x == int(x) and -(2.0 ** 63) <= x < 2.0 ** 63:
        return f"{int(x)}."
    if x != x:
        return "-nan" if float_signbit(x) else "nan"
    return "%.17g" % x


def format_complex(z: complex) -> str:
    """Print a complex number the way TorchScript's `str()` does."""
    sign = "+" if z.imag >= 0 else "-"
    return f"{format_float(z.real)}{sign}{format_float(abs(z.imag))}j"


def to_str(value: Any) -> str:
    """TorchScript's `str(value)` for any run-time value."""
    if isinstance(value, str):
        return value
    parts: list[str] = []
    _write(value, parts)
    return "".join(parts)


def _write(v: Any, out: list[str]) -> None:
    # bool before int: bool is an int subclass in Python but prints as True / False.
    if v is None:
        out.append("None")
    elif isinstance(v, bool):
        out.append("True" if v else "False")
    elif isinstance(v, int):
        out.append(str(int(v)))
    elif isinstance(v, float):
        out.append(format_float(v))
    elif isinstance(v, complex):
        out.append(format_complex(v))
    elif isinstance(v, str):
        out.append(v)
    elif isinstance(v, list):
        out.append("[")
        for i, e in enumerate(v):
            if i:
                out.append(", ")
            _write(e, out)
        out.append("]")
    elif isinstance(v, tuple):
        out.append("(")
        for i, e in enumerate(v):
            if i:
                out.append(", ")
            _write(e, out)
        out.append(",)" if len(v) == 1 else ")")
    elif isinstance(v, dict):
        out.append("{")
        for i, (k, e) in enumerate(v.items()):
            if i:
                out.append(", ")
            _write(k, out)
            out.append(": ")
            _write(e, out)
        out.append("}")
    else:
        # Tensors (and other runtime objects) may provide TorchScript's own printed form;
        # otherwise their repr is the best available rendering.
        ts_str = getattr(v, "__ts_str__", None)
        out.append(ts_str() if callable(ts_str) else repr(v))
