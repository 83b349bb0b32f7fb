"""`"...".format(...)` and `"..." % (...)`: TorchScript's two string formatting operators.

`format` only understands `{}`: each is replaced, left to right, by `str()` of the next
argument; any other brace text is copied verbatim and extra arguments are ignored.
`%` supports `%d %i %c %e %f %s` (no flags, widths or precisions) and `%%`. `%d` of a
float converts through a 32-bit C `int` (out-of-range values print -2147483648) and
`%e` / `%f` print the value rounded to float32.
"""
from __future__ import annotations

import math
from typing import Any

from ..formatting import float_signbit, to_str
from ..registry import op
from .scalar_common import to_f32, ts_error
from .str_common import from_bytes, rejoin, to_bytes


@op("aten::format(str self, ...) -> str")
def format_(self: str, *args: Any) -> str:
    """Replace each `{}` with str() of the next argument."""
    out: list[str] = []
    begin = used = 0
    while True:
        loc = self.find("{}", begin)
        if loc < 0:
            out.append(self[begin:])
            break
        out.append(self[begin:loc])
        if used >= len(args):
            raise ts_error(f"Too few arguments for format string: {self}")
        out.append(to_str(args[used]))
        used += 1
        begin = loc + 2
    return rejoin("".join(out))


def ivalue_tag(v: Any) -> str:
    """The name PyTorch gives a run-time value's kind in error messages."""
    if v is None:
        return "None"
    for t, name in ((bool, "Bool"), (int, "Int"), (float, "Double"),
                    (complex, "ComplexDouble"), (str, "String"), (list, "GenericList"),
                    (tuple, "Tuple"), (dict, "GenericDict")):
        if isinstance(v, t):
            return name
    return "Tensor" if type(v).__name__ == "Tensor" else "Object"


def _as_double(key: str, v: Any) -> float:
    if isinstance(v, bool) or isinstance(v, complex):
        # PyTorch accepts these as numbers and then fails an internal assertion.
        raise ts_error("expected double")
    if not isinstance(v, (int, float)):
        raise ts_error(f"%{key} requires a number for formatting, but got {ivalue_tag(v)}")
    return float(v)


def _c_int(x: float) -> int:
    # x86 cvttsd2si into a 32-bit int: NaN and out-of-range values give INT_MIN.
    if x != x or not -2147483649.0 < x < 2147483648.0:
        return -2147483648
    return int(x)


def _c_float(key: str, x: float) -> str:
    f = to_f32(x)
    if math.isnan(f):
        return "-nan" if float_signbit(f) else "nan"
    return ("%" + key) % f


def _char(v: Any) -> str:
    if isinstance(v, str) and len(to_bytes(v)) == 1:
        return v
    if isinstance(v, int) and not isinstance(v, bool):
        return from_bytes(bytes([v & 0xFF]))
    raise ts_error(f"%c requires an int or char for formatting, but got {ivalue_tag(v)}")


@op("aten::percentFormat(str self, ...) -> str")
def percent_format(self: str, *rest: Any) -> str:
    """`self % args`, where a tuple right-hand side supplies several arguments."""
    value = rest[0] if len(rest) == 1 else tuple(rest)
    args = value if isinstance(value, tuple) else (value,)
    out: list[str] = []
    begin = used = 0
    n = len(self)
    while True:
        pct = self.find("%", begin)
        if pct < 0:
            out.append(self[begin:])
            break
        if pct >= n - 1:
            raise ts_error("Incomplete format specifier")
        out.append(self[begin:pct])
        key = self[pct + 1]
        begin = pct + 2
        if key == "%":
            out.append("%")
            continue
        if used >= len(args):
            raise ts_error("Too few arguments for format string")
        arg = args[used]
        used += 1
        if key in "di":
            # ints print in full; floats go through a 32-bit C int.
            out.append(str(arg) if isinstance(arg, int) and not isinstance(arg, bool)
                       else str(_c_int(_as_double(key, arg))))
        elif key in "eEf":
            out.append(_c_float(key, _as_double(key, arg)))
        elif key == "s":
            out.append(to_str(arg))
        elif key == "c":
            out.append(_char(arg))
        else:
            raise ts_error(f"The specifier %{key} is not supported in TorchScript format "
                           "strings")
    if used != len(args):
        raise ts_error("Too many arguments for format string")
    return rejoin("".join(out))
