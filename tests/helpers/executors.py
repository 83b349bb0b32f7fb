"""Run code under one forced executor (interpreter, codegen, auto), then restore the policy."""
from __future__ import annotations

import contextlib
from typing import Iterator, Optional

import tsjit


@contextlib.contextmanager
def executor(mode: Optional[str], threshold: Optional[int] = None) -> Iterator[None]:
    """Run the body with `mode` forced (functions start over), then restore; None: as is."""
    if mode is None:
        yield
        return
    old_mode, old_threshold = tsjit.jit.get_executor()
    tsjit.jit.set_executor(mode, threshold)
    try:
        yield
    finally:
        tsjit.jit.set_executor(old_mode, old_threshold)
