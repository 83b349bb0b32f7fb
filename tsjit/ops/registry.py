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

import functools
from typing import Any, Callable, Iterable, Optional, Union

from ..ir.diagnostics import TsjitError
from ..ir.schema import FunctionSchema, parse_schema


class Operator:
    """One overload: its kernel, and its schema, parsed when first asked for (parsing the
    two thousand schemas of the library up front costs more than loading its kernels; a
    command that only asks which operators exist, like `tsjit info`, parses none)."""

    def __init__(self, schema: Union[str, FunctionSchema], kernel: Callable) -> None:
        self._schema = schema
        self.kernel = kernel
        if not isinstance(schema, str):
            self.qualified, self.name = schema.qualified, schema.name
            return
        # `ns::name.overload(` begins every schema; operator names have no dots
        self.qualified = schema.split("(", 1)[0].strip()
        ns, _, rest = self.qualified.rpartition("::")
        self.name = f"{ns}::{rest.split('.', 1)[0]}" if ns else rest.split(".", 1)[0]

    @property
    def text(self) -> str:
        """The schema as written (without parsing it)."""
        s = self._schema
        return s if isinstance(s, str) else s.text

    @functools.cached_property
    def schema(self) -> FunctionSchema:
        s = self._schema
        return parse_schema(s) if isinstance(s, str) else s

    def __repr__(self) -> str:
        return f"Operator({self.schema})"


class RegistryError(TsjitError):
    """An operator is registered twice or is not known."""


_by_name: dict[str, list[Operator]] = {}      # "aten::add" -> overloads in registration order
_by_qualified: dict[str, Operator] = {}       # "aten::add.Tensor" -> operator
_loaded = False


def register(schema: str, kernel: Callable) -> Operator:
    """Register `kernel` under `schema`; a second registration of one overload is an error."""
    o = Operator(schema, kernel)
    if o.qualified in _by_qualified:
        raise RegistryError(f"operator {o.qualified} is registered twice")
    _by_qualified[o.qualified] = o
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
