"""FunctionSchema: operator and method signatures, parsed from PyTorch-syntax strings.

    aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
    aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
    aten::append.t(t[](a!) self, t(c -> *) el) -> t[](a!)

Schema-only spellings map onto the language's types: `ScalarType`, `Layout`,
`MemoryFormat`, `SymInt` are ints at run time; `Scalar` is `NumberType`; a lower-case
single identifier (`t`, `t1`, `K`, `V`) is a type variable. `int[2]` is a list that also
accepts a single int (broadcast to N elements).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Optional

from .diagnostics import TsjitError
from . import types as T


class SchemaError(TsjitError):
    """A schema string does not parse."""


class _NoDefault:
    def __repr__(self) -> str:
        return "NO_DEFAULT"


NO_DEFAULT: Any = _NoDefault()


@dataclass(frozen=True)
class Argument:
    name: str
    type: T.Type
    default: Any = NO_DEFAULT
    kwarg_only: bool = False
    alias: Optional[str] = None   # e.g. "a!" for a mutated alias set
    N: Optional[int] = None       # fixed list size of `int[2]`
    # The type as written ("ScalarType?", "int[2]", "Tensor(a!)"): the eager API binds by
    # spellings the parsed type folds away (ScalarType, Device, Scalar are ints or numbers).
    written: str = field(default="", compare=False, repr=False)

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT

    @property
    def is_write(self) -> bool:
        return bool(self.alias) and self.alias.endswith("!")


@dataclass(frozen=True)
class FunctionSchema:
    name: str                      # "aten::add" (or a method's bare name)
    overload: str                  # "Tensor" or ""
    arguments: tuple[Argument, ...]
    returns: tuple[Argument, ...]
    is_vararg: bool = False
    is_varret: bool = False
    text: str = field(default="", compare=False, repr=False)   # the schema string as written

    @property
    def qualified(self) -> str:
        return f"{self.name}.{self.overload}" if self.overload else self.name

    @property
    def namespace(self) -> str:
        return self.name.split("::", 1)[0] if "::" in self.name else ""

    @property
    def base_name(self) -> str:
        return self.name.split("::", 1)[-1]

    def is_mutable(self) -> bool:
        """Whether the operator writes to an argument (an alias set marked `!`)."""
        # Asked for every node by each cleanup pass; the schema is frozen, so the answer
        # is kept (outside the dataclass fields: equality and repr do not see it).
        try:
            return self.__dict__["_mutable"]
        except KeyError:
            mutable = any(a.is_write for a in self.arguments)
            object.__setattr__(self, "_mutable", mutable)
            return mutable

    def __str__(self) -> str:
        args = []
        kw = False
        for a in self.arguments:
            if a.kwarg_only and not kw:
                args.append("*")
                kw = True
            args.append(_arg_str(a))
        if self.is_vararg:
            args.append("...")
        rets = [_arg_str(r, is_return=True) for r in self.returns]
        if self.is_varret:
            rets.append("...")
        if len(rets) == 1 and self.returns and not self.returns[0].name and \
                not rets[0].startswith("("):
            ret = rets[0]
        else:
            ret = "(" + ", ".join(rets) + ")"
        return f"{self.qualified}({', '.join(args)}) -> {ret}"


def _type_str(t: T.Type, N: Optional[int] = None, alias: Optional[str] = None) -> str:
    if isinstance(t, T.OptionalType):
        return _type_str(t.elem, N, alias) + "?"
    if isinstance(t, T.ListType):
        return _type_str(t.elem) + (f"[{N}]" if N else "[]") + (f"({alias})" if alias else "")
    if isinstance(t, T.DictType):
        s = f"Dict({_type_str(t.key)}, {_type_str(t.value)})"
    elif isinstance(t, T.TupleType):
        s = "(" + ", ".join(_type_str(e) for e in t.elems) + ")"
    else:
        s = str(t)
    return s + (f"({alias})" if alias else "")


def _default_str(v: Any) -> str:
    if isinstance(v, bool):
        return "True" if v else "False"
    if v is None:
        return "None"
    if isinstance(v, str):
        return '"' + v + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_default_str(x) for x in v) + "]"
    return repr(v)


def _arg_str(a: Argument, is_return: bool = False) -> str:
    s = _type_str(a.type, a.N, a.alias)
    if a.name:
        s += " " + a.name
    if a.has_default and not is_return:
        s += "=" + _default_str(a.default)
    return s


_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<arrow>->)
  | (?P<ns>::)
  | (?P<float>-?(?:\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|\.\d+))
  | (?P<int>-?\d+)
  | (?P<str>"[^"]*"|'[^']*')
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<ellipsis>\.\.\.)
  | (?P<punct>[()\[\],=*?!.|])
""", re.VERBOSE)

_INT_LIKE = {"ScalarType", "Layout", "MemoryFormat", "SymInt", "QScheme", "DeviceIndex"}
_SIMPLE = {
    "Tensor": T.TensorType, "int": T.IntType, "float": T.FloatType, "bool": T.BoolType,
    "str": T.StrType, "complex": T.ComplexType, "Scalar": T.NumberType,
    "Device": T.DeviceType, "Any": T.AnyType, "Generator": T.GeneratorType,
    "NoneType": T.NoneType, "None": T.NoneType, "Storage": T.StorageType,
    "Stream": T.StreamType, "AnyClassType": T.AnyClassType, "number": T.NumberType,
    "AnyListType": T.AnyListType, "AnyEnumType": T.AnyEnumType, "AnyTupleType": T.AnyTupleType, "SymFloat": T.FloatType,
    "SymBool": T.BoolType, "Dimname": T.StrType,
}
# Identifier defaults in schemas and their run-time values (ScalarType / MemoryFormat /
# reduction enums are ints at run time).
_NAMED_DEFAULTS = {
    "True": True, "False": False, "None": None, "contiguous_format": 0,
    "preserve_format": 1, "channels_last": 2, "Mean": 1, "Sum": 2, "long": 4,
    "strided": 0, "inf": float("inf"), "per_tensor_affine": 0,
}


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks: list[tuple[str, str]] = []
        self.spans: list[tuple[int, int]] = []     # each token's (start, end) in text
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m:
                raise SchemaError(f"bad character {text[pos]!r} at {pos} in schema: {text}")
            pos = m.end()
            if m.lastgroup != "ws":
                self.toks.append((m.lastgroup, m.group()))  # type: ignore[arg-type]
                self.spans.append(m.span())
        self.toks.append(("eof", ""))
        self.spans.append((len(text), len(text)))
        self.i = 0

    def peek(self, k: int = 0) -> tuple[str, str]:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def next(self) -> tuple[str, str]:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def accept(self, text: str) -> bool:
        if self.peek()[1] == text:
            self.i += 1
            return True
        return False

    def expect(self, text: str) -> None:
        if not self.accept(text):
            raise SchemaError(f"expected {text!r} but found {self.peek()[1]!r} in schema: {self.text}")

    def name(self) -> str:
        kind, text = self.next()
        if kind != "name":
            raise SchemaError(f"expected a name but found {text!r} in schema: {self.text}")
        return text

    def schema(self) -> FunctionSchema:
        name = self.name()
        if self.accept("::"):
            name = name + "::" + self.name()
        overload = ""
        if self.accept("."):
            overload = self.name()
        args, vararg = self.arg_list(is_return=False)
        self.expect("->")
        if self.peek()[1] == "(":
            rets, varret = self.arg_list(is_return=True)
        elif self.accept("..."):
            rets, varret = (), True
        else:
            rets, varret = (self.argument(False, True),), False
        if self.peek()[0] != "eof":
            raise SchemaError(f"unexpected {self.peek()[1]!r} at the end of schema: {self.text}")
        return FunctionSchema(name, overload, tuple(args), tuple(rets), vararg, varret, self.text)

    def arg_list(self, is_return: bool) -> tuple[tuple[Argument, ...], bool]:
        self.expect("(")
        args: list[Argument] = []
        kwarg_only = False
        vararg = False
        while not self.accept(")"):
            if self.accept("*"):
                kwarg_only = True
            elif self.accept("..."):
                vararg = True
            else:
                args.append(self.argument(kwarg_only, is_return))
            if self.peek()[1] != ")":
                self.expect(",")
        return tuple(args), vararg

    def alias(self) -> Optional[str]:
        # Tensor(a), Tensor(a!), Tensor(a -> *), t(c -> *)
        if self.peek()[1] == "(" and (self.peek(1)[0] == "name" or self.peek(1)[1] == "*") and \
                self.peek(2)[1] in ("!", ")", "->", "|"):
            self.next()
            parts = []
            while not self.accept(")"):
                parts.append(self.next()[1])
            return "".join(parts).replace("->", " -> ")
        return None

    def type(self) -> tuple[T.Type, Optional[str], Optional[int]]:
        kind, text = self.peek()
        if text == "(":
            self.next()
            elems = []
            while not self.accept(")"):
                elems.append(self.type()[0])
                if self.peek()[1] != ")":
                    self.expect(",")
            t: T.Type = T.TupleType(tuple(elems))
        elif kind == "name":
            self.next()
            if text == "Dict":
                self.expect("(")
                k = self.type()[0]
                self.expect(",")
                v = self.type()[0]
                self.expect(")")
                t = T.DictType(k, v)
            elif text == "Future":
                self.expect("(")
                t = T.FutureType(self.type()[0])
                self.expect(")")
            elif text in ("Tuple", "List", "Optional", "Union") and self.peek()[1] == "[":
                raise SchemaError(f"use schema spelling, not {text}[...], in schema: {self.text}")
            elif text in _SIMPLE:
                t = _SIMPLE[text]
            elif text in _INT_LIKE:
                t = T.IntType
            elif text[0].islower() or len(text) <= 2:
                t = T.TypeVar(text)
            else:
                raise SchemaError(f"unknown type {text!r} in schema: {self.text}")
        else:
            raise SchemaError(f"expected a type but found {text!r} in schema: {self.text}")
        alias = self.alias()
        N = None
        while True:
            if self.accept("["):
                if self.peek()[0] == "int":
                    N = int(self.next()[1])
                self.expect("]")
                t = T.ListType(t)
                alias = self.alias() or alias
            elif self.accept("?"):
                t = T.optional(t)
            else:
                break
        return t, alias, N

    def argument(self, kwarg_only: bool, is_return: bool) -> Argument:
        first = self.i
        t, alias, N = self.type()
        written = self.text[self.spans[first][0]:self.spans[self.i - 1][1]]
        name = ""
        if self.peek()[0] == "name":
            name = self.next()[1]
        default = NO_DEFAULT
        if not is_return and self.accept("="):
            default = self.default_value(t)
            if N and isinstance(default, list) and len(default) == 1:
                default = default * N  # `int[2] stride=1` means [1, 1]
        return Argument(name, t, default, kwarg_only, alias, N, written)

    def default_value(self, t: T.Type) -> Any:
        kind, text = self.next()
        if kind == "int":
            v: Any = int(text)
            if t == T.FloatType or t == T.OptionalType(T.FloatType):
                v = float(v)
            if isinstance(t, T.ListType) or isinstance(t, T.OptionalType) and \
                    isinstance(t.elem, T.ListType):
                v = [v]
            return v
        if kind == "float":
            return float(text)
        if kind == "str":
            # Escapes as in Python string literals (`" \n\t"` is a space, newline, tab).
            return text[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
        if kind == "name":
            if text not in _NAMED_DEFAULTS:
                raise SchemaError(f"unknown default {text!r} in schema: {self.text}")
            return _NAMED_DEFAULTS[text]
        if text == "[":
            items = []
            while not self.accept("]"):
                items.append(self.default_value(T.IntType))
                if self.peek()[1] != "]":
                    self.expect(",")
            return items
        raise SchemaError(f"bad default {text!r} in schema: {self.text}")


_cache: dict[str, FunctionSchema] = {}


def parse_schema(text: str) -> FunctionSchema:
    """Parse a PyTorch-syntax schema string (cached)."""
    s = _cache.get(text)
    if s is None:
        s = _cache[text] = _Parser(text).schema()
    return s


def parse_type(text: str) -> T.Type:
    """Parse a schema-syntax type such as `int[]?` or `Dict(str, Tensor)`."""
    p = _Parser(text)
    t = p.type()[0]
    if p.peek()[0] != "eof":
        raise SchemaError(f"unexpected {p.peek()[1]!r} in type: {text}")
    return t
