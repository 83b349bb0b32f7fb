"""Operators emitted as Python expressions or statements instead of kernel calls.

Each entry gives exactly the registered kernel's result — values, and errors (a case
Python would treat differently falls back to the kernel at run time): int arithmetic
wraps to int64, `%` and `//` keep the kernel for the divisors where Python differs,
string methods take Python's fast path only on ASCII text (TorchScript strings are
UTF-8 bytes), lookups that miss call the kernel to raise its own error. Tests check
every entry against its kernel on generated values.

An `Inline` either renders an expression from operand texts (`expr`) or statements
(`stmts`, given the output name). `pure` expressions neither raise nor change state,
so they may be folded into their single user; `atoms` templates use an operand more
than once and need names or literals; `order` is the order they evaluate operands in.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional, Protocol

import numpy as np

from ..ir import Node
from ..ir.node_kinds import prim
from ..ops.formatting import wrap_int64
from .._tensor.tensor import Tensor

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
# Below this divisor magnitude Python's `%` and `//` are TorchScript's int64 ones.
_HALF = 1 << 62


class Context(Protocol):
    """What a template may ask of the code generator."""

    def bind(self, obj: Any, prefix: str = "_c") -> str: ...
    def kernel(self, n: Node) -> str: ...
    def out(self, n: Node, i: int = 0) -> str: ...
    def constant(self, n: Node, i: int) -> Any: ...


@dataclass(frozen=True)
class Inline:
    expr: Optional[Callable[[list[str]], str]] = None
    stmts: Optional[Callable[[list[str], str], list[str]]] = None
    pure: bool = False
    atoms: bool = False
    order: Optional[tuple[int, ...]] = None
    returns_input: Optional[int] = None    # the output is this operand (list.append)


Template = Callable[[Node, Context], Optional[Inline]]
TEMPLATES: dict[str, Template] = {}


def _register(*names: str) -> Callable[[Template], Template]:
    def deco(t: Template) -> Template:
        for name in names:
            TEMPLATES[name] = t
        return t
    return deco


def _fixed(inline: Inline, *names: str) -> None:
    for name in names:
        TEMPLATES[name] = lambda n, g, inline=inline: inline


def _binary(op: str) -> Inline:
    return Inline(expr=lambda a: f"({a[0]} {op} {a[1]})", pure=True)


# ---- comparisons and logic (exact for these operand types) ----------------------------------

for _op, _py in (("eq", "=="), ("ne", "!="), ("lt", "<"), ("le", "<="), ("gt", ">"), ("ge", ">=")):
    _fixed(_binary(_py), f"aten::{_op}.int", f"aten::{_op}.float")
# Strings order by bytes, which code points of undecodable bytes (lone surrogates) break;
# equality is the same either way.
_fixed(_binary("=="), "aten::eq.bool", "aten::eq.str")
_fixed(_binary("!="), "aten::ne.bool", "aten::ne.str")
_fixed(Inline(expr=lambda a: f"(not {a[0]})", pure=True), "aten::__not__")
_fixed(Inline(expr=lambda a: f"({a[0]} and {a[1]})", pure=True), "aten::__and__.bool")
_fixed(Inline(expr=lambda a: f"({a[0]} or {a[1]})", pure=True), "aten::__or__.bool")


@_register("aten::__is__", "aten::__isnot__")
def _is(n: Node, g: Context) -> Optional[Inline]:
    # Identity is only Python's `is` against None (the kernel compares values otherwise).
    op = "is" if n.kind == "aten::__is__" else "is not"
    if n.input(1).node.kind == prim.Constant and g.constant(n, 1) is None:
        return Inline(expr=lambda a: f"({a[0]} {op} None)", pure=True)
    if n.input(0).node.kind == prim.Constant and g.constant(n, 0) is None:
        return Inline(expr=lambda a: f"({a[1]} {op} None)", pure=True, order=(1, 0))
    return None


# ---- int64 arithmetic -------------------------------------------------------------------------

def _wrapping(op: str) -> Template:
    def template(n: Node, g: Context) -> Inline:
        t, w = g.out(n), g.bind(wrap_int64, "_wrap")
        return Inline(expr=lambda a: f"({t} if {INT64_MIN} <= ({t} := {a[0]} {op} {a[1]}) "
                                     f"<= {INT64_MAX} else {w}({t}))", pure=True)
    return template


TEMPLATES["aten::add.int"] = _wrapping("+")
TEMPLATES["aten::sub.int"] = _wrapping("-")
TEMPLATES["aten::mul.int"] = _wrapping("*")


@_register("aten::neg.int")
def _neg(n: Node, g: Context) -> Inline:
    t, w = g.out(n), g.bind(wrap_int64, "_wrap")
    return Inline(expr=lambda a: f"({t} if ({t} := -{a[0]}) <= {INT64_MAX} else {w}({t}))", pure=True)


def _small_divisor(b: Any) -> bool:
    return isinstance(b, int) and not isinstance(b, bool) and 0 < abs(b) < _HALF


@_register("aten::remainder.int")
def _remainder(n: Node, g: Context) -> Inline:
    if _small_divisor(g.constant(n, 1)):
        return _binary("%")
    k = g.kernel(n)
    return Inline(expr=lambda a: f"({a[0]} % {a[1]} if 0 < {a[1]} < {_HALF} or {-_HALF} < {a[1]} < 0 "
                                 f"else {k}({a[0]}, {a[1]}))", atoms=True)


@_register("aten::floordiv.int")
def _floordiv(n: Node, g: Context) -> Inline:
    b = g.constant(n, 1)
    if isinstance(b, int) and not isinstance(b, bool) and (b > 0 or b < -1):
        return _binary("//")
    k = g.kernel(n)
    return Inline(expr=lambda a: f"({a[0]} // {a[1]} if {a[1]} > 0 or {a[1]} < -1 "
                                 f"else {k}({a[0]}, {a[1]}))", atoms=True)


@_register("aten::__derive_index")
def _derive_index(n: Node, g: Context) -> Inline:
    # start + index * step: inside the range, so it cannot leave int64.
    if g.constant(n, 2) == 1:
        return Inline(expr=lambda a: f"({a[1]} + {a[0]})", pure=True, order=(1, 0))
    return Inline(expr=lambda a: f"({a[1]} + {a[0]} * {a[2]})", pure=True, order=(1, 0, 2))


# ---- float arithmetic (IEEE doubles in both; an int operand converts to double first, as
# Python's mixed arithmetic does too) ----------------------------------------------------------

for _op, _py in (("add", "+"), ("sub", "-"), ("mul", "*")):
    _fixed(_binary(_py), f"aten::{_op}.float", f"aten::{_op}.int_float", f"aten::{_op}.float_int")
_fixed(Inline(expr=lambda a: f"(-{a[0]})", pure=True), "aten::neg.float")


@_register("aten::div.float")
def _div_float(n: Node, g: Context) -> Inline:
    # Python raises on a zero divisor where TorchScript gives inf or nan: the kernel does that.
    k = g.kernel(n)
    return Inline(expr=lambda a: f"({a[0]} / {a[1]} if {a[1]} else {k}({a[0]}, {a[1]}))",
                  pure=True, atoms=True)


# ---- lists, dicts, strings --------------------------------------------------------------------

_fixed(Inline(expr=lambda a: f"len({a[0]})", pure=True), "aten::len.t", "aten::len.any",
       *(f"aten::len.Dict_{k}" for k in ("str", "int", "bool", "float", "complex", "Tensor")))
# `in` by == is Python's `in` for these element and key types (no NaN to tell them apart).
_fixed(Inline(expr=lambda a: f"({a[1]} in {a[0]})", pure=True, order=(1, 0)),
       "aten::__contains__.int_list", "aten::__contains__.str_list",
       "aten::__contains__.str", "aten::__contains__.int")
_fixed(Inline(expr=lambda a: f"{a[0]}.get({a[1]})", pure=True), "aten::get.str", "aten::get.int")
_fixed(Inline(expr=lambda a: f"{a[0]}.get({a[1]}, {a[2]})", pure=True),
       "aten::get.default_str", "aten::get.default_int")
_fixed(Inline(stmts=lambda a, o: [f"{a[0]}[{a[1]}] = {a[2]}"]), "aten::_set_item.str", "aten::_set_item.int")
_fixed(Inline(stmts=lambda a, o: [f"{a[0]}.append({a[1]})"], returns_input=0), "aten::append.t")


def _lookup(error: str) -> Template:
    def template(n: Node, g: Context) -> Inline:
        k = g.kernel(n)
        return Inline(stmts=lambda a, o: ["try:", f"    {o} = {a[0]}[{a[1]}]", f"except {error}:",
                                          f"    {o} = {k}({a[0]}, {a[1]})"], atoms=True)
    return template


TEMPLATES["aten::__getitem__.t"] = _lookup("IndexError")
TEMPLATES["aten::__getitem__.Dict_str"] = _lookup("KeyError")
TEMPLATES["aten::__getitem__.Dict_int"] = _lookup("KeyError")


@_register("aten::_set_item.t")
def _list_set(n: Node, g: Context) -> Inline:
    k = g.kernel(n)
    return Inline(stmts=lambda a, o: ["try:", f"    {a[0]}[{a[1]}] = {a[2]}", "except IndexError:",
                                      f"    {k}({a[0]}, {a[1]}, {a[2]})"], atoms=True, returns_input=0)


def _ascii_method(method: str) -> Template:
    def template(n: Node, g: Context) -> Inline:
        k = g.kernel(n)
        return Inline(expr=lambda a: f"({a[0]}.{method}() if {a[0]}.isascii() else {k}({a[0]}))",
                      pure=True, atoms=True)
    return template


for _m in ("lower", "upper", "isdigit", "isalpha", "isalnum"):
    TEMPLATES[f"aten::{_m}"] = _ascii_method(_m)
TEMPLATES["aten::len.str"] = lambda n, g: Inline(
    expr=lambda a, k=g.kernel(n): f"(len({a[0]}) if {a[0]}.isascii() else {k}({a[0]}))",
    pure=True, atoms=True)


def _strip(method: str) -> Template:
    def template(n: Node, g: Context) -> Optional[Inline]:
        chars = g.constant(n, 1)
        if not isinstance(chars, str) or not chars.isascii() or "\\" in chars:
            return None     # the kernel reads the escaped spelling of the default too
        k = g.kernel(n)
        return Inline(expr=lambda a: f"({a[0]}.{method}({a[1]}) if {a[0]}.isascii() "
                                     f"else {k}({a[0]}, {a[1]}))", pure=True, atoms=True)
    return template


for _m in ("strip", "lstrip", "rstrip"):
    TEMPLATES[f"aten::{_m}"] = _strip(_m)


@_register("aten::split.str")
def _split(n: Node, g: Context) -> Optional[Inline]:
    if not (n.input(1).node.kind == prim.Constant and g.constant(n, 1) is None):
        return None
    k = g.kernel(n)
    # Python's whitespace on ASCII is the kernel's plus \x1f.
    return Inline(expr=lambda a: f"({a[0]}.split() if {a[0]}.isascii() and '\\x1f' not in {a[0]} "
                                 f"else {k}({a[0]}, None, {a[2]}))", pure=True, atoms=True)


# ---- elementwise tensor arithmetic --------------------------------------------------------------

def _same_dtype(ufunc: Any) -> Template:
    # Operands of one dtype give that dtype in PyTorch and numpy alike, and broadcasting is
    # the same; anything else (mixed dtypes, shapes that do not broadcast, bool
    # subtraction) goes to the kernel, which promotes or raises PyTorch's error.
    def template(n: Node, g: Context) -> Optional[Inline]:
        if len(n.inputs) == 3 and g.constant(n, 2).__class__ is not int or \
                len(n.inputs) == 3 and g.constant(n, 2) != 1:
            return None
        k, f = g.kernel(n), g.bind(ufunc, "_np")
        # The result Tensor is built in line (a function call would cost as much as the
        # ufunc on small tensors); a ufunc of 0-d operands gives a numpy scalar.
        new, cls = g.bind(object.__new__, "_new"), g.bind(Tensor, "_Tensor")
        nd, asarray = g.bind(np.ndarray, "_ndarray"), g.bind(np.asarray, "_asarray")

        def stmts(a: list[str], o: str) -> list[str]:
            call = f"{k}({', '.join(a)})"
            r = f"r_{o}"
            return [f"{o} = {a[0]}._a", f"{r} = {a[1]}._a",
                    f"if {o}.dtype is {r}.dtype:",
                    "    try:", f"        {r} = {f}({o}, {r})",
                    "    except (ValueError, TypeError):", f"        {o} = {call}",
                    "    else:", f"        {o} = {new}({cls})",
                    f"        {o}._a = {r} if {r}.__class__ is {nd} else {asarray}({r})",
                    "else:", f"    {o} = {call}"]
        return Inline(stmts=stmts, atoms=True)
    return template


TEMPLATES["aten::add.Tensor"] = _same_dtype(np.add)
TEMPLATES["aten::sub.Tensor"] = _same_dtype(np.subtract)
TEMPLATES["aten::mul.Tensor"] = _same_dtype(np.multiply)


# ---- tensor sizes and numbers from tensors (per-step work of loops over rows) ---------------

def _when_class(cls: type) -> Template:
    # the value itself when already of the wanted class, else the kernel converts or raises
    def template(n: Node, g: Context) -> Inline:
        k, c = g.kernel(n), g.bind(cls, f"_{cls.__name__}")
        return Inline(expr=lambda a: f"({a[0]} if {a[0]}.__class__ is {c} else {k}({a[0]}))",
                      atoms=True)
    return template


TEMPLATES["aten::Int.Scalar"] = _when_class(int)
TEMPLATES["aten::Float.Scalar"] = _when_class(float)


@_register("aten::size.int")
def _size_int(n: Node, g: Context) -> Optional[Inline]:
    d = g.constant(n, 1)
    if d.__class__ is not int or not 0 <= d < 64:
        return None
    t, k = g.out(n), g.kernel(n)
    # numpy's shape holds Python ints; a dim the tensor lacks goes to the kernel's error
    return Inline(expr=lambda a: f"({t}[{d}] if len({t} := {a[0]}._a.shape) > {d} "
                                 f"else {k}({a[0]}, {d}))", atoms=True)


@_register("aten::item")
def _item(n: Node, g: Context) -> Inline:
    k = g.kernel(n)
    # numpy's item of one element of a numpy numeric type is the Python number (Tensor.item)
    return Inline(expr=lambda a: f"({a[0]}._a.item() if {a[0]}._a.size == 1 and "
                                 f"{a[0]}._a.dtype.kind in 'biufc' else {k}({a[0]}))", atoms=True)


@_register("aten::Int.float")
def _int_float(n: Node, g: Context) -> Inline:
    k, i = g.kernel(n), g.bind(int, "_int")
    # truncation inside int64's range; NaN, infinities and overflow go to the kernel's C cast
    return Inline(expr=lambda a: f"({i}({a[0]}) if {-2.0 ** 63!r} <= {a[0]} < {2.0 ** 63!r} "
                                 f"else {k}({a[0]}))", atoms=True)
