"""The storages of torch.save files: their bytes, read or mapped, and their element types.

A storage is a `uint8` array of its bytes (a copy, or a view of the reader's private
mapping with mmap=True), viewed as the dtype of each tensor that uses it, byte-swapped
once if the file is big-endian. Zip files keep one record per storage (`data/<key>`),
whose data offsets may be computed in file order instead of read from each local header
(`config.load.calculate_storage_offsets`); legacy files keep them after their pickles.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any, Optional, Union

import numpy as np

from .._tensor.dtypes import as_dtype, dtype as Dtype
from . import checkpoint_format as F
from . import pickle_format as P
from .errors import CheckpointError
from .zip_archive import ArchiveReader


@dataclass
class Storage:
    """A storage: its bytes (`data`, uint8) and the dtype of its elements (for typed
    storages; tensors of an untyped one say theirs)."""

    data: np.ndarray
    dtype: Optional[Dtype]
    key: str
    swap: bool                      # big-endian bytes still to swap (once a dtype is known)
    typed: dict = field(default_factory=dict)   # dtype -> the data viewed as it

    def elements(self, d: Dtype, where: str) -> np.ndarray:
        """The storage's bytes as a vector of dtype `d`."""
        arr = self.typed.get(d)
        if arr is not None:
            return arr
        if d.np is None:
            raise CheckpointError(f"{where}: storage {self.key} holds {d.name} elements, "
                                  f"which tsjit does not support yet")
        if self.data.nbytes % d.np.itemsize:
            raise CheckpointError(f"{where}: storage {self.key} has {self.data.nbytes} bytes, "
                                  f"not a whole number of {d.name} elements")
        arr = self.typed[d] = self.data.view(d.np)
        if self.swap:
            self.swap = False
            unit = d.np.itemsize // 2 if d.kind == "c" else d.np.itemsize
            if unit > 1:
                self.data.view(f"u{unit}").byteswap(inplace=True)
        return arr


def storage_kind(pid: Any, where: str) -> tuple[str, Optional[Dtype], int, int]:
    """(key, dtype or None for untyped, number of bytes, element size) of a storage
    persistent id; an error for anything else."""
    if not (isinstance(pid, tuple) and len(pid) in (5, 6) and pid[0] == F.STORAGE_TAG):
        raise CheckpointError(f"unexpected persistent id {pid!r} in {where}")
    cls, key, numel = pid[1], pid[2], pid[4]
    if type(key) is not str or type(numel) is not int or numel < 0 or \
            type(cls) is not P.Global:
        raise CheckpointError(f"bad storage reference {pid!r} in {where}")
    if cls in F.UNTYPED_STORAGES:
        return key, None, numel, 1
    d = _STORAGE_DTYPES.get(cls)
    if d is None:
        name = F.TYPED_STORAGES.get(cls)
        if name is None:
            raise CheckpointError(f"unknown storage type {cls.qualname} in {where}")
        d = _STORAGE_DTYPES[cls] = storage_dtype(name, where)
    return key, d, numel * d.itemsize, d.itemsize


_STORAGE_DTYPES: dict[P.Global, Dtype] = {}    # (the dtype of each storage class met)


def storage_dtype(name: str, where: str) -> Dtype:
    """The dtype called `name` (as torch names it); an error if tsjit has none."""
    try:
        return as_dtype(name)
    except TypeError:
        raise CheckpointError(f"{where} holds torch.{name} tensors, a dtype tsjit does not "
                              "support") from None


class ZipStorages:
    """The storages of a zip checkpoint (`data/<key>`), each made once."""

    def __init__(self, reader: ArchiveReader, mmap: bool, order: str, computed: bool) -> None:
        self.reader = reader
        self.mmap = mmap
        self.swap = order == "big"
        self.made: dict[str, Storage] = {}
        # calculate_storage_offsets: the storages' data offsets, computed when first needed
        self.cursor = 0 if computed else -1
        self.offsets: Optional[dict[str, int]] = None
        self.alignment = _alignment(reader) if computed else 0

    def get(self, pid: Any, where: str) -> Storage:
        key, d, nbytes, _ = storage_kind(pid, where)
        found = self.made.get(key)
        if found is not None:
            return found
        name = F.STORAGE_FOLDER + key
        reader = self.reader
        if not reader.has(name):
            raise CheckpointError(f"{where} refers to storage {reader.top}/{name}, which the "
                                  "file lacks")
        size = reader.record_size(name)
        if size != nbytes:
            raise CheckpointError(f"storage {reader.top}/{name} has {size} bytes but its "
                                  f"reference in {where} needs {nbytes}")
        if self.mmap:
            data = np.frombuffer(self._view(name, size), np.uint8)
        else:
            data = np.empty(nbytes, np.uint8)
            reader.readinto(name, data)
        s = self.made[key] = Storage(data, d, key, self.swap and nbytes > 0)
        return s

    def _view(self, name: str, size: int) -> memoryview:
        """The record's bytes in the mapping; with computed offsets, found from the
        records before it (see `storage_data_offset`) instead of its local header."""
        reader = self.reader
        if self.cursor == -1:
            return reader.storage_view(name)
        if self.offsets is None:
            self.offsets = computed_offsets(reader, self.alignment)
        at = self.offsets.get(name)
        return reader.storage_view(name) if at is None else reader.view_at(name, at)


def computed_offsets(reader: ArchiveReader, alignment: int) -> dict[str, int]:
    """The data offsets of the storage records that follow the first one in the file,
    computed from it and their names and sizes (`calculate_storage_offsets`): only the
    first storage's local header is read."""
    names = [n for n in reader.names() if n.startswith(F.STORAGE_FOLDER)]
    if not names:
        return {}
    first = reader.info(names[0])
    out = {names[0]: first.data_offset}
    cursor = first.data_offset + first.size + data_descriptor_size(first.size, first.data_offset)
    for name in names[1:]:
        size = reader.record_size(name)
        at = out[name] = storage_data_offset(cursor, len(f"{reader.top}/{name}".encode()),
                                             size, alignment)
        cursor = at + size + data_descriptor_size(size, at)
    return out


def _alignment(reader: ArchiveReader) -> int:
    if not reader.has(F.ALIGNMENT_RECORD):
        return 64
    text = reader.read(F.ALIGNMENT_RECORD).decode("ascii", "replace").strip()
    if not text.isdigit() or int(text) <= 0:
        raise CheckpointError(f"bad {reader.top}/{F.ALIGNMENT_RECORD} record: {text!r}")
    return int(text)


_LOCAL_HEADER = 30          # a zip local header without its name and extra fields
_EXTRA_HEADER = 4           # an extra field's id and length
_U32_MAX = 0xFFFFFFFF


def storage_data_offset(header: int, name_size: int, size: int, alignment: int) -> int:
    """Where the data of a storage record whose local header starts at `header` begins,
    as PyTorch's writer lays records out (`config.load.calculate_storage_offsets`): after
    the header, the name, a zip64 extra field when the size or offset needs one, and the
    padding field that aligns the data."""
    start = header + _LOCAL_HEADER + name_size + _EXTRA_HEADER
    if size >= _U32_MAX or header >= _U32_MAX:
        start += _EXTRA_HEADER + (16 if size >= _U32_MAX else 0) + (8 if header >= _U32_MAX else 0)
    return start + (-start) % alignment


def data_descriptor_size(size: int, data_offset: int) -> int:
    """Bytes of the data descriptor after a record's data: none for an empty record, 24
    with zip64 sizes, else 16."""
    if size == 0:
        return 0
    return 24 if size >= _U32_MAX or data_offset >= _U32_MAX else 16


class LegacyStorages:
    """The storages of a legacy file, read from the data after its pickles in the order
    of their keys; what each holds is said by the object's persistent ids."""

    def __init__(self, swap: bool) -> None:
        self.swap = swap
        self.made: dict[str, Storage] = {}

    def get(self, pid: Any, where: str) -> Storage:
        key = storage_kind(pid, where)[0]
        found = self.made.get(key)
        if found is None:
            raise CheckpointError(f"{where} refers to storage {key}, which the file lacks")
        return found

    def read(self, model: Any, data: Union[bytes, bytearray], pos: int, keys: Any,
             name: str, little: bool) -> None:
        """Read the storages' data, in the order of `keys`, from offset `pos` of `data`."""
        if not isinstance(keys, list) or set(map(type, keys)) - {str}:
            raise CheckpointError(f"{name}: the list of storage keys is damaged")
        kinds = {}
        for pid in persistent_ids(model):
            key, d, nbytes, item = storage_kind(pid.pid, name)
            if len(pid.pid) == 6 and pid.pid[5] is not None:
                raise CheckpointError(f"{name}: storage views of PyTorch < 0.4 files are "
                                      "not supported")
            kinds[key] = (d, nbytes, item)
        count = struct.Struct("<q" if little else ">q")
        for key in keys:
            if key not in kinds:
                raise CheckpointError(f"{name}: storage {key} holds data but nothing refers "
                                      "to it")
            d, n, item = kinds[key]
            if pos + F.LEGACY_COUNT_SIZE + n > len(data):
                raise CheckpointError(f"{name} is truncated: storage {key} needs {n} bytes "
                                      f"at offset {pos + F.LEGACY_COUNT_SIZE}")
            elements = count.unpack_from(data, pos)[0]
            if elements * item != n:
                raise CheckpointError(f"{name}: storage {key} says {elements} elements at "
                                      f"offset {pos}, its reference says {n // item}")
            pos += F.LEGACY_COUNT_SIZE
            self.made[key] = Storage(np.frombuffer(data, np.uint8, n, pos).copy(), d, key,
                                      self.swap and n > 0)
            pos += n


def persistent_ids(model: Any) -> list[P.PersistentId]:
    """Every persistent id record in a model value (walked without recursion)."""
    found, seen, todo = [], set(), [model]
    while todo:
        v = todo.pop()
        if id(v) in seen or type(v) in (type(None), bool, int, float, str, bytes):
            continue
        seen.add(id(v))
        if type(v) is P.PersistentId:
            found.append(v)
        elif isinstance(v, (tuple, list, set, frozenset)):
            todo.extend(v)
        elif isinstance(v, dict):
            todo.extend(v.keys())
            todo.extend(v.values())
        elif type(v) in (P.Reduce, P.Object):
            todo.extend((v.args, v.state, v.items, v.appended, getattr(v, "kwargs", None)))
    return found
