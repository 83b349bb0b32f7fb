"""Compile errors point at the source: file:line:col, the line, and a caret."""
import re

import pytest

import tsjit


def _compile_error(src: str) -> str:
    with pytest.raises(tsjit.CompileError) as info:
        tsjit.jit.CompilationUnit(src, filename="prog.py")
    return str(info.value)


def _assert_located(msg: str, line: int, snippet: str) -> None:
    m = re.search(r"prog\.py:(\d+):(\d+)\n(.*)\n( *)([\^~]+)", msg)
    assert m, msg
    assert int(m.group(1)) == line, msg
    text, col, carets = m.group(3), int(m.group(2)), m.group(5)
    assert len(m.group(4)) == col - 1
    assert text[col - 1:col - 1 + len(carets)] == snippet[:len(carets)], msg


def test_syntax_error():
    msg = _compile_error("def f(x: int) -> int:\n    return x +\n")
    assert "prog.py:2:" in msg and "return x +" in msg


def test_undefined_name():
    msg = _compile_error("def f(x: int) -> int:\n    y = x + zz\n    return y\n")
    assert "undefined value zz" in msg
    _assert_located(msg, 2, "zz")


def test_type_mismatch_in_call():
    msg = _compile_error("def f(x: int, s: str) -> int:\n    return x + s\n")
    assert "Arguments for call are not valid" in msg and "aten::add(int, str)" in msg
    _assert_located(msg, 2, "x + s")


def test_return_type_mismatch():
    msg = _compile_error("def f(x: int) -> str:\n    return x\n")
    assert "annotated as having type str but is actually of type int" in msg


def test_branch_type_mismatch_reported_on_use():
    msg = _compile_error("def f(c: bool) -> int:\n    if c:\n        y = 1\n    else:\n"
                         "        y = 'a'\n    return y\n")
    assert "Type mismatch: y is set to type int in the true branch and type str" in msg
    _assert_located(msg, 6, "y")


def test_variable_defined_in_one_branch():
    msg = _compile_error("def f(c: bool) -> int:\n    if c:\n        y = 1\n    return y\n")
    assert "'y' is not defined in the false branch" in msg


def test_loop_carried_type_change():
    msg = _compile_error("def f(n: int) -> int:\n    x = 1\n    for i in range(n):\n"
                         "        x = 2.5\n    return 0\n")
    assert "previously had type int but is now being assigned to a value of type float" in msg


def test_called_function_chain(tmp_path):
    msg = _compile_error("def g(x: int) -> int:\n    return x + 'a'\n\ndef f(x: int) -> int:\n"
                         "    return g(x)\n")
    assert "aten::add(int, str)" in msg


def test_runtime_error_has_traceback():
    cu = tsjit.jit.CompilationUnit("def f(a: int, b: int) -> int:\n    return a // b\n",
                                   filename="prog.py")
    with pytest.raises(tsjit.ScriptError) as info:
        cu.f(1, 0)
    msg = str(info.value)
    assert "Traceback of TorchScript" in msg and 'File "prog.py", line 2' in msg
    assert "division by 0" in msg   # TorchScript's message for int // 0


def test_raise_and_assert_messages():
    cu = tsjit.jit.CompilationUnit(
        "def f(a: int) -> int:\n    assert a > 0, 'a must be positive'\n"
        "    if a > 10:\n        raise ValueError('too big')\n    return a\n")
    assert cu.f(3) == 3
    with pytest.raises(tsjit.ScriptError, match="a must be positive"):
        cu.f(0)
    with pytest.raises(tsjit.ScriptError, match="ValueError: too big"):
        cu.f(11)


def test_wrong_argument_count_and_type():
    cu = tsjit.jit.CompilationUnit("def f(a: int) -> int:\n    return a\n")
    with pytest.raises(TypeError, match="expected at most 1 argument"):
        cu.f(1, 2)
    with pytest.raises(TypeError, match="expected a value of type 'int'"):
        cu.f("x")
