"""Encode and decode the ``code/....py.debug_pkl`` records of a TorchScript archive.

Each ``.debug_pkl`` maps byte offsets of the generated code file next to it
(``code/__torch__/m.py``) to ranges of the original source. PyTorch 2.13 writes it as one
protocol-2 pickle (see `pickler`) of::

    ("FORMAT_WITH_STRING_TABLE",
     strings,                                # tuple of str, memoized
     records)                                # tuple of records, memoized

    record  = (offset, range, tag)           # plain 3-tuple, not memoized
    range   = (source, start, end)           # plain 3-tuple, not memoized
    source  = (build_intlist(line_indices),  # memoized 3-tuple, shared by all records
               filename_index,               #   whose range is in the same source
               starting_line)

* ``offset``: byte offset in the generated code where the range starts to apply (records
  are in increasing offset order; one applies until the next).
* ``start``/``end``: character offsets of the range in the source text.
* ``tag``: a debug handle numbering distinct source ranges; it counts across all the code
  files of one save (so it is stored, not recomputed). 0 marks "no source".
* ``source``: the text is the concatenation of ``strings[i]`` for ``line_indices`` (a
  ``torch.jit._pickle.build_intlist`` reduction of a list of ints), split after every
  newline, with the rest after the last newline as a last piece (``''`` if the text ends
  with a newline). ``strings[filename_index]`` is the file name (``''`` for none);
  ``starting_line`` is the line number of the text's first line in that file.
* The string table holds each distinct string once, in the order the sources are first
  used by the records: each source's pieces, then its file name.
* Ranges with no source (generated code) point at a shared empty source: no pieces, file
  name ``''``, starting line 0, range 0..0, tag 0. Decoded, their `source` is None.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from tsjit.serialize.errors import ArchiveError
from tsjit.serialize.pickle_format import BUILD_INTLIST, MemoTuple, Reduce
from tsjit.serialize.pickler import pickle_value
from tsjit.serialize.unpickler import unpickle

FORMAT_WITH_STRING_TABLE = "FORMAT_WITH_STRING_TABLE"  # tag of PyTorch's current format


@dataclass(eq=False)
class DebugSource:
    """Original source text: `text` from `filename` (None if unknown), first line `starting_line`.

    `lines`: the pieces the string table stores the text as, when they are not the usual
    split after each newline (None: the usual split).
    """

    text: str
    filename: Optional[str]
    starting_line: int
    lines: Optional[tuple[str, ...]] = None

    def pieces(self) -> list[str]:
        """The text as string-table pieces."""
        return list(self.lines) if self.lines is not None else split_lines(self.text)


@dataclass
class DebugRecord:
    """From byte `offset` of the generated code on, the code came from
    `source.text[start:end]` (`source` None: generated code, no source)."""

    offset: int
    source: Optional[DebugSource]
    start: int
    end: int
    tag: int


def split_lines(text: str) -> list[str]:
    """`text` split after each newline, plus the rest after the last one (maybe '')."""
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + [parts[-1]]


def encode_debug_info(records: list[DebugRecord]) -> bytes:
    """The `.debug_pkl` bytes for `records`, as PyTorch 2.13 writes them."""
    strings: list[str] = []
    string_index: dict[str, int] = {}

    def intern(s: str) -> int:
        index = string_index.get(s)
        if index is None:
            index = string_index[s] = len(strings)
            strings.append(s)
        return index

    sources: dict[int, MemoTuple] = {}   # id(DebugSource), or id(None), -> source tuple
    keep_alive: list[Any] = []           # the DebugSources keyed by id above
    out: list[tuple] = []
    for rec in records:
        key = id(rec.source)
        src = sources.get(key)
        if src is None:
            if rec.source is None:
                pieces: list[str] = []
                filename, starting_line = "", 0
            else:
                pieces = rec.source.pieces()
                filename = rec.source.filename or ""
                starting_line = rec.source.starting_line
            indices = [intern(p) for p in pieces]
            src = MemoTuple((Reduce(BUILD_INTLIST, (indices,), memo=False),
                             intern(filename), starting_line))
            sources[key] = src
            keep_alive.append(rec.source)
        out.append((rec.offset, (src, rec.start, rec.end), rec.tag))
    return pickle_value((FORMAT_WITH_STRING_TABLE, MemoTuple(strings), MemoTuple(out)))


def decode_debug_info(data: bytes, record_name: str) -> list[DebugRecord]:
    """The records of a `.debug_pkl`; `record_name` (e.g. `model/code/m.py.debug_pkl`) names errors."""
    value = unpickle(data, record_name)

    def bad(what: str) -> ArchiveError:
        return ArchiveError(f"bad debug info in {record_name}: {what}", record=record_name)

    if not (isinstance(value, tuple) and len(value) == 3
            and value[0] == FORMAT_WITH_STRING_TABLE):
        raise bad(f"expected a ({FORMAT_WITH_STRING_TABLE!r}, strings, records) tuple")
    _, strings, raw_records = value
    if not isinstance(strings, tuple) or not all(type(s) is str for s in strings):
        raise bad("the string table is not a tuple of strings")
    if not isinstance(raw_records, tuple):
        raise bad("the records are not a tuple")

    def string(index: Any) -> str:
        if type(index) is not int or not 0 <= index < len(strings):
            raise bad(f"string index {index!r} out of range")
        return strings[index]

    decoded: dict[int, Optional[DebugSource]] = {}   # id(source tuple) -> decoded source
    records: list[DebugRecord] = []
    for raw in raw_records:
        if not (isinstance(raw, tuple) and len(raw) == 3 and isinstance(raw[1], tuple)
                and len(raw[1]) == 3):
            raise bad(f"record {raw!r} is not (offset, (source, start, end), tag)")
        offset, (src, start, end), tag = raw
        if not all(type(n) is int for n in (offset, start, end, tag)):
            raise bad(f"record {raw!r} has non-integer offsets")
        if id(src) not in decoded:
            decoded[id(src)] = _decode_source(src, string, bad)
        records.append(DebugRecord(offset, decoded[id(src)], start, end, tag))
    return records


def _decode_source(src: Any, string: Any, bad: Any) -> Optional[DebugSource]:
    """One source tuple as a DebugSource, or None for the empty "no source" source."""
    if not (isinstance(src, tuple) and len(src) == 3 and isinstance(src[0], Reduce)
            and src[0].func is BUILD_INTLIST and len(src[0].args) == 1
            and type(src[0].args[0]) is list and type(src[2]) is int):
        raise bad(f"source {src!r} is not (build_intlist([...]), filename_index, line)")
    pieces = [string(i) for i in src[0].args[0]]
    filename = string(src[1])
    if not pieces and filename == "" and src[2] == 0:
        return None
    text = "".join(pieces)
    lines = None if split_lines(text) == pieces else tuple(pieces)
    return DebugSource(text, filename or None, src[2], lines)
