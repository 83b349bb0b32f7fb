"""Element-wise list operators: count, index, remove, `in`, ==, min / max, sum, any / all.

PyTorch registers one overload per element type (int, float, bool, str, Tensor). Elements
compare with `==` only (no identity shortcut, so NaN is never found and `[nan] == [nan]` is
False); Tensor elements compare with `bool(a == b)`, which fails for multi-element tensors.
"Not in list" messages print the element as C++ streams it (`5.` prints as `5`).
"""
from __future__ import annotations

from typing import Any, Callable

from ..formatting import float_signbit, to_str
from ..registry import op
from .scalar_common import ts_error, wrap_int64


def _tensor_eq(a: Any, b: Any) -> bool:
    from ..registry import find  # Tensor kernels live in another module; resolve lazily.
    return bool(find("aten::is_nonzero").kernel(find("aten::eq.Tensor").kernel(a, b)))


def _show_float(x: float) -> str:
    # std::ostream's default float format: %g with 6 significant digits.
    return "-nan" if x != x and float_signbit(x) else "%g" % x


_TYPES: dict[str, tuple[str, Callable[[Any, Any], bool], Callable[[Any], str]]] = {
    # overload suffix -> (schema element type, equality, how "not in list" prints it)
    "int": ("int", lambda a, b: a == b, str),
    "float": ("float", lambda a, b: a == b, _show_float),
    "bool": ("bool", lambda a, b: a == b, lambda v: "1" if v else "0"),
    "str": ("str", lambda a, b: a == b, str),
    "Tensor": ("Tensor", _tensor_eq, to_str),
}


def _find(items: list, el: Any, eq: Callable[[Any, Any], bool]) -> int:
    for i, x in enumerate(items):
        if eq(x, el):
            return i
    return -1


def _register(suffix: str) -> None:
    t, eq, show = _TYPES[suffix]

    def count(self: list, el: Any) -> int:
        return sum(1 for x in self if eq(x, el))

    def index(self: list, el: Any) -> int:
        i = _find(self, el, eq)
        if i < 0:
            raise ts_error(f"'{show(el)}' is not in list")
        return i

    def remove(self: list, el: Any) -> None:
        i = _find(self, el, eq)
        if i < 0:
            raise ts_error("list.remove(x): x not in list")
        del self[i]

    def list_eq(a: list, b: list) -> bool:
        return len(a) == len(b) and all(eq(x, y) for x, y in zip(a, b))

    def list_ne(a: list, b: list) -> bool:
        return not list_eq(a, b)

    for fn, doc in ((count, "Number of elements equal to `el`."),
                    (index, "Index of the first element equal to `el`."),
                    (remove, "Remove the first element equal to `el`."),
                    (list_eq, "Same length and equal elements."),
                    (list_ne, "Not list_eq.")):
        fn.__name__ = f"{fn.__name__}_{suffix}"
        fn.__doc__ = doc
    op(f"aten::count.{suffix}({t}[] self, {t} el) -> int")(count)
    op(f"aten::index.list_{suffix}({t}[] self, {t} el) -> int")(index)
    op(f"aten::remove.{suffix}({t}[](a!) self, {t} el) -> ()")(remove)
    if suffix != "Tensor":
        op(f"aten::eq.{suffix}_list({t}[] a, {t}[] b) -> bool")(list_eq)
        op(f"aten::ne.{suffix}_list({t}[] a, {t}[] b) -> bool")(list_ne)
    else:
        op("aten::eq.Tensor_list(Tensor[] a, Tensor[] b) -> bool")(list_eq)
        op("aten::ne.Tensor_list(Tensor[] a, Tensor[] b) -> bool")(list_ne)
    if suffix in ("int", "float", "str"):
        def contains(l: list, item: Any) -> bool:  # noqa: E741 - schema name
            return _find(l, item, eq) >= 0
        contains.__name__, contains.__doc__ = f"contains_{suffix}", "`item in l` (by ==)."
        op(f"aten::__contains__.{suffix}_list({t}[] l, {t} item) -> bool")(contains)


for _suffix in _TYPES:
    _register(_suffix)


# ---- min / max ------------------------------------------------------------------------------

def _extreme(self: list, less: bool, name: str) -> Any:
    if not self:
        raise ts_error(f"{name}() arg is an empty sequence")
    m = self[0]
    for x in self[1:]:
        # Replace only on a strict comparison, so NaN never displaces a value and a leading
        # NaN is never displaced.
        if (x < m) if less else (x > m):
            m = x
    return m


def _pick_list(a: list, b: list, less: bool) -> list:
    # Lexicographic: the first position whose elements differ (by ==) decides.
    for x, y in zip(a, b):
        if x == y:
            continue
        return a if ((x < y) if less else (x > y)) else b
    if less:
        return a if len(a) < len(b) else b
    return a if len(a) > len(b) else b


for _t in ("int", "float", "bool"):
    def _reg_minmax(t: str) -> None:
        def min_self(self: list) -> Any:
            return _extreme(self, True, "min")

        def max_self(self: list) -> Any:
            return _extreme(self, False, "max")

        def min_lists(l: list, r: list) -> list:  # noqa: E741 - schema name
            return _pick_list(l, r, True)

        def max_lists(l: list, r: list) -> list:  # noqa: E741 - schema name
            return _pick_list(l, r, False)

        for fn, doc in ((min_self, "Smallest element (empty raises)."),
                        (max_self, "Largest element (empty raises)."),
                        (min_lists, "The lexicographically smaller list."),
                        (max_lists, "The lexicographically larger list.")):
            fn.__name__, fn.__doc__ = f"{fn.__name__}_{t}", doc
        op(f"prim::min.self_{t}({t}[] self) -> {t}")(min_self)
        op(f"prim::max.self_{t}({t}[] self) -> {t}")(max_self)
        op(f"prim::min.{t}_list({t}[] l, {t}[] r) -> {t}[]")(min_lists)
        op(f"prim::max.{t}_list({t}[] l, {t}[] r) -> {t}[]")(max_lists)
    _reg_minmax(_t)


# ---- sum / any / all ------------------------------------------------------------------------

@op("aten::sum.int(int[] self) -> int")
def sum_int(self: list) -> int:
    """Sum modulo 2**64 (signed)."""
    return wrap_int64(sum(self))


@op("aten::sum.float(float[] self) -> float")
def sum_float(self: list) -> float:
    """Left-to-right double sum starting at 0.0."""
    s = 0.0
    for x in self:
        s += x
    return s


@op("aten::sum.complex(complex[] self) -> complex")
def sum_complex(self: list) -> complex:
    """Left-to-right complex sum."""
    s = 0j
    for x in self:
        s += x
    return s


@op("aten::sum.bool(bool[] self) -> int")
def sum_bool(self: list) -> int:
    """Number of True elements."""
    return sum(1 for x in self if x)


@op("aten::any.bool(bool[] self) -> bool", "aten::any.int(int[] self) -> bool",
    "aten::any.float(float[] self) -> bool", "aten::any.str(str[] self) -> bool")
def any_(self: list) -> bool:
    """Some element is truthy (non-zero, NaN, or a non-empty string)."""
    return any(bool(x) for x in self)


@op("aten::all.bool(bool[] self) -> bool", "aten::all.int(int[] self) -> bool",
    "aten::all.float(float[] self) -> bool")
def all_(self: list) -> bool:
    """Every element is truthy."""
    return all(bool(x) for x in self)
