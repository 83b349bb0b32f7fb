"""CompilationUnit: the owner and namespace of code objects (functions and named types).

Qualified names start with `__torch__.`; a name defined twice is mangled by inserting
`___torch_mangle_N` before its last atom, as PyTorch 2.13 writes it
(`__torch__.pkg.___torch_mangle_3.Leaf`), so that the unqualified name stays the same.
"""
from __future__ import annotations

import re
from typing import Optional, Union

from .diagnostics import TsjitError
from .function import Function
from .types import ClassType, EnumType, InterfaceType, TupleType

NamedType = Union[ClassType, InterfaceType, EnumType, TupleType]

MANGLE_PREFIX = "___torch_mangle_"
_MANGLE_ATOM = re.compile(r"^_*__torch_mangle_\d+$")


class QualifiedName:
    """Helpers for dotted names; names themselves are plain strings."""

    @staticmethod
    def prefix(name: str) -> str:
        return name.rsplit(".", 1)[0] if "." in name else ""

    @staticmethod
    def atom(name: str) -> str:
        return name.rsplit(".", 1)[-1]

    @staticmethod
    def demangle(name: str) -> str:
        """The name without any `___torch_mangle_N` atoms."""
        return ".".join(a for a in name.split(".") if not _MANGLE_ATOM.match(a))

    @staticmethod
    def is_mangled(name: str) -> bool:
        return any(_MANGLE_ATOM.match(a) for a in name.split("."))


class CompilationUnit:
    """Owns functions and named types under unique qualified names."""

    def __init__(self) -> None:
        self.functions: dict[str, Function] = {}
        self.types: dict[str, NamedType] = {}
        self._mangle_index = 0

    def mangle(self, name: str) -> str:
        """A fresh name for `name`: its demangled form with a new mangle atom before the atom."""
        base = QualifiedName.demangle(name)
        prefix, atom = QualifiedName.prefix(base), QualifiedName.atom(base)
        while True:
            candidate = f"{prefix}.{MANGLE_PREFIX}{self._mangle_index}.{atom}" if prefix \
                else f"{MANGLE_PREFIX}{self._mangle_index}.{atom}"
            self._mangle_index += 1
            if not self.has(candidate):
                return candidate

    def has(self, name: str) -> bool:
        return name in self.functions or name in self.types

    def unique_name(self, name: str) -> str:
        """`name` if free, else a mangled variant."""
        return self.mangle(name) if self.has(name) else name

    def register_type(self, t: NamedType) -> NamedType:
        name = t.qualified_name
        if name is None or self.has(name):
            raise TsjitError(f"a type named {name} is already defined")
        self.types[name] = t
        return t

    def get_type(self, name: str) -> Optional[NamedType]:
        return self.types.get(name)

    def get_class(self, name: str) -> Optional[ClassType]:
        t = self.types.get(name)
        return t if isinstance(t, ClassType) else None

    def register_function(self, fn: Function) -> Function:
        if self.has(fn.qualified_name):
            raise TsjitError(f"a function named {fn.qualified_name} is already defined")
        self.functions[fn.qualified_name] = fn
        return fn

    def find_function(self, name: str) -> Optional[Function]:
        return self.functions.get(name)
