"""list.sort() and sorted(): C++ `std::sort` with `<` (or `!(a <= b)` for reverse=True).

`std::sort` is not stable and NaN breaks its ordering assumptions, so the order of equal
floats (-0.0 vs 0.0) and where NaNs end up depend on the algorithm. To reproduce
PyTorch's results exactly this module implements the introsort of the GNU C++ library
(insertion sort for up to 16 elements, median-of-three quicksort with a heapsort
fallback above that, then a final insertion pass). PyTorch sorts in reverse with the
comparator `!(a <= b)`, which puts NaN first; with NaNs among more than 16 elements C++
can read outside the list (undefined behaviour), where this version stays in bounds.
"""
from __future__ import annotations

from typing import Any, Callable

from ..registry import op
from .scalar_common import ts_error
from .str_common import to_bytes

Less = Callable[[Any, Any], bool]
_THRESHOLD = 16


def std_sort(a: list, less: Less) -> None:
    """Sort `a` in place exactly as libstdc++'s std::sort(begin, end, less) would."""
    n = len(a)
    if n > 1:
        _introsort_loop(a, 0, n, 2 * (n.bit_length() - 1), less)
        _final_insertion_sort(a, 0, n, less)


def _introsort_loop(a: list, first: int, last: int, depth: int, less: Less) -> None:
    while last - first > _THRESHOLD:
        if depth == 0:
            _heap_sort(a, first, last, less)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, less)
        _introsort_loop(a, cut, last, depth, less)
        last = cut


def _partition_pivot(a: list, first: int, last: int, less: Less) -> int:
    mid = first + (last - first) // 2
    _median_to_first(a, first, first + 1, mid, last - 1, less)
    return _unguarded_partition(a, first + 1, last, first, less)


def _median_to_first(a: list, result: int, x: int, y: int, z: int, less: Less) -> None:
    if less(a[x], a[y]):
        if less(a[y], a[z]):
            m = y
        elif less(a[x], a[z]):
            m = z
        else:
            m = x
    elif less(a[x], a[z]):
        m = x
    elif less(a[y], a[z]):
        m = z
    else:
        m = y
    a[result], a[m] = a[m], a[result]


def _unguarded_partition(a: list, first: int, last: int, pivot: int, less: Less) -> int:
    # "Unguarded" scans rely on the median-of-three sentinels; with an inconsistent `less`
    # (NaN) C++ could run off the range, so the scans are bounded here.
    lo, hi = first, last
    while True:
        while lo < hi and less(a[lo], a[pivot]):
            lo += 1
        hi -= 1
        while hi > first - 1 and less(a[pivot], a[hi]):
            hi -= 1
        if not lo < hi:
            return lo
        a[lo], a[hi] = a[hi], a[lo]
        lo += 1


def _final_insertion_sort(a: list, first: int, last: int, less: Less) -> None:
    if last - first > _THRESHOLD:
        _insertion_sort(a, first, first + _THRESHOLD, less)
        for i in range(first + _THRESHOLD, last):
            _linear_insert(a, first, i, less)
    else:
        _insertion_sort(a, first, last, less)


def _insertion_sort(a: list, first: int, last: int, less: Less) -> None:
    for i in range(first + 1, last):
        if less(a[i], a[first]):
            val = a[i]
            a[first + 1:i + 1] = a[first:i]
            a[first] = val
        else:
            _linear_insert(a, first, i, less)


def _linear_insert(a: list, first: int, last: int, less: Less) -> None:
    val = a[last]
    nxt = last - 1
    while nxt >= first and less(val, a[nxt]):
        a[last] = a[nxt]
        last = nxt
        nxt -= 1
    a[last] = val


def _heap_sort(a: list, first: int, last: int, less: Less) -> None:
    # std::partial_sort(first, last, last): make_heap, then repeatedly pop_heap.
    n = last - first
    for parent in range((n - 2) // 2, -1, -1):
        _adjust_heap(a, first, parent, n, a[first + parent], less)
    while n > 1:
        n -= 1
        val = a[first + n]
        a[first + n] = a[first]
        _adjust_heap(a, first, 0, n, val, less)


def _adjust_heap(a: list, base: int, hole: int, n: int, val: Any, less: Less) -> None:
    top = hole
    child = hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if less(a[base + child], a[base + child - 1]):
            child -= 1
        a[base + hole] = a[base + child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        a[base + hole] = a[base + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and less(a[base + parent], val):
        a[base + hole] = a[base + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[base + hole] = val


# ---- comparators ------------------------------------------------------------------------

def _lt(a: Any, b: Any) -> bool:
    return a < b


def _str_lt(a: str, b: str) -> bool:
    if a.isascii() and b.isascii():
        return a < b
    return to_bytes(a) < to_bytes(b)


def _tensor_op(name: str) -> Less:
    def cmp(a: Any, b: Any) -> bool:
        from ..registry import find  # Tensor kernels are registered by another module.
        return bool(find("aten::is_nonzero").kernel(find(f"aten::{name}.Tensor").kernel(a, b)))
    return cmp


_TENSOR_LT = _tensor_op("lt")


def _any_lt(a: Any, b: Any) -> bool:
    """`<` on IValues: numbers, strings, Tensors and tuples of them (lexicographic)."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        # The first position whose elements differ (by ==) decides, so NaN decides too.
        for x, y in zip(a, b):
            if _any_eq(x, y):
                continue
            return _any_lt(x, y)
        return len(a) < len(b)
    if isinstance(a, str) and isinstance(b, str):
        return _str_lt(a, b)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a < b
    if type(a).__name__ == "Tensor" and type(b).__name__ == "Tensor":
        return _TENSOR_LT(a, b)
    raise ts_error("Only values of same type can be compared. Found "
                   f"{_kind(a)} and {_kind(b)}")


def _any_eq(a: Any, b: Any) -> bool:
    if type(a).__name__ == "Tensor" and type(b).__name__ == "Tensor":
        from ..registry import find
        return bool(find("aten::is_nonzero").kernel(find("aten::eq.Tensor").kernel(a, b)))
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_any_eq(x, y) for x, y in zip(a, b))
    return bool(a == b)


def _kind(v: Any) -> str:
    if v is None:
        return "NoneType"
    return {bool: "bool", int: "int", float: "float", str: "str", tuple: "Tuple",
            list: "List"}.get(type(v), type(v).__name__)


def _check_sortable(a: list) -> None:
    if a and isinstance(a[0], (list, dict)):
        kind = "List" if isinstance(a[0], list) else "Dict"
        raise ts_error("Only list of Tensors, ints, floats, bools, strs, a User Defined Class "
                       "that defines the __lt__ compare method or Tuples of aforementioned "
                       f"types can be sorted, got list of {kind}")


def _register(suffix: str, t: str, lt: Less, gt: Less) -> None:
    def sort(self: list, reverse: bool = False) -> None:
        if suffix == "any":
            _check_sortable(self)
        std_sort(self, gt if reverse else lt)

    def sorted_(input: list) -> list:  # noqa: A002 - the schema's argument name
        out = list(input)
        sort(out)
        return out

    sort.__name__, sort.__doc__ = f"sort_{suffix}", "In-place std::sort (reverse: !(a <= b))."
    sorted_.__name__, sorted_.__doc__ = f"sorted_{suffix}", "A sorted copy."
    op(f"aten::sort.{suffix}({t}[](a!) self, bool reverse=False) -> ()")(sort)
    arg = "self" if suffix == "any" else "input"
    op(f"aten::sorted.{suffix}({t}[](a) {arg}) -> {t}[]")(sorted_)


def _not_le(a: Any, b: Any) -> bool:
    return not a <= b


for _suffix, _t, _lt_fn, _rev in (
        ("int", "int", _lt, _not_le), ("float", "float", _lt, _not_le),
        ("bool", "bool", _lt, _not_le), ("str", "str", _str_lt, lambda a, b: _str_lt(b, a)),
        ("Tensor", "Tensor", _TENSOR_LT, _tensor_op("gt")),
        ("any", "t", _any_lt, lambda a, b: _any_lt(b, a))):
    _register(_suffix, _t, _lt_fn, _rev)
