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


@pytest.mark.parametrize("call", ["tsjit._check(x > 0)", "tsjit._check(x > 0, 'neg')",
                                  "tsjit._check(cond=x > 0, message='neg')",
                                  "tsjit._check(message='neg', cond=x > 0)"])
def test_check_raises_runtime_error_when_false(call):
    src = f"def f(x: int) -> int:\n    {call}\n    return x\n"
    cu = tsjit.jit.CompilationUnit(src, {"tsjit": tsjit})
    env = {"tsjit": tsjit}
    exec(src, env)
    assert cu.f(1) == env["f"](1) == 1
    with pytest.raises(RuntimeError) as scripted:
        cu.f(-1)
    with pytest.raises(RuntimeError) as eager:
        env["f"](-1)
    assert str(eager.value).splitlines()[-1] in str(scripted.value)


@pytest.mark.parametrize("call, message", [
    ("tsjit._check(True, 'msg', 'extra')", "expects 1 or 2 arguments"),
    ("tsjit._check()", "expects 1 or 2 arguments"),
    ("tsjit._check(True, bad='msg')", "unexpected keyword argument"),
    ("tsjit._check(True, cond=False)", "multiple values for argument 'cond'"),
    ("tsjit._check(message='m')", "missing required argument 'cond'")])
def test_check_refuses_bad_arguments(call, message):
    with pytest.raises(RuntimeError, match=message):
        tsjit.jit.CompilationUnit(f"def f(x: int) -> int:\n    {call}\n    return x\n",
                                  {"tsjit": tsjit})


def test_scripted_functions_are_callable_from_scripted_code_and_saved():
    import io

    @tsjit.jit.script
    def bump(xs: List[int]) -> None:
        xs.append(4)

    class M(tsjit.nn.Module):
        def forward(self, xs: List[int]) -> List[int]:
            bump(xs)
            return xs

    m = tsjit.jit.script(M())
    assert m([1]) == [1, 4]
    buf = io.BytesIO()
    tsjit.jit.save(m, buf)
    assert tsjit.jit.load(buf.getvalue())([2]) == [2, 4]


def test_compilation_unit_resolves_names_in_the_callers_frame_and_takes_indented_source():
    def offset(x: int) -> int:
        return x + 5
    cu = tsjit.jit.CompilationUnit("""
        def f(x: int) -> int:
            return offset(x)
    """)
    assert cu.f(1) == 6


@pytest.mark.parametrize("value", [5, 1.5, True, "s", (1, 2)])
def test_variables_holding_python_values_are_refused_as_pytorch_refuses_them(value):
    with pytest.raises(RuntimeError, match=f"python value of type '{type(value).__name__}' "
                       "cannot be used as a value"):
        tsjit.jit.CompilationUnit("def f(x: int):\n    return k\n", {"k": value})
    assert tsjit.jit.CompilationUnit("def f(x: int) -> float:\n    return math.pi\n",
                                     {"math": __import__("math")}).f(1) == 3.141592653589793
