"""Extra files: records under `extra/` that users store beside a module, as PyTorch's
`torch.jit.save(m, f, _extra_files={"name": content})` writes them.

They are written first in the archive, stored uncompressed, in the order given (PyTorch's
order is that of a hash map, so no order is more faithful). A module loaded from an
archive keeps its archive's extra files: saving it writes them again, byte for byte.
"""
from __future__ import annotations

import os
from typing import Any, Mapping, Optional

from .errors import ArchiveError
from .zip_archive import ArchiveReader, check_name

FOLDER = "extra/"


def normalize_extra_files(files: Optional[Mapping[str, Any]]) -> dict[str, bytes]:
    """`{name: bytes}` from `{name: bytes or str}`; an ArchiveError for unsafe names or
    contents of other types."""
    out: dict[str, bytes] = {}
    for name, content in (files or {}).items():
        if not isinstance(name, str):
            raise ArchiveError(f"extra file names must be str, not {type(name).__name__}")
        if not name or name.endswith("/"):     # a folder entry, not a file
            raise ArchiveError(f"unsafe record name {FOLDER + name!r} for an extra file")
        check_name(FOLDER + name, f"the extra file name {name!r}")
        if isinstance(content, str):
            content = content.encode("utf-8")
        elif isinstance(content, (bytes, bytearray, memoryview)):
            content = bytes(content)
        else:
            raise ArchiveError(f"extra file {name!r}: content must be bytes or str, "
                               f"not {type(content).__name__}")
        out[name] = content
    return out


def _reader(archive: Any) -> Optional[ArchiveReader]:
    """The reader of a loaded module's archive (None for a scripted module), or a new one
    for a path or the archive's bytes."""
    if isinstance(archive, ArchiveReader):
        return archive
    if hasattr(archive, "_c"):      # a ScriptModule; tsjit.load records its archive
        return vars(archive).get("_archive")
    if isinstance(archive, (str, os.PathLike)) and not os.path.exists(archive):
        raise ArchiveError(f"no such file: {os.fspath(archive)}")
    if isinstance(archive, (str, os.PathLike, bytes, bytearray, memoryview)):
        return ArchiveReader(archive)
    raise ArchiveError(f"expected an archive (a path or its bytes) or a module, "
                       f"not {type(archive).__name__}")


def list_extra_files(archive: Any) -> list[str]:
    """Names of the extra files (without `extra/`) of an archive: a path, the archive's
    bytes, or a module loaded with tsjit.load (a scripted module has none)."""
    reader = _reader(archive)
    if reader is None:
        return []
    return [n[len(FOLDER):] for n in reader.names() if n.startswith(FOLDER)]


def read_extra_files(archive: Any) -> dict[str, bytes]:
    """The extra files of an archive (see list_extra_files), name -> content."""
    reader = _reader(archive)
    if reader is None:
        return {}
    return {name: reader.read(FOLDER + name) for name in list_extra_files(reader)}


def fill_extra_files(reader: ArchiveReader, requested: Any) -> None:
    """Set each key of the dict `requested` to the content of that extra file, as
    torch.jit.load does (b"" for a name the archive lacks)."""
    if not hasattr(requested, "keys") or not hasattr(requested, "__setitem__"):
        raise ArchiveError(f"_extra_files must be a dict, not {type(requested).__name__}")
    for name in list(requested.keys()):
        if not isinstance(name, str):
            raise ArchiveError(f"extra file names must be str, not {type(name).__name__}")
        record = FOLDER + name
        requested[name] = reader.read(record) if reader.has(record) else b""


__all__ = ["normalize_extra_files", "list_extra_files", "read_extra_files", "fill_extra_files"]
