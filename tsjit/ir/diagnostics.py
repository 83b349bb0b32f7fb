"""Source text, source ranges and the root of tsjit's error hierarchy.

Every AST node, IR node and interpreter instruction carries a `SourceRange`; every
user-facing failure is a `TsjitError`, whose message can point at a range with
`file:line:col`, the source line and a caret line under the offending text.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Callable, Optional, Union


@dataclass(eq=False)
class Source:
    """A piece of program text with the file it came from and its first line number."""

    text: str
    filename: str = "<string>"
    starting_line: int = 1  # line number of text's first line in `filename`
    _line_starts: list = field(default_factory=list, repr=False)
    # For generated code (an archive's code/ file): which original range each part came
    # from, as (char offset, range or None) in increasing offset order; or a function
    # giving that list, called when first needed (loading does not decode debug records).
    origin: Union[list, Callable[[], list], None] = field(default=None, repr=False)
    # How an archive's debug records split `text` into pieces, kept to write it back alike.
    pieces: Optional[tuple] = field(default=None, repr=False)

    def line_starts(self) -> list:
        """Offsets where the lines of `text` start (found when first needed: most sources,
        an archive's code files among them, never show an error)."""
        starts = self._line_starts
        if not starts:
            # str.find per line, not a Python step per character: sources can be large.
            starts.append(0)
            text = self.text
            i = text.find("\n")
            while i >= 0:
                starts.append(i + 1)
                i = text.find("\n", i + 1)
        return starts

    def origin_map(self) -> Optional[list]:
        """The (char offset, original range or None) list of generated code, or None."""
        if callable(self.origin):
            self.origin = self.origin()
        return self.origin

    def line_col(self, offset: int) -> tuple[int, int]:
        """0-based line index within `text` and 0-based column for a character offset."""
        starts = self.line_starts()
        line = bisect.bisect_right(starts, offset) - 1
        return line, offset - starts[line]

    def line_text(self, line: int) -> str:
        """The text of the 0-based line `line`, without its newline."""
        start = self.line_starts()[line]
        end = self.text.find("\n", start)
        return self.text[start:] if end < 0 else self.text[start:end]

    def range(self, start: int, end: int) -> "SourceRange":
        """The range [start, end) of this source."""
        return SourceRange(self, start, end)


class _Infinity:
    """Sorts after every range in (offset, range) tuples."""

    def __lt__(self, other: object) -> bool:
        return False

    def __gt__(self, other: object) -> bool:
        return True


_INF = _Infinity()


@dataclass(eq=False, slots=True)
class SourceRange:
    """A half-open character range [start, end) of a `Source`. Treated as immutable (not
    frozen: a frozen dataclass takes three times as long to build, and the parser and the
    archive loader build one for every node and declaration)."""

    source: Source
    start: int
    end: int

    @property
    def text(self) -> str:
        return self.source.text[self.start:self.end]

    def lineno(self) -> int:
        """1-based line number of the range start in the original file."""
        return self.source.line_col(self.start)[0] + self.source.starting_line

    def column(self) -> int:
        """1-based column of the range start."""
        return self.source.line_col(self.start)[1] + 1

    def location(self) -> str:
        """`file:line:col` of the range start."""
        return f"{self.source.filename}:{self.lineno()}:{self.column()}"

    def original(self) -> Optional["SourceRange"]:
        """The range of user source this (generated) code came from; itself for user source."""
        origin = self.source.origin_map()
        if origin is None:
            return self
        i = bisect.bisect_right(origin, (self.start, _INF)) - 1
        return origin[i][1] if i >= 0 else None

    def merge(self, other: "SourceRange") -> "SourceRange":
        """The smallest range covering both (same source)."""
        return SourceRange(self.source, min(self.start, other.start), max(self.end, other.end))

    def highlight(self) -> str:
        """`file:line:col`, the source line(s) and carets under the range."""
        src = self.source
        first, col = src.line_col(self.start)
        last, _ = src.line_col(max(self.start, self.end - 1))
        out = [self.location()]
        for line in range(first, last + 1):
            text = src.line_text(line)
            out.append(text)
            lo = col if line == first else len(text) - len(text.lstrip())
            if line == last:
                hi = max(src.line_col(max(self.start, self.end - 1))[1] + 1, lo + 1)
            else:
                hi = max(len(text), lo + 1)
            out.append(" " * lo + "~" * (hi - lo) if hi - lo > 1 else " " * lo + "^")
            if line == first and hi - lo > 1:
                out[-1] = " " * lo + "^" + "~" * (hi - lo - 1)
        return "\n".join(out)

    def __repr__(self) -> str:
        return f"SourceRange({self.location()}, {self.text!r})"


class TsjitError(RuntimeError):
    """Root of every error tsjit reports to its users.

    A RuntimeError, as PyTorch's compile and load errors are: code written against
    torch catches tsjit's errors with the same `except RuntimeError`."""

    def __init__(self, message: str, range: Optional[SourceRange] = None) -> None:
        self.message = message
        self.range = range
        self.context: list[str] = []
        super().__init__(message)

    def add_context(self, note: str) -> "TsjitError":
        """Append a line such as "'f' is being compiled since it was called from 'g'"."""
        self.context.append(note)
        return self

    def __str__(self) -> str:
        parts = [self.message]
        if self.range is not None:
            parts.append(self.range.highlight())
        parts.extend(self.context)
        return "\n".join(parts)


class CompileError(TsjitError):
    """The program is not valid TorchScript: syntax, names, types."""


class ParseError(CompileError):
    """The program text does not parse."""
