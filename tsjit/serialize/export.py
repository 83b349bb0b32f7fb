"""Module -> archive, in the layout and record order PyTorch 2.13's torch.jit.save writes:

    <top>/extra/<name> ...      extra files given by the user (see extra_files.py)
    <top>/data/0 ...            tensor storages met while pickling data.pkl
    <top>/data.pkl              the module object tree
    <top>/code/<path>.py        PythonPrint of every code object, and next to each its
    <top>/code/<path>.py.debug_pkl   source-range records
    <top>/constants/0 ...       storages of tensor constants in code
    <top>/constants.pkl         the tuple of tensor constants (`CONSTANTS.cN`)
    <top>/version               the format version (versions before 6)
    <top>/.data/version         the format version (from version 6 on)
    <top>/byteorder             "little"
    <top>/.data/serialization_id   an id derived from the content (so saves are repeatable)

Everything is deterministic: the same module saves to the same bytes.
"""
from __future__ import annotations

import os
import re
from typing import Any, Optional

from ..interpreter import Object, call_function
from ..ir import types as T
from ..ir.diagnostics import SourceRange
from ..ir.gc_pause import gc_paused
from ..printer import ConstantTable, print_code_files
from .._tensor import Device, Tensor
from . import pickle_format as P
from .debug_info import DebugRecord, DebugSource, encode_debug_info
from .errors import ArchiveError
from .extra_files import normalize_extra_files, read_extra_files
from .pickler import pickle_value
from .tensor_storages import StorageTable
from .versions import format_version, version_record
from .zip_archive import ArchiveWriter, serialization_id


class _DataPickler:
    """Run-time values -> the neutral pickle model, typed by their static types."""

    def __init__(self, storages: StorageTable) -> None:
        self.storages = storages
        self.objects: dict[int, P.Object] = {}
        self.tensors: dict[int, P.Reduce] = {}
        self.class_types: dict[int, T.ClassType] = {}   # in the order pickling meets them

    def value(self, v: Any, t: T.Type) -> Any:
        if v is None or isinstance(v, (bool, int, float, str)):
            return v
        if isinstance(v, Tensor):
            r = self.tensors.get(id(v))
            if r is None:
                r = self.tensors[id(v)] = self.storages.tensor(v)
            return r
        if isinstance(v, Object):
            return self.object(v)
        if isinstance(v, Device):
            return P.Reduce(P.TORCH_DEVICE, (str(v),))
        if isinstance(v, T.EnumValue):
            self.class_types.setdefault(id(v.type), v.type)
            module, name = v.type.qualified_name.rsplit(".", 1)
            return P.Reduce(P.Global(module, name), (v.value,))
        if isinstance(t, T.OptionalType):
            return self.value(v, t.elem)
        if isinstance(v, tuple):
            elems = t.elems if isinstance(t, T.TupleType) else (T.AnyType,) * len(v)
            return tuple(self.value(x, et) for x, et in zip(v, elems))
        if isinstance(v, list):
            elem = t.elem if isinstance(t, T.ListType) else T.AnyType
            items = [self.value(x, elem) for x in v]
            builder = {T.IntType: P.BUILD_INTLIST, T.FloatType: P.BUILD_DOUBLELIST,
                       T.BoolType: P.BUILD_BOOLLIST, T.TensorType: P.BUILD_TENSORLIST}.get(elem)
            if builder is not None:
                return P.Reduce(builder, (items,))
            return P.Reduce(P.RESTORE_TYPE_TAG, (items, T.ListType(elem).annotation_str()))
        if isinstance(v, dict):
            kt, vt = (t.key, t.value) if isinstance(t, T.DictType) else (T.AnyType, T.AnyType)
            d = {self.value(k, kt): self.value(x, vt) for k, x in v.items()}
            return P.Reduce(P.RESTORE_TYPE_TAG, (d, T.DictType(kt, vt).annotation_str()))
        raise ArchiveError(f"cannot save a value of type {type(v).__name__} "
                           f"(declared {t.annotation_str()})")

    def object(self, o: Object) -> P.Object:
        found = self.objects.get(id(o))
        if found is not None:
            return found
        t = o.type
        self.class_types.setdefault(id(t), t)
        module, name = t.qualified_name.rsplit(".", 1)
        po = P.Object(P.Global(module, name))
        self.objects[id(o)] = po
        getstate = t.methods.get("__getstate__")
        if getstate is not None and "__setstate__" in t.methods:
            state = call_function(getstate, [o])
            po.state = self.value(state, getstate.schema.returns[0].type)
        else:
            o._grow()
            po.state = {a.name: self.value(v, a.type) for a, v in zip(t.attributes, o.slots)}
        return po


def _debug_pickle(ranges: list[tuple[int, Optional[SourceRange]]], text: str, tags: list[int]) -> bytes:
    records = []
    sources: dict[int, DebugSource] = {}
    # The records give byte offsets into the UTF-8 code file.
    byte_offsets = _char_to_byte_offsets(text)
    for offset, rng in ranges:
        if rng is None:
            records.append(DebugRecord(byte_offsets(offset), None, 0, 0, 0))
            continue
        src = rng.source
        ds = sources.get(id(src))
        if ds is None:
            ds = sources[id(src)] = DebugSource(src.text, src.filename, src.starting_line,
                                                src.pieces)
        tags[0] += 1
        records.append(DebugRecord(byte_offsets(offset), ds, rng.start, rng.end, tags[0]))
    return encode_debug_info(records)


def _char_to_byte_offsets(text: str) -> Any:
    if text.isascii():
        return lambda i: i
    return lambda i: len(text[:i].encode("utf-8"))


def archive_top(path: Any) -> str:
    """The archive's top folder: the file name without extension, as PyTorch names it."""
    base = os.path.splitext(os.path.basename(os.fspath(path)))[0] if isinstance(path, (str, os.PathLike)) else "archive"
    base = re.sub(r"[^A-Za-z0-9_.-]", "_", base) or "archive"
    return base


def archive_records(root: Object, extra_files: Optional[dict[str, bytes]] = None) -> list[tuple[str, bytes, bool]]:
    """The (name, bytes, compress) records of the archive for module object `root`, but for
    the serialization id, which the writer derives from their CRC-32s (zip_archive)."""
    with gc_paused():  # printing a big module makes many objects that live on (ir/gc_pause.py)
        return _archive_records(root, extra_files)


def _archive_records(root: Object, extra_files: Optional[dict[str, bytes]]) -> list[tuple[str, bytes, bool]]:
    storages = StorageTable("data", torchscript=True)
    pickler = _DataPickler(storages)
    data = pickle_value(pickler.object(root))
    constants = ConstantTable()
    # As PyTorch: the classes of the pickled objects first, then what their code uses.
    files = print_code_files(list(pickler.class_types.values()), constants)
    records: list[tuple[str, bytes, bool]] = [
        (f"extra/{name}", content, False) for name, content in (extra_files or {}).items()]
    records.extend((n, b, False) for n, b in storages.records())
    records.append(("data.pkl", data, False))
    tags = [0]
    for f in files:
        records.append((f.path, f.text.encode("utf-8"), True))
        records.append((f.path + ".debug_pkl", _debug_pickle(f.ranges, f.text, tags), True))
    const_storages = StorageTable("constants", torchscript=True)
    const_pickle = _DataPickler(const_storages)
    const_tuple = tuple(const_pickle.value(t, T.TensorType) for t in constants.tensors)
    records.extend((n, b, False) for n, b in const_storages.records())
    records.append(("constants.pkl", pickle_value(const_tuple), False))
    version = format_version(root.type, files)
    records.append((version_record(version), f"{version}\n".encode(), False))
    records.append(("byteorder", b"little", False))
    return records


def save_module(m: Any, path: Any, extra_files: Optional[dict[str, Any]] = None) -> None:
    """Write scripted module `m` to `path` (a file name or a binary file object), with
    `extra_files` ({name: bytes or str}) as extra/ records. A module loaded from an
    archive keeps that archive's extra files (those named in `extra_files` replaced)."""
    obj = getattr(m, "_c", m)
    if not isinstance(obj, Object) or not obj.type.is_module:
        raise ArchiveError("save() takes a scripted module (the result of tsjit.script or "
                           "tsjit.load)")
    kept = read_extra_files(m) if hasattr(m, "_c") else {}
    records = archive_records(obj, {**kept, **normalize_extra_files(extra_files)})
    # no fsync, as torch.jit.save and tsjit's checkpoints: the temporary file and rename
    # already keep a failed save from touching the old file (docs/design.md)
    with ArchiveWriter(path, top=archive_top(path), sync=False) as w:
        for name, content, compress in records:
            w.write_record(name, content, compress)
        w.write_record(".data/serialization_id", serialization_id(w.crcs()))
