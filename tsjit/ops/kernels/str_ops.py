"""Core str operators: str(), len, indexing, slicing, +, join, list(str), ord / chr / hex.

Strings are byte strings in TorchScript (see `str_common`): `len`, `s[i]`, `s[a:b]` and
`list(s)` count UTF-8 bytes, so `"é"[0]` is half a character. Failures reproduce the C++
messages PyTorch surfaces, e.g. "basic_string::at: __n (which is 5) >= this->size()
(which is 2)".
"""
from __future__ import annotations

from typing import Any, Optional

from ..formatting import to_str
from ..registry import op
from .list_ops import check_slice_step
from .scalar_common import ts_error
from .str_common import byte_len, from_bytes, rejoin, to_bytes

_U64 = 1 << 64


@op("aten::str(t elem) -> str")
def str_(elem: Any) -> str:
    """TorchScript's str(): floats as `1.`, containers without quotes around strings."""
    return to_str(elem)


@op("aten::len.str(str s) -> int")
def len_str(s: str) -> int:
    """The number of UTF-8 bytes."""
    return byte_len(s)


@op("aten::__getitem__.str(str s, int index) -> str",
    "prim::StringIndex(str string, int index) -> str")
def getitem_str(s: str, index: int) -> str:
    """The byte at `index` (negative counts from the end) as a one-byte string."""
    if s.isascii():
        size = len(s)
        i = index + size if index < 0 else index
        if 0 <= i < size:
            return s[i]
    else:
        b = to_bytes(s)
        size = len(b)
        i = index + size if index < 0 else index
        if 0 <= i < size:
            return from_bytes(b[i:i + 1])
    # std::string::at with the index as an unsigned size_t.
    raise ts_error(f"basic_string::at: __n (which is {i % _U64}) >= this->size() "
                   f"(which is {size})")


@op("aten::slice.str(str string, int? start=None, int? end=None, int step=1) -> str")
def slice_str(string: str, start: Optional[int] = None, end: Optional[int] = None,
              step: int = 1) -> str:
    """s[start:end:step] over bytes."""
    check_slice_step(step)
    if string.isascii():
        return string[start:end:step]
    return from_bytes(to_bytes(string)[start:end:step])


@op("aten::add.str(str a, str b) -> str")
def add_str(a: str, b: str) -> str:
    """Concatenation (of bytes: two halves of a character make the character)."""
    return rejoin(a + b)


@op("aten::list(str t) -> str[]")
def list_str(t: str) -> list[str]:
    """The bytes of the string, each as a one-byte string."""
    if t.isascii():
        return list(t)
    b = to_bytes(t)
    return [from_bytes(b[i:i + 1]) for i in range(len(b))]


@op("aten::join(str self, str[] values) -> str")
def join(self: str, values: list[str]) -> str:
    """`self.join(values)`."""
    return rejoin(self.join(values))


@op("aten::ord(str string) -> int")
def ord_(string: str) -> int:
    """The value (0-255) of a one-byte string."""
    b = to_bytes(string)
    if len(b) != 1:
        raise ts_error(f"String for ord() must be 1 character, found {len(b)}")
    return b[0]


@op("aten::chr(int i) -> str")
def chr_(i: int) -> str:
    """A one-byte string holding the low byte of `i`."""
    # PyTorch checks Python's range (excluding 0x10FFFF itself) but then stores a C char.
    if not 0 <= i < 0x10FFFF:
        raise ts_error(f"chr() arg not in range(0x110000), found {i}")
    return from_bytes(bytes([i & 0xFF]))


@op("aten::hex(int i) -> str")
def hex_(i: int) -> str:
    """'0x..' / '-0x..' like Python."""
    return hex(i)


@op("aten::oct(int i) -> str")
def oct_(i: int) -> str:
    """'0o..' / '-0o..' like Python."""
    return oct(i)


@op("aten::bin(int i) -> str")
def bin_(i: int) -> str:
    """'0b..' / '-0b..' like Python."""
    return bin(i)
