"""The instruction set: fused and inline forms agree with the registered kernels."""
import operator

import pytest
from hypothesis import given, strategies as st

import tsjit
from tsjit.interpreter import OPCODES, code_for, disassemble
from tsjit.interpreter.code import C_KERNELS, INLINE_INT_OPS
from tsjit.ops import find

INT64 = st.integers(-(2 ** 63), 2 ** 63 - 1)


ARITH = tsjit.jit.CompilationUnit("def f(a: int, b: int) -> Tuple[int, int, int, int, int]:\n"
                                  "    return a + b, a - b, a * b, a % b, a // b\n")
EDGES = st.sampled_from([0, 1, -1, 2, -2, 2 ** 62, -(2 ** 62), 2 ** 63 - 1, -(2 ** 63)])


@given(st.one_of(INT64, EDGES), st.one_of(INT64, EDGES))
def test_inline_int_ops_match_kernels(a, b):
    names = ("aten::add.int", "aten::sub.int", "aten::mul.int", "aten::remainder.int",
             "aten::floordiv.int")
    try:
        expected = tuple(find(name).kernel(a, b) for name in names)
    except Exception as err:  # noqa: BLE001
        with pytest.raises(tsjit.ScriptError) as info:
            ARITH.f(a, b)
        assert str(err) in str(info.value)
        return
    assert ARITH.f(a, b) == expected


@given(INT64, INT64)
def test_c_kernels_match_registered(a, b):
    for name, fast in C_KERNELS.items():
        if name.endswith(".int"):
            assert fast(a, b) == find(name).kernel(a, b)


def test_fused_forms_are_emitted():
    cu = tsjit.jit.CompilationUnit(
        "def f(n: int) -> int:\n    s = 0\n    i = 0\n    while i < n:\n"
        "        if i % 2 == 0:\n            s += i\n        i += 1\n    return s\n")
    assert cu.f(10) == 20
    listing = disassemble(code_for(cu.f.function).instructions)
    assert "OP2JF" in listing and "BACK" in listing and "IADD" in listing
    assert all(op in OPCODES for op in INLINE_INT_OPS.values())


def test_every_opcode_is_documented():
    from tsjit.interpreter import instructions
    doc = instructions.__doc__
    for info in OPCODES.values():
        assert f"| {info.name} " in doc, info.name


def test_if_outputs_are_computed_in_place():
    cu = tsjit.jit.CompilationUnit(
        "def f(c: bool, x: int) -> int:\n    if c:\n        y = x * 2\n    else:\n"
        "        y = x - 1\n    return y\n")
    assert (cu.f(True, 5), cu.f(False, 5)) == (10, 4)
    assert "MOVE " not in disassemble(code_for(cu.f.function).instructions)


def test_parallel_moves_swap():
    cu = tsjit.jit.CompilationUnit(
        "def f(n: int) -> Tuple[int, int]:\n    a = 1\n    b = 2\n    for i in range(n):\n"
        "        a, b = b, a\n    return a, b\n")
    assert cu.f(3) == (2, 1) and cu.f(4) == (1, 2)
