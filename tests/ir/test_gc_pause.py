"""ir/gc_pause.py: the collector is off inside a pause, back on after the outermost one,
and what the pause made is counted as old rather than walked by the next young collection."""
import gc

import pytest

from tsjit.ir import gc_pause
from tsjit.ir.gc_pause import MANY_OBJECTS, gc_paused


class _Thing:
    pass


@pytest.fixture
def collector_on():
    """The collector on, and nothing frozen (the test run freezes what collection made)."""
    was, frozen = gc.isenabled(), gc.get_freeze_count()
    gc.unfreeze()
    gc.enable()
    yield
    if not was:
        gc.disable()
    if frozen:
        gc.freeze()


def _generation(obj) -> int:
    for g in range(3):
        if any(o is obj for o in gc.get_objects(generation=g)):
            return g
    return -1


def test_pauses_nest_and_restore_the_collector(collector_on):
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_disabled_collector_stays_disabled(collector_on):
    gc.disable()
    with gc_paused():
        pass
    assert not gc.isenabled()


def test_what_a_large_pause_made_is_old_after_it(collector_on):
    with gc_paused():
        made = [_Thing() for _ in range(MANY_OBJECTS + 10)]
        assert _generation(made) == 0
    assert _generation(made) == 2 and gc.get_freeze_count() == 0


def test_a_small_pause_does_not_walk_the_frozen_objects(collector_on, monkeypatch):
    def walks(): raise AssertionError("gc.get_freeze_count walks every frozen object")
    monkeypatch.setattr(gc_pause.gc, "get_freeze_count", walks)
    with gc_paused():
        made = [_Thing() for _ in range(10)]
    assert _generation(made) == 0


def test_a_users_frozen_objects_stay_frozen(collector_on):
    kept = [_Thing()]
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with gc_paused():
            made = [_Thing() for _ in range(MANY_OBJECTS + 10)]
        assert gc.get_freeze_count() == frozen and _generation(kept) == -1
        assert _generation(made) in (0, 1)      # (not moved: a young collection may age it)
    finally:
        gc.unfreeze()
