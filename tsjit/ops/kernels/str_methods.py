"""str methods: search, split, strip, pad, case conversion and character-class tests.

All work on UTF-8 bytes with "C"-locale (ASCII) character classes. PyTorch's versions
differ from Python's in places that are reproduced here, e.g.:
`find` / `count` / `startswith` read `end=-1` as "to the end" (negative ends are
`size + end + 1`); `split()` with no separator ignores `max`; `rsplit()` defaults to a
single-space separator; `strip()` defaults to " \\n\\t\\f\\v" (not `\\r`); `zfill` ignores
signs; `expandtabs` never resets its column; `splitlines(True)` returns each
line break as its own element; `isidentifier` rejects `_`. Where PyTorch loops forever
(an empty pattern for `count`, `rsplit`, or an unbounded `replace`) we raise instead.
"""
from __future__ import annotations

from typing import Optional

from ..registry import op
from .scalar_common import ts_error
from .str_common import from_bytes, rejoin, to_bytes

# Bytes `split()` treats as whitespace / `splitlines()` as line breaks: the ASCII ones plus
# the bytes of "\x85", "\u2028" and "\u2029" taken one byte at a time.
_SPLIT_WS = frozenset(b" \t\n\v\f\r\x1c\x1d\x1e\x85\xe2\x80\xa8\xa9")
_LINE_BREAKS = frozenset(b"\n\v\f\r\x1c\x1d\x1e\x85\xe2\x80\xa8\xa9")


def _window(size: int, start: int, end: int) -> tuple[int, int]:
    if start < 0:
        start = max(0, size + start)
    if end < 0:
        end = max(0, size + end + 1)
    return start, end


def _substr_error(pos: int, size: int) -> RuntimeError:
    return ts_error(f"basic_string::substr: __pos (which is {pos}) > this->size() "
                    f"(which is {size})")


def _find(self: str, substr: str, start: int, end: int, reverse: bool) -> int:
    b, sub = to_bytes(self), to_bytes(substr)
    start, end = _window(len(b), start, end)
    if end > start:
        if start > len(b):
            raise _substr_error(start, len(b))
        window = b[start:end]
    else:
        window = b""
    if len(window) < len(sub):
        return -1
    pos = window.rfind(sub) if reverse else window.find(sub)
    return -1 if pos < 0 else pos + start


@op("aten::find(str self, str substr, int start=0, int end=-1) -> int")
def find(self: str, substr: str, start: int = 0, end: int = -1) -> int:
    """Lowest byte offset of `substr` in the window, or -1."""
    return _find(self, substr, start, end, False)


@op("aten::rfind(str self, str substr, int start=0, int end=-1) -> int")
def rfind(self: str, substr: str, start: int = 0, end: int = -1) -> int:
    """Highest byte offset of `substr` in the window, or -1."""
    return _find(self, substr, start, end, True)


@op("aten::index.str(str self, str substr, int start=0, int end=-1) -> int")
def index_str(self: str, substr: str, start: int = 0, end: int = -1) -> int:
    """find() that raises when not found."""
    r = _find(self, substr, start, end, False)
    if r < 0:
        raise ts_error("ValueError: substring not found")
    return r


@op("aten::rindex(str self, str substr, int start=0, int end=-1) -> int")
def rindex(self: str, substr: str, start: int = 0, end: int = -1) -> int:
    """rfind() that raises when not found."""
    r = _find(self, substr, start, end, True)
    if r < 0:
        raise ts_error("ValueError: substring not found")
    return r


@op("aten::count(str self, str substr, int start=0, int end=-1) -> int")
def count(self: str, substr: str, start: int = 0, end: int = -1) -> int:
    """Non-overlapping matches that *start* before `end` (they may extend past it)."""
    b, sub = to_bytes(self), to_bytes(substr)
    if not sub:
        raise ts_error("count() of an empty substring never terminates in TorchScript")
    start, end = _window(len(b), start, end)
    n, pos = 0, start
    while True:
        pos = b.find(sub, pos)
        if pos < 0 or pos >= end:
            return n
        n += 1
        pos += len(sub)


def _affix_window(self: str, start: int, end: int) -> bytes:
    b = to_bytes(self)
    start, end = _window(len(b), start, end)
    if start > len(b):
        raise _substr_error(start, len(b))
    # substr(start, end - start) with an unsigned count: end < start means "to the end".
    return b[start:] if end < start else b[start:end]


@op("aten::startswith(str self, str substr, int start=0, int end=-1) -> bool")
def startswith(self: str, substr: str, start: int = 0, end: int = -1) -> bool:
    """Whether the window starts with `substr`."""
    return _affix_window(self, start, end).startswith(to_bytes(substr))


@op("aten::endswith(str self, str substr, int start=0, int end=-1) -> bool")
def endswith(self: str, substr: str, start: int = 0, end: int = -1) -> bool:
    """Whether the window ends with `substr`."""
    return _affix_window(self, start, end).endswith(to_bytes(substr))


@op("aten::replace(str self, str old, str new, int max=-1) -> str")
def replace(self: str, old: str, new: str, max: int = -1) -> str:
    """Replace up to `max` (all if negative) non-overlapping occurrences, left to right."""
    if not old:
        if max < 0:
            raise ts_error("replace() of an empty pattern without a count never terminates "
                           "in TorchScript")
        return rejoin(new * max + self)  # each insertion lands before the previous one
    count = max if max >= 0 else -1
    if self.isascii() and old.isascii() and new.isascii():
        return self.replace(old, new, count)
    return from_bytes(to_bytes(self).replace(to_bytes(old), to_bytes(new), count))


# ---- split / partition ---------------------------------------------------------------

@op("aten::split.str(str self, str? separator=None, int max=-1) -> str[]")
def split(self: str, separator: Optional[str] = None, max: int = -1) -> list[str]:
    """Split on a separator (at most `max` times), or on whitespace runs (ignoring `max`)."""
    if separator is None and self.isascii() and "\x1f" not in self:
        return self.split()     # the same whitespace set, once \x1f (Python's only extra) is absent
    b = to_bytes(self)
    if separator is None:
        parts, cur = [], bytearray()
        for c in b:
            if c in _SPLIT_WS:
                if cur:
                    parts.append(bytes(cur))
                    cur.clear()
            else:
                cur.append(c)
        if cur:
            parts.append(bytes(cur))
        return [from_bytes(p) for p in parts]
    sep = to_bytes(separator)
    if not sep:
        raise ts_error("ValueError: empty separator")
    return [from_bytes(p) for p in b.split(sep, max if max >= 0 else -1)]


@op("aten::rsplit(str self, str separator=\" \", int max=-1) -> str[]")
def rsplit(self: str, separator: str = " ", max: int = -1) -> list[str]:
    """Split on `separator` from the right, at most `max` times."""
    sep = to_bytes(separator)
    if not sep:
        raise ts_error("ValueError: empty separator")
    return [from_bytes(p) for p in to_bytes(self).rsplit(sep, max if max >= 0 else -1)]


@op("aten::splitlines(str self, bool keepends=False) -> str[]")
def splitlines(self: str, keepends: bool = False) -> list[str]:
    """Split at every line-break byte; with keepends each break is its own element."""
    b = to_bytes(self)
    out: list[bytes] = []
    prev = 0
    for pos, c in enumerate(b):
        if c in _LINE_BREAKS:
            out.append(b[prev:pos])
            if keepends:
                out.append(b[pos:pos + 1])
            prev = pos + 1
    if prev != len(b):
        out.append(b[prev:])
    return [from_bytes(p) for p in out]


@op("aten::partition(str self, str separator) -> (str, str, str)")
def partition(self: str, separator: str) -> tuple[str, str, str]:
    """(before, separator, after) at the first match, else (self, '', '')."""
    b, sep = to_bytes(self), to_bytes(separator)
    pos = b.find(sep)
    if pos < 0:
        return self, "", ""
    return from_bytes(b[:pos]), separator, from_bytes(b[pos + len(sep):])


@op("aten::rpartition(str self, str separator) -> (str, str, str)")
def rpartition(self: str, separator: str) -> tuple[str, str, str]:
    """(before, separator, after) at the last match, else ('', '', self)."""
    b, sep = to_bytes(self), to_bytes(separator)
    pos = b.rfind(sep)
    if pos < 0:
        return "", "", self
    return from_bytes(b[:pos]), separator, from_bytes(b[pos + len(sep):])


# ---- strip / pad ---------------------------------------------------------------------

_STRIP_DEFAULT = " \n\t\f\v"
# The schema parser may hand over the default as written in the schema text, with the
# escapes unprocessed; read that spelling as the default it stands for.
_STRIP_DEFAULT_ESCAPED = r" \n\t\f\v"


def _chars(chars: str) -> bytes:
    return to_bytes(_STRIP_DEFAULT if chars == _STRIP_DEFAULT_ESCAPED else chars)


@op("aten::strip(str self, str chars=\" \\n\\t\\f\\v\") -> str")
def strip(self: str, chars: str = _STRIP_DEFAULT) -> str:
    """Remove leading and trailing bytes found in `chars`."""
    if self.isascii() and chars.isascii() and chars != _STRIP_DEFAULT_ESCAPED:
        return self.strip(chars)
    return from_bytes(to_bytes(self).strip(_chars(chars)))


@op("aten::lstrip(str self, str chars=\" \\n\\t\\f\\v\") -> str")
def lstrip(self: str, chars: str = _STRIP_DEFAULT) -> str:
    """Remove leading bytes found in `chars`."""
    if self.isascii() and chars.isascii() and chars != _STRIP_DEFAULT_ESCAPED:
        return self.lstrip(chars)
    return from_bytes(to_bytes(self).lstrip(_chars(chars)))


@op("aten::rstrip(str self, str chars=\" \\n\\t\\f\\v\") -> str")
def rstrip(self: str, chars: str = _STRIP_DEFAULT) -> str:
    """Remove trailing bytes found in `chars`."""
    if self.isascii() and chars.isascii() and chars != _STRIP_DEFAULT_ESCAPED:
        return self.rstrip(chars)
    return from_bytes(to_bytes(self).rstrip(_chars(chars)))


def _fill(fillchar: str) -> bytes:
    f = to_bytes(fillchar)
    if len(f) != 1:
        raise ts_error("TypeError: The fill character must be exactly one character long")
    return f


@op("aten::center(str self, int width, str fillchar=\" \") -> str")
def center(self: str, width: int, fillchar: str = " ") -> str:
    """Centre in `width` bytes (extra padding on the right, as Python)."""
    return from_bytes(to_bytes(self).center(max(width, 0), _fill(fillchar)))


@op("aten::ljust(str self, int width, str fillchar=\" \") -> str")
def ljust(self: str, width: int, fillchar: str = " ") -> str:
    """Pad on the right to `width` bytes."""
    return from_bytes(to_bytes(self).ljust(max(width, 0), _fill(fillchar)))


@op("aten::rjust(str self, int width, str fillchar=\" \") -> str")
def rjust(self: str, width: int, fillchar: str = " ") -> str:
    """Pad on the left to `width` bytes."""
    return from_bytes(to_bytes(self).rjust(max(width, 0), _fill(fillchar)))


@op("aten::zfill(str self, int width) -> str")
def zfill(self: str, width: int) -> str:
    """Pad on the left with '0' (a sign is not moved to the front)."""
    return from_bytes(to_bytes(self).rjust(max(width, 0), b"0"))


@op("aten::expandtabs(str self, int tabsize=8) -> str")
def expandtabs(self: str, tabsize: int = 8) -> str:
    """Replace tabs by spaces up to the next multiple of `tabsize`, counting columns over
    the whole output (PyTorch does not restart them after a newline)."""
    out = bytearray()
    for c in to_bytes(self):
        if c == 0x09:
            if tabsize > 0:
                out += b" " * (tabsize - len(out) % tabsize)
        else:
            out.append(c)
    return from_bytes(bytes(out))


# ---- case conversion and character classes -----------------------------------------------

# On ASCII text these str methods agree with the bytes methods (isspace does not: str's
# counts \x1c-\x1f as whitespace), so ASCII strings skip the UTF-8 round trip.
_ASCII_SAME = {"lower", "upper", "title", "capitalize", "swapcase", "isdigit", "isalpha",
               "isalnum", "islower", "isupper", "istitle"}


def _bytes_method(name: str, doc: str) -> None:
    if name in _ASCII_SAME:
        def kernel(self: str) -> object:
            if self.isascii():
                return getattr(self, name)()
            return _convert(getattr(to_bytes(self), name)())
    else:
        def kernel(self: str) -> object:
            return _convert(getattr(to_bytes(self), name)())
    kernel.__name__, kernel.__doc__ = name, doc
    op(f"aten::{name}(str self) -> " +
       ("bool" if name.startswith("is") else "str"))(kernel)


def _convert(v: object) -> object:
    return from_bytes(v) if isinstance(v, bytes) else v


for _name, _doc in (("lower", "ASCII lower case."), ("upper", "ASCII upper case."),
                    ("title", "Upper-case each letter after a non-letter, lower the rest."),
                    ("capitalize", "Upper-case the first byte, lower-case the rest."),
                    ("swapcase", "Swap ASCII case."),
                    ("isdigit", "Non-empty and all ASCII digits."),
                    ("isalpha", "Non-empty and all ASCII letters."),
                    ("isalnum", "Non-empty and all ASCII letters or digits."),
                    ("isspace", "Non-empty and all C whitespace (space, \\t\\n\\v\\f\\r)."),
                    ("islower", "Has a cased byte and no upper-case one."),
                    ("isupper", "Has a cased byte and no lower-case one."),
                    ("istitle", "Title-cased: upper case only after non-letters.")):
    _bytes_method(_name, _doc)


@op("aten::isdecimal(str self) -> bool")
def isdecimal(self: str) -> bool:
    """Non-empty and all ASCII digits."""
    return to_bytes(self).isdigit()


@op("aten::isnumeric(str self) -> bool")
def isnumeric(self: str) -> bool:
    """Non-empty and all ASCII digits."""
    return to_bytes(self).isdigit()


@op("aten::isprintable(str self) -> bool")
def isprintable(self: str) -> bool:
    """Every byte is printable ASCII (an empty string is printable)."""
    return all(0x20 <= c <= 0x7E for c in to_bytes(self))


@op("aten::isidentifier(str self) -> bool")
def isidentifier(self: str) -> bool:
    """Non-empty, not starting with a digit, all ASCII letters or digits (no '_')."""
    b = to_bytes(self)
    return bool(b) and not b[:1].isdigit() and b.isalnum()
