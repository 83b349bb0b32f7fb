"""The operator registry: one PyTorch-syntax schema string per overload, bound to a kernel.

    @op("aten::relu(Tensor self) -> Tensor")
    def relu(self): ...

Kernel calling convention (shared by the interpreter, generated code and the eager API):
a kernel takes one positional argument per schema argument, in schema order, keyword-only
ones included (callers fill defaults), followed by the extra arguments of a vararg schema.
Run-time values: Tensor -> `tsjit._tensor.Tensor`; int, float, bool, complex, str, None ->
Python objects (ints are 64-bit: kernels wrap results); List -> list; Tuple -> tuple;
Dict -> dict (insertion ordered); ScalarType / Layout / MemoryFormat -> int codes
(`tsjit.float32` is an int subclass); Device -> `tsjit._tensor.Device`. A kernel returns
its single result, a tuple for several, None for `-> ()`. Failures raise ordinary Python
exceptions carrying PyTorch's message; the interpreter wraps them with a source location.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Optional

from ..ir.diagnostics import TsjitError
from ..ir.schema import FunctionSchema, parse_schema


@dataclass(eq=False)
class Operator:
    """A kernel and its schema string, parsed when first needed: a process that scripts one
    function looks at a few dozen of the ~2000 schemas (parsing all of them at start-up was
    a third of the first `tsjit.script`'s time)."""
    text: str
    kernel: Callable
    qualified: str                          # "aten::add.Tensor", read off the text
    _schema: Optional[FunctionSchema] = None

    @property
    def schema(self) -> FunctionSchema:
        if self._schema is None:
            self._schema = parse_schema(self.text)
            if self._schema.qualified != self.qualified:
                raise RegistryError(f"schema {self.text!r} names {self._schema.qualified}, "
                                    f"registered as {self.qualified}")
        return self._schema

    @property
    def name(self) -> str:
        return self.qualified.partition(".")[0]

    def __repr__(self) -> str:
        return f"Operator({self.text})"


class RegistryError(TsjitError):
    """An operator is registered twice or is not known."""


_by_name: dict[str, list[Operator]] = {}      # "aten::add" -> overloads in registration order
_by_qualified: dict[str, Operator] = {}       # "aten::add.Tensor" -> operator
_loaded = False


def register(schema: str, kernel: Callable) -> Operator:
    """Register `kernel` under `schema`; a second registration of one overload is an error."""
    qualified = schema.partition("(")[0].strip()
    if qualified in _by_qualified:
        raise RegistryError(f"operator {qualified} is registered twice")
    o = Operator(schema, kernel, qualified)
    _by_qualified[qualified] = o
    _by_name.setdefault(o.name, []).append(o)
    return o


def op(*schemas: str) -> Callable[[Callable], Callable]:
    """Decorator registering one kernel under one or more schema strings."""
    def deco(fn: Callable) -> Callable:
        for s in schemas:
            register(s, fn)
        return fn
    return deco


def _ensure_loaded() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        from . import library  # noqa: F401  (imports every kernel module, registering them)


def overloads(name: str) -> list[Operator]:
    """Every overload of `name` (e.g. "aten::add"), in registration order."""
    _ensure_loaded()
    return _by_name.get(name, [])


def find(qualified: str) -> Operator:
    """The operator `ns::name.overload` (or `ns::name` for the unnamed overload)."""
    _ensure_loaded()
    o = _by_qualified.get(qualified)
    if o is None:
        raise RegistryError(f"unknown operator {qualified}")
    return o


def find_by_schema(schema: FunctionSchema) -> Optional[Operator]:
    _ensure_loaded()
    return _by_qualified.get(schema.qualified)


def kernel_for(node: Any) -> Optional[Callable]:
    """The kernel of an operator node (by its schema), or None: what constant folding calls."""
    o = find_by_schema(node.schema)
    return o.kernel if o is not None else None


def all_operators() -> Iterable[Operator]:
    """Every registered operator, in registration order."""
    _ensure_loaded()
    return list(_by_qualified.values())


def has_namespace_name(name: str) -> bool:
    _ensure_loaded()
    return name in _by_name
