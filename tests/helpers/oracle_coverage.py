"""A session check (a pytest plugin, loaded by tests/conftest.py): every registered tensor
operator is exercised by some differential or plain test.

The oracle (tests/helpers/tensor_oracle.py) records the operators each test runs. Under
pytest-xdist each worker hands its record to the controller (`workeroutput`), which checks
the union when the whole session ends; so the oracle tests may run on any worker, in any
order. The check is made only when the session ran the tensor tests as a whole (at least
MIN_EXERCISED operators); a run of a few files (`-k`, one path) is not a coverage claim.
A failed check prints the missing operators and makes the session fail."""
from __future__ import annotations

import sys

import pytest

MIN_EXERCISED = 400
_KEY = "tsjit_tensor_exercised"


def missing_operators(exercised: set[str]) -> list[str]:
    """The eager tensor overloads (their kernels in `tensor_*` modules) not in `exercised`."""
    from tsjit.ops import eager as F
    from tsjit.ops.kernels.tensor_out import _OUT_FORMS
    from tsjit.ops.registry import all_operators
    # the list and dict builtins specialised for tensors are eager too: the list and dict
    # tests exercise those
    eager = {o.qualified for o in all_operators() if F.is_eager(o.schema)
             and o.kernel.__module__.rsplit(".", 1)[-1].startswith("tensor_")}
    # out= forms share one wrapper (tests/ops/test_tensor_variants.py checks a sample)
    outs = {f"aten::{b.split('.')[0]}.{ov}" for b, ov in _OUT_FORMS}
    return sorted(eager - exercised - outs)


_EXERCISED = pytest.StashKey[set]()


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_EXERCISED] = set()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    """(xdist controller) a worker finished: keep what its tests exercised."""
    node.config.stash[_EXERCISED].update(node.workeroutput.get(_KEY, ()))


def _recorded() -> set[str]:
    # the oracle is imported by the tests that use it; importing it here would bring torch
    # into the xdist controller
    oracle = sys.modules.get("tests.helpers.tensor_oracle")
    return set(oracle.EXERCISED) if oracle is not None else set()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    if hasattr(config, "workeroutput"):         # an xdist worker: report to the controller
        config.workeroutput[_KEY] = sorted(_recorded())
        return
    exercised = config.stash[_EXERCISED] | _recorded()
    if len(exercised) < MIN_EXERCISED:
        return
    missing = missing_operators(exercised)
    if missing:
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        message = (f"oracle coverage: {len(missing)} registered tensor operators have no "
                   f"test: {missing}")
        if reporter is not None:
            reporter.ensure_newline()
            reporter.write_line(message, red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
