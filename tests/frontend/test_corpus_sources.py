"""The corpus's source.py files, run with `torch` bound to tsjit: build, copy the archive's
state in, script, and make the calls (the language issue's yardstick).

Cases that do not pass yet are listed in sources_known_failing.txt (regenerate with
tools/update_corpus_status.py); they are strict xfails, so the list can only shrink.
"""
import pytest

import tsjit
from tests.helpers.corpus import case_names, known_failing, run_calls
from tests.helpers.corpus_sources import scripted_from_source

pytestmark = pytest.mark.slow

KNOWN: dict[str, str] = known_failing("sources").get("source", {})


@pytest.mark.parametrize("case", [
    pytest.param(c, marks=[pytest.mark.xfail(strict=True, reason=KNOWN[c])] if c in KNOWN else [])
    for c in case_names()])
def test_source_scripts_and_runs(case):
    tsjit.jit.reset_compilation_unit()
    m = scripted_from_source(case)
    failures = run_calls(m, case)
    assert not failures, "\n".join(failures)
