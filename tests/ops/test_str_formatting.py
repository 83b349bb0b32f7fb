"""TorchScript's value printing (`tsjit.ops.formatting`): exact cases and a torch oracle."""
from __future__ import annotations

import math

from hypothesis import given, settings, strategies as st

from tests.helpers import scalar_oracle as T

from tsjit.ops.formatting import format_complex, format_float, to_str, wrap_int64  # noqa: E402


def test_format_float_exact() -> None:
    cases = {1.0: "1.", -0.0: "0.", 0.1: "0.10000000000000001", 1e20: "1e+20",
             1e17: "100000000000000000.", 1e-7: "9.9999999999999995e-08", math.inf: "inf",
             -math.inf: "-inf", math.nan: "nan", -math.nan: "-nan", 2.5: "2.5",
             2.0 ** 63: "9.2233720368547758e+18", -(2.0 ** 63): "-9223372036854775808.",
             1.5e300: "1.5000000000000001e+300", 5e-324: "4.9406564584124654e-324"}
    for x, s in cases.items():
        assert format_float(x) == s, x


def test_format_complex_exact() -> None:
    assert format_complex(1 + 2j) == "1.+2.j"
    assert format_complex(complex(1, -2)) == "1.-2.j"
    assert format_complex(complex(0.0, -0.0)) == "0.+0.j"
    assert format_complex(complex(1.5, math.nan)) == "1.5-nanj"


def test_to_str_containers() -> None:
    assert to_str([1.0, 2.5]) == "[1., 2.5]"
    assert to_str(["a", "b"]) == "[a, b]"
    assert to_str({"a": 1, "b": [None, True]}) == "{a: 1, b: [None, True]}"
    assert to_str((1,)) == "(1,)" and to_str(()) == "()"
    assert to_str(((1, "x"), [2.0])) == "((1, x), [2.])"
    assert to_str("x'y") == "x'y" and to_str(None) == "None" and to_str(False) == "False"


def test_wrap_int64() -> None:
    assert wrap_int64(2 ** 63) == -(2 ** 63)
    assert wrap_int64(-(2 ** 63) - 1) == 2 ** 63 - 1
    assert wrap_int64(2 ** 64 + 5) == 5 and wrap_int64(-5) == -5


@T.requires_torch
@settings(max_examples=150, deadline=None)
@given(x=T.floats())
def test_format_float_matches_torchscript(x: float) -> None:
    assert format_float(x) == T.ts_function("def f(a: float): str(a)")(x)


_TYPES = st.recursive(
    st.sampled_from(["int", "float", "bool", "str"]),
    lambda inner: st.one_of(st.builds(lambda t: ("List", t), inner),
                            st.builds(lambda a, b: ("Tuple", a, b), inner, inner),
                            st.builds(lambda t: ("Dict", t), inner)),
    max_leaves=5)
_LEAF = {"int": T.ints, "float": T.floats, "bool": st.booleans, "str": lambda: T.texts(3)}


def _annotation(t: object) -> str:
    if isinstance(t, str):
        return t
    kind, *args = t  # type: ignore[misc]
    if kind == "Dict":
        return f"Dict[str, {_annotation(args[0])}]"
    return f"{kind}[" + ", ".join(_annotation(a) for a in args) + "]"


def _values(t: object) -> st.SearchStrategy:
    if isinstance(t, str):
        return _LEAF[t]()
    kind, *args = t  # type: ignore[misc]
    if kind == "List":
        return st.lists(_values(args[0]), max_size=3)
    if kind == "Dict":
        return st.dictionaries(T.texts(2), _values(args[0]), max_size=2)
    return st.tuples(*(_values(a) for a in args))


@T.requires_torch
@settings(max_examples=60, deadline=None)
@given(data=st.data(), t=_TYPES)
def test_to_str_matches_torchscript(data: st.DataObject, t: object) -> None:
    v = data.draw(_values(t))
    try:
        want = T.ts_outcome(f"def f(a: {_annotation(t)}): str(a)", v)
    except T.Skip:
        return
    assert want[0] == "ok", want
    assert to_str(v) == want[1]
