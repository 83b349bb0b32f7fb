"""tsjit.jit's language functions (annotate, isinstance, is_scripting, is_tracing,
_unwrap_optional) in Python and in scripted code, and errors as RuntimeErrors."""
from typing import Any, Dict, List, Optional, Tuple

import pytest

import tsjit


def test_annotate_types_empty_containers_in_scripted_code():
    def f(x: int) -> Tuple[List[int], Dict[str, float]]:
        xs = tsjit.jit.annotate(List[int], [])
        xs.append(x)
        d = tsjit.jit.annotate(Dict[str, float], {})
        d["a"] = 1.0
        return xs, d
    assert tsjit.jit.script(f)(3) == f(3) == ([3], {"a": 1.0})


def test_is_scripting_is_false_in_python_and_true_in_scripted_code():
    def f() -> int:
        return 1 if tsjit.jit.is_scripting() else 0
    assert f() == 0 and tsjit.jit.script(f)() == 1


def test_is_tracing_is_false_everywhere():
    def f() -> bool:
        return tsjit.jit.is_tracing()
    assert f() is False and tsjit.jit.script(f)() is False


@pytest.mark.parametrize("value, ann, expected", [
    ([1, 2], List[int], True), ([1, "a"], List[int], False), ({"a": [1.0]}, Dict[str, List[float]], True),
    ((1, "a"), Tuple[int, str], True), (None, Optional[int], True), (1.0, int, False),
    (True, int, False), ([], List[str], True)])
def test_isinstance_in_python_checks_elements(value, ann, expected):
    assert tsjit.jit.isinstance(value, ann) is expected


def test_isinstance_refines_in_scripted_code():
    def f(x: Any) -> int:
        if tsjit.jit.isinstance(x, List[int]):
            return len(x)
        return -1
    g = tsjit.jit.script(f)
    assert g([1, 2]) == 2 and g("s") == -1


def test_unwrap_optional():
    def f(x: Optional[int]) -> int:
        return tsjit.jit._unwrap_optional(x) + 1
    assert tsjit.jit.script(f)(1) == 2
    with pytest.raises(Exception):
        tsjit.jit.script(f)(None)
