"""Errors raised while running TorchScript code, with a TorchScript-style traceback."""
from __future__ import annotations

from typing import Optional

from ..ir.diagnostics import SourceRange, TsjitError


class ScriptError(TsjitError, RuntimeError):
    """An exception raised by running code: the program's `raise`/`assert`, or a failing op.

    `kind` is the Python exception class name the program named (`ValueError`,
    `AssertionError`) or that the failing kernel raised (`IndexError`, `KeyError`).
    """

    def __init__(self, message: str, kind: str = "RuntimeError",
                 range: Optional[SourceRange] = None) -> None:
        super().__init__(message, range)
        self.kind = kind
        self.frames: list[tuple[str, Optional[SourceRange]]] = []

    def add_frame(self, function: str, range: Optional[SourceRange]) -> None:
        """Record one TorchScript frame (innermost first)."""
        self.frames.append((function, range))

    def __str__(self) -> str:
        lines = ["The following operation failed in the TorchScript interpreter.",
                 "Traceback of TorchScript (most recent call last):"]
        for function, rng in reversed(self.frames):
            if rng is None:
                lines.append(f"  in {function}")
                continue
            lines.append(f"  File \"{rng.source.filename}\", line {rng.lineno()}, in {function}")
            for text in rng.highlight().split("\n")[1:]:
                lines.append("    " + text)
        lines.append(f"{self.kind}: {self.message}")
        return "\n".join(lines)


def add_frames(err: ScriptError, function: str, range: Optional[SourceRange],
               callstack: tuple = ()) -> None:
    """Record where `function` failed: frames of inlined calls first, innermost first."""
    for name, site in callstack:
        err.add_frame(name, range)
        range = site
    err.add_frame(function, range)


# What a failing kernel may raise; both tiers turn these into located ScriptErrors.
KERNEL_ERRORS = (ArithmeticError, LookupError, ValueError, TypeError, RuntimeError,
                 AttributeError, AssertionError, NotImplementedError, OverflowError, MemoryError)
CAUGHT = (TsjitError,) + KERNEL_ERRORS


def located(err: BaseException, function: str, range: Optional[SourceRange],
            callstack: tuple = ()) -> ScriptError:
    """`err` (raised while running `function` at `range`) as a ScriptError with that frame."""
    if isinstance(err, ScriptError):
        if err.range is None:
            err.range = range
        add_frames(err, function, range, callstack)
        return err
    if isinstance(err, KeyError) and err.args:
        message = repr(err.args[0]) if not isinstance(err.args[0], str) else err.args[0]
    elif isinstance(err, TsjitError):
        message = err.message
    else:
        message = str(err)
    kind = type(err).__name__ if not isinstance(err, TsjitError) else "RuntimeError"
    wrapped = ScriptError(message, kind, range)
    add_frames(wrapped, function, range, callstack)
    return wrapped
