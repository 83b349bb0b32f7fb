"""Generic list operators (`t[]`): indexing, mutation, concatenation, repetition, slicing.

Lists are Python lists shared by reference, so mutating kernels change the caller's list in
place. Errors carry PyTorch's messages: "list index out of range", "pop from empty list",
and "vector::reserve" for a negative repeat count.
"""
from __future__ import annotations

from typing import Any, Optional

from ..registry import op
from .scalar_common import ts_error
from ...ir.limits import check_allocation

_RANGE = "list index out of range"


def norm_index(n: int, idx: int) -> int:
    """A list index with Python's negative wrap-around, checked against the length."""
    i = idx + n if idx < 0 else idx
    if not 0 <= i < n:
        raise ts_error(_RANGE)
    return i


@op("aten::len.t(t[] a) -> int", "aten::len.any(Any[] a) -> int")
def len_t(a: list) -> int:
    """Number of elements."""
    return len(a)


@op("aten::__getitem__.t(t[](a) list, int idx) -> t(*)",
    "aten::select.t(t[](a) list, int idx) -> t(*)")
def getitem_t(list: list, idx: int) -> Any:  # noqa: A002 - the schema's argument name
    """list[idx] (negative indices count from the end)."""
    return list[norm_index(len(list), idx)]


@op("aten::_set_item.t(t[](a!) l, int idx, t(b -> *) el) -> t[](a!)")
def set_item_t(l: list, idx: int, el: Any) -> list:  # noqa: E741 - schema name
    """l[idx] = el; returns the list."""
    l[norm_index(len(l), idx)] = el
    return l


@op("aten::append.t(t[](a!) self, t(c -> *) el) -> t[](a!)")
def append_t(self: list, el: Any) -> list:
    """Append in place; returns the list."""
    self.append(el)
    return self


@op("aten::extend.t(t[](a!) self, t[] other) -> ()")
def extend_t(self: list, other: list) -> None:
    """Append every element of `other` (a snapshot, so `l.extend(l)` doubles `l`)."""
    self.extend(list(other))


@op("aten::insert.t(t[](a!) self, int idx, t(b -> *) el) -> ()")
def insert_t(self: list, idx: int, el: Any) -> None:
    """Insert before `idx`, clamped to the ends like Python."""
    self.insert(idx, el)


@op("aten::pop.t(t[](a!) self, int idx=-1) -> t(*)")
def pop_t(self: list, idx: int = -1) -> Any:
    """Remove and return the element at `idx`."""
    if not self:
        raise ts_error("pop from empty list")
    return self.pop(norm_index(len(self), idx))


@op("aten::Delete.t(t[](a!) self, int idx) -> ()")
def delete_t(self: list, idx: int) -> None:
    """del self[idx]."""
    if not self:
        raise ts_error("pop index out of range")  # PyTorch's wording for an empty list
    del self[norm_index(len(self), idx)]


@op("aten::clear.t(t[](a!) self) -> ()")
def clear_t(self: list) -> None:
    """Remove every element."""
    self.clear()


@op("aten::reverse.t(t[](a!) self) -> ()")
def reverse_t(self: list) -> None:
    """Reverse in place."""
    self.reverse()


@op("aten::add.t(t[] a, t[] b) -> t[]")
def add_t(a: list, b: list) -> list:
    """A new list: a followed by b."""
    return a + b


@op("aten::add_.t(t[](a!) self, t[] b) -> t[]")
def iadd_t(self: list, b: list) -> list:
    """self += b; returns self."""
    self.extend(list(b))
    return self


def _repeat_count(n: int, length: int) -> int:
    # std::vector::reserve(size * n) with a negative n overflows to a huge size.
    if n < 0:
        raise ts_error("vector::reserve")
    check_allocation(8 * n * length, f"a list of {length} x {n} elements, in bytes")
    return n


@op("aten::mul.left_t(t[] l, int n) -> t[]")
def mul_left_t(l: list, n: int) -> list:  # noqa: E741 - schema name
    """A new list repeating `l` n times."""
    return l * _repeat_count(n, len(l)) if l else []


@op("aten::mul.right_(int n, t[] l) -> t[]")
def mul_right_t(n: int, l: list) -> list:  # noqa: E741 - schema name
    """A new list repeating `l` n times."""
    return l * _repeat_count(n, len(l)) if l else []


@op("aten::mul_.t(t[](a!) l, int n) -> t[](a!)")
def imul_t(l: list, n: int) -> list:  # noqa: E741 - schema name
    """l *= n in place (n <= 0 empties it); returns l."""
    if l and n > 0:
        check_allocation(8 * n * len(l), f"a list of {len(l)} x {n} elements, in bytes")
    l[:] = l * n if l and n > 0 else []
    return l


def check_slice_step(step: int) -> None:
    """PyTorch's checks on a slice step."""
    if step == 0:
        raise ts_error("List slice should have non-zero step")
    if step < -(2 ** 63 - 1):
        raise ts_error("List slice step is out of bounds")


@op("aten::slice.t(t[] l, int? start=None, int? end=None, int step=1) -> t[]")
def slice_t(l: list, start: Optional[int] = None, end: Optional[int] = None,  # noqa: E741
            step: int = 1) -> list:
    """l[start:end:step] as a new list."""
    check_slice_step(step)
    return l[start:end:step]


@op("aten::list.t(t[] l) -> t[]", "aten::copy.t(t[](a) self) -> t[]")
def copy_t(l: list) -> list:  # noqa: E741 - schema name
    """A shallow copy."""
    return list(l)
