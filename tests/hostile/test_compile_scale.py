"""Compile and save time grow linearly with a method's length (benchmarks/bench_compile_scale.py
prints the times): a hostile archive cannot make the first call quadratic."""
import io
import time

import pytest

import tsjit
from tests.helpers import hostile_code as H

pytestmark = pytest.mark.slow


def _first_call_and_save(tmp_path, n: int) -> float:
    """CPU seconds of the first call (parse, compile, lower) and of a save, for n statements."""
    m = tsjit.jit.load(H.archive_with_forward(tmp_path / f"m{n}.pt", H.straight_line(n)))
    start = time.process_time()
    m(1)
    tsjit.jit.save(m, io.BytesIO())
    return time.process_time() - start


def test_eight_times_the_statements_take_about_eight_times_as_long(tmp_path, monkeypatch):
    monkeypatch.setenv("TSJIT_VERIFY", "0")   # as users run: the verifier is the tests' own
    tsjit.jit.set_executor("interpreter")
    try:
        small = min(_first_call_and_save(tmp_path, 1_000) for _ in range(2))
        large = _first_call_and_save(tmp_path, 8_000)
    finally:
        tsjit.jit.set_executor("auto")
    # Linear: 8x. Before, compile time grew as n^1.7 (34x here); the margin absorbs noise.
    assert large / small < 20, (small, large)
