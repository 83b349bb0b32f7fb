"""Values crossing the boundary between Python and scripted code.

On the way in, a Python value becomes a run-time value of the declared type as PyTorch's
`toIValue` makes it: lists, dicts and tuples are converted (so copied: scripted code never
mutates the caller's list), an int fits a `float` parameter, a tuple a `List[T]` one, a
Python Enum member its enum type. ScriptList / ScriptDict (from `tsjit.jit.script([...])`)
pass their own storage, so mutations show on the Python side.

On the way out, enum values become their Python Enum members and named tuples their
Python NamedTuple class again, when scripted code was compiled from those classes.
"""
from __future__ import annotations

import enum
from typing import Any, Callable, Optional

import numpy as np

from ..frontend.script import python_class
from ..interpreter import UNINITIALIZED, Object
from ..ir import types as T
from .._tensor import Device, Tensor, from_numpy


class ConversionError(TypeError):
    """A Python value does not fit the declared type (a TypeError, as in PyTorch)."""


class ScriptContainer:
    """Base of ScriptList / ScriptDict: scripted code receives `_data` itself."""

    _data: Any
    _type: T.Type


def _number(v: Any, kind: type) -> Any:
    """A Python number of `kind` from an int/float (not bool) or a one-element tensor, as
    PyTorch's argument conversion casts them."""
    if isinstance(v, bool):
        return _NO
    if isinstance(v, (int, float)) and (kind is float or isinstance(v, int)):
        return kind(v)
    if isinstance(v, Tensor) and v.numel() == 1:
        return kind(v.item())
    return _NO


_SCALARS: dict[T.Type, Any] = {
    T.IntType: lambda v: _number(v, int),
    T.BoolType: lambda v: v if isinstance(v, bool) else _NO,
    T.StrType: lambda v: v if isinstance(v, str) else _NO,
    # PyTorch's float parameter takes a Python int (and converts it).
    T.FloatType: lambda v: _number(v, float),
    T.ComplexType: lambda v: complex(v) if isinstance(v, (int, float, complex))
    and not isinstance(v, bool) else _NO,
    T.NumberType: lambda v: v if isinstance(v, (int, float, complex)) else _NO,
    T.NoneType: lambda v: None if v is None else _NO,
}
_NO = object()   # "does not convert" (None is a value)
NOT_CONVERTED = _NO     # what a `converter` returns for a value that does not fit


def to_script(v: Any, t: T.Type) -> Any:
    """`v` as a run-time value of type `t`; ConversionError if it does not fit."""
    out = _convert(v, t)
    if out is _NO:
        raise ConversionError(f"expected a value of type '{t.annotation_str()}' but found "
                              f"'{_describe(v)}'")
    return out


def _tensor(v: Any) -> Any:
    if isinstance(v, Tensor):
        return v
    return from_numpy(v) if isinstance(v, np.ndarray) else _NO


def converter(t: T.Type) -> Callable[[Any], Any]:
    """`_convert(v, t)` as a function of `v`, specialised to `t` where that saves work at
    each call (a parameter's converter, made once per function)."""
    scalar = _SCALARS.get(t)
    if scalar is not None:
        return scalar
    if t == T.TensorType:
        return _tensor
    if isinstance(t, T.OptionalType):
        inner = converter(t.elem)
        return lambda v: None if v is None else inner(v)
    return lambda v: _convert(v, t)


def _convert(v: Any, t: T.Type) -> Any:
    scalar = _SCALARS.get(t)
    if scalar is not None:
        return scalar(v)
    if t == T.TensorType:
        return _tensor(v)
    if t == T.AnyType:
        return _plain(v)
    if isinstance(t, T.OptionalType):
        return None if v is None else _convert(v, t.elem)
    if isinstance(t, T.UnionType):
        for member in t.types:
            out = _convert(v, member)
            if out is not _NO:
                return out
        return _NO
    if isinstance(v, ScriptContainer):
        return v._data if T.is_subtype(v._type, t) else _NO
    if isinstance(t, T.ListType):
        if not isinstance(v, (list, tuple, range)):
            return _NO
        out = [_convert(x, t.elem) for x in v]
        return _NO if any(x is _NO for x in out) else out
    if isinstance(t, T.DictType):
        if not isinstance(v, dict):
            return _NO
        pairs = [(_convert(k, t.key), _convert(x, t.value)) for k, x in v.items()]
        return _NO if any(k is _NO or x is _NO for k, x in pairs) else dict(pairs)
    if isinstance(t, T.TupleType):
        if not isinstance(v, tuple) or len(v) != len(t.elems):
            return _NO
        out = tuple(_convert(x, e) for x, e in zip(v, t.elems))
        return _NO if any(x is _NO for x in out) else out
    if isinstance(t, T.EnumType):
        if isinstance(v, T.EnumValue):
            return v if v.type is t else _NO
        if isinstance(v, enum.Enum) and python_class(t) is type(v):
            return t.member(v.name)
        return _NO
    if isinstance(t, T.ClassType) and not t.is_module:
        return _object(v, t)
    if t == T.DeviceType:
        return v if isinstance(v, Device) else (Device(v) if isinstance(v, str) else _NO)
    if t == T.AnyListType:
        return list(v) if isinstance(v, (list, tuple)) else _NO
    if t == T.AnyTupleType:
        return v if isinstance(v, tuple) else _NO
    return _plain(v)   # modules, interfaces, futures...: checked where they are used


def _object(v: Any, t: T.ClassType) -> Any:
    """An object of class `t`: a run-time object of it as is, or a new one made from an
    instance of the Python class `t` was scripted from, its attributes converted (a copy,
    as PyTorch makes: scripted code does not change the Python instance)."""
    if isinstance(v, Object):
        return v if v.type is t else _NO
    cls = python_class(t)
    if cls is None or not isinstance(v, cls):
        return _NO
    obj = Object(t)
    for i, a in enumerate(t.attributes):
        if not hasattr(v, a.name):
            return _NO
        value = _convert(getattr(v, a.name), a.type)
        if value is _NO:
            return _NO
        obj.slots[i] = value
    return obj


def _plain(v: Any) -> Any:
    """A value whose declared type says nothing more (Any): containers' storage, tensors."""
    if isinstance(v, ScriptContainer):
        return v._data
    if isinstance(v, np.ndarray):
        return from_numpy(v)
    return getattr(v, "_c", v) if type(v).__name__ == "ScriptModule" else v


def _describe(v: Any) -> str:
    if isinstance(v, ScriptContainer):
        return v._type.annotation_str()
    if isinstance(v, (list, tuple)) and v:
        return f"{type(v).__name__}[{_describe(v[0])}]"
    return type(v).__name__


def to_python(v: Any, t: T.Type) -> Any:
    """A run-time result of static type `t` as Python sees it (Enum members, NamedTuples)."""
    if not _has_python_classes(t):
        return v
    return _to_python(v, t)


def result_converter(t: T.Type) -> Optional[Callable[[Any], Any]]:
    """`to_python(v, t)` as a function of `v`, or None where it gives `v` itself (most
    types: decided once per function instead of at each call)."""
    return (lambda v: _to_python(v, t)) if _has_python_classes(t) else None


def _to_python(v: Any, t: T.Type) -> Any:
    if isinstance(v, T.EnumValue):
        cls = python_class(v.type)
        return cls[v.name] if cls is not None else v
    if isinstance(t, T.OptionalType):
        return None if v is None else _to_python(v, t.elem)
    if isinstance(t, T.UnionType):
        return v
    if isinstance(t, T.ListType) and isinstance(v, list):
        return [_to_python(x, t.elem) for x in v]
    if isinstance(t, T.DictType) and isinstance(v, dict):
        return {_to_python(k, t.key): _to_python(x, t.value) for k, x in v.items()}
    if isinstance(t, T.TupleType) and isinstance(v, tuple):
        elems = tuple(_to_python(x, e) for x, e in zip(v, t.elems))
        cls = python_class(t) if t.names else None
        return cls(*elems) if cls is not None else elems
    if isinstance(v, Object) and not v.type.is_module:
        cls = python_class(v.type)
        if cls is None:
            return v
        # An instance of the Python class, its attributes copied, as PyTorch returns it.
        out = cls.__new__(cls)
        for a, value in zip(v.type.attributes, v.slots):
            if value is not UNINITIALIZED:
                out.__dict__[a.name] = _to_python(value, a.type)
        return out
    return v


def _has_python_classes(t: T.Type) -> bool:
    if isinstance(t, T.EnumType) or isinstance(t, T.TupleType) and t.names or \
            isinstance(t, T.ClassType) and not t.is_module or t == T.AnyType:
        return True
    return any(_has_python_classes(x) for x in t.contained())


__all__ = ["ConversionError", "NOT_CONVERTED", "ScriptContainer", "converter", "result_converter", "to_script", "to_python"]
