"""Corpus archives damaged at random, every way the hostile-archive fuzzer knows
(tests/helpers/archive_fuzz.py: bytes flipped, truncated, records changed, cut or swapped,
a code line cut, dropped or repeated, pickle values replaced): loading and running them ends
in a tsjit error or works, never in another exception (the no-bare-exception rule, fuzzed)."""
import random

from hypothesis import HealthCheck, given, settings, strategies as st

import tsjit
from tests.helpers.archive_fuzz import KINDS, mutate
from tests.helpers.corpus import case_names, case_path, load_calls, to_tsjit
from tsjit.ir.diagnostics import TsjitError

CASES = case_names()


@settings(max_examples=150, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from(CASES), kind=st.sampled_from(KINDS), seed=st.integers(0, 2 ** 32 - 1))
def test_damaged_archives_fail_with_tsjit_errors(case, kind, seed, tmp_path_factory):
    with open(case_path(case), "rb") as f:
        data = mutate(f.read(), random.Random(seed), kind)
    path = tmp_path_factory.mktemp("damaged") / "model.pt"
    path.write_bytes(data)
    try:
        m = tsjit.load(str(path), limits=tsjit.Limits(load_seconds=5.0, call_seconds=5.0))
        for call in load_calls(case)[:2]:
            try:
                getattr(m, call.method)(*to_tsjit(call.args))
            except TsjitError:
                pass
    except TsjitError:
        pass
