"""Errors of the Python-facing API. The compile and run-time error messages (location, source
line and caret) are golden cases in tests/golden/errors.test."""
import pytest

import tsjit


def test_syntax_error_in_compilation_unit_source():
    # Not a golden case: golden sources run in CPython first, which would reject it.
    with pytest.raises(tsjit.CompileError) as info:
        tsjit.jit.CompilationUnit("def f(x: int) -> int:\n    return x +\n", filename="prog.py")
    msg = str(info.value)
    assert "prog.py:2:" in msg and "return x +" in msg


def test_wrong_argument_count_and_type():
    cu = tsjit.jit.CompilationUnit("def f(a: int) -> int:\n    return a\n")
    with pytest.raises(TypeError, match="expected at most 1 argument"):
        cu.f(1, 2)
    with pytest.raises(TypeError, match="expected a value of type 'int'"):
        cu.f("x")
