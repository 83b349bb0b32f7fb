"""A variable declared with a type in one branch of an `if` and assigned in the other (as
archives written by PyTorch hold: `_13 : Union[float, str] = float(tok)` / `else: _13 = tok`)
has the declared type after the `if`, when both values fit it; otherwise the branches differ."""
import pytest

import tsjit
from tsjit import CompileError

SOURCE = """
def h(tok: str, b: bool) -> Union[float, str]:
    if b:
        _13 : Union[float, str] = float(tok)
    else:
        _13 = tok
    return _13
"""


def test_the_declared_type_holds_after_the_if():
    cu = tsjit.jit.CompilationUnit(SOURCE)
    assert cu.h("1.5", True) == 1.5 and cu.h("x", False) == "x"
    assert "Union(float, str) = prim::If" in str(cu.h.graph)


def test_a_value_that_does_not_fit_the_declaration_is_a_mismatch():
    with pytest.raises(CompileError, match="Type mismatch: _13"):
        tsjit.jit.CompilationUnit(SOURCE.replace("_13 = tok", "_13 = 3")).h("1.5", True)


def test_pytorch_accepts_the_same_program():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    cu = torch.jit.CompilationUnit(SOURCE)
    assert cu.h("1.5", True) == 1.5 and cu.h("x", False) == "x"
