"""Dict operators, registered once per key type (str, int, bool, float, complex, Tensor).

Dicts are insertion-ordered Python dicts shared by reference. TorchScript differences
from Python reproduced here: `popitem()` removes the *first* item; a missing key raises
"KeyError: <key>" with the key printed as `str()` prints it (`KeyError: 2.`); and keys
compare with `==` only, so a NaN key is never found and every NaN insert adds a new
entry (Python would find the same NaN object again). Tensor keys are hashed by identity.
"""
from __future__ import annotations

import struct
from typing import Any, Callable

from ..formatting import to_str
from ..registry import op
from .scalar_common import ts_error

_KEY_TYPES = ("str", "int", "bool", "float", "complex", "Tensor")
_D = struct.Struct("d")


def _is_nan(key: Any) -> bool:
    # NaN (or a complex with a NaN part) is unequal to itself: never found by lookups.
    return isinstance(key, (float, complex)) and key != key


def _fresh(key: Any) -> Any:
    """A NaN key as a new object, so that it becomes a new entry of the Python dict."""
    if isinstance(key, float):
        return _D.unpack(_D.pack(key))[0]
    return complex(_fresh(key.real), _fresh(key.imag))


def _key_error(key: Any) -> RuntimeError:
    return ts_error(f"KeyError: {to_str(key)}")


def _lookup(d: dict, key: Any) -> tuple[bool, Any]:
    if _is_nan(key):
        return False, None
    if key in d:
        return True, d[key]
    return False, None


def _store(d: dict, key: Any, value: Any) -> None:
    d[_fresh(key) if _is_nan(key) else key] = value


# ---- kernels (shared by every key type) ----------------------------------------------------

def getitem(self: dict, key: Any) -> Any:
    """self[key]; a missing key raises KeyError."""
    found, v = _lookup(self, key)
    if not found:
        raise _key_error(key)
    return v


def set_item(l: dict, idx: Any, v: Any) -> None:  # noqa: E741 - schema names
    """l[idx] = v (an existing key keeps its position)."""
    _store(l, idx, v)


def get(self: dict, key: Any) -> Any:
    """self.get(key): the value or None."""
    return _lookup(self, key)[1]


def get_default(self: dict, key: Any, default_value: Any) -> Any:
    """self.get(key, default_value)."""
    found, v = _lookup(self, key)
    return v if found else default_value


def setdefault(self: dict, key: Any, default_value: Any) -> Any:
    """Insert `default_value` under a missing key; return the stored value."""
    found, v = _lookup(self, key)
    if found:
        return v
    _store(self, key, default_value)
    return default_value


def keys(self: dict) -> list:
    """The keys, in insertion order, as a new list."""
    return list(self.keys())


def values(self: dict) -> list:
    """The values, in insertion order, as a new list."""
    return list(self.values())


def items(self: dict) -> list:
    """(key, value) tuples in insertion order."""
    return list(self.items())


def len_dict(self: dict) -> int:
    """Number of entries."""
    return len(self)


def contains(dict: dict, key: Any) -> bool:  # noqa: A002 - the schema's argument name
    """`key in dict`."""
    return _lookup(dict, key)[0]


def pop(self: dict, key: Any) -> Any:
    """Remove and return self[key]; a missing key raises KeyError."""
    found, v = _lookup(self, key)
    if not found:
        raise _key_error(key)
    del self[key]
    return v


def pop_default(self: dict, key: Any, default_value: Any) -> Any:
    """Remove and return self[key], or return `default_value`."""
    found, v = _lookup(self, key)
    if not found:
        return default_value
    del self[key]
    return v


def popitem(self: dict) -> tuple:
    """Remove and return the *first* (oldest) item."""
    if not self:
        raise ts_error("popitem(): dictionary is empty")
    k = next(iter(self))
    if _is_nan(k):
        # PyTorch erases the item by key, and a NaN key is never found.
        raise ts_error("Expected to erase 1 item, found 0")
    return k, self.pop(k)


def update(self: dict, to_add: dict) -> None:
    """Insert or overwrite every item of `to_add`."""
    for k, v in list(to_add.items()):
        _store(self, k, v)


def copy(self: dict) -> dict:
    """A shallow copy."""
    return dict(self)


def dict_from_items(inputs: list) -> dict:
    """dict() of a list of (key, value) tuples; later duplicates overwrite."""
    d: dict = {}
    for k, v in inputs:
        _store(d, k, v)
    return d


def clear(self: dict) -> None:
    """Remove every entry."""
    self.clear()


def delete(self: dict, key: Any) -> None:
    """del self[key]; a missing key raises KeyError."""
    if not _lookup(self, key)[0]:
        raise _key_error(key)
    del self[key]


_SCHEMAS: list[tuple[Callable, str]] = [
    (getitem, "aten::__getitem__.Dict_{K}(Dict({K}, t) self, {K} key) -> t(*)"),
    (set_item, "aten::_set_item.{K}(Dict({K}, t)(a!) l, {K}(b -> *) idx, t(c -> *) v) -> ()"),
    (get, "aten::get.{K}(Dict({K}, t) self, {K} key) -> t(*)?"),
    (get_default, "aten::get.default_{K}(Dict({K}, t) self, {K} key, t default_value) -> t(*)"),
    (setdefault, "aten::setdefault.{K}(Dict({K}, t)(a!) self, {K}(b -> *) key, "
                 "t(c -> *) default_value) -> t(*)"),
    (keys, "aten::keys.{K}(Dict({K}, t) self) -> {K}[](*)"),
    (values, "aten::values.{K}(Dict({K}, t) self) -> t[](*)"),
    (items, "aten::items.{K}(Dict({K}, t) self) -> (({K}, t)[])"),
    (len_dict, "aten::len.Dict_{K}(Dict({K}, t) self) -> int"),
    (contains, "aten::__contains__.{K}(Dict({K}, t) dict, {K} key) -> bool"),
    (pop, "aten::pop.Dict_{K}(Dict({K}, t)(a!) self, {K} key) -> t(*)"),
    (pop_default, "aten::pop.Dict_default_{K}(Dict({K}, t)(a!) self, {K} key, "
                  "t default_value) -> t(*)"),
    (popitem, "aten::popitem.{K}(Dict({K}, t)(a!) self) -> (({K}, t))"),
    (update, "aten::update.{K}(Dict({K}, t)(a!) self, Dict({K}, t)(a!) to_add) -> ()"),
    (copy, "aten::copy.Dict_{K}(Dict({K}, t)(a) self) -> Dict({K}, t)"),
    (copy, "aten::dict.Dict_{K}(Dict({K}, t)(a) self) -> Dict({K}, t)"),
    # PyTorch spells the value type variable `tVal`; tsjit's schema parser only reads
    # lower-case (or <= 2 letter) identifiers as type variables, so it is `t` here.
    (dict_from_items, "aten::dict.{K}(({K}, t)[] inputs) -> Dict({K}, t)"),
    (clear, "aten::clear.{K}(Dict({K}, t)(a!) self) -> ()"),
    (delete, "aten::Delete.Dict_{K}(Dict({K}, t)(a!) self, {K} key) -> ()"),
]

@op("aten::dict() -> Dict(str, Tensor)")
def empty_dict() -> dict:
    """torch.dict(): a new empty Dict[str, Tensor]."""
    return {}


for _kernel, _schema in _SCHEMAS:
    op(*(_schema.format(K=k) for k in _KEY_TYPES))(_kernel)
