"""torch.save files -> Python containers of tensors, safely (the read side of `tsjit.load`).

`load_checkpoint` reads a zip or legacy file (see `checkpoint_format`): the unpickler
turns `data.pkl` into the neutral model under the checkpoint allow-list (refusing any
other global before anything is built), then `CheckpointRebuilder` makes the values:
containers, tensors that view their storages (shared storages stay shared, a tensor
saved twice is one object), Parameters, sizes, dtypes, devices, sparse tensors, and
objects of the classes the user allowed (made by `__new__` and given their state, as
PyTorch makes them). It calls nothing a file names but those; with weights_only=False,
objects of other classes become inert stand-ins (`PickledObject`), and calls of other
functions are refused: tsjit has no unsafe mode.

Storages are copies (mmap=False) or views of one private, copy-on-write mapping of the
file (mmap=True; nothing is read until touched). Big-endian data is swapped on load.
"""
from __future__ import annotations

import os
from typing import Any, Optional, Union

from . import checkpoint_format as F
from .checkpoint_storages import LegacyStorages, ZipStorages
from .checkpoint_values import CheckpointRebuilder, LoadOptions, PickledObject
from .errors import ArchiveError, CheckpointError, UnpicklingError, WeightsOnlyError
from .unpickler import disassemble, unpickle_prefix
from .weights_only import CheckpointAllowList, refusal
from .zip_archive import ArchiveReader

Source = Union[str, os.PathLike, bytes, bytearray, memoryview]


class TorchScriptArchive(CheckpointError):
    """Raised by `load_checkpoint` for a TorchScript archive: the caller loads it as one
    from `reader`, open (or closes it)."""

    def __init__(self, message: str, reader: ArchiveReader) -> None:
        super().__init__(message)
        self.reader = reader


def file_kind(head: bytes) -> str:
    """"legacy", "tar" or (anything else, for the zip reader to judge) "zip", from a
    file's first 512 bytes."""
    if head[:3] == b"\x80\x02\x8a":     # PROTO 2, LONG1: the magic number
        return "legacy"
    if head[257:262] == b"ustar":
        return "tar"
    return "zip"


def load_checkpoint(source: Source, options: LoadOptions) -> Any:
    """The object saved in torch.save file `source` (a path or the file's bytes)."""
    name = os.fspath(source) if isinstance(source, (str, os.PathLike)) else "<bytes>"
    head = _head(source)
    kind = file_kind(head)
    if kind == "zip":
        return _load_zip(source, options)
    if kind == "legacy":
        if options.mmap:
            raise CheckpointError(
                "mmap can only be used with files saved with `torch.save(file.pt, "
                "_use_new_zipfile_serialization=True)`, please torch.save your checkpoint "
                f"with this option in order to use mmap ({name} is in the legacy format)")
        data = source if not isinstance(source, (str, os.PathLike)) else _read_file(name)
        if not isinstance(data, (bytes, bytearray)):
            data = bytes(data)
        return _load_legacy(data, name, options)
    raise CheckpointError(f"{name} is a tar file: PyTorch < 0.4's checkpoint format is not "
                          "supported")


def describe(path: str) -> Optional[str]:
    """What file `path` is, if it is a torch.save checkpoint ("a torch.save checkpoint
    (zip, 3 storages)"); None for a TorchScript archive or anything else."""
    kind = file_kind(_head(path))
    if kind == "legacy":
        return "a torch.save checkpoint in the legacy format"
    if kind != "zip":
        return None
    try:
        reader = open_zip_checkpoint(path)
    except TorchScriptArchive as archive:
        archive.reader.close()
        return None
    except ArchiveError:
        return None
    with reader:
        n = sum(name.startswith(F.STORAGE_FOLDER) for name in reader.names())
        return f"a torch.save checkpoint (zip, {n} storage{'s' * (n != 1)})"


def _head(source: Source) -> bytes:
    if not isinstance(source, (str, os.PathLike)):
        return bytes(memoryview(source)[:512])
    try:
        with open(source, "rb") as f:
            return f.read(512)
    except FileNotFoundError:
        raise CheckpointError(f"no such file: {os.fspath(source)}") from None
    except OSError as exc:
        raise CheckpointError(f"cannot open {os.fspath(source)}: {exc.strerror or exc}") from exc


def _read_file(name: str) -> bytes:
    try:
        with open(name, "rb") as f:
            return f.read()
    except OSError as exc:
        raise CheckpointError(f"cannot read {name}: {exc.strerror or exc}") from exc


def open_zip_checkpoint(source: Source) -> ArchiveReader:
    """The reader of a zip checkpoint; TorchScriptArchive if it is a TorchScript archive."""
    reader = ArchiveReader(source)
    if reader.has(F.TORCHSCRIPT_RECORD):
        raise TorchScriptArchive(f"{reader.path} is a TorchScript archive", reader)
    if not reader.has(F.DATA_PKL):
        reader.close()
        raise CheckpointError(f"{reader.path} is not a torch.save checkpoint: it has no "
                              f"{reader.top}/{F.DATA_PKL}")
    return reader


def _load_zip(source: Source, options: LoadOptions) -> Any:
    reader = open_zip_checkpoint(source)
    try:
        order = _byte_order(reader, options)
        where = f"{reader.top}/{F.DATA_PKL}"
        data = reader.read(F.DATA_PKL)
        model, end = _unpickle(data, 0, where, options)
        if end != len(data):
            raise CheckpointError(f"{len(data) - end} bytes of trailing data after the "
                                  f"pickle in {where}")
        computed = options.mmap and options.calculate_storage_offsets and \
            reader.has(F.FORMAT_VERSION_RECORD)
        storages = ZipStorages(reader, options.mmap, order, computed)
        value = CheckpointRebuilder(storages, options, where).value(model)
    except BaseException:
        reader.close()
        raise
    if options.mmap:
        reader.release_file()    # (the mapping stays while tensors view it)
    else:
        reader.close()
    return value


def _byte_order(reader: ArchiveReader, options: LoadOptions) -> str:
    if reader.has(F.BYTEORDER_RECORD):
        order = reader.read(F.BYTEORDER_RECORD).decode("ascii", "replace").strip()
        if order not in ("little", "big"):
            raise CheckpointError(f"bad byteorder record {reader.top}/{F.BYTEORDER_RECORD}: "
                                  f"{order!r}")
        return order
    return options.endianness or "little"


def _unpickle(data: Union[bytes, bytearray], start: int, where: str,
              options: LoadOptions) -> tuple[Any, int]:
    """The model of the pickle at `start` under the checkpoint allow-list, and its end."""
    if options.weights_only:
        refuse_new_protocols(data, start, where)
    allow = CheckpointAllowList(options.safe_globals, any_name=not options.weights_only)
    try:
        return unpickle_prefix(data, start, where, allow)
    except UnpicklingError as err:
        if getattr(err, "forbidden", None) is not None:
            raise refusal(err) from None
        raise


def refuse_new_protocols(data: Union[bytes, bytearray], start: int, where: str) -> None:
    """weights_only=True refuses pickles of protocol 4 and 5 as PyTorch 2.13 does (its
    unpickler lacks their FRAME opcode), so that a file loads, or not, alike in both; they
    load with weights_only=False, which in tsjit keeps the same allow-list."""
    if data[start:start + 1] != b"\x80" or len(data) < start + 2 or data[start + 1] < 4:
        return
    for offset, info, _ in disassemble(bytes(data[start:]), where):
        if info.proto >= 4 and info.name != "PROTO":
            raise WeightsOnlyError(
                f"Weights only load failed. WeightsUnpickler error: Unsupported operand "
                f"{info.code} ({info.name}, pickle protocol {data[start + 1]}) in {where} at "
                f"offset {offset}. PyTorch's weights-only loading refuses pickle protocols 4 "
                "and 5, and so does tsjit's, so that files load alike in both. tsjit loads "
                "this file with weights_only=False, which still never imports or calls "
                "anything outside the allow-list and your safe globals (tsjit has no unsafe "
                "mode).", record=where, offset=offset)
        if info.name == "STOP":
            return


def _load_legacy(data: Union[bytes, bytearray], name: str, options: LoadOptions) -> Any:
    where = f"{name} (legacy format)"

    def one(pos: int, allow: Any) -> tuple[Any, int]:
        return unpickle_prefix(data, pos, where, allow)

    def header(pos: int) -> tuple[Any, int]:
        return one(pos, lambda module, name: False)

    try:
        magic, pos = header(0)
        if magic != F.LEGACY_MAGIC:
            raise CheckpointError(f"{name} is not a torch.save checkpoint (no magic number)")
        version, pos = header(pos)
        if version != F.LEGACY_PROTOCOL_VERSION:
            raise CheckpointError(f"{name}: legacy format version {version!r} is not "
                                  f"supported (only {F.LEGACY_PROTOCOL_VERSION})")
        info, pos = header(pos)
    except UnpicklingError as err:
        raise CheckpointError(f"{name} is not a torch.save checkpoint: {err}") from None
    little = info.get("little_endian", True) if isinstance(info, dict) else True
    model, pos = _unpickle(data, pos, where, options)
    keys, end = one(pos, lambda module, name: False)
    storages = LegacyStorages(swap=not little)
    storages.read(model, data, end, keys, name, little)
    return CheckpointRebuilder(storages, options, where).value(model)


__all__ = ["LoadOptions", "TorchScriptArchive", "load_checkpoint", "open_zip_checkpoint",
           "describe", "file_kind", "PickledObject"]
