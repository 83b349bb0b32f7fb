"""Errors raised while running TorchScript code, with a TorchScript-style traceback."""
from __future__ import annotations

from typing import Any, Optional, Union

from ..ir.diagnostics import SourceRange, TsjitError
from ..ir.limits import LimitError


class ScriptError(TsjitError):
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
        frames = list(reversed(self.frames))     # outermost first, as Python prints
        lines = ["The following operation failed in the TorchScript interpreter."]
        if not any(rng is not None and rng.source.origin is not None for _, rng in frames):
            lines.append("Traceback of TorchScript (most recent call last):")
            lines += _traceback(frames)
        else:
            # Code loaded from an archive: where it failed in the archive's code/ files,
            # then where that code came from (the .debug_pkl records), as PyTorch shows.
            lines.append("Traceback of TorchScript, serialized code (most recent call last):")
            lines += _traceback(frames)
            lines.append("")
            lines.append("Traceback of TorchScript, original code (most recent call last):")
            lines += _traceback([(function, _original(rng)) for function, rng in frames])
        lines.append(f"{self.kind}: {self.message}")
        return "\n".join(lines)


def _traceback(frames: list[tuple[str, Any]]) -> list[str]:
    """Python-style frame lines, each with its source line(s) and carets."""
    lines = []
    for function, rng in frames:
        if not isinstance(rng, SourceRange):
            lines.append(f"  in {function}" + (f" ({rng})" if rng else ""))
            continue
        lines.append(f"  File \"{rng.source.filename}\", line {rng.lineno()}, "
                     f"col {rng.column()}, in {function}")
        for text in rng.highlight().split("\n")[1:]:
            lines.append("    " + text)
    return lines


def _original(rng: Optional[SourceRange]) -> Union[SourceRange, str, None]:
    """The original source range of a frame, or why there is none."""
    if rng is None:
        return None
    try:
        found = rng.original()
    except TsjitError as err:   # debug records are decoded now, when first needed
        return f"its debug records are unreadable: {err.message}"
    return found if found is not None else "no original source recorded"


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
            callstack: tuple = ()) -> TsjitError:
    """`err` (raised while running `function` at `range`) as a ScriptError with that frame;
    a LimitError stays itself (it is the caller's limit, not the program's error)."""
    if isinstance(err, LimitError):
        if err.range is None:
            err.range = range
        return err
    if isinstance(err, ScriptError):
        if err.range is None:
            err.range = range
        add_frames(err, function, range, callstack)
        return err
    if isinstance(err, KeyError) and err.args:
        message = repr(err.args[0]) if not isinstance(err.args[0], str) else err.args[0]
    elif isinstance(err, TsjitError):
        message = err.message
    elif isinstance(err, MemoryError) and not str(err):
        message = "out of memory"
    else:
        message = str(err)
    kind = type(err).__name__ if not isinstance(err, TsjitError) else "RuntimeError"
    wrapped = ScriptError(message, kind, range)
    add_frames(wrapped, function, range, callstack)
    return wrapped
