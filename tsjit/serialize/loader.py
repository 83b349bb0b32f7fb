"""Archive -> module: tsjit's own archives and those written by PyTorch's torch.jit.save.

Order as PyTorch loads: check `version` and `byteorder`, unpickle `constants.pkl` (the
tensor constants code refers to as `CONSTANTS.cN`), then `data.pkl`. The unpickler yields
a neutral object model (it builds nothing and calls nothing); this module interprets it:
`__torch__.*` classes are compiled from `code/` when first met, tensors become views of
copy-on-write memory maps of their storages, `__setstate__` runs on objects that have it.
"""
from __future__ import annotations

import os
from typing import Any, Optional

import numpy as np

from ..frontend.source_importer import SourceImporter
from ..interpreter import Object, call_function
from ..ir import CompilationUnit
from ..ir import types as T
from ..ir.diagnostics import Source, SourceRange, TsjitError
from ..tensor import Device, Tensor, device as make_device
from ..tensor.dtypes import as_dtype
from . import pickle_format as P
from .debug_info import DebugRecord, decode_debug_info
from .errors import ArchiveError
from .extra_files import fill_extra_files
from .fast_unpickle import unpickle_records
from .versions import MAX_SUPPORTED_VERSION, MIN_VERSION
from .zip_archive import ArchiveReader


class _Storages:
    """Storage records of one folder (`data/` or `constants/`), mapped once each."""

    def __init__(self, reader: ArchiveReader, folder: str) -> None:
        self.reader = reader
        self.folder = folder + "/"
        self.arrays: dict[str, np.ndarray] = {}

    def get(self, pid: tuple, where: str) -> np.ndarray:
        """The storage persistent id `pid` names, as a flat array of its element type."""
        if len(pid) != 5 or pid[0] != "storage" or type(pid[1]) is not P.Global:
            raise ArchiveError(f"unexpected persistent id {pid!r} in {where}")
        _, cls, key, location, numel = pid
        found = _STORAGE_DTYPES.get(cls)
        if found is None:
            raise ArchiveError(f"unknown storage type {cls.qualname} in {where}")
        dt, np_dtype = found
        if not isinstance(key, str) or not isinstance(numel, int) or numel < 0:
            raise ArchiveError(f"bad storage reference {pid!r} in {where}")
        arr = self.arrays.get(key)
        if arr is None:
            name = self.folder + key
            if np_dtype is None:
                raise ArchiveError(f"storage {self.reader.top}/{name} holds {dt.name} "
                                   f"elements, which tsjit does not support (numpy has no "
                                   f"{dt.name} type)")
            if not self.reader.has(name):
                raise ArchiveError(f"{where} refers to storage {self.reader.top}/{name}, "
                                   "which the archive lacks")
            view = self.reader.storage_view(name)
            if len(view) < numel * np_dtype.itemsize:
                raise ArchiveError(f"storage {self.reader.top}/{name} has {len(view)} bytes "
                                   f"but {numel} elements of {dt.name} need "
                                   f"{numel * np_dtype.itemsize}")
            arr = np.frombuffer(view, dtype=np_dtype, count=numel)
            self.arrays[key] = arr
        return arr


# (dtype, numpy dtype or None) of the `torch.<X>Storage` globals, by Global (interned:
# looked up by identity).
_STORAGE_DTYPES: dict[P.Global, tuple[Any, Optional[np.dtype]]] = {
    P.Global("torch", cls): (as_dtype(name), as_dtype(name).np)
    for cls, name in P.STORAGE_DTYPES.items()}


_INT = {int}
_SCALARS = {bool, int, float, str}    # values that are their own run-time values


def _rebuild_tensor(storages: _Storages, args: tuple, where: str) -> Tensor:
    if len(args) < 4:
        raise ArchiveError(f"bad tensor record in {where}")
    pid, offset, size, stride = args[:4]
    requires_grad = bool(args[4]) if len(args) > 4 else False
    if type(pid) is not P.PersistentId:
        raise ArchiveError(f"tensor record without a storage in {where}")
    storage = storages.get(pid.pid, where)
    geometry = size + stride if type(size) is tuple and type(stride) is tuple else None
    # (the usual case, tuples of ints, checked with C loops rather than generators)
    if geometry is None or type(offset) is not int or len(size) != len(stride) or \
            not set(map(type, geometry)) <= _INT:
        if not (isinstance(offset, int) and isinstance(size, (tuple, list)) and
                isinstance(stride, (tuple, list)) and all(isinstance(x, int) for x in size) and
                all(isinstance(x, int) for x in stride) and len(size) == len(stride)):
            raise ArchiveError(f"bad tensor geometry in {where}")
        geometry = tuple(size) + tuple(stride)
    n = storage.size
    if offset < 0 or (geometry and min(geometry) < 0):
        raise ArchiveError(f"negative tensor geometry in {where}")
    if 0 not in size:
        last = offset + sum([(s - 1) * st for s, st in zip(size, stride)])
        if last >= n:
            raise ArchiveError(f"a tensor in {where} needs storage element {last} but its "
                               f"storage has {n} elements")
    if len(size) == 2 and stride == (size[1], 1) and size[0] and size[1]:
        # (a matrix as PyTorch lays it out: a reshaped slice, made faster than an ndarray
        # of explicit strides, and with the same strides)
        a = storage[offset:offset + size[0] * size[1]].reshape(size)
    elif len(size) == 1 and stride == (1,):
        a = storage[offset:offset + size[0]]
    else:
        item = storage.itemsize
        a = np.ndarray(size, dtype=storage.dtype, buffer=storage, offset=offset * item,
                       strides=[s * item for s in stride])
    t = Tensor._wrap(a)       # (the storage's element type is one tensors hold)
    if requires_grad:
        t.requires_grad = True
    return t


class _ObjectLoader:
    """Neutral pickle model -> run-time values, creating objects of archive classes."""

    def __init__(self, importer: SourceImporter, storages: _Storages, where: str) -> None:
        self.importer = importer
        self.storages = storages
        self.where = where
        self.done: dict[int, Any] = {}
        # class type and attribute name -> slot, by the pickle's class Global (objects of a
        # class come in numbers: the layers of a ModuleList)
        self.classes: dict[P.Global, tuple[T.ClassType, dict[str, int]]] = {}

    def value(self, v: Any) -> Any:
        if v is None or isinstance(v, (bool, int, float, str)):
            return v
        key = id(v)
        if key in self.done:
            return self.done[key]
        if isinstance(v, P.Object):
            return self.object(v)
        if isinstance(v, P.Reduce):
            out = self.reduce(v)
        elif isinstance(v, tuple):
            out = tuple(self.value(x) for x in v)
        elif isinstance(v, list):
            out = [self.value(x) for x in v]
        elif isinstance(v, dict):
            out = {self.value(k): self.value(x) for k, x in v.items()}
        else:
            raise ArchiveError(f"unexpected {type(v).__name__} value in {self.where}")
        self.done[key] = out
        return out

    def reduce(self, r: P.Reduce) -> Any:
        f = r.func
        if f is P.REBUILD_TENSOR_V2:
            return _rebuild_tensor(self.storages, r.args, self.where)
        if f in (P.BUILD_INTLIST, P.BUILD_DOUBLELIST, P.BUILD_BOOLLIST, P.BUILD_TENSORLIST):
            if len(r.args) != 1 or not isinstance(r.args[0], list):
                raise ArchiveError(f"bad {f.name} record in {self.where}")
            return [self.value(x) for x in r.args[0]]
        if f is P.RESTORE_TYPE_TAG:
            if not r.args:
                raise ArchiveError(f"bad restore_type_tag record in {self.where}")
            return self.value(r.args[0])
        if f is P.ORDERED_DICT:
            return {}
        if f is P.TORCH_DEVICE:
            if len(r.args) != 1 or not isinstance(r.args[0], str):
                raise ArchiveError(f"bad device record in {self.where}")
            return make_device(r.args[0])
        raise ArchiveError(f"unsupported global {f.qualname} in {self.where}")

    def object(self, po: P.Object) -> Object:
        found = self.classes.get(po.cls)
        if found is None:
            found = self.classes[po.cls] = self.load_class(po.cls)
        t, slots = found
        obj = Object(t)
        self.done[id(po)] = obj
        setstate = t.methods.get("__setstate__")
        if setstate is not None:
            call_function(setstate, [obj, self.value(po.state)])
            return obj
        state = po.state
        if not isinstance(state, dict):
            raise ArchiveError(f"the state of a {po.cls.qualname} object in {self.where} is "
                               "not a dict")
        value, out = self.value, obj.slots
        for k, v in state.items():
            i = slots.get(k) if type(k) is str else None
            if i is None:
                raise ArchiveError(f"{self.where} sets attribute '{k}', which class "
                                   f"{po.cls.qualname} does not declare")
            out[i] = v if v is None or type(v) in _SCALARS else value(v)
        return obj

    def load_class(self, cls: P.Global) -> tuple[T.ClassType, dict[str, int]]:
        """The archive's class `cls` and the slots of its attributes by name."""
        name = cls.qualname
        if not name.startswith("__torch__"):
            raise ArchiveError(f"unsupported class {name} in {self.where}")
        try:
            t = self.importer.load_class(name)
        except TsjitError as err:
            err.add_context(f"while loading class {name} for {self.where}")
            raise
        if not isinstance(t, T.ClassType):
            raise ArchiveError(f"{name} is not a class in this archive ({self.where})")
        return t, t.attribute_slots()


def origin_map(text: str, records: list[DebugRecord]) -> list:
    """(char offset, original SourceRange or None) pairs for a code file's debug records."""
    encoded = text.encode("utf-8")
    sources: dict[int, Source] = {}
    out = []
    for r in records:
        offset = len(encoded[:r.offset].decode("utf-8", "ignore"))
        if r.source is None:
            out.append((offset, None))
            continue
        src = sources.get(id(r.source))
        if src is None:
            src = sources[id(r.source)] = Source(r.source.text, r.source.filename or "<unknown>",
                                                 r.source.starting_line)
            src.pieces = r.source.lines
        end = min(r.end, len(src.text))
        out.append((offset, SourceRange(src, min(r.start, end), end)))
    return out


def read_version(reader: ArchiveReader) -> int:
    """The archive's format version; an error if tsjit cannot read it."""
    for name in (".data/version", "version"):
        if reader.has(name):
            text = reader.read(name).decode("ascii", "replace").strip()
            if not text.isdigit():
                raise ArchiveError(f"bad version record {reader.top}/{name}: {text!r}")
            v = int(text)
            if not MIN_VERSION <= v <= MAX_SUPPORTED_VERSION:
                raise ArchiveError(f"archive format version {v} is not supported: tsjit reads "
                                   f"versions {MIN_VERSION} to {MAX_SUPPORTED_VERSION}")
            return v
    raise ArchiveError(f"{reader.path} is not a TorchScript archive: it has no version record")


def load_module(path: Any, extra_files: Optional[dict] = None) -> Any:
    """Load the module saved in archive `path` (a file name or the archive's bytes); each
    key of the dict `extra_files` is set to the content of that extra/ file."""
    if isinstance(path, (str, os.PathLike)) and not os.path.exists(path):
        raise ArchiveError(f"no such file: {os.fspath(path)}")
    reader = ArchiveReader(path)
    try:
        return _load(reader, extra_files)
    finally:
        reader.release_file()   # (records read later, e.g. debug info, come from the map)


def _load(reader: ArchiveReader, extra_files: Optional[dict]) -> Any:
    """The module in an open archive (see load_module)."""
    from ..jit.script_module import ScriptModule
    read_version(reader)
    if reader.has("byteorder"):
        order = reader.read("byteorder").decode("ascii", "replace").strip()
        if order != "little":
            raise ArchiveError(f"archive byte order {order!r} is not supported (only little)")
    if not reader.has("data.pkl"):
        raise ArchiveError(f"{reader.path} is not a TorchScript module archive: no data.pkl")
    top = reader.top

    def read_code(rel: str) -> Optional[tuple[str, str, Optional[list]]]:
        if not reader.has(rel):
            return None
        try:
            text = reader.read(rel).decode("utf-8")
        except UnicodeDecodeError:
            raise ArchiveError(f"{top}/{rel} is not UTF-8 text") from None
        origin = None
        if reader.has(rel + ".debug_pkl"):
            # Decoded when first needed (an error's traceback, a re-save), as PyTorch does.
            def origin() -> list:
                debug = f"{top}/{rel}.debug_pkl"
                return origin_map(text, decode_debug_info(reader.read(rel + ".debug_pkl"), debug))
        return text, f"{top}/{rel}", origin

    constants: list = []
    cu = CompilationUnit()
    importer = SourceImporter(cu, read_code, constants)
    if reader.has("constants.pkl"):
        where = f"{top}/constants.pkl"
        raw = unpickle_records(reader.read("constants.pkl"), where)
        loaded = _ObjectLoader(importer, _Storages(reader, "constants"), where).value(raw)
        if not isinstance(loaded, tuple):
            raise ArchiveError(f"{where} does not hold a tuple")
        constants.extend(loaded)
    where = f"{top}/data.pkl"
    raw = unpickle_records(reader.read("data.pkl"), where)
    root = _ObjectLoader(importer, _Storages(reader, "data"), where).value(raw)
    if not isinstance(root, Object) or not root.type.is_module:
        raise ArchiveError(f"{where} does not hold a module")
    module = ScriptModule(root)
    object.__setattr__(module, "_archive", reader)
    if extra_files is not None:
        fill_extra_files(reader, extra_files)
    return module


__all__ = ["load_module", "read_version", "Device"]
