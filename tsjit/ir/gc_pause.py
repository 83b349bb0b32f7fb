"""Pausing Python's cyclic garbage collector while tsjit builds a large object graph.

Compiling a method or printing a module makes many objects that live on (AST nodes, IR
nodes, values, uses) and few that die, the case the collector handles worst: each full
collection walks every tracked object, and they come more often the more is made, so a
64k-statement method spent half its compile time in the collector. Inside `gc_paused()`
the collector is off; it is on again (if it was on) when the outermost pause in any thread
ends. What the pause made is then counted as old (`gc.freeze()` + `gc.unfreeze()` move
every tracked object to the oldest generation, in constant time): the next young
collection would otherwise walk all of it at once (1.3 s after compiling a 64k-statement
method) only to find it alive, as it mostly is. Cyclic garbage made during the pause is
found by the next full collection instead. Only after a pause that made many objects
(MANY_OBJECTS, read from the young generation's count, which grew unchecked while the
collector was off), and not while the user keeps objects frozen: unfreezing would thaw them
too. Asking whether anything is frozen walks every frozen object (`gc.get_freeze_count`), so
it is asked only when the move pays: a process that froze a large heap (as servers do before
forking, and the test suite does) spent 19 ms asking after every small compile.
"""
from __future__ import annotations

import contextlib
import gc
import threading
from typing import Iterator

MANY_OBJECTS = 100_000
_lock = threading.Lock()
_pauses = 0
_was_enabled = False


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Turn the cyclic collector off inside the block (pauses nest, across threads too)."""
    global _pauses, _was_enabled
    with _lock:
        if _pauses == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _lock:
            _pauses -= 1
            if _pauses == 0 and _was_enabled:
                if gc.get_count()[0] > MANY_OBJECTS and not gc.get_freeze_count():
                    gc.freeze()
                    gc.unfreeze()
                gc.enable()
