"""Property: for generated programs, PythonPrint's code compiles back to code that prints
the same (save -> load -> save is byte-identical) and runs to the same results."""
import importlib.util
import os
import sys

from hypothesis import HealthCheck, given, settings, strategies as st

import tsjit

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "frontend"))
from test_programs_vs_python import _block  # noqa: E402  (the same program generator)

_counter = iter(range(10 ** 9))


def _module_source(body: list[str]) -> str:
    lines = ["import tsjit", "from tsjit import nn", "", "", "class Prog(nn.Module):",
             "    def forward(self, a: int, b: int, c: int) -> int:", "        i = 0"]
    lines += ["    " + line for line in body]
    lines += ["        return a + 10 * b + 100 * c", ""]
    return "\n".join(lines)


def _load(tmp_path, source: str):
    name = f"gen_prog_{next(_counter)}"
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(_block(2, "    "), st.tuples(st.integers(-9, 9), st.integers(-9, 9), st.integers(-9, 9)))
def test_print_compile_print_is_a_fixed_point(tmp_path, body, args):
    module = _load(tmp_path, _module_source(body))
    m = tsjit.script(module.Prog())
    d = tmp_path / f"r{next(_counter)}"
    (d / "a").mkdir(parents=True)
    (d / "b").mkdir()
    tsjit.save(m, str(d / "a" / "m.pt"))
    loaded = tsjit.load(str(d / "a" / "m.pt"))
    tsjit.save(loaded, str(d / "b" / "m.pt"))
    assert (d / "a" / "m.pt").read_bytes() == (d / "b" / "m.pt").read_bytes(), m.code
    try:
        expected = m(*args)
    except tsjit.ScriptError as err:
        expected = type(err)
    try:
        got = loaded(*args)
    except tsjit.ScriptError as err:
        got = type(err)
    assert got == expected, m.code
