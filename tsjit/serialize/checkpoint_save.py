"""Python values -> `torch.save` files (checkpoints, state dicts), in PyTorch 2.13's layout.

The zip format (the default), one top folder (the file's stem; `archive` for file objects):

    <top>/data.pkl                the value, pickled as Python's pickler pickles it
    <top>/.format_version         "1"
    <top>/.storage_alignment      "64" (config.save.storage_alignment)
    <top>/byteorder               "little"
    <top>/data/0 ...              the storages, in the order data.pkl first names them,
                                  each starting at a multiple of the alignment
    <top>/version                 "3\\n"
    <top>/.data/serialization_id  40 digits: a digest of the content, then the CRC-32s of
                                  the records combined as PyTorch combines them

The legacy format (`_use_new_zipfile_serialization=False`): five pickles one after the
other (a magic number, the protocol version 1001, a dict describing the machine, the
value, the sorted storage keys), then each storage as an 8-byte little-endian element
count and its bytes.

Values are converted to the neutral pickle model (`pickle_format`) as Python's
`__reduce_ex__` would reduce the PyTorch objects tsjit's stand for (tensors, Parameters,
Size, dtypes, devices), keeping identity: an object met twice is one node, so the pickle
refers back to it, and `pickle_python` writes it as CPython's pickler does.
"""
from __future__ import annotations

import collections
import copyreg
import io
import os
import sys
from typing import IO, Any, Union

from .._tensor import Device, Size, SparseTensor, Tensor
from .._tensor.sparse import sparse_coo
from .._tensor import dtypes as D
from . import pickle_format as P
from .errors import PicklingError
from .pickler import pickle_python
from .tensor_records import REBUILD_PARAMETER
from .tensor_storages import StorageTable
from .zip_archive import ArchiveWriter, AtomicOutput, serialization_id

FORMAT_VERSION = b"1"          # .format_version: storages named in pickling order
ZIP_VERSION = b"3\n"           # version: the zip format of torch.save
LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
LEGACY_PROTOCOL = 1001
LEGACY_SYS_INFO = {"protocol_version": LEGACY_PROTOCOL, "little_endian": True,
                   "type_sizes": {"short": 2, "int": 4, "long": 4}}

_TORCH_SIZE = P.Global("torch", "Size")
_REBUILD_SPARSE = P.Global("torch._utils", "_rebuild_sparse_tensor")
_GET_LAYOUT = P.Global("torch.serialization", "_get_layout")
_BUILTINS = "builtins"

Target = Union[str, "os.PathLike[str]", IO[bytes]]


def save_checkpoint(obj: Any, f: Target, pickle_protocol: int = 2, use_zip: bool = True,
                    storage_alignment: int = 64, compute_crc32: bool = True) -> None:
    """Write `obj` as torch.save does to `f` (a path, written to a temporary file that is
    moved into place, or a binary file object); the zip format's storages start at
    multiples of `storage_alignment`, its CRC-32s are 0 unless `compute_crc32`."""
    if sys.byteorder != "little":
        raise PicklingError("tsjit writes checkpoints on little-endian machines only")
    storages = StorageTable("data", legacy=not use_zip)
    value = _Converter(storages).value(obj, "obj")
    if use_zip:
        _write_zip(pickle_python(value, pickle_protocol), storages, f, storage_alignment,
                   compute_crc32)
    else:
        _write_legacy(value, pickle_protocol, storages, f)


# ------------------------------------------------------------------------- values

class _Converter:
    """Python values -> neutral pickle values, one node per object."""

    def __init__(self, storages: StorageTable) -> None:
        self.storages = storages
        self.done: dict[int, Any] = {}
        self.keep: list[Any] = []
        self.active: set[int] = set()

    def value(self, v: Any, where: str) -> Any:
        t = type(v)
        if v is None or t in (bool, int, float, str, bytes):
            return v
        key = id(v)
        found = self.done.get(key)
        if found is not None:
            return found
        if key in self.active:
            raise PicklingError(f"{where} contains itself through a "
                                f"{t.__name__}, which a checkpoint cannot hold")
        self.active.add(key)
        try:
            out = self.convert(v, t, where)
        finally:
            self.active.discard(key)
        self.done[key] = out
        self.keep.append(v)
        return out

    def convert(self, v: Any, t: type, where: str) -> Any:
        if isinstance(v, Tensor):
            return self.tensor(v, where)
        if t is tuple:
            return tuple(self.value(x, f"{where}[{i}]") for i, x in enumerate(v))
        if t is list:
            out: list = []
            self.done[id(v)] = out       # (a list may contain itself: Python's may)
            out.extend(self.value(x, f"{where}[{i}]") for i, x in enumerate(v))
            return out
        if t is dict:
            d: dict = {}
            self.done[id(v)] = d
            for k, x in v.items():
                d[self.value(k, f"{where} key")] = self.value(x, f"{where}[{k!r}]")
            return d
        if t is SparseTensor:
            parts = tuple(self.value(p, f"{where} part") for p in v.parts)
            layout = P.Reduce(_GET_LAYOUT, (str(v.layout),))
            tail = (self.value(v.shape, where),) + \
                ((v.is_coalesced(),) if v.layout == sparse_coo else ())
            return P.Reduce(_REBUILD_SPARSE, (layout, parts + tail))
        if isinstance(v, D.dtype):
            return P.Global("torch", v.name)
        if t is Size:
            return P.Reduce(_TORCH_SIZE, (tuple(int(x) for x in v),))
        if isinstance(v, Device):
            return P.Reduce(P.TORCH_DEVICE, (str(v),))
        if t is complex:
            return P.Reduce(P.Global(_BUILTINS, "complex"), (v.real, v.imag))
        if t is bytearray:
            return P.Reduce(P.Global(_BUILTINS, "bytearray"), (bytes(v),) if v else ())
        if t in (set, frozenset):
            items = [self.value(x, f"{where} item") for x in v]
            return P.Reduce(P.Global(_BUILTINS, t.__name__), (items,) if v or t is set else ())
        if t is collections.Counter:
            return P.Reduce(P.Global("collections", "Counter"),
                            (self.value(dict(v), where),))
        if t is collections.OrderedDict:
            red = P.Reduce(P.ORDERED_DICT, ())
            self.done[id(v)] = red
            red.items = [(self.value(k, f"{where} key"), self.value(x, f"{where}[{k!r}]"))
                             for k, x in v.items()]
            red.state = self.value(vars(v), f"{where}.__dict__") if vars(v) else None
            return red
        return self.reduced(v, where)

    def tensor(self, v: Tensor, where: str) -> P.Reduce:
        if getattr(type(v), "__tsjit_parameter__", False):
            data = self.storages.tensor(v.detach())
            return P.Reduce(REBUILD_PARAMETER, (data, bool(v.requires_grad),
                                                 P.Reduce(P.ORDERED_DICT, ())))
        if type(v) is not Tensor:
            raise PicklingError(f"{where}: cannot save a {type(v).__name__} (a Tensor "
                                "subclass); save its data as a Tensor")
        return self.storages.tensor(v)

    def reduced(self, v: Any, where: str) -> Any:
        """Any other object, as its `__reduce_ex__(2)` describes it."""
        if isinstance(v, type) or callable(v) and hasattr(v, "__qualname__"):
            return _global_of(v, where)
        try:
            red = v.__reduce_ex__(2)
        except Exception as e:  # noqa: BLE001 - any failure is the object's refusal
            raise PicklingError(f"{where}: cannot save a {type(v).__name__}: {e}") from None
        if isinstance(red, str):
            return _global_of(v, where)
        func, args, state, listitems, dictitems = (tuple(red) + (None,) * 5)[:5]
        if func is copyreg.__newobj__:
            out: Any = P.Object(_global_of(args[0], where),
                                args=self.value(tuple(args[1:]), f"{where} arguments"))
        else:
            out = P.Reduce(_global_of(func, where),
                           self.value(tuple(args), f"{where} arguments"))
        if state is not None:
            out.state = self.value(state, f"{where}.__dict__")
        if listitems is not None:
            out.appended = [self.value(x, f"{where} item") for x in listitems]
        if dictitems is not None:
            out.items = [(self.value(k, f"{where} key"), self.value(x, f"{where}[{k!r}]"))
                         for k, x in dictitems]
        return out


def _global_of(obj: Any, where: str) -> P.Global:
    module = getattr(obj, "__module__", None)
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if not module or not name or "<locals>" in name:
        raise PicklingError(f"{where}: cannot save {obj!r}: it has no importable name")
    return P.Global(module, name)


# ------------------------------------------------------------------------- containers

def _top_folder(f: Target) -> str:
    if isinstance(f, (str, os.PathLike)):
        return os.path.splitext(os.path.basename(os.fspath(f)))[0] or "archive"
    return "archive"


def _write_zip(data_pkl: bytes, storages: StorageTable, f: Target, alignment: int,
               crc: bool) -> None:
    records: list[tuple[str, Any]] = [
        ("data.pkl", data_pkl), (".format_version", FORMAT_VERSION),
        (".storage_alignment", str(alignment).encode()), ("byteorder", b"little")]
    records += storages.records()
    records.append(("version", ZIP_VERSION))
    with ArchiveWriter(f, top=_top_folder(f), alignment=alignment, crc32=crc,
                       sync=False) as w:
        for name, content in records:
            w.write_record(name, content)
        w.write_record(".data/serialization_id", serialization_id(w.crcs()))


def _write_legacy(value: Any, protocol: int, storages: StorageTable, f: Target) -> None:
    buf = io.BytesIO()
    for part in (LEGACY_MAGIC, LEGACY_PROTOCOL, LEGACY_SYS_INFO):
        buf.write(pickle_python(part, protocol))
    # (storage keys are sorted as strings in the file, as PyTorch sorts them)
    buf.write(pickle_python(value, protocol))
    ordered = sorted(storages.storages, key=lambda s: s.key)
    buf.write(pickle_python([s.key for s in ordered], protocol))
    out = AtomicOutput(f)
    try:
        out.file.write(buf.getbuffer())
        data = dict(storages.records())
        for s in ordered:
            out.file.write(s.numel.to_bytes(8, "little"))
            out.file.write(data[f"{storages.folder}/{s.key}"])
    except BaseException:
        out.abort()
        raise
    out.commit(sync=False)


def save(obj: Any, f: Target, pickle_module: Any = None, pickle_protocol: int = 2,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False,
         _extra_files: Any = None, storage_alignment: int = 64,
         compute_crc32: bool = True) -> None:
    """`torch.save`: a scripted module is written as a TorchScript archive (as
    `torch.jit.save`); any other value as a checkpoint, in the zip format or, asked for
    with `_use_new_zipfile_serialization=False`, the legacy one. `f`: a path or a binary
    file object. (`tsjit.save` passes the `tsjit.utils.serialization.config` settings.)"""
    from ..interpreter import Object
    if pickle_module is not None:
        raise PicklingError("pickle_module is not supported: tsjit writes pickles itself")
    core = getattr(obj, "_c", obj)
    if isinstance(core, Object) and core.type.is_module:
        from .export import save_module
        save_module(obj, f, _extra_files)
        return
    if _extra_files:
        raise PicklingError("_extra_files are saved with scripted modules only")
    save_checkpoint(obj, f, pickle_protocol, bool(_use_new_zipfile_serialization),
                    int(storage_alignment), bool(compute_crc32))
