"""A short, seeded run of the hostile-archive fuzzer (tools/fuzz_archives.py runs the
long one): corpus archives mutated every way tests/helpers/archive_fuzz.py knows, loaded
under limits and called; only tsjit errors come out, and no case takes 5 s of CPU."""
import pytest

import tsjit
from tests.helpers.archive_fuzz import KINDS, Corpus, mutate, run_case

CASES = 120     # seeds 0..119: every mutation kind about 13 times


@pytest.fixture(scope="module")
def corpus():
    return Corpus()


@pytest.mark.slow
def test_seeded_hostile_archives_end_in_tsjit_errors(corpus):
    limits = tsjit.Limits(load_seconds=5.0, call_seconds=5.0)
    kinds, results = set(), set()
    for seed in range(CASES):
        name, kind, data, calls = corpus.case(seed)
        out = run_case(data, calls, limits)
        assert not out.result.startswith("ESCAPED"), (seed, name, kind, out)
        assert out.cpu < 5.0, (seed, name, kind, out)     # (CPU: the machine is shared)
        kinds.add(kind)
        results.add(out.result)
    assert kinds == set(KINDS)
    assert {"ok", "ArchiveError", "UnpicklingError", "LimitError"} <= results


def test_the_mutations_are_seeded(corpus):
    import random
    data = corpus.data[corpus.names[0]]
    for kind in KINDS:
        assert mutate(data, random.Random(7), kind) == mutate(data, random.Random(7), kind)
    assert corpus.case(3)[2] == corpus.case(3)[2]
