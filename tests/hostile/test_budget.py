"""An execution budget stops code that runs for ever, in both tiers, within about its seconds."""
import time

import pytest

import tsjit
from tests.helpers import hostile_code as H
from tsjit.ir.limits import LimitError, time_budget
from tsjit.jit import CompilationUnit

FOREVER = "    while True:\n      x = torch.add(x, 1)\n    return x\n"
# Three nested loops of 1,000 trips: no single loop runs long, together 10^9 iterations.
NESTED = ("    for i in range(1000):\n      for j in range(1000):\n        for k in range(1000):\n"
          "          x = torch.add(x, 1)\n    return x\n")
MODES = ["interpreter", "codegen", "auto"]


@pytest.fixture
def executor(request):
    tsjit.jit.set_executor(request.param)
    yield request.param
    tsjit.jit.set_executor("auto")


def _stops_within(call, seconds: float, margin: float = 3.0) -> LimitError:
    start = time.monotonic()
    with pytest.raises(LimitError) as info:
        with time_budget(seconds, "call_seconds", "a call of forward"):
            call()
    assert time.monotonic() - start < seconds + margin   # (a loaded machine's margin)
    return info.value


@pytest.mark.parametrize("executor", MODES, indirect=True)
@pytest.mark.parametrize("body", [FOREVER, NESTED], ids=["while_true", "nested_loops"])
def test_a_loop_without_end_stops_at_the_budget(tmp_path, executor, body):
    m = tsjit.jit.load(H.archive_with_forward(tmp_path / "m.pt", body))
    err = _stops_within(lambda: m(1), 0.25, margin=10.0)   # (parsing it is not budgeted)
    assert err.limit == "call_seconds"
    assert "a call of forward (limit 0.25 s): exceeds Limits.call_seconds" in str(err)
    assert err.range is not None and H.CODE_FILE in err.range.location()


@pytest.mark.parametrize("executor", MODES, indirect=True)
def test_a_budget_stops_a_loop_in_a_callee_and_stays_a_limit_error(executor):
    cu = CompilationUnit(
        "def spin(x: int) -> int:\n    while x > 0:\n        x = x + 1\n    return x\n\n"
        "def f(x: int) -> int:\n    return spin(x) + 1\n")
    err = _stops_within(lambda: cu.f(1), 0.25)
    assert type(err) is LimitError and "limit 0.25 s" in str(err)


@pytest.mark.parametrize("executor", MODES, indirect=True)
def test_code_that_ends_gives_the_same_result_under_a_budget(executor):
    cu = CompilationUnit("def f(n: int) -> int:\n    s = 0\n    for i in range(n):\n"
                         "        for j in range(i):\n            s += j\n    return s\n")
    expected = sum(j for i in range(300) for j in range(i))
    assert cu.f(300) == expected
    with time_budget(60.0, "call_seconds", "a call of f"):
        assert cu.f(300) == expected


@pytest.mark.slow
def test_a_budget_bounds_compiling_on_a_first_call(tmp_path):
    # Each nested `if` binds a new name: every enclosing `if` merges all of them, looking
    # each up through every scope (cubic in depth): minutes near the depth limit.
    lines = [" " * (4 + 2 * i) + f"if torch.gt(x, {i}):\n" + " " * (6 + 2 * i) + f"v{i} = x"
             for i in range(600)]
    m = tsjit.jit.load(H.archive_with_forward(tmp_path / "m.pt", "\n".join(lines) + "\n    return x\n"))
    err = _stops_within(lambda: m(1), 1.0, margin=10.0)   # (parsing it is not budgeted)
    assert err.limit == "call_seconds"
