"""`repr(tensor)` in PyTorch's format: `tensor([1., 2.])`, `tensor([1, 2], dtype=torch.int32)`.

Follows PyTorch's rules: floats print in integer mode (`1.`) when every finite nonzero
value is whole, in scientific mode when the magnitudes span more than 1000x or leave
[1e-4, 1e8], otherwise with 4 decimals; rows wrap at 80 columns; tensors of more than
1000 elements are summarised to 3 edge items per dimension.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import dtypes as D

PRECISION = 4
THRESHOLD = 1000
EDGEITEMS = 3
LINEWIDTH = 80


def set_printoptions(precision: Any = None, threshold: Any = None, edgeitems: Any = None,
                     linewidth: Any = None, **_: Any) -> None:
    """Change the print options (precision, threshold, edgeitems, linewidth)."""
    global PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH
    if precision is not None:
        PRECISION = precision
    if threshold is not None:
        THRESHOLD = threshold
    if edgeitems is not None:
        EDGEITEMS = edgeitems
    if linewidth is not None:
        LINEWIDTH = linewidth


class _Formatter:
    def __init__(self, values: list, kind: str) -> None:
        self.kind = kind
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        if kind == "f":
            finite = [v for v in values if math.isfinite(v) and v != 0]
            if finite:
                absv = [abs(v) for v in finite]
                lo, hi = min(absv), max(absv)
                if all(v == math.ceil(v) for v in finite):
                    self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8
                    if not self.sci_mode:
                        self.width = max(len(f"{v:.0f}") + 1 for v in finite)
                else:
                    self.int_mode = False
                    self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
                    if not self.sci_mode:
                        self.width = max(len(f"{v:.{PRECISION}f}") for v in finite)
                if self.sci_mode:
                    self.width = max(len(f"{v:.{PRECISION}e}") for v in finite)
        else:
            self.width = max((len(str(v)) for v in values), default=1)

    def format(self, v: Any) -> str:
        if self.kind == "f":
            if self.sci_mode:
                s = f"{v:{self.width}.{PRECISION}e}"
            elif self.int_mode:
                s = f"{v:.0f}"
                if math.isfinite(v):
                    s += "."
            else:
                s = f"{v:.{PRECISION}f}"
        else:
            s = str(v)
        return " " * (self.width - len(s)) + s


class _ComplexFormatter:
    def __init__(self, values: list) -> None:
        self.re = _Formatter([v.real for v in values], "f")
        self.im = _Formatter([v.imag for v in values], "f")
        self.width = self.re.width + self.im.width + 2

    def format(self, v: complex) -> str:
        # the real part is padded, the imaginary part carries its own sign
        re = self.re.format(v.real)
        im = (self.im.format(v.imag) + "j").lstrip()
        return re + im if im[0] in "+-" else re + "+" + im


def _summarized(a: np.ndarray) -> np.ndarray:
    # keep EDGEITEMS leading and trailing entries of every long dimension
    for d in range(a.ndim):
        if a.shape[d] > 2 * EDGEITEMS:
            idx = list(range(EDGEITEMS)) + list(range(a.shape[d] - EDGEITEMS, a.shape[d]))
            a = np.take(a, idx, axis=d)
    return a


def _vector(a: np.ndarray, indent: int, summarize: bool, fmt: Any) -> str:
    elem_len = fmt.width + 2
    per_line = max(1, int(math.floor((LINEWIDTH - indent) / elem_len)))
    vals = a.tolist()
    if summarize and len(vals) > 2 * EDGEITEMS:
        data = [fmt.format(v) for v in vals[:EDGEITEMS]] + [" ..."] + \
               [fmt.format(v) for v in vals[-EDGEITEMS:]]
    else:
        data = [fmt.format(v) for v in vals]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(a: np.ndarray, indent: int, summarize: bool, fmt: Any) -> str:
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        return _vector(a, indent, summarize, fmt)
    n = a.shape[0]
    if summarize and n > 2 * EDGEITEMS:
        rows = [_nested(a[i], indent + 1, summarize, fmt) for i in range(EDGEITEMS)] + \
               ["..."] + [_nested(a[i], indent + 1, summarize, fmt)
                          for i in range(n - EDGEITEMS, n)]
    else:
        rows = [_nested(a[i], indent + 1, summarize, fmt) for i in range(n)]
    sep = "," + "\n" * (a.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(rows) + "]"


def _body(a: np.ndarray, kind: str, indent: int) -> str:
    a = D.native_values(a)
    summarize = a.size > THRESHOLD
    sample = _summarized(a) if summarize else a
    vals = sample.reshape(-1).tolist()
    if kind == "c":
        fmt: Any = _ComplexFormatter(vals)
    else:
        fmt = _Formatter(vals, "f" if kind == "f" else "x")
    if a.ndim == 0:
        f = _Formatter([a.item()], "f" if kind == "f" else "x") if kind != "c" else \
            _ComplexFormatter([a.item()])
        return f.format(a.item())
    return _nested(a, indent, summarize, fmt)


def tensor_repr(t: Any, prefix: str = "tensor(") -> str:
    """PyTorch's repr of tensor `t`."""
    a = t._a
    dt = t.dtype
    indent = len(prefix)
    suffixes = []
    default = D.get_default_dtype()
    if a.size == 0:
        if a.ndim != 1:
            suffixes.append("size=" + str(tuple(a.shape)))
        if dt != default:
            suffixes.append("dtype=" + str(dt))
        body = "[]"
    else:
        if dt not in (default, default.to_complex(), D.int64, D.bool_):
            suffixes.append("dtype=" + str(dt))
        body = _body(a, dt.kind, indent)
    if getattr(t, "requires_grad", False):
        suffixes.append("requires_grad=True")
    out = prefix + body
    last_len = len(out) - out.rfind("\n") + 1
    parts = [out]
    for s in suffixes:
        if last_len + len(s) + 2 > LINEWIDTH:
            parts.append(",\n" + " " * indent + s)
            last_len = indent + len(s)
        else:
            parts.append(", " + s)
            last_len += len(s) + 2
    parts.append(")")
    return "".join(parts)
