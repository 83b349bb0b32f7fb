"""Dict kernels against TorchScript, for str, int, float and complex keys."""
from __future__ import annotations

import math

import pytest

from tests.helpers import scalar_oracle as T

from tsjit.ops import find  # noqa: E402

RET_BOTH = lambda args, r: (r, args[0])  # noqa: E731
RET_SELF = lambda args, r: args[0]  # noqa: E731

# key type suffix -> (dict annotation, dict kind, key annotation, key kind, value ann, value kind)
KEYS = {
    "str": ("Dict[str, int]", "D", "str", "t", "int", "I"),
    "int": ("Dict[int, float]", "E", "int", "I", "float", "f"),
    "float": ("Dict[float, int]", "K", "float", "k", "int", "I"),
    "complex": ("Dict[complex, int]", "C", "complex", "x", "int", "I"),
}


def _cases():  # type: ignore[no-untyped-def]
    cases = []
    for K, (da, dk, ka, kk, va, vk) in KEYS.items():
        d, kv = f"a: {da}, k: {ka}", dk + kk
        cases += [
            (f"aten::__getitem__.Dict_{K}", f"def f({d}): a[k]", kv, None),
            (f"aten::_set_item.{K}", f"def f({d}, v: {va}): a[k] = v; return a", kv + vk,
             RET_SELF),
            (f"aten::get.{K}", f"def f({d}): a.get(k)", kv, None),
            (f"aten::get.default_{K}", f"def f({d}, v: {va}): a.get(k, v)", kv + vk, None),
            (f"aten::setdefault.{K}", f"def f({d}, v: {va}): r = a.setdefault(k, v); return r, a",
             kv + vk, RET_BOTH),
            (f"aten::keys.{K}", f"def f(a: {da}): a.keys()", dk, None),
            (f"aten::values.{K}", f"def f(a: {da}): a.values()", dk, None),
            (f"aten::items.{K}", f"def f(a: {da}): a.items()", dk, None),
            (f"aten::len.Dict_{K}", f"def f(a: {da}): len(a)", dk, None),
            (f"aten::__contains__.{K}", f"def f({d}): k in a", kv, None),
            (f"aten::pop.Dict_{K}", f"def f({d}): r = a.pop(k); return r, a", kv, RET_BOTH),
            (f"aten::pop.Dict_default_{K}", f"def f({d}, v: {va}): r = a.pop(k, v); return r, a",
             kv + vk, RET_BOTH),
            (f"aten::popitem.{K}", f"def f(a: {da}): r = a.popitem(); return r, a", dk, RET_BOTH),
            (f"aten::update.{K}", f"def f(a: {da}, b: {da}): a.update(b); return a", dk + dk,
             RET_SELF),
            (f"aten::copy.Dict_{K}", f"def f(a: {da}): a.copy()", dk, None),
            (f"aten::dict.Dict_{K}", f"def f(a: {da}): dict(a)", dk, None),
            (f"aten::clear.{K}", f"def f(a: {da}): a.clear(); return a", dk, RET_SELF),
            (f"aten::Delete.Dict_{K}", f"def f({d}): del a[k]; return a", kv, RET_SELF),
        ]
    cases.append(("aten::dict.str", "def f(a: List[Tuple[str, int]]): dict(a)", "P", None))
    return cases


CASES = _cases()


@T.requires_torch
@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}:{i}" for i, c in enumerate(CASES)])
def test_matches_torchscript(case):  # type: ignore[no-untyped-def]
    qualified, src, kinds, post = case
    T.sweep(qualified, src, kinds, post=post)


def k(q: str):  # type: ignore[no-untyped-def]
    return find(q).kernel


def test_key_errors_print_keys_like_str() -> None:
    for q, key, msg in (("aten::__getitem__.Dict_str", "zz", "KeyError: zz"),
                        ("aten::__getitem__.Dict_float", 2.0, "KeyError: 2."),
                        ("aten::pop.Dict_int", 7, "KeyError: 7"),
                        ("aten::Delete.Dict_complex", 2j, "KeyError: 0.+2.j")):
        with pytest.raises(RuntimeError) as e:
            k(q)({}, key)
        assert str(e.value) == msg


def test_popitem_takes_the_first_item() -> None:
    d = {"a": 1, "b": 2}
    assert k("aten::popitem.str")(d) == ("a", 1) and d == {"b": 2}
    with pytest.raises(RuntimeError, match="^popitem\\(\\): dictionary is empty$"):
        k("aten::popitem.str")({})


def test_nan_keys_are_never_found() -> None:
    d: dict = {}
    nan = math.nan
    k("aten::_set_item.float")(d, nan, 1)
    k("aten::_set_item.float")(d, nan, 2)
    assert len(d) == 2 and not k("aten::__contains__.float")(d, nan)
    assert k("aten::get.float")(d, nan) is None


def test_tensor_keys_use_identity() -> None:
    from tsjit._tensor import tensor
    a, b = tensor(1), tensor(1)
    d: dict = {}
    k("aten::_set_item.Tensor")(d, a, "x")
    assert k("aten::__contains__.Tensor")(d, a) and not k("aten::__contains__.Tensor")(d, b)
