"""List kernels against TorchScript: indexing, mutation, search, min/max, sum, sorting."""
from __future__ import annotations

import math

import pytest

from tests.helpers import scalar_oracle as T

from tsjit.ops import find  # noqa: E402

LI, LF, LB, LS = "List[int]", "List[float]", "List[bool]", "List[str]"
ELEM = {"L": ("int", "I"), "F": ("float", "f"), "B": ("bool", "b"), "S": ("str", "t")}
RET_BOTH = lambda args, r: (r, args[0])  # noqa: E731  (result and the mutated list)
RET_SELF = lambda args, r: args[0]  # noqa: E731


def _generic():  # type: ignore[no-untyped-def]
    """Cases for the `t[]` overloads, run on int and str lists."""
    cases = []
    for lk in ("L", "S"):
        ann = {"L": LI, "S": LS}[lk]
        et, ek = ELEM[lk]
        cases += [
            ("aten::len.t", f"def f(a: {ann}): len(a)", lk, None),
            ("aten::__getitem__.t", f"def f(a: {ann}, i: int): a[i]", lk + "i", None),
            ("aten::_set_item.t", f"def f(a: {ann}, i: int, x: {et}): a[i] = x; return a",
             lk + "I" + ek, RET_SELF),
            ("aten::append.t", f"def f(a: {ann}, x: {et}): a.append(x); return a", lk + ek,
             RET_SELF),
            ("aten::extend.t", f"def f(a: {ann}, b: {ann}): a.extend(b); return a", lk + lk,
             RET_SELF),
            ("aten::insert.t", f"def f(a: {ann}, i: int, x: {et}): a.insert(i, x); return a",
             lk + "i" + ek, RET_SELF),
            ("aten::pop.t", f"def f(a: {ann}, i: int): r = a.pop(i); return r, a", lk + "I",
             RET_BOTH),
            ("aten::pop.t", f"def f(a: {ann}): r = a.pop(); return r, a", lk, RET_BOTH),
            ("aten::Delete.t", f"def f(a: {ann}, i: int): del a[i]; return a", lk + "I",
             RET_SELF),
            ("aten::clear.t", f"def f(a: {ann}): a.clear(); return a", lk, RET_SELF),
            ("aten::reverse.t", f"def f(a: {ann}): a.reverse(); return a", lk, RET_SELF),
            ("aten::add.t", f"def f(a: {ann}, b: {ann}): a + b", lk + lk, None),
            ("aten::add_.t", f"def f(a: {ann}, b: {ann}): a += b; return a", lk + lk,
             RET_SELF),
            ("aten::mul.left_t", f"def f(a: {ann}, n: int): a * n", lk + "I", None),
            ("aten::mul.right_", f"def f(n: int, a: {ann}): n * a", "I" + lk, None),
            ("aten::mul_.t", f"def f(a: {ann}, n: int): a *= n; return a", lk + "I", RET_SELF),
            ("aten::slice.t",
             f"def f(a: {ann}, i: Optional[int], j: Optional[int], k: int): a[i:j:k]",
             lk + "ooI", None),
            ("aten::list.t", f"def f(a: {ann}): list(a)", lk, None),
            ("aten::copy.t", f"def f(a: {ann}): a.copy()", lk, None),
        ]
    return cases


def _typed():  # type: ignore[no-untyped-def]
    """Cases for the per-element-type overloads."""
    cases = []
    for lk, suffix in (("L", "int"), ("F", "float"), ("B", "bool"), ("S", "str")):
        ann = {"L": LI, "F": LF, "B": LB, "S": LS}[lk]
        et, ek = ELEM[lk]
        cases += [
            (f"aten::count.{suffix}", f"def f(a: {ann}, x: {et}): a.count(x)", lk + ek, None),
            (f"aten::index.list_{suffix}", f"def f(a: {ann}, x: {et}): a.index(x)", lk + ek,
             None),
            (f"aten::remove.{suffix}", f"def f(a: {ann}, x: {et}): a.remove(x); return a",
             lk + ek, RET_SELF),
            (f"aten::eq.{suffix}_list", f"def f(a: {ann}, b: {ann}): a == b", lk + lk, None),
            (f"aten::ne.{suffix}_list", f"def f(a: {ann}, b: {ann}): a != b", lk + lk, None),
            (f"aten::sort.{suffix}", f"def f(a: {ann}, r: bool): a.sort(reverse=r); return a",
             lk + "b", RET_SELF),
            (f"aten::sorted.{suffix}", f"def f(a: {ann}): sorted(a)", lk, None),
        ]
        if suffix != "bool":
            cases.append((f"aten::__contains__.{suffix}_list", f"def f(a: {ann}, x: {et}): x in a",
                          lk + ek, None))
        if suffix != "str":
            cases += [
                (f"prim::min.self_{suffix}", f"def f(a: {ann}): min(a)", lk, None),
                (f"prim::max.self_{suffix}", f"def f(a: {ann}): max(a)", lk, None),
                (f"prim::min.{suffix}_list", f"def f(a: {ann}, b: {ann}): min(a, b)", lk + lk,
                 None),
                (f"prim::max.{suffix}_list", f"def f(a: {ann}, b: {ann}): max(a, b)", lk + lk,
                 None),
                (f"aten::sum.{suffix}", f"def f(a: {ann}): sum(a)", lk, None),
                (f"aten::any.{suffix}", f"def f(a: {ann}): any(a)", lk, None),
                (f"aten::all.{suffix}", f"def f(a: {ann}): all(a)", lk, None),
            ]
    cases += [
        ("aten::any.str", f"def f(a: {LS}): any(a)", "S", None),
        # reverse=True on long lists with ties is undefined behaviour in PyTorch.
        ("aten::sort.float", f"def f(a: {LF}): a.sort(); return a", "G", RET_SELF),
        ("aten::sort.int", f"def f(a: {LI}): a.sort(); return a", "J", RET_SELF),
        ("aten::sorted.float", f"def f(a: {LF}): sorted(a)", "G", None),
        ("aten::sorted.any", "def f(a: List[Tuple[float, int]]): sorted(a)", "GJ", None),
    ]
    return cases


CASES = _generic() + _typed()


@T.requires_torch
@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}:{i}" for i, c in enumerate(CASES)])
def test_matches_torchscript(case):  # type: ignore[no-untyped-def]
    qualified, src, kinds, post = case
    # sorted.any: zip the two drawn lists into one list of tuples.
    prepare = (lambda a, b: (list(zip(a, b)),)) if qualified == "aten::sorted.any" else None
    T.sweep(qualified, src, kinds, post=post, prepare=prepare)


# ---- exact expectations ------------------------------------------------------------------

def k(q: str):  # type: ignore[no-untyped-def]
    return find(q).kernel


def test_errors() -> None:
    for call, msg in ((lambda: k("aten::__getitem__.t")([1], 1), "list index out of range"),
                      (lambda: k("aten::pop.t")([], -1), "pop from empty list"),
                      (lambda: k("aten::index.list_float")([1.0], 5.0), "'5' is not in list"),
                      (lambda: k("aten::remove.int")([1], 2), "list.remove(x): x not in list"),
                      (lambda: k("aten::mul.left_t")([1], -1), "vector::reserve"),
                      (lambda: k("prim::min.self_int")([]), "min() arg is an empty sequence"),
                      (lambda: k("aten::slice.t")([1], None, None, 0),
                       "List slice should have non-zero step")):
        with pytest.raises(RuntimeError) as e:
            call()
        assert str(e.value) == msg


def test_nan_is_never_found() -> None:
    nan = math.nan
    assert not k("aten::__contains__.float_list")([nan], nan)
    assert not k("aten::eq.float_list")([nan], [nan])
    assert k("aten::count.float")([nan, 1.0], nan) == 0


def test_sort_matches_std_sort() -> None:
    a = [0.0, -0.0, 1.0, -0.0, 0.0]
    k("aten::sort.float")(a, True)
    assert [math.copysign(1, x) for x in a] == [1, 1, -1, -1, 1]
    n = [0.0, math.nan]
    k("aten::sort.float")(n, True)                       # !(a < b) moves NaN first
    assert math.isnan(n[0])
    b = [2.0, math.nan, 1.0, -0.0, 0.0]
    assert str(k("aten::sorted.float")(b)) == "[-0.0, 1.0, 2.0, nan, 0.0]"
    c = list(range(100, 0, -1)) * 2
    k("aten::sort.int")(c, False)
    assert c == sorted(c)


def test_min_max_with_nan() -> None:
    assert k("prim::max.self_float")([1.0, math.nan, 2.0]) == 2.0
    assert math.isnan(k("prim::min.self_float")([math.nan, 1.0]))
    assert k("prim::max.float_list")([math.nan], [1.0]) == [1.0]
    assert k("aten::sum.int")([2 ** 62, 2 ** 62]) == -(2 ** 63)
