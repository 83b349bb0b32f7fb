"""Fixtures for the serialization tests."""
import gc

import pytest


@pytest.fixture
def frozen_heap() -> None:
    """Leaves everything earlier tests made (their garbage and its open files included) out
    of the cyclic collector: this test's gc.collect() calls then walk only its own objects,
    not the whole worker's heap (a second each), and what they free is only this test's."""
    gc.freeze()
