"""What `load` functions read from: a path, bytes, or a file-like object; and where
tensors go (the CPU: tsjit has no other device)."""
from __future__ import annotations

import os
from typing import Any

from ..ir.diagnostics import TsjitError


def source_of(f: Any, mmap: bool = False) -> Any:
    """A path, or the bytes of a file-like object (from its current position), writable
    so that tensors viewing them are."""
    if isinstance(f, (str, os.PathLike)):
        return f
    if isinstance(f, (bytes, bytearray, memoryview)):
        return f
    if mmap:
        raise TsjitError("f must be a file path in order to use the mmap argument")
    read = getattr(f, "read", None)
    if read is None:
        raise TsjitError(f"cannot load from a {type(f).__name__}: expected a path or a "
                         "file-like object")
    data = read()
    if not isinstance(data, (bytes, bytearray)):
        raise TsjitError(f"{type(f).__name__}.read() gave {type(data).__name__}, not bytes: "
                         "open the file in binary mode ('rb')")
    return data if isinstance(data, bytearray) else bytearray(data)   # (tensors writable)


def check_map_location(map_location: Any) -> None:
    """tsjit loads to the CPU: map_location may only say so."""
    if map_location is None:
        return
    targets = map_location.values() if isinstance(map_location, dict) else [map_location]
    for t in targets:
        if callable(t) and not isinstance(t, str) and type(t).__name__ != "Device":
            raise TsjitError("map_location as a function is not supported: tsjit loads "
                             "tensors to the CPU")
        if str(t) != "cpu":
            raise TsjitError(f"map_location={map_location!r}: tsjit loads tensors to the CPU "
                             "only")
