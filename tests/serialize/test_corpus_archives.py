"""The conformance corpus: PyTorch 2.13 archives load in tsjit, run, and re-save stably.

Cases that do not pass yet are listed in KNOWN_FAILING with what they need; they are
strict xfails, so a case that starts passing fails the run until it is taken off the list.
"""
import pytest

import tsjit
from tests.helpers.corpus import SETSTATE_CASES, case_names, case_path, known_failing, run_calls

pytestmark = pytest.mark.slow

_KNOWN = known_failing("archives")
KNOWN_FAILING_LOAD: dict[str, str] = _KNOWN.get("load", {})
KNOWN_FAILING_RESAVE: dict[str, str] = _KNOWN.get("resave", {})


def _mark(case: str, known: dict) -> list:
    if case in known:
        return [pytest.mark.xfail(strict=True, reason=known[case])]
    return []


@pytest.mark.parametrize("case", [pytest.param(c, marks=_mark(c, KNOWN_FAILING_LOAD))
                                  for c in case_names()])
def test_load_and_call(case):
    m = tsjit.load(case_path(case))
    failures = run_calls(m, case)
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("case", [pytest.param(c, marks=_mark(c, KNOWN_FAILING_RESAVE))
                                  for c in case_names()])
def test_resave_is_stable_and_runs(case, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    tsjit.save(tsjit.load(case_path(case)), str(a / "model.pt"))
    reloaded = tsjit.load(str(a / "model.pt"))
    tsjit.save(reloaded, str(b / "model.pt"))
    if case not in SETSTATE_CASES:   # their state changes on every load, as under PyTorch
        assert (a / "model.pt").read_bytes() == (b / "model.pt").read_bytes(), "save jitters"
        failures = run_calls(tsjit.load(str(a / "model.pt")), case)
        assert not failures, "\n".join(failures)
