"""Where the LALR tables built from grammar.lark are cached between processes.

Building the tables costs about a second; loading them from lark's cache file costs
a few tens of milliseconds. The cache file is a pickle, so it must live in a directory
that only the current user can write: we never read one from a shared place.
Environment: TSJIT_PARSER_CACHE_DIR picks the directory, TSJIT_NO_PARSER_CACHE=1
turns caching off. This module does not import lark (parser.py is the only one).
"""
from __future__ import annotations

import hashlib
import os
import stat
import sys
import tempfile
from typing import Iterator, Optional


def cache_file(grammar_text: str, lark_version: str, options: str = "") -> Optional[str]:
    """Path of the cache file for this grammar + lark + Python, or None if caching is off."""
    if os.environ.get("TSJIT_NO_PARSER_CACHE", "") not in ("", "0"):
        return None
    # Lark checks its own hash inside the file too; keying the name as well lets several
    # grammar versions / lark versions / Pythons (pickle formats) coexist without thrashing.
    material = "\0".join([grammar_text, lark_version, sys.version, options])
    key = hashlib.sha256(material.encode("utf-8")).hexdigest()[:24]
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
