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
import itertools
from typing import Any, Callable, Iterable, Optional, Union

from ..ir.diagnostics import TsjitError
from ..ir.schema import FunctionSchema, parse_schema
from . import kernel_index
from .kernel_index import KernelIndex, operator_name


class Operator:
    """One overload: its kernel, and its schema, parsed when first asked for (parsing the
    two thousand schemas of the library up front costs more than loading its kernels; a
    command that only asks which operators exist, like `tsjit info`, parses none)."""

    def __init__(self, schema: Union[str, FunctionSchema, Callable[[], str]], kernel: Callable,
                 qualified: Optional[str] = None) -> None:
        self._schema = schema
        self.kernel = kernel
        self.seq = next(_registrations)
        if isinstance(schema, FunctionSchema):
            self.qualified, self.name = schema.qualified, schema.name
            return
        # `ns::name.overload(` begins every schema
        self.qualified = qualified or schema.split("(", 1)[0].strip()   # type: ignore[union-attr]
        self.name = operator_name(self.qualified)

    def _written(self) -> Union[str, FunctionSchema]:
        s = self._schema
        if callable(s) and not isinstance(s, FunctionSchema):
            s = self._schema = s()
            if s.split("(", 1)[0].strip() != self.qualified:
                raise RegistryError(f"operator {self.qualified} was given the schema {s}")
        return s

    @property
    def text(self) -> str:
        """The schema as written (without parsing it)."""
        s = self._written()
        return s if isinstance(s, str) else s.text

    @functools.cached_property
    def schema(self) -> FunctionSchema:
        s = self._written()
        return parse_schema(s) if isinstance(s, str) else s

    def __repr__(self) -> str:
        return f"Operator({self.schema})"


class RegistryError(TsjitError):
    """An operator is registered twice or is not known."""


_by_name: dict[str, list[Operator]] = {}      # "aten::add" -> overloads in registration order
_by_qualified: dict[str, Operator] = {}       # "aten::add.Tensor" -> operator
_registrations = itertools.count()
# Kernel modules are imported as their operators are first looked up, by the index
# (ops/kernel_index.py); without a usable index, all of them at the first look-up.
_index: Optional[KernelIndex] = None
_index_read = False
_all_loaded = False
_names_loaded: set[str] = set()               # names whose overloads are all registered


def register(schema: Union[str, Callable[[], str]], kernel: Callable,
             qualified: Optional[str] = None) -> Operator:
    """Register `kernel` under `schema`; a second registration of one overload is an error.
    `schema` may be a function making the text when it is first needed (from another
    operator's, which need not be registered yet), given the operator's `qualified` name."""
    if callable(schema) and qualified is None:
        raise RegistryError("an operator registered with a schema function needs its name")
    o = Operator(schema, kernel, qualified)
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


def _read_index() -> Optional[KernelIndex]:
    """The kernel index, read at the first look-up; None (every module imported) without one."""
    global _index, _index_read
    if not _index_read:
        _index_read = True
        _index = kernel_index.load()
        if _index is None:
            _load_all()
    return _index


def _load_all() -> None:
    global _all_loaded
    if not _all_loaded:
        _all_loaded = True
        from .library import import_all
        import_all()


def _position(o: Operator) -> tuple[int, int]:
    """Where `o` comes among its name's overloads: the order importing every module in name
    order registers them (the index's), whichever modules were imported first; overloads
    the index does not list follow, in registration order."""
    if _index is None:
        return (0, o.seq)
    listed = _index.overloads(o.name)
    return (list(listed).index(o.qualified) if o.qualified in listed else len(listed), o.seq)


def _load_name(name: str) -> None:
    """Register every overload of `name` (importing the modules the index names for it)."""
    if name in _names_loaded:
        return
    idx = _read_index()
    if idx is not None and name in idx:
        from .library import import_kernel_module
        for module in idx.overloads(name).values():
            import_kernel_module(module)
        _by_name.get(name, []).sort(key=_position)
    _names_loaded.add(name)


def overloads(name: str) -> list[Operator]:
    """Every overload of `name` (e.g. "aten::add"), in registration order."""
    _load_name(name)
    return _by_name.get(name, [])


def find_by_qualified(qualified: str) -> Optional[Operator]:
    """The operator `ns::name.overload`, or None when there is none."""
    o = _by_qualified.get(qualified)
    if o is None:
        idx = _read_index()     # without an index, every module is imported now
        module = idx.module_of(qualified) if idx is not None else None
        if module is not None:
            from .library import import_kernel_module
            import_kernel_module(module)
        o = _by_qualified.get(qualified)
    return o


def find(qualified: str) -> Operator:
    """The operator `ns::name.overload` (or `ns::name` for the unnamed overload)."""
    o = find_by_qualified(qualified)
    if o is None:
        raise RegistryError(f"unknown operator {qualified}")
    return o


def find_by_schema(schema: FunctionSchema) -> Optional[Operator]:
    return find_by_qualified(schema.qualified)


def kernel_for(node: Any) -> Optional[Callable]:
    """The kernel of an operator node (by its schema), or None: what constant folding calls."""
    o = find_by_schema(node.schema)
    return o.kernel if o is not None else None


def all_operators() -> Iterable[Operator]:
    """Every registered operator, by name; the overloads of one name in registration order."""
    _read_index()
    _load_all()
    return sorted(_by_qualified.values(), key=lambda o: (o.name, _position(o)))


def has_namespace_name(name: str) -> bool:
    """Whether an operator `name` (e.g. "aten::add") exists, without importing its kernels."""
    idx = _read_index()
    return name in _by_name or (idx is not None and name in idx)
