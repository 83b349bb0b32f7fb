"""The corpus under each executor forced: every archive loads and its calls match in the
interpreter only and in generated code only; every re-saved archive runs, and every
source.py scripts and runs, in generated code only (cases on the ratchet lists are strict
xfails, as in the default-executor tests).

The default executor (`auto`) interprets each function's first call and runs the later
ones as generated code, so the default-executor tests of re-saves and sources
(tests/serialize/test_corpus_archives.py, tests/frontend/test_corpus_sources.py) already run
them in the interpreter; what forcing adds there is generated code from the first call."""
import pytest

import tsjit
from tests.helpers.corpus import SETSTATE_CASES, case_names, case_path, known_failing, run_calls
from tests.helpers.corpus_sources import scripted_from_source

pytestmark = pytest.mark.slow

EXECUTORS = ("interpreter", "codegen")
_ARCHIVES = known_failing("archives").get("load", {})
# this file does not compare the two saves' bytes: a case failing only on that runs here
_RESAVE = {c: r for c, r in known_failing("archives").get("resave", {}).items()
           if r != "save jitters"}
_SOURCES = known_failing("sources").get("source", {})


def _params(known: dict, modes: tuple = EXECUTORS) -> list:
    return [pytest.param(case, mode, id=f"{case}-{mode}",
                         marks=[pytest.mark.xfail(strict=True, reason=known[case])] if case in known else [])
            for case in case_names() for mode in modes]


@pytest.mark.parametrize("case,mode", _params(_ARCHIVES))
def test_archive_calls_match(case, mode, use_executor):
    with use_executor(mode):
        failures = run_calls(tsjit.load(case_path(case)), case)
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("case,mode", _params(_RESAVE, ("codegen",)))
def test_resaved_archive_calls_match(case, mode, use_executor, tmp_path):
    with use_executor(mode):
        tsjit.save(tsjit.load(case_path(case)), str(tmp_path / "model.pt"))
        reloaded = tsjit.load(str(tmp_path / "model.pt"))
        failures = [] if case in SETSTATE_CASES else run_calls(reloaded, case)
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("case,mode", _params(_SOURCES, ("codegen",)))
def test_source_calls_match(case, mode, use_executor):
    tsjit.jit.reset_compilation_unit()
    with use_executor(mode):
        failures = run_calls(scripted_from_source(case), case)
    assert not failures, "\n".join(failures)
