"""A text writer that records which source range produced each part of its output."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, Optional

from ..ir.diagnostics import SourceRange


def _same(a: Optional[SourceRange], b: Optional[SourceRange]) -> bool:
    if a is None or b is None:
        return a is b
    return a.source is b.source and a.start == b.start and a.end == b.end


class TaggedWriter:
    """Accumulates text; `ranges` are (offset, SourceRange) pairs, recorded when the
    active range changes, as the `.debug_pkl` records need.

    Ranges are kept as the user source they stand for (`SourceRange.original()`): code
    printed from a loaded archive records where that code originally came from, and
    equal originals merge, so printing, loading and printing again gives the same records.
    """

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.length = 0
        self.ranges: list[tuple[int, Optional[SourceRange]]] = []
        self._stack: list[Optional[SourceRange]] = [None]

    def write(self, text: str) -> None:
        if not text:
            return
        top = self._stack[-1]
        if not self.ranges or not _same(self.ranges[-1][1], top):
            if self.ranges and self.ranges[-1][0] == self.length:
                self.ranges[-1] = (self.length, top)
            else:
                self.ranges.append((self.length, top))
        self.parts.append(text)
        self.length += len(text)

    @contextmanager
    def source(self, rng: Optional[SourceRange]) -> Iterator[None]:
        """Attribute text written inside the block to `rng` (or the enclosing range)."""
        self._stack.append(rng.original() if rng is not None else self._stack[-1])
        try:
            yield
        finally:
            self._stack.pop()

    def text(self) -> str:
        return "".join(self.parts)
