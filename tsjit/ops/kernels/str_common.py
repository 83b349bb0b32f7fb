"""Byte-level view of TorchScript strings, shared by the str kernels.

TorchScript strings are C++ `std::string`s holding UTF-8 bytes: `len("é")` is 2, indexing
and slicing work on bytes, and character classes (isalpha, upper, ...) are those of the
"C" locale, so non-ASCII bytes are never letters or spaces. At run time strings are Python
`str`s; a kernel that needs byte semantics encodes with `surrogateescape`, so a byte
string that is not valid UTF-8 (e.g. half of "é") survives as a lone surrogate and
re-encodes to the same bytes. No operators are registered here.
"""
from __future__ import annotations

ENC = "utf-8"
ERR = "surrogateescape"

# C's isspace in the "C" locale.
C_SPACE = b" \t\n\v\f\r"


def to_bytes(s: str) -> bytes:
    """The UTF-8 bytes of a runtime string."""
    return s.encode(ENC, ERR)


def from_bytes(b: bytes) -> str:
    """A runtime string from UTF-8 bytes (invalid sequences kept as lone surrogates)."""
    return b.decode(ENC, ERR)


def rejoin(s: str) -> str:
    """Normalise a concatenation: adjacent byte fragments (lone surrogates) that together
    form valid UTF-8 become the characters they encode."""
    if s.isascii():
        return s
    return from_bytes(to_bytes(s))


def byte_len(s: str) -> int:
    """len() of a TorchScript string: its UTF-8 byte count."""
    return len(s) if s.isascii() else len(to_bytes(s))
