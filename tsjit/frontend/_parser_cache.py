"""Where the parser's tables built from grammar.lark are cached between processes.

Building them (lark reading the grammar and making the LALR table) costs a few hundred
milliseconds; reading them back a few, without importing lark at all. The file is keyed by
the grammar's text, lark's release, Python's version and the table format (a new grammar
or lark gets a new file). It holds plain data (lists, dicts, strings, numbers) after a header
line with the payload's CRC-32, and lives in a directory only the current user can write; it is
written to a temporary name and renamed, so concurrent processes read a whole file or
none. A missing, unreadable, truncated or corrupt file is rebuilt as if absent, and a
directory that cannot be written just means no cache.
The payload is `marshal`'s (as a .pyc file's, and read back by the same Python only: its
version is in the key), checked by its CRC-32: a first script spent 7 ms importing
hashlib and json and reading the file with them, and half a millisecond this way.
Environment: TSJIT_PARSER_CACHE_DIR picks the directory, TSJIT_NO_PARSER_CACHE=1
turns caching off. This module does not import lark (parser.py is the only one).
"""
from __future__ import annotations

import importlib.util
import marshal
import os
import re
import stat
import sys
import tempfile
import zlib
from typing import Any, Iterator, Optional

_HEADER = b"tsjit-parser-cache "


def cache_file(grammar_text: str, lark_version: str, options: str = "") -> Optional[str]:
    """Path of the cache file for this grammar + lark + Python, or None if caching is off."""
    if os.environ.get("TSJIT_NO_PARSER_CACHE", "") not in ("", "0"):
        return None
    # keying the name (not only the checked header) lets several grammars, lark releases
    # and Pythons share the directory without rewriting each other's file
    material = "\0".join([grammar_text, lark_version, sys.version, options])
    raw = material.encode("utf-8")
    key = f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}"   # 64 bits: names, not security
    for folder in _candidate_dirs():
        if _usable(folder):
            return os.path.join(folder, f"grammar-{key}.lark-cache")
    return None


def _candidate_dirs() -> Iterator[str]:
    override = os.environ.get("TSJIT_PARSER_CACHE_DIR")
    if override:
        yield override
        return
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        yield os.path.join(xdg, "tsjit")
    home = os.path.expanduser("~")
    if home and home != "~":
        yield os.path.join(home, ".cache", "tsjit")
    uid = os.getuid() if hasattr(os, "getuid") else os.getpid()
    yield os.path.join(tempfile.gettempdir(), f"tsjit-cache-{uid}")


def _usable(folder: str) -> bool:
    """True if `folder` exists (or can be made), is ours, and nobody else can write it."""
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        st = os.stat(folder)
    except OSError:
        return False
    if not stat.S_ISDIR(st.st_mode):
        return False
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return False  # e.g. a directory planted in /tmp by another user
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return False
    return os.access(folder, os.W_OK | os.X_OK)


def lark_version() -> Optional[str]:
    """The installed lark's version, read from its `__init__.py` without importing it
    (importing lark costs ~30 ms that a warm cache makes unnecessary); None if unknown."""
    try:
        spec = importlib.util.find_spec("lark")
        if spec is None or not spec.origin:
            return None
        with open(spec.origin, encoding="utf-8") as f:
            m = re.search(r"^__version__(?:\s*:\s*str)?\s*=\s*['\"]([^'\"]+)['\"]", f.read(), re.M)
    except (OSError, ImportError, ValueError, UnicodeDecodeError):
        return None
    return m.group(1) if m else None


def seal(payload: bytes) -> bytes:
    """The file's bytes: the header line with `payload`'s checksum, then `payload`."""
    return b"%s%08x\n%s" % (_HEADER, zlib.crc32(payload), payload)


def read_data(path: str) -> Optional[Any]:
    """The data cached at `path`, or None when it is missing, unreadable or corrupt."""
    try:
        with open(path, "rb") as f:
            blob = f.read()
        header, _, payload = blob.partition(b"\n")
        if header != b"%s%08x" % (_HEADER, zlib.crc32(payload)):
            return None
        return marshal.loads(payload)
    except (OSError, ValueError, EOFError, TypeError):
        return None


def write_data(path: str, data: Any) -> bool:
    """Cache `data` at `path`: written to a temporary file beside it and renamed over it,
    so a reader never sees half a file. False (and nothing left behind) if it cannot."""
    blob = seal(marshal.dumps(data))
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-",
                                   suffix=".lark-cache")
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
        os.replace(tmp, path)
        return True
    except OSError:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        return False
