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

import collections
import os
import struct
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union

import numpy as np

from .._tensor import Size, Tensor, device as make_device
from .._tensor.dtypes import as_dtype, dtype as Dtype
from .._tensor.sparse import layout, layout_named, sparse_tensor
from . import checkpoint_format as F
from . import pickle_format as P
from .errors import ArchiveError, CheckpointError, UnpicklingError, WeightsOnlyError
from .rebuild import FILLED, NO_SHELL, Plan, Rebuilder
from .tensor_views import tensor_array
from .unpickler import disassemble, unpickle_prefix
from .weights_only import CheckpointAllowList, qualified_name, refusal, refused_global
from .zip_archive import ArchiveReader

Source = Union[str, os.PathLike, bytes, bytearray, memoryview]


@dataclass
class LoadOptions:
    """How `load_checkpoint` loads (the public API fills it from its arguments and the
    process-wide settings)."""

    weights_only: bool = True
    mmap: bool = False
    safe_globals: dict[str, Any] = field(default_factory=dict)   # qualified name -> object
    endianness: Optional[str] = None    # byte order of files without a byteorder record
    calculate_storage_offsets: bool = False
    # makes a Parameter of a tensor (nn is above serialize: injected by the API)
    make_parameter: Callable[[Tensor, bool], Tensor] = lambda t, requires_grad: t


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
        storages = _ZipStorages(reader, options.mmap, order, computed)
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


# ------------------------------------------------------------------------------ storages

@dataclass
class _Storage:
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


def _storage_kind(pid: Any, where: str) -> tuple[str, Optional[Dtype], int, int]:
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
        d = _STORAGE_DTYPES[cls] = _dtype(name, where)
    return key, d, numel * d.itemsize, d.itemsize


_STORAGE_DTYPES: dict[P.Global, Dtype] = {}    # (the dtype of each storage class met)


def _dtype(name: str, where: str) -> Dtype:
    try:
        return as_dtype(name)
    except TypeError:
        raise CheckpointError(f"{where} holds torch.{name} tensors, a dtype tsjit does not "
                              "support") from None


class _ZipStorages:
    """The storages of a zip checkpoint (`data/<key>`), each made once."""

    def __init__(self, reader: ArchiveReader, mmap: bool, order: str, computed: bool) -> None:
        self.reader = reader
        self.mmap = mmap
        self.swap = order == "big"
        self.made: dict[str, _Storage] = {}
        # calculate_storage_offsets: the storages' data offsets, computed when first needed
        self.cursor = 0 if computed else -1
        self.offsets: Optional[dict[str, int]] = None
        self.alignment = _alignment(reader) if computed else 0

    def get(self, pid: Any, where: str) -> _Storage:
        key, d, nbytes, _ = _storage_kind(pid, where)
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
        s = self.made[key] = _Storage(data, d, key, self.swap and nbytes > 0)
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


class _LegacyStorages:
    """The storages of a legacy file, read from the data after its pickles in the order
    of their keys; what each holds is said by the object's persistent ids."""

    def __init__(self, swap: bool) -> None:
        self.swap = swap
        self.made: dict[str, _Storage] = {}

    def get(self, pid: Any, where: str) -> _Storage:
        key = _storage_kind(pid, where)[0]
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
            key, d, nbytes, item = _storage_kind(pid.pid, name)
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
            self.made[key] = _Storage(np.frombuffer(data, np.uint8, n, pos).copy(), d, key,
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
    storages = _LegacyStorages(swap=not little)
    storages.read(model, data, end, keys, name, little)
    return CheckpointRebuilder(storages, options, where).value(model)


# ------------------------------------------------------------------------------ values

class PickledObject:
    """An object of a class that was not allow-listed, loaded with weights_only=False:
    nothing was imported or called; its class is a stand-in with the class's name, and
    it holds the state the file gave it as attributes (`_pickled_args` / `_pickled_state`
    when the file gave constructor arguments, or a state that is not a dict)."""

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__qualname__} loaded as data>"


_STAND_INS: dict[str, type] = {}


def stand_in_class(full: str) -> type:
    """The stand-in class for qualified name `full` (one per name in a process)."""
    cls = _STAND_INS.get(full)
    if cls is None:
        module, _, name = full.rpartition(".")
        cls = _STAND_INS[full] = type(name.rpartition(".")[2], (PickledObject,),
                                      {"__module__": module, "__qualname__": name})
    return cls


_REBUILD_TENSOR = "torch._utils._rebuild_tensor"
_CALLS: dict[str, str] = {      # qualified name -> the method of CheckpointRebuilder making it
    _REBUILD_TENSOR: "tensor_v1",
    _REBUILD_TENSOR + "_v2": "tensor_v2",
    _REBUILD_TENSOR + "_v3": "tensor_v3",
    "torch._utils._rebuild_parameter": "parameter",
    "torch._utils._rebuild_parameter_with_state": "parameter",
    "torch.nn.parameter.Parameter": "parameter",
    "torch._utils._rebuild_sparse_tensor": "sparse",
    "torch.serialization._get_layout": "layout",
    "collections.Counter": "counter",
    "builtins.set": "set_of",
    "builtins.complex": "complex_of",
    "builtins.bytearray": "bytearray_of",
    "_codecs.encode": "encode",
    "torch.Size": "size",
    "torch.device": "device",
}
_FROM_TYPE = "torch._tensor._rebuild_from_type_v2"
_TENSOR_TYPES = frozenset({"torch.Tensor", "torch.nn.parameter.Parameter"})


class CheckpointRebuilder(Rebuilder):
    """Neutral model of a checkpoint pickle -> Python values and tensors."""

    def __init__(self, storages: Any, options: LoadOptions, where: str) -> None:
        super().__init__(where)
        self.storages = storages
        self.options = options
        self.keep: list = []     # records made here, alive while their ids are keys

    def record_planners(self) -> dict[type, Callable[[Any], Plan]]:
        return {P.Reduce: self.plan_reduce, P.Object: self.plan_object,
                P.Global: self.plan_global, P.PersistentId: self.plan_storage}

    def fail(self, what: str) -> CheckpointError:
        return CheckpointError(f"{what} in {self.where}")

    # --------------------------------------------------------------- calls

    def plan_reduce(self, r: P.Reduce) -> Plan:
        full = qualified_name(r.func.module, r.func.name)
        if full == _FROM_TYPE:
            return self.plan_from_type(r)
        if full == "collections.OrderedDict":
            return (collections.OrderedDict(), [r.args, r.state, r.items or ()],
                    self.finish_ordered_dict)
        user = self.options.safe_globals.get(full)
        if user is None and full not in _CALLS:
            if full in _UNSUPPORTED:
                raise self.fail(f"{full} ({_UNSUPPORTED[full]}) is not supported by tsjit")
            raise refused_global(full, self.where, calls=True)
        if (r.state is not None or r.items or r.appended) and user is None:
            raise self.fail(f"unexpected state or items after a call of {full}")
        return NO_SHELL, [r.args, r.state, r.items or (), r.appended or ()], self.finish_call

    def finish_call(self, r: P.Reduce) -> Any:
        full = qualified_name(r.func.module, r.func.name)
        args = self.get(r.args)
        user = self.options.safe_globals.get(full)
        if user is not None:     # the user allowed it: called, as PyTorch calls it
            out = user(*args)
            self.give_state(out, r)
            return out
        try:
            return getattr(self, _CALLS[full])(*args)
        except TypeError as exc:     # a wrong number of arguments
            raise self.fail(f"bad arguments for {full} ({exc})") from None

    def finish_ordered_dict(self, r: P.Reduce) -> Any:
        out = self.done[id(r)]
        if r.args:
            raise self.fail("OrderedDict with arguments")
        for k, v in r.items or ():
            out[self.get(k)] = self.get(v)
        self.set_attributes(out, self.get(r.state))
        return FILLED

    def set_attributes(self, obj: Any, state: Any) -> None:
        """BUILD on an OrderedDict (its `_metadata`): attributes from a dict of state."""
        if state is None:
            return
        if not isinstance(state, dict) or set(map(type, state)) - {str}:
            raise self.fail(f"bad state for a {type(obj).__name__}")
        obj.__dict__.update(state)

    def tensor_v1(self, storage: Any, offset: Any, size: Any, stride: Any) -> Tensor:
        return self.tensor(storage, offset, size, stride, None, False)

    def tensor_v2(self, storage: Any, offset: Any, size: Any, stride: Any,
                  requires_grad: Any = False, hooks: Any = None, metadata: Any = None) -> Tensor:
        return self.tensor(storage, offset, size, stride, None, requires_grad)

    def tensor_v3(self, storage: Any, offset: Any, size: Any, stride: Any, requires_grad: Any,
                  hooks: Any, dtype: Any, metadata: Any = None) -> Tensor:
        if not isinstance(dtype, Dtype):
            raise self.fail("a tensor record without a dtype")
        return self.tensor(storage, offset, size, stride, dtype, requires_grad)

    def tensor(self, storage: Any, offset: Any, size: Any, stride: Any,
               dtype: Optional[Dtype], requires_grad: Any) -> Tensor:
        if not isinstance(storage, _Storage):
            raise self.fail("a tensor record without a storage")
        d = dtype if dtype is not None else storage.dtype
        if d is None:
            raise self.fail(f"a tensor of untyped storage {storage.key} without a dtype")
        if isinstance(size, Size):
            size = tuple(size)
        t = Tensor._wrap(tensor_array(storage.elements(d, self.where), offset, size, stride,
                                      self.where))
        if requires_grad:
            t.requires_grad = True
        return t

    def parameter(self, data: Any, requires_grad: Any = True, hooks: Any = None,
                  state: Any = None) -> Tensor:
        if not isinstance(data, Tensor):
            raise self.fail("a Parameter of something else than a tensor")
        out = self.options.make_parameter(data, bool(requires_grad))
        if state:
            self.set_attributes(out, state)
        return out

    def plan_from_type(self, r: P.Reduce) -> Plan:
        """`_rebuild_from_type_v2(func, new_type, args, state)`: the tensor `func(*args)`
        made of type Tensor or Parameter, with the attributes in `state`."""
        if len(r.args) != 4 or type(r.args[0]) is not P.Global or \
                not isinstance(r.args[2], tuple):
            raise self.fail(f"bad arguments for {_FROM_TYPE}")
        inner = P.Reduce(r.args[0], r.args[2])
        self.keep.append(inner)     # (values are kept by record identity)
        return NO_SHELL, [inner, r.args[1], r.args[3]], \
            lambda r: self.from_type(self.get(inner), self.get(r.args[1]), self.get(r.args[3]))

    def from_type(self, t: Any, new_type: Any, state: Any) -> Tensor:
        if new_type not in _TENSOR_TYPES or not isinstance(t, Tensor):
            raise self.fail(f"a tensor of type {new_type} (only Tensor and Parameter load)")
        if new_type == "torch.nn.parameter.Parameter":
            t = self.options.make_parameter(t, t.requires_grad)
        self.set_attributes(t, state)
        return t

    def sparse(self, kind: Any, data: Any) -> Any:
        if not isinstance(kind, layout) or not isinstance(data, tuple):
            raise self.fail("a bad sparse tensor record")
        parts = data[:2] if kind == layout_named("sparse_coo") else data[:3]
        shape = data[2] if kind == layout_named("sparse_coo") else data[3]
        try:
            return sparse_tensor(kind, tuple(parts), shape)
        except (ValueError, IndexError, TypeError) as exc:
            raise self.fail(f"a bad sparse tensor ({exc})") from None

    def layout(self, name: Any) -> layout:
        try:
            return layout_named(name)
        except (KeyError, AttributeError, TypeError):
            raise self.fail(f"unknown layout {name!r}") from None

    def counter(self, items: Any = ()) -> collections.Counter:
        if not isinstance(items, dict):
            raise self.fail("a Counter of something else than a dict")
        return collections.Counter(items)

    def set_of(self, items: Any = ()) -> set:
        if not isinstance(items, (list, tuple)):
            raise self.fail("a set of something else than a list")
        return set(items)

    def complex_of(self, real: Any = 0.0, imag: Any = 0.0) -> complex:
        if not all(type(x) in (int, float) for x in (real, imag)):
            raise self.fail("a complex of something else than numbers")
        return complex(real, imag)

    def bytearray_of(self, data: Any = b"", encoding: Any = None) -> bytearray:
        if isinstance(data, str) and encoding in ("latin1", "latin-1"):
            data = data.encode("latin1")
        if not isinstance(data, (bytes, bytearray)):
            raise self.fail("a bytearray of something else than bytes")
        return bytearray(data)

    def encode(self, text: Any, encoding: Any = "utf-8") -> bytes:
        """`_codecs.encode(text, "latin1")`: how protocol 2 spells bytes."""
        if type(text) is not str or encoding not in ("latin1", "latin-1", "utf-8", "utf8"):
            raise self.fail(f"_codecs.encode of a {type(text).__name__} with {encoding!r} "
                            "(only text to latin1 or utf-8)")
        return text.encode(encoding)

    def size(self, dims: Any = ()) -> Size:
        if not isinstance(dims, (tuple, list)) or any(type(x) is not int for x in dims):
            raise self.fail("a torch.Size of something else than ints")
        return Size(dims)

    def device(self, kind: Any, index: Any = None) -> Any:
        try:
            return make_device(kind) if index is None else make_device(kind, index)
        except Exception as exc:  # noqa: BLE001 - any bad device text is the file's fault
            raise self.fail(f"bad device {kind!r} ({exc})") from None

    # --------------------------------------------------------------- objects, globals

    def plan_object(self, o: P.Object) -> Plan:
        """NEWOBJ (or INST/OBJ) of a class: allowed by the user (made by `__new__`, given
        its state), or with weights_only=False a stand-in holding its state."""
        full = qualified_name(o.cls.module, o.cls.name)
        if full == "collections.OrderedDict" and not o.args:
            return (collections.OrderedDict(), [o.state, o.items or ()],
                    self.finish_ordered_dict)
        cls = self.options.safe_globals.get(full)
        if cls is None:
            if self.options.weights_only or full in _CALLS:
                raise self.fail(f"Can only build Tensor, Parameter, OrderedDict or types "
                                f"allowlisted via `add_safe_globals`, but got {full}")
            cls = stand_in_class(full)
        elif not isinstance(cls, type):
            raise self.fail(f"NEWOBJ of {full}, which is not a class")
        children = [o.args, o.kwargs, o.state, o.items or (), o.appended or ()]
        if o.args or o.kwargs:
            return NO_SHELL, children, lambda o: self.make_object(cls, o)
        # made now (no arguments), so that its state may refer back to it
        return cls.__new__(cls), children, self.fill_object

    def make_object(self, cls: type, o: P.Object) -> Any:
        if issubclass(cls, PickledObject):
            obj = cls.__new__(cls)
            if o.args or o.kwargs:
                obj._pickled_args = (self.get(o.args), self.get(o.kwargs) or {})
        else:
            obj = cls.__new__(cls, *self.get(o.args), **(self.get(o.kwargs) or {}))
        self.give_state(obj, o)
        return obj

    def fill_object(self, o: P.Object) -> Any:
        self.give_state(self.done[id(o)], o)
        return FILLED

    def give_state(self, obj: Any, rec: Any) -> None:
        """What the pickle applied to a made object: its items, appended items, state."""
        for k, v in rec.items or ():
            obj[self.get(k)] = self.get(v)
        if rec.appended:
            obj.extend(self.get(rec.appended))
        state = self.get(rec.state)
        if state is None:
            return
        if isinstance(obj, PickledObject):
            if isinstance(state, dict) and not set(map(type, state)) - {str}:
                obj.__dict__.update(state)
            else:
                obj._pickled_state = state
            return
        setstate = getattr(type(obj), "__setstate__", None)
        if setstate is not None:         # (of a class the user allowed)
            setstate(obj, state)
            return
        slots = None
        if isinstance(state, tuple) and len(state) == 2:
            state, slots = state
        if state:
            obj.__dict__.update(state)
        for k, v in (slots or {}).items():
            setattr(obj, k, v)

    def plan_global(self, g: P.Global) -> Plan:
        """A class or function as a value: a dtype, a layout, an allowed object."""
        full = qualified_name(g.module, g.name)
        user = self.options.safe_globals.get(full)
        if user is not None:
            return NO_SHELL, (), lambda g: user
        if full in _TENSOR_TYPES:
            return NO_SHELL, (), lambda g: full    # (for _rebuild_from_type_v2)
        if g.module == "torch" and g.name in F.TORCH_DTYPE_NAMES:
            d = _dtype(g.name, self.where)
            return NO_SHELL, (), lambda g: d
        if g.module == "torch" and g.name in F.LAYOUT_NAMES:
            return NO_SHELL, (), lambda g: self.layout(g.name)
        if not self.options.weights_only:
            return NO_SHELL, (), lambda g: stand_in_class(full)
        raise self.fail(f"{full} as a value is not supported by tsjit")

    def plan_storage(self, pid: P.PersistentId) -> Plan:
        return NO_SHELL, (), lambda pid: self.storages.get(pid.pid, self.where)


# Allowed by PyTorch, but tsjit has no such tensors.
_UNSUPPORTED = {
    "torch._utils._rebuild_qtensor": "quantized tensors",
    "torch._utils._rebuild_meta_tensor_no_storage": "meta tensors",
    "torch._utils._rebuild_nested_tensor": "nested tensors",
    "torch._utils._rebuild_wrapper_subclass": "tensor subclasses",
    "torch._utils._rebuild_device_tensor_from_cpu_tensor": "device tensors",
}


__all__ = ["LoadOptions", "TorchScriptArchive", "load_checkpoint", "open_zip_checkpoint",
           "PickledObject", "ArchiveError"]
