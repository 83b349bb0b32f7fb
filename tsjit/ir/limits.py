"""Resource limits for untrusted input: one object, applied to loading and to calls.

An archive is data someone else wrote. Every cost it can drive (inflated record sizes, pickle
and source nesting, tensor allocations, execution time) is bounded by a field of `Limits`;
exceeding one raises `LimitError`, which names the field and how to raise it. The defaults
refuse decompression bombs and runaway nesting at once and load every real model.

The limits in force are a context variable, so `tsjit.load(f, limits=...)` applies its
limits to everything that load does without passing them through every layer, and a module
keeps the limits it was loaded with for its calls (see `use_limits`).
"""
from __future__ import annotations

import contextlib
import contextvars
import dataclasses
from typing import Iterator, Optional

from .diagnostics import SourceRange, TsjitError

GiB = 1 << 30
MiB = 1 << 20
# Bytes any archive may inflate to whatever its size (a tiny archive of repetitive code
# compresses more than 100x and is no bomb).
INFLATION_ALLOWANCE = 64 * MiB


@dataclasses.dataclass(frozen=True)
class Limits:
    """Bounds on what one load and the calls of the module it gives may cost."""

    #: largest record read into memory (data.pkl, a code file, a record inflated); checked
    #: against the size the zip directory declares before anything is inflated. (Tensor
    #: storages are mapped, not read: `max_tensor_bytes` bounds them.)
    max_record_bytes: int = 2 * GiB
    #: largest ratio of the bytes inflated from an archive (all its deflated records read
    #: so far) to the archive's size; an archive inflating to less than
    #: INFLATION_ALLOWANCE bytes in all is not held to it.
    max_inflation_ratio: float = 100.0
    #: deepest nesting of containers in a pickle record.
    max_pickle_depth: int = 10_000
    #: deepest nesting of source constructs (statements, expressions, type annotations).
    max_source_depth: int = 1_000
    #: largest allocation one tensor may make, in bytes (from an archive's sizes or at run time).
    max_tensor_bytes: int = 64 * GiB
    #: wall-clock seconds one call of a loaded module may take (None: no limit).
    call_seconds: Optional[float] = None
    #: wall-clock seconds `__setstate__` and other code run while loading may take.
    load_seconds: Optional[float] = 60.0

    def replace(self, **changes: object) -> "Limits":
        """A copy with some fields changed (`Limits().replace(max_source_depth=5000)`)."""
        return dataclasses.replace(self, **changes)


DEFAULT_LIMITS = Limits()

_ACTIVE: contextvars.ContextVar[Limits] = contextvars.ContextVar("tsjit_limits", default=DEFAULT_LIMITS)


class LimitError(TsjitError):
    """An input exceeded one of the `Limits`; the message names the field to raise."""

    def __init__(self, limit: str, what: str, value: object = None, bound: object = None,
                 range: Optional[SourceRange] = None) -> None:
        if bound is None:
            bound = getattr(current_limits(), limit, None)
        shown = f" ({value} > {bound})" if value is not None else f" (limit {bound})"
        super().__init__(
            f"{what}{shown}: exceeds Limits.{limit}; raise it with "
            f"tsjit.load(..., limits=tsjit.Limits({limit}=...)) if you trust this input",
            range,
        )
        self.limit = limit


def check_allocation(nbytes: int, what: str) -> None:
    """Refuse (LimitError) an allocation of `nbytes` above Limits.max_tensor_bytes."""
    if nbytes > _ACTIVE.get().max_tensor_bytes:
        raise LimitError("max_tensor_bytes", what, nbytes)


def current_limits() -> Limits:
    """The limits in force in this thread or task."""
    return _ACTIVE.get()


@contextlib.contextmanager
def use_limits(limits: Optional[Limits]) -> Iterator[Limits]:
    """Make `limits` (or the defaults, for None) the ones in force inside the block."""
    token = _ACTIVE.set(limits if limits is not None else DEFAULT_LIMITS)
    try:
        yield _ACTIVE.get()
    finally:
        _ACTIVE.reset(token)


# An execution budget is a deadline (time.monotonic()) in a context variable; code that can run
# for ever (loop back-edges, calls) calls `check_deadline()`, which costs one context-variable
# read when no budget is set.
_DEADLINE: contextvars.ContextVar[Optional[tuple[float, str, str, float]]] = contextvars.ContextVar(
    "tsjit_deadline", default=None
)


@contextlib.contextmanager
def time_budget(seconds: Optional[float], limit: str, what: str) -> Iterator[None]:
    """Inside the block, `check_deadline()` raises LimitError(limit) after `seconds` (None: no budget)."""
    if seconds is None:
        yield
        return
    import time

    end = time.monotonic() + seconds
    deadline = (end, limit, what, seconds)
    outer = _DEADLINE.get()
    if outer is not None and outer[0] < end:
        deadline = outer  # an enclosing, earlier deadline still governs
    token = _DEADLINE.set(deadline)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


# Under a budget, loops check the deadline once per this many iterations (and calls on
# entry); code run without a budget reads `current_deadline()` once per call, not per iteration.
CHECK_EVERY = 1024


#: The innermost execution budget's (deadline, limit, what, seconds), or None: one
#: context-variable read, for code that chooses a checked variant when a budget is in force.
current_deadline = _DEADLINE.get


def check_deadline() -> None:
    """Raise LimitError when the innermost execution budget has run out."""
    deadline = _DEADLINE.get()
    if deadline is not None:
        import time

        if time.monotonic() > deadline[0]:
            raise LimitError(deadline[1], deadline[2], bound=f"{deadline[3]:g} s")
