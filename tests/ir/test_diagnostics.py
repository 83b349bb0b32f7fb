"""tsjit's errors are RuntimeErrors, as PyTorch's compile and load errors are."""
import pytest

import tsjit
from tsjit.ir.diagnostics import CompileError, ParseError, TsjitError


@pytest.mark.parametrize("cls", [TsjitError, CompileError, ParseError, tsjit.ScriptError])
def test_every_error_class_is_a_runtime_error(cls):
    assert issubclass(cls, RuntimeError)


def test_a_compile_error_is_caught_as_runtime_error():
    def f(x: int) -> int:
        return x + undefined_name   # noqa: F821

    with pytest.raises(RuntimeError, match="undefined value undefined_name"):
        tsjit.script(f)


def test_a_parse_error_is_caught_as_runtime_error():
    with pytest.raises(RuntimeError):
        tsjit.jit.CompilationUnit("def f(x):\n    return x +\n")
