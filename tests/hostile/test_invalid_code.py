"""Archive code PyTorch refuses is refused too, with a clear tsjit error (at load where the
outline sees it, else at the first call), and never runs."""
from typing import Optional

import pytest

import tsjit
from tests.helpers import hostile_code as H
from tsjit.ir.diagnostics import CompileError, ParseError
from tsjit.ir.limits import LimitError
from tsjit.jit import CompilationUnit

PREFIX = H.QUALIFIED.rsplit(".", 1)[0]
NEW_A = f"    a = {PREFIX}.A(1)\n    return x\n"


def _class_a(base: str, attr_type: str) -> str:
    return (f"class A{base}:\n  y : {attr_type}\n  def __init__(self: {PREFIX}.A, y: int) -> NoneType:\n"
            "    pass\n")


def _decorated(decorator: str) -> str:
    head = H.module_code("")
    at = head.index("  def forward")
    return head[:at] + f"  {decorator}\n" + head[at:] + "    return x\n"


# name: (code file, tsjit's error class, words of its message, raised at load (else at call))
CASES = {
    "class_cycle": (H.module_code(NEW_A) + _class_a(f"({PREFIX}.B)", "int") + f"class B(A):\n  z : int\n",
                    CompileError, "Torchscript does not support class inheritance", True),
    "class_base": (H.module_code(NEW_A) + _class_a("(object)", "int"),
                   CompileError, "Torchscript does not support class inheritance", True),
    "self_typed_attribute": (H.module_code(NEW_A) + _class_a("", f"{PREFIX}.A"),
                             CompileError, "a class still being defined", True),
    "self_typed_optional": (H.module_code(NEW_A) + _class_a("", f"Optional[{PREFIX}.A]"),
                            CompileError, "TorchScript classes cannot contain themselves", True),
    "decorator_eval": (_decorated("@eval"), CompileError, "cannot have decorators", True),
    "decorator_jit_unused": (_decorated("@torch.jit.unused"), CompileError, "cannot have decorators", True),
    "class_decorator": ("@eval\n" + H.module_code("    return x\n"), CompileError,
                        "cannot have decorators", True),
    "varargs": (H.module_code("    return self.g(x)\n", f"  def g(self: {H.QUALIFIED}, *args: int) -> int:\n"
                              "    return 1\n", H.QUALIFIED), ParseError, "invalid syntax", False),
    "kwargs": (H.module_code("    return self.g(x)\n", f"  def g(self: {H.QUALIFIED}, **kw: int) -> int:\n"
                             "    return 1\n", H.QUALIFIED), ParseError, "invalid syntax", False),
    "int_literal_beyond_int64": (H.module_code("    return torch.add(x, 1000000000000000000000000000000)\n",
                                               qualified=H.QUALIFIED),
                                 ParseError, "Integral constant out of range", False),
    "int_literal_2_63": (H.module_code("    return torch.add(x, 9223372036854775808)\n", qualified=H.QUALIFIED),
                         ParseError, "Integral constant out of range", False),
}


def _outcome(lib, path) -> Optional[BaseException]:
    try:
        lib.jit.load(path)(3)
    except Exception as e:   # noqa: BLE001 - the outcome is what is compared
        return e
    return None


@pytest.mark.parametrize("case", list(CASES))
def test_refused_with_a_clear_error(tmp_path, case):
    code, cls, words, at_load = CASES[case]
    path = H.archive_with_code(tmp_path / "m.pt", code)
    if at_load:
        with pytest.raises(cls, match=words) as info:
            tsjit.jit.load(path)
    else:
        m = tsjit.jit.load(path)
        with pytest.raises(cls, match=words) as info:
            m(3)
    assert type(info.value) is cls
    assert info.value.range is not None and H.CODE_FILE in info.value.range.location()


@pytest.mark.parametrize("case", list(CASES))
def test_pytorch_refuses_it_too(tmp_path, case):
    torch = pytest.importorskip("torch")
    path = H.archive_with_code(tmp_path / "m.pt", CASES[case][0], lib=torch)
    assert isinstance(_outcome(torch, path), RuntimeError)


def test_the_least_int64_literal_is_accepted(tmp_path):
    code = H.module_code("    return torch.add(x, -9223372036854775808)\n", qualified=H.QUALIFIED)
    assert tsjit.jit.load(H.archive_with_code(tmp_path / "m.pt", code))(3) == -(1 << 63) + 3


def test_int_literal_beyond_int64_in_scripted_source():
    with pytest.raises(ParseError, match=r"Integral constant out of range \(must fit in a signed 64 bit"):
        CompilationUnit("def f() -> int:\n    return 10000000000000000000000000000000\n")


@pytest.mark.parametrize("source", ["[0] * (1 << 40)", "(1 << 40) * [0]"])
def test_a_huge_list_is_a_limit_error(source):
    cu = CompilationUnit(f"def f() -> int:\n    return len({source})\n")
    for mode in ("interpreter", "codegen"):
        tsjit.jit.set_executor(mode)
        try:
            with pytest.raises(LimitError, match=r"a list of 1 x 1099511627776 elements.*Limits\.max_tensor_bytes") as info:
                cu.f()
        finally:
            tsjit.jit.set_executor("auto")
        assert info.value.limit == "max_tensor_bytes"


def test_in_place_list_repetition_is_a_limit_error():
    cu = CompilationUnit("def f() -> int:\n    a = [0, 1]\n    a *= 1 << 40\n    return len(a)\n")
    with pytest.raises(LimitError, match="a list of 2 x 1099511627776 elements"):
        cu.f()
