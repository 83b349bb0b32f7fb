"""Property: for generated programs (tests/helpers/program_gen.py), PythonPrint's code
compiles back to code that prints the same (save -> load -> save is byte-identical) and runs
to the same results."""
import importlib.util
import sys

from hypothesis import HealthCheck, example, given, settings
import pytest

import tsjit

from tests.helpers import program_gen as pg

pytestmark = pytest.mark.slow

_counter = iter(range(10 ** 9))


def _load(tmp_path, source: str):
    name = f"gen_prog_{next(_counter)}"
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module   # scripting a class reads its source through its module
    spec.loader.exec_module(module)
    return module


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                 HealthCheck.data_too_large])
@given(pg.programs())
# An annotated copy of a printed temporary (`a: Optional[int] = _0`) named the temporary's
# value after the variable on reload (PyTorch reads a variable into a fresh value).
@example(pg.Program(
    "def f(a0: int, a1: Optional[int]) -> Tuple[int, Optional[int]]:\n"
    "    a1 = min(max(a0, -10), 10) if a1 is None else (None if a1 > 0 else a1 - 1)\n"
    "    return (a0, a1)\n", "f", [("a0", "int"), ("a1", "Optional[int]")], (0, None)))
# `v is None` where v holds a None declared Optional was not folded (PyTorch's constant
# propagation folds it: tsjit's skipped every `__dunder__` operator as if in place).
@example(pg.Program(
    "def f(a0: int) -> Tuple[int, Optional[int]]:\n"
    "    v0: Optional[int] = None\n"
    "    v0 = min(max(a0, -10), 10) if v0 is None else (None if v0 > 0 else v0 - 1)\n"
    "    return (a0, v0)\n", "f", [("a0", "int")], (0,)))
# A for loop left by `return` (printed as a while loop with its counter) printed its first
# test unfolded and its body's last value after the counter's step: compiled back, both
# moved.
@example(pg.Program(
    "def h0(p: int, q: int) -> int:\n"
    "    for i_1 in range(3):\n"
    "        p += 1\n"
    "        return p + q\n"
    "    return p + q\n\n\n"
    "def f(a0: int) -> Tuple[int, int]:\n"
    "    return (h0(a0, a0), a0)\n", "f", [("a0", "int")], (0,)))
# A variable declared Optional holding an int could not be assigned an Optional inside a
# block (its value's type was taken for the variable's); and an if whose branch assigned
# an Optional folded to an int printed `v : Optional[int] = 6`, compiled back as an int.
@example(pg.Program(
    "def f(a0: Optional[int]) -> Tuple[Optional[int], Optional[int]]:\n"
    "    v3: Optional[int] = 5\n"
    "    if a0 is None:\n"
    "        v3 = 7 if v3 is None else (v3 + 1 if v3 > 0 else None)\n"
    "    return (a0, v3)\n", "f", [("a0", "Optional[int]")], (None,)))
# An if whose branches both give the constant 1 to an Optional[int] (the loop that would
# assign None never runs) kept its output, printed `v1, a00 = 1, a0`; compiled back, the
# output is an int and folds away (PyTorch folds it the first time: a narrower value may
# replace it).
@example(pg.Program(
    "def f(a0: Optional[int]) -> Tuple[Optional[int], Optional[int]]:\n"
    "    v1: Optional[int] = 1\n"
    "    if a0 is None:\n"
    "        w_1 = 0\n"
    "        while w_1 < 0:\n"
    "            w_1 += 1\n"
    "            v1 = None\n"
    "    else:\n"
    "        a0 = 2\n"
    "    return (a0, v1)\n", "f", [("a0", "Optional[int]")], (None,)))
# A loop-carried variable declared Optional, holding an int its body hands back unchanged
# (the branch assigning it is dead), stayed carried (`v1: Optional[int] = 3` before the
# loop); compiled back, the body does not assign it and the constant is read directly.
@example(pg.Program(
    "def f(a0: str) -> Tuple[str, Optional[int]]:\n"
    "    v0: int = (0 + 0)\n"
    "    v1: Optional[int] = 3\n"
    "    v2: bool = False\n"
    "    for x_2 in [v0]:\n"
    "        if (v2 if v2 else (v0 < v0)):\n"
    "            v1 = v0 if v1 is None else None\n"
    "            return (a0, v1)\n"
    "        else:\n"
    "            return (a0, v1)\n"
    "    return (a0, v1)\n", "f", [("a0", "str")], ("",)))
# A variable declared Optional holding an int read as an int: copied to a parameter that a
# loop then assigns None, the loop carried an int and compiling failed ("previously had
# type int"); PyTorch reads it as declared.
@example(pg.Program(
    "def f(a0: Optional[int], a1: bool) -> Tuple[Optional[int], Optional[int]]:\n"
    "    v0: Optional[int] = 0\n"
    "    if a1:\n"
    "        return (a0, v0)\n"
    "    else:\n"
    "        a0, v0 = v0, a0\n"
    "        for i_1 in range(3):\n"
    "            a0 = i_1 if a0 is None else (None if a0 > 0 else a0 - 1)\n"
    "            return (a0, v0)\n"
    "        return (a0, v0)\n", "f", [("a0", "Optional[int]"), ("a1", "bool")], (None, False)))
def test_print_compile_print_is_a_fixed_point(tmp_path, program):
    module = _load(tmp_path, pg.module_source(program, "tsjit"))
    m = tsjit.script(module.M())
    d = tmp_path / f"r{next(_counter)}"
    (d / "a").mkdir(parents=True)
    (d / "b").mkdir()
    tsjit.save(m, str(d / "a" / "m.pt"))
    loaded = tsjit.load(str(d / "a" / "m.pt"))
    tsjit.save(loaded, str(d / "b" / "m.pt"))
    assert (d / "a" / "m.pt").read_bytes() == (d / "b" / "m.pt").read_bytes(), m.code
    expected = pg.run_callable(m, program.args)
    got = pg.run_callable(loaded, program.args)
    assert pg.same_outcome(expected, got), f"\n{m.code}\nargs: {program.args!r}\nscripted {expected}\nloaded   {got}"
