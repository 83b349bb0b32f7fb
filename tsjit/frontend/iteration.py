"""What `for` can iterate over, as (trip count, element at trip i) pairs.

Every loop becomes a `prim::Loop` over a trip count; the element is computed from the
trip number: `range` derives it arithmetically, sequences index (`xs[i]`), dicts iterate
their keys, `zip` and `enumerate` combine their parts and stop at the shortest (a
`prim::min` of the lengths, as PyTorch writes it).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ..ir import Value
from ..ir import types as T
from ..ir.diagnostics import CompileError, SourceRange
from ..ir.node_kinds import prim
from .schema_matching import NamedValue
from .sugared import ClassValue, RangeValue, SimpleValue, SugaredValue

INT64_MAX = 2 ** 63 - 1


@dataclass
class Iteration:
    length: Value                       # the trip count
    get: Callable[[Value], Value]       # trip number -> element
    is_simple_range: bool = False       # `for i in range(n)`: the element is the trip number


class ZipValue(SugaredValue):
    kind = "zip()"

    def __init__(self, parts: list[SugaredValue]) -> None:
        self.parts = parts

    def iterate(self, c: Any, rng: SourceRange) -> Any:
        return self


class EnumerateValue(SugaredValue):
    kind = "enumerate()"

    def __init__(self, inner: SugaredValue, start: Value) -> None:
        self.inner, self.start = inner, start

    def iterate(self, c: Any, rng: SourceRange) -> Any:
        return self


def iteration(c: Any, sv: SugaredValue, rng: SourceRange) -> Iteration:
    """How to loop over `sv`."""
    if isinstance(sv, SimpleValue):
        return _sequence(c, sv.value, rng)
    if isinstance(sv, ClassValue) and isinstance(sv.type, T.EnumType):
        # `for e in Color`: over the list of its members, as PyTorch lowers it.
        t = sv.type
        members = [c.emit_constant(t.member(n), rng, t) for n in t.members]
        return _sequence(c, c.emit_list(members, t, rng), rng)
    it = sv.iterate(c, rng)
    if isinstance(it, RangeValue):
        return _range(c, it, rng)
    if isinstance(it, ZipValue):
        parts = [iteration(c, p, rng) for p in it.parts]
        length = _shortest(c, [p.length for p in parts], rng)
        return Iteration(length, lambda trip: c.emit_tuple([p.get(trip) for p in parts], rng))
    if isinstance(it, EnumerateValue):
        inner = iteration(c, it.inner, rng)
        if c.constant_of(it.start) == 0 and type(c.constant_of(it.start)) is int:
            count = Iteration(inner.length, lambda trip: trip)   # the trip number itself
        else:
            counter = RangeValue(it.start, c.emit_constant(INT64_MAX, rng), c.emit_constant(1, rng), False)
            count = _range(c, counter, rng, length=False)
        length = _shortest(c, [c.emit_constant(INT64_MAX, rng), inner.length], rng)
        return Iteration(length, lambda trip: c.emit_tuple([count.get(trip), inner.get(trip)], rng))
    if isinstance(it, Iteration):
        return it
    raise CompileError(f"{sv.kind} cannot be iterated over", rng)


def _shortest(c: Any, lengths: list[Value], rng: SourceRange) -> Value:
    if len(lengths) == 1:
        return lengths[0]
    lst = c.emit_list(lengths, T.IntType, rng)
    return c.emit_builtin("prim::min", [NamedValue(lst)], {}, rng)


def _range(c: Any, r: RangeValue, rng: SourceRange, length: bool = True) -> Iteration:
    if r.simple:
        return Iteration(r.stop, lambda trip: trip, True)
    n = c.emit_builtin("aten::__range_length", [NamedValue(r.start), NamedValue(r.stop),
                                                NamedValue(r.step)], {}, rng) if length else None

    def get(trip: Value) -> Value:
        return c.emit_builtin("aten::__derive_index", [NamedValue(trip), NamedValue(r.start),
                                                       NamedValue(r.step)], {}, rng)
    return Iteration(n, get)  # type: ignore[arg-type]


def _sequence(c: Any, v: Value, rng: SourceRange) -> Iteration:
    t = v.type
    if not (isinstance(t, (T.ListType, T.DictType)) or t in (T.StrType, T.TensorType)):
        raise CompileError(f"a value of type {t.annotation_str()} cannot be iterated over", rng)
    seq = v
    if isinstance(t, T.DictType):
        seq = c.emit_builtin("aten::keys", [NamedValue(v)], {}, rng)
    n = c.emit_builtin("aten::len", [NamedValue(seq)], {}, rng)
    return Iteration(n, lambda trip: c.emit_subscript(seq, trip, rng))


class ModuleDictView(SugaredValue):
    """`self.layers.items()` / `.keys()` / `.values()` of a ModuleDict."""

    kind = "a module dict view"

    def __init__(self, obj: Value, what: str) -> None:
        self.obj, self.what = obj, what


def module_items(c: Any, sv: SugaredValue, rng: SourceRange) -> Any:
    """The values of a loop that is unrolled at compile time: over a module container or a
    tuple (whose elements may differ in type). None: not such a loop."""
    view = "values"
    if isinstance(sv, SimpleValue) and isinstance(sv.value.type, T.TupleType):
        return c.emit_tuple_unpack(sv.value, rng)
    if isinstance(sv, EnumerateValue):
        inner = module_items(c, sv.inner, rng)
        if inner is None:
            return None
        start = c.constant_of(sv.start)
        if not isinstance(start, int):
            raise CompileError("enumerate() over modules needs a constant start", rng)
        return [c.emit_tuple([c.emit_constant(start + i, rng), m], rng) for i, m in enumerate(inner)]
    if isinstance(sv, ModuleDictView):
        obj, view = sv.obj, sv.what
    elif isinstance(sv, SimpleValue) and isinstance(sv.value.type, T.ClassType) and \
            sv.value.type.is_module:
        obj = sv.value
        if sv.value.type.qualified_name.endswith("ModuleDict"):
            view = "keys"
    else:
        return None
    t = obj.type
    out = []
    # A ParameterList / ParameterDict holds parameters where a ModuleList holds modules.
    holds_params = t.qualified_name.endswith(("ParameterList", "ParameterDict"))
    for a in t.attributes:
        if holds_params:
            if not a.is_parameter:
                continue
        elif not (isinstance(a.type, (T.ClassType, T.InterfaceType)) and
                  getattr(a.type, "is_module", False)):
            continue
        key = c.emit_constant(a.name, rng)
        if view == "keys":
            out.append(key)
            continue
        module = c.insert(prim.GetAttr, [obj], [a.type], rng, name=a.name).output()
        out.append(module if view == "values" else c.emit_tuple([key, module], rng))
    return out
