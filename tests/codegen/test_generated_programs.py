"""Generated programs (tests/program_gen.py) give identical results in both tiers — values,
error kinds and messages — and what CPython gives."""
import pytest
from hypothesis import HealthCheck, given, settings

from tests.helpers.program_gen import check_program, programs, run_program, run_python, same_outcome, same_value
from tests.helpers.executors import executor

pytestmark = pytest.mark.slow


def _identical(a, b) -> bool:
    if a.error or b.error:
        return (a.error, a.message) == (b.error, b.message)
    return same_value(a.value, b.value)


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_tiers_agree_with_each_other_and_cpython(program):
    expected = run_python(program.source, program.args, program.name)
    results = {}
    for mode in ("interpreter", "codegen"):
        with executor(mode):
            results[mode] = run_program(program.source, program.args, None, program.name)
    context = f"\n{program.source}\nargs: {program.args!r}\nCPython {expected}\n" + \
        "\n".join(f"{m:<12}{r}" for m, r in results.items())
    assert _identical(results["interpreter"], results["codegen"]), context
    assert same_outcome(expected, results["codegen"]), context
