"""Executors: forced modes, tier-up after N calls, fallback, the environment variables."""
import os
import subprocess
import sys

import pytest

import tsjit
from tsjit.interpreter.executor import POLICY, executor_for, set_policy
from tsjit.ir.diagnostics import TsjitError

SOURCE = '''
def add_one(x: int) -> int:
    return x + 1

def twice(x: int) -> int:
    return add_one(add_one(x))
'''


@pytest.fixture
def cu():
    return tsjit.jit.CompilationUnit(SOURCE)


def test_interpreter_mode_never_compiles(cu, use_executor):
    with use_executor("interpreter"):
        for _ in range(5):
            assert cu.twice(1) == 3
        assert executor_for(cu.twice.function).compiled is None


def test_codegen_mode_compiles_on_first_call(cu, use_executor):
    with use_executor("codegen"):
        assert cu.twice(1) == 3
        ex = executor_for(cu.twice.function)
        assert ex.compiled is not None and ex.call is ex.compiled


def test_auto_mode_tiers_up_after_the_threshold(cu, use_executor):
    with use_executor("auto", 3):
        ex = executor_for(cu.twice.function)
        for i in range(2):
            assert cu.twice(i) == i + 2
            assert ex.compiled is None
        assert cu.twice(5) == 7
        assert ex.compiled is not None
        assert cu.twice(6) == 8


def test_set_executor_starts_every_function_over(cu, use_executor):
    with use_executor("codegen"):
        cu.twice(1)
        ex = executor_for(cu.twice.function)
        assert ex.compiled is not None
        tsjit.jit.set_executor("interpreter")
        assert ex.compiled is None
        assert cu.twice(1) == 3 and ex.compiled is None


def test_auto_falls_back_to_the_interpreter_when_compiling_fails(cu, use_executor):
    def failing(fn):
        raise TsjitError("cannot compile this")
    with use_executor("auto", 1):
        compiler = POLICY.compiler
        set_policy("auto", 1, failing)
        try:
            assert cu.twice(1) == 3
            ex = executor_for(cu.twice.function)
            assert ex.compiled is None and ex.reason == "cannot compile this"
            set_policy("codegen", None, failing)
            with pytest.raises(TsjitError, match="cannot compile this"):
                cu.twice(1)
        finally:
            set_policy("auto", None, compiler)


@pytest.mark.parametrize("mode,threshold", [("fast", None), ("auto", 0)])
def test_bad_settings_are_errors(mode, threshold):
    with pytest.raises(TsjitError):
        tsjit.jit.set_executor(mode, threshold)


@pytest.mark.parametrize("env,expected", [
    ({"TSJIT_EXECUTOR": "codegen"}, "('codegen', 2)"),
    ({"TSJIT_EXECUTOR": "auto", "TSJIT_JIT_THRESHOLD": "7"}, "('auto', 7)"),
    ({}, "('auto', 2)"),
])
@pytest.mark.slow
def test_environment_sets_the_starting_policy(env, expected):
    out = subprocess.run([sys.executable, "-c", "import tsjit.jit.executors, tsjit; print(tsjit.jit.get_executor())"],
                         env={**{k: v for k, v in os.environ.items() if not k.startswith("TSJIT_")}, **env},
                         capture_output=True, text=True)
    assert out.stdout.strip() == expected, out.stderr


@pytest.mark.slow
def test_bad_environment_is_a_clear_error():
    out = subprocess.run([sys.executable, "-c", "import tsjit.jit.executors"],
                         env={**os.environ, "TSJIT_EXECUTOR": "jit"}, capture_output=True, text=True)
    assert out.returncode != 0 and "TSJIT_EXECUTOR must be one of" in out.stderr
