"""Loaded values against their declared types: an attribute declared `bool` holds a bool.

An archive's classes declare their attributes' types in `code/`, and its `data.pkl` gives
the values; nothing in the pickle format ties the two together. Code compiled against the
declarations trusts them (a `bool` attribute is tested with `if`, a Tensor one passed to
kernels), so a value of another type would give wrong results or a Python error at the
first call. The loader checks each value when it sets it, without recursion (containers
are walked with a work list) and fast for the usual types: one set lookup.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Optional

from .._tensor import Device, Tensor
from ..interpreter import Object
from ..interpreter.objects import UNINITIALIZED
from ..ir import types as T

# The Python types of run-time values of the simple types (exact types: a bool is no int).
_EXACT: dict[T.Type, frozenset[type]] = {
    T.BoolType: frozenset({bool}), T.IntType: frozenset({int}),
    T.FloatType: frozenset({float}), T.StrType: frozenset({str}),
    T.ComplexType: frozenset({complex}), T.NoneType: frozenset({type(None)}),
    T.TensorType: frozenset({Tensor}), T.DeviceType: frozenset({Device}),
    T.NumberType: frozenset({int, float, complex, bool}),
}


def slot_tests(types: Iterable[T.Type]) -> tuple[tuple[frozenset[type], ...],
                                                  tuple[Optional[Callable[[Any], bool]], ...]]:
    """For each declared type: the Python types a value may have with no further check
    (the uninitialized marker of an attribute never set included), and for other values
    a quick test (None: there is none; False sends the value to `type_problem`)."""
    quick, fits = [], []
    for t in types:
        # (the simple types by identity first: hashing a type costs 5-10 times as much)
        ok = _QUICK_BY_ID.get(id(t)) or _QUICK.get(t)
        if ok is not None:
            quick.append(ok)
            fits.append(None)
        else:
            quick.append(_ONLY_UNSET)
            fits.append(_fits_test(t))
    return tuple(quick), tuple(fits)


def _fits_test(t: T.Type) -> Callable[[Any], bool]:
    """A quick test that a value fits declared type `t`, a type not in `_QUICK`."""
    if isinstance(t, T.ClassType):
        return lambda v: type(v) is Object and v.type is t
    if isinstance(t, T.OptionalType):
        inner = _fits_test(t.elem)
        return lambda v: v is None or inner(v)
    if isinstance(t, T.ListType) and t.elem in _EXACT:
        elems = _EXACT[t.elem]
        return lambda v: type(v) is list and elems.issuperset(map(type, v))
    if isinstance(t, T.TupleType) and all(e in _EXACT for e in t.elems):
        parts = tuple(_EXACT[e] for e in t.elems)
        return lambda v: isinstance(v, tuple) and len(v) == len(parts) and \
            all(type(x) in e for x, e in zip(v, parts))
    return lambda v: type_problem(v, t) is None


_ONLY_UNSET = frozenset({type(UNINITIALIZED)})
_QUICK = {t: found | _ONLY_UNSET for t, found in _EXACT.items()}
_QUICK.update({T.OptionalType(t): found | {type(None)} for t, found in _QUICK.items()})
_QUICK_BY_ID = {id(t): found for t, found in _QUICK.items()}   # (the keys live in _QUICK)


def type_problem(value: Any, declared: T.Type) -> Optional[str]:
    """What in `value` does not fit type `declared` ("holds a str"); None if it fits."""
    work = [(value, declared, "")]
    while work:
        v, t, path = work.pop()
        if isinstance(t, T.OptionalType):
            if v is None:
                continue
            t = t.elem
        exact = _EXACT.get(t)
        if exact is not None:
            if type(v) in exact or (t is T.TensorType and isinstance(v, Tensor)):
                continue
        elif isinstance(t, T.ListType):
            if type(v) is list:
                elems = _EXACT.get(t.elem)
                if elems is None or not elems.issuperset(map(type, v)):
                    work.extend((x, t.elem, f"an element of {path or 'it'}: ") for x in v)
                continue
        elif isinstance(t, T.DictType):
            if type(v) is dict:
                where = f"a key of {path or 'it'}: "
                work.extend((k, t.key, where) for k in v)
                where = f"a value of {path or 'it'}: "
                work.extend((x, t.value, where) for x in v.values())
                continue
        elif isinstance(t, T.TupleType):
            if isinstance(v, tuple) and len(v) == len(t.elems):
                work.extend((x, e, f"an element of {path or 'it'}: ") for x, e in zip(v, t.elems))
                continue
        elif isinstance(t, T.ClassType):
            if type(v) is Object and v.type is t:
                continue
        elif isinstance(t, T.InterfaceType):
            if type(v) is Object:
                continue
        elif isinstance(t, T.EnumType):
            if isinstance(v, T.EnumValue) and v.type is t:
                continue
        elif isinstance(t, T.UnionType):
            # (a member that fits at the top; its contents are checked as that member's)
            fits = [m for m in t.types if type_problem_shallow(v, m)]
            if fits:
                work.append((v, fits[0], path))
                continue
        else:
            continue    # (Any, and types no archive value has: not checked)
        return f"{path}holds {_kind(v)}"
    return None


def type_problem_shallow(v: Any, t: T.Type) -> bool:
    """Whether `v` fits `t` at its top level (a Union member's first test)."""
    if isinstance(t, T.OptionalType):
        return v is None or type_problem_shallow(v, t.elem)
    exact = _EXACT.get(t)
    if exact is not None:
        return type(v) in exact or (t is T.TensorType and isinstance(v, Tensor))
    if isinstance(t, T.ListType):
        return type(v) is list
    if isinstance(t, T.DictType):
        return type(v) is dict
    if isinstance(t, T.TupleType):
        return isinstance(v, tuple) and len(v) == len(t.elems)
    if isinstance(t, T.ClassType):
        return type(v) is Object and v.type is t
    if isinstance(t, T.EnumType):
        return isinstance(v, T.EnumValue) and v.type is t
    return True


def _kind(v: Any) -> str:
    if v is None:
        return "None"
    if type(v) is Object:
        return f"an object of {v.type.qualified_name}"
    name = type(v).__name__
    return f"an {name}" if name[:1] in "aeiou" else f"a {name}"
