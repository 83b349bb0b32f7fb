"""Errors raised while reading or writing TorchScript archives and their pickles.

Every message names the archive record it is about (e.g. ``model/data.pkl``) and, where
it helps, the byte offset inside that record or file, so that a user with a broken or
hostile archive can tell what was rejected and where.
"""
from __future__ import annotations

import pickle
import reprlib
from typing import Any, Optional

from tsjit.ir.diagnostics import TsjitError


class ArchiveError(TsjitError):
    """The archive is not a valid TorchScript zip: bad zip, bad layout or a bad record."""

    def __init__(self, message: str, record: Optional[str] = None,
                 offset: Optional[int] = None) -> None:
        self.record = record
        self.offset = offset
        super().__init__(message)


class UnpicklingError(ArchiveError):
    """A pickle record is malformed or refers to a global that is not allowed."""


class PicklingError(ArchiveError):
    """A value cannot be written as a TorchScript pickle (unsupported type, cycle, ...)."""


class CheckpointError(ArchiveError, RuntimeError):
    """A torch.save file cannot be loaded: damaged, or not one (a RuntimeError, as PyTorch's)."""


class NotACheckpointError(CheckpointError, ValueError):
    """A file given where a torch.save zip checkpoint is expected is another kind of file."""


class WeightsOnlyError(UnpicklingError, pickle.UnpicklingError):
    """A checkpoint names a global outside the allow-list: refused, nothing was called.

    Both a tsjit error and a `pickle.UnpicklingError`, as PyTorch raises."""


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 3, 60, 60
_REPR.maxtuple = _REPR.maxlist = _REPR.maxdict = _REPR.maxset = 6


def quoted(value: Any) -> str:
    """`repr(value)` short enough for an error message, whatever the input holds (nesting
    and lengths cut, never a RecursionError)."""
    return _REPR.repr(value)


def clipped(text: str, limit: int = 200) -> str:
    """`text`, cut to about `limit` characters for an error message."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"
