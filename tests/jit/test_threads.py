"""Loading and calling from many threads: concurrent first calls of a freshly loaded module."""
from __future__ import annotations

import threading

import pytest

import tsjit
from tests.helpers.corpus import case_path, run_calls

# models whose first call compiles many methods and classes (submodules, class types)
CASES = ["model_transformer_encoder_layer", "model_resnet_block", "lang_class_compose",
         "lang_nested_submodules", "model_greedy_decode"]


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_concurrent_first_calls_agree_with_the_corpus(case: str) -> None:
    module = tsjit.load(case_path(case))           # lazy: nothing compiled yet
    start = threading.Barrier(8)
    problems: list[str] = []

    def worker() -> None:
        start.wait()
        try:
            problems.extend(run_calls(module, case))
        except Exception as e:  # noqa: BLE001 - any error in a thread is a failure to report
            problems.append(f"{type(e).__name__}: {e}")

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not problems, problems[:3]
