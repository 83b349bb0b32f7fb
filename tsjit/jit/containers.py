"""ScriptList and ScriptDict: what `tsjit.jit.script([1, 2])` and `script({...})` return.

They behave as Python lists and dicts, share their storage with scripted code they are
passed to (mutations show on both sides), and refuse values of another type with a
TypeError, as PyTorch's `torch._C.ScriptList` / `ScriptDict` do.
"""
from __future__ import annotations

from collections.abc import MutableMapping, MutableSequence
from typing import Any, Iterable, Iterator

from ..ir import types as T
from .conversion import ConversionError, ScriptContainer, to_python, to_script


class ScriptList(ScriptContainer, MutableSequence):
    """A list of one element type, shared with the scripted code it is passed to."""

    def __init__(self, data: list, type: T.ListType) -> None:
        self._data, self._type = data, type

    def _elem(self, v: Any) -> Any:
        try:
            return to_script(v, self._type.elem)
        except ConversionError as err:
            raise TypeError(f"ScriptList of {self._type.elem.annotation_str()}: {err}") from None

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return ScriptList(self._data[i], self._type)
        return to_python(self._data[i], self._type.elem)

    def __setitem__(self, i: Any, v: Any) -> None:
        if isinstance(i, slice):
            self._data[i] = [self._elem(x) for x in v]
        else:
            self._data[i] = self._elem(v)

    def __delitem__(self, i: Any) -> None:
        del self._data[i]

    def __len__(self) -> int:
        return len(self._data)

    def __iter__(self) -> Iterator[Any]:
        return (to_python(x, self._type.elem) for x in self._data)

    def __contains__(self, v: Any) -> bool:
        return self._elem(v) in self._data

    def insert(self, i: int, v: Any) -> None:
        self._data.insert(i, self._elem(v))

    def append(self, v: Any) -> None:
        self._data.append(self._elem(v))

    def extend(self, values: Iterable[Any]) -> None:
        self._data.extend([self._elem(x) for x in values])

    def count(self, v: Any) -> int:
        return self._data.count(self._elem(v))

    def index(self, v: Any, *args: Any) -> int:
        return self._data.index(self._elem(v), *args)

    def remove(self, v: Any) -> None:
        self._data.remove(self._elem(v))

    def pop(self, i: int = -1) -> Any:
        return to_python(self._data.pop(i), self._type.elem)

    def clear(self) -> None:
        self._data.clear()

    def __eq__(self, other: object) -> bool:
        other_data = other._data if isinstance(other, ScriptList) else other
        return isinstance(other_data, list) and self._data == other_data

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._data)


class ScriptDict(ScriptContainer, MutableMapping):
    """A dict of one key and one value type, shared with the scripted code it is passed to."""

    def __init__(self, data: dict, type: T.DictType) -> None:
        self._data, self._type = data, type

    def _convert(self, v: Any, t: T.Type, what: str) -> Any:
        try:
            return to_script(v, t)
        except ConversionError as err:
            raise TypeError(f"ScriptDict {what}: {err}") from None

    def __getitem__(self, k: Any) -> Any:
        # A key of another type is not in the dict: KeyError, as for a Python dict.
        return to_python(self._data[k], self._type.value)

    def __setitem__(self, k: Any, v: Any) -> None:
        self._data[self._convert(k, self._type.key, "key")] = \
            self._convert(v, self._type.value, "value")

    def __delitem__(self, k: Any) -> None:
        del self._data[self._convert(k, self._type.key, "key")]

    def __contains__(self, k: Any) -> bool:
        try:
            key = to_script(k, self._type.key)
        except ConversionError:
            raise KeyError(k) from None    # PyTorch's ScriptDict raises KeyError here
        return key in self._data

    def __len__(self) -> int:
        return len(self._data)

    def __iter__(self) -> Iterator[Any]:
        return (to_python(k, self._type.key) for k in list(self._data))

    def __eq__(self, other: object) -> bool:
        other_data = other._data if isinstance(other, ScriptDict) else other
        return isinstance(other_data, dict) and self._data == other_data

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._data)


def script_container(value: Any, t: T.Type) -> ScriptContainer:
    """A ScriptList / ScriptDict holding `value` converted to the list or dict type `t`."""
    data = to_script(value, t)
    if isinstance(t, T.ListType):
        return ScriptList(data, t)
    assert isinstance(t, T.DictType)
    return ScriptDict(data, t)


__all__ = ["ScriptList", "ScriptDict", "script_container"]
