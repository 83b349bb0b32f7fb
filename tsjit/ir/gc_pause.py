"""Pausing Python's cyclic garbage collector while tsjit builds a large object graph.

Compiling a method or printing a module makes many objects that live on (AST nodes, IR
nodes, values, uses) and few that die, the case the collector handles worst: each full
collection walks every tracked object, and they come more often the more is made, so a
64k-statement method spent half its compile time in the collector. Inside `gc_paused()`
the collector is off; it is on again (if it was on) when the outermost pause in any thread
ends, and then collects what the pause left, as it would have.
"""
from __future__ import annotations

import contextlib
import gc
import threading
from typing import Iterator

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
                gc.enable()
