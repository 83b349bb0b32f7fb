"""Archive -> module: tsjit's own archives and those written by PyTorch's torch.jit.save.

Order as PyTorch loads: check `version` and `byteorder`, unpickle `constants.pkl` (the
tensor constants code refers to as `CONSTANTS.cN`), then `data.pkl`. The unpickler yields
a neutral object model (it builds nothing and calls nothing); this module interprets it:
`__torch__.*` classes are compiled from `code/` when first met, tensors become views of
copy-on-write memory maps of their storages, `__setstate__` runs on objects that have it.
"""
from __future__ import annotations

import os
import time
from typing import Any, Callable, Optional

import numpy as np

from ..frontend.source_importer import SourceImporter
from ..interpreter import Object, call_function
from ..ir import CompilationUnit
from ..ir import types as T
from ..ir.diagnostics import Source, SourceRange, TsjitError
from ..ir.limits import Limits, current_limits, time_budget, use_limits
from .._tensor import Device, Tensor, device as make_device
from .._tensor.dtypes import as_dtype
from . import pickle_format as P
from .debug_info import DebugRecord, decode_debug_info
from .attribute_types import slot_tests, type_problem
from .errors import ArchiveError, clipped, quoted
from .extra_files import fill_extra_files
from .tensor_records import TENSOR_CALLS, storage_ref, tensor_args
from .tensor_views import tensor_array
from .rebuild import FILLED, NO_SHELL, Plan, Rebuilder
from .unpickler import unpickle
from .versions import MAX_SUPPORTED_VERSION, MIN_VERSION
from .zip_archive import ArchiveReader


class _Storages:
    """Storage records of one folder (`data/` or `constants/`), mapped once each.

    A storage is bytes, as in PyTorch: a tensor views them as the element type its
    reference names, so two references naming one key with two types (which only an
    edited archive holds) view the same bytes two ways, as PyTorch loads them.
    """

    def __init__(self, reader: ArchiveReader, folder: str, map_to_cpu: bool) -> None:
        self.reader = reader
        self.folder = folder + "/"
        self.map_to_cpu = map_to_cpu
        # key -> (array, storage class, location) of its last reference
        self.arrays: dict[str, tuple[np.ndarray, P.Global, str]] = {}

    def get(self, pid: tuple, where: str) -> np.ndarray:
        """The storage persistent id `pid` names, as a flat array of its element type."""
        if type(pid) is tuple and len(pid) == 5 and type(pid[2]) is str:
            found = self.arrays.get(pid[2])
            if found is not None and found[1] is pid[1] and found[2] == pid[3]:
                return found[0]
        return self.make(pid, where)

    def make(self, pid: Any, where: str) -> np.ndarray:
        """`get` for a reference not met before: checked, its record mapped."""
        ref = storage_ref(pid)
        if ref is None:
            raise ArchiveError(f"unexpected persistent id {quoted(pid)} in {where}")
        cls, key, location, numel = ref
        dt = _STORAGE_DTYPES.get(cls)
        if dt is None:
            raise ArchiveError(f"unknown storage type {clipped(cls.qualname)} in {where}")
        if not isinstance(key, str) or not isinstance(numel, int) or numel < 0:
            raise ArchiveError(f"bad storage reference {quoted(pid)} in {where}")
        if location != "cpu":
            check_location(location, self.map_to_cpu, f"storage {self.reader.top}/"
                           f"{self.folder}{clipped(key)} of a tensor in {where}")
        np_dtype = dt.np
        name = self.folder + key
        reader = self.reader
        if np_dtype is None:
            raise ArchiveError(f"storage {reader.top}/{name} holds {dt.name} "
                               f"elements, which tsjit does not support (numpy has no "
                               f"{dt.name} type)")
        try:
            view = reader.storage_view(name)
        except ArchiveError:
            # (asked only now: a lookup less per storage in the usual case)
            if reader.has(name):
                raise
            raise ArchiveError(f"{where} refers to storage {reader.top}/{name}, "
                               "which the archive lacks") from None
        if len(view) < numel * np_dtype.itemsize:
            raise ArchiveError(f"storage {reader.top}/{name} has {len(view)} bytes "
                               f"but {numel} elements of {dt.name} need "
                               f"{numel * np_dtype.itemsize}")
        # (positional: with keywords, the call costs 2.5 times as much)
        arr = _FROMBUFFER(view, np_dtype, numel)
        self.arrays[key] = (arr, cls, location)
        return arr


def check_location(location: Any, map_to_cpu: bool, what: str) -> None:
    """A storage's device must be a device PyTorch knows, and tsjit's (the CPU) unless
    `map_location` maps tensors there, as torch.jit.load on a CPU-only PyTorch requires."""
    try:
        d = make_device(location) if type(location) is str else None
    except RuntimeError as exc:
        raise ArchiveError(f"{what} is on device {quoted(location)}: {clipped(str(exc))}") \
            from None
    if d is None:
        raise ArchiveError(f"{what} names its device with {quoted(location)}, not a device "
                           "string")
    if d.type == "meta":
        raise ArchiveError(f"{what} is on the meta device: meta tensors hold no data, and "
                           "tsjit has no meta device")
    if d.type != "cpu" and not map_to_cpu:
        raise ArchiveError(f"{what} is on device {location}, and tsjit runs on the CPU "
                           "only: load with map_location='cpu' to load it there")


# The dtype of the `torch.<X>Storage` globals, by Global (interned: looked up by identity).
# (its numpy type is asked for when a storage is met: bfloat16's would import ml_dtypes)
_STORAGE_DTYPES: dict[P.Global, Any] = {
    P.Global("torch", cls): as_dtype(name) for cls, name in P.STORAGE_DTYPES.items()}


# (numpy's module has a __getattr__, so Python looks its attributes up the slow way each
# time: the functions used for every tensor are taken once)
_FROMBUFFER = np.frombuffer


_TENSOR_V2 = TENSOR_CALLS[P.REBUILD_TENSOR_V2]
# (what PyTorch writes, read raw: the table's layout without the optional metadata)
_V2_WRITTEN = _TENSOR_V2.max_args - 1


def _rebuild_tensor(storages: _Storages, args: tuple, where: str) -> Tensor:
    """The tensor of a `_rebuild_tensor_v2` record's arguments `args`."""
    if len(args) == _V2_WRITTEN:
        pid, offset, size, stride, requires_grad, _ = args
    else:
        found = tensor_args(_TENSOR_V2, args)
        if found is None:
            raise ArchiveError(f"bad tensor record in {where}")
        pid, offset, size, stride, requires_grad, _ = found
    if type(pid) is not P.PersistentId:
        raise ArchiveError(f"tensor record without a storage in {where}")
    if type(requires_grad) is not bool:     # (PyTorch refuses it at load too)
        raise ArchiveError(f"a tensor in {where} has requires_grad={quoted(requires_grad)}, "
                           "not a bool")
    t = Tensor._wrap(tensor_array(storages.get(pid.pid, where), offset, size, stride, where))       # (the storage's element type is one tensors hold)
    if requires_grad:
        t.requires_grad = True
    return t


class _ObjectLoader(Rebuilder):
    """Neutral pickle model -> run-time values, creating objects of archive classes."""

    leaves = frozenset({type(None), bool, int, float, str})   # (IValues: no bytes, no sets)
    containers = (tuple, list, dict)

    def __init__(self, importer: SourceImporter, storages: _Storages, where: str,
                 clock: LoadClock) -> None:
        super().__init__(where)
        self.importer = importer
        self.storages = storages
        self.clock = clock
        # per class Global of the pickle: its class type, attribute slots by name, and its
        # attribute names and slots in table order (objects of a class come in numbers)
        self.classes: dict[P.Global, _Class] = {}

    def record_planners(self) -> dict[type, Callable[[Any], Plan]]:
        return {P.Object: self.plan_object, P.Reduce: self.plan_reduce}

    def plan_reduce(self, r: P.Reduce) -> Plan:
        """A call record: a tensor, a typed list, a device ..."""
        f = r.func
        if f is P.REBUILD_TENSOR_V2:     # (the most frequent; its arguments are read raw)
            return NO_SHELL, (), self.tensor
        if r.state is not None or r.appended or (r.items and f is not P.ORDERED_DICT):
            raise ArchiveError(f"unexpected state or items on a {f.qualname} record in "
                               f"{self.where}")
        if f in _TYPED_LISTS:
            if len(r.args) != 1 or not isinstance(r.args[0], list):
                raise ArchiveError(f"bad {f.name} record in {self.where}")
            return [], r.args[0], self.finish_typed_list
        if f is P.RESTORE_TYPE_TAG:
            if not r.args:
                raise ArchiveError(f"bad restore_type_tag record in {self.where}")
            return NO_SHELL, r.args[:1], lambda r: self.get(r.args[0])
        if f is P.ORDERED_DICT:
            items = r.items or ()
            return {}, [x for pair in items for x in pair], self.finish_ordered_dict
        if f is P.TORCH_DEVICE:
            if len(r.args) != 1 or not isinstance(r.args[0], str):
                raise ArchiveError(f"bad device record in {self.where}")
            return NO_SHELL, (), self.device
        if f.module.startswith("__torch__") and len(r.args) == 1:
            return NO_SHELL, (), self.enum_value
        raise ArchiveError(f"unsupported global {f.qualname} in {self.where}")

    def enum_value(self, r: P.Reduce) -> Any:
        """The member of archive enum `r.func` whose value is `r.args[0]`."""
        name = r.func.qualname
        t = self.importer.lookup(name)
        if not isinstance(t, T.EnumType):
            raise ArchiveError(f"{name} is not an enum in this archive ({self.where})")
        for member, value in t.members.items():
            if value == r.args[0] and type(value) is type(r.args[0]):
                return t.member(member)
        raise ArchiveError(f"enum {name} has no member of value {r.args[0]!r} ({self.where})")

    def device(self, r: P.Reduce) -> Device:
        """A device value (any device PyTorch knows: only tensors must be on the CPU)."""
        try:
            return make_device(r.args[0])
        except RuntimeError as exc:
            raise ArchiveError(f"bad device {quoted(r.args[0])} in {self.where}: "
                               f"{clipped(str(exc))}") from None

    def tensor(self, r: P.Reduce) -> Tensor:
        return _rebuild_tensor(self.storages, r.args, self.where)

    def finish_typed_list(self, r: P.Reduce) -> Any:
        self.done[id(r)].extend(map(self.get, r.args[0]))
        return FILLED

    def finish_ordered_dict(self, r: P.Reduce) -> Any:
        out, get = self.done[id(r)], self.get
        items = r.items or ()
        self.check_keys([get(k) for k, _ in items])
        for k, v in items:
            out[get(k)] = get(v)
        return FILLED

    def plan_object(self, po: P.Object) -> Plan:
        """An object of an archive class: made empty, then given its state."""
        if po.args or po.kwargs or po.items or po.appended:
            raise ArchiveError(f"unexpected arguments or items of a {po.cls.qualname} object "
                               f"in {self.where}")
        found = self.classes.get(po.cls)
        if found is None:
            found = self.classes[po.cls] = self.load_class(po.cls)
        t = found[0]
        obj = Object(t)
        state = po.state
        if "__setstate__" in t.methods:
            return obj, (state,), self.finish_setstate
        if not isinstance(state, dict):
            raise ArchiveError(f"the state of a {po.cls.qualname} object in {self.where} is "
                               "not a dict")
        return obj, state.values(), self.finish_attributes

    def finish_setstate(self, po: P.Object) -> Any:
        obj = self.done[id(po)]
        fn = obj.type.methods["__setstate__"]
        state = self.get(po.state)
        args = fn.schema.arguments
        problem = type_problem(state, args[1].type) if len(args) == 2 else None
        if problem:
            raise ArchiveError(f"the state of a {po.cls.qualname} object in {self.where} "
                               f"{problem}, but its __setstate__ takes "
                               f"{args[1].type.annotation_str()}")
        self.clock.call(fn, [obj, state])
        return FILLED

    def finish_attributes(self, po: P.Object) -> Any:
        _, slots, names, indices, quick, fits = self.classes[po.cls]
        state, out, done, leaves = po.state, self.done[id(po)].slots, self.done, self.leaves
        if tuple(state) == names:
            # The attributes in the order of the class's table, as the picklers write them:
            # their slots without a lookup each.
            for i, v in zip(indices, state.values()):
                out[i] = v if type(v) in leaves else done[id(v)]
        else:
            for k, v in state.items():
                i = slots.get(k) if type(k) is str else None
                if i is None:
                    raise ArchiveError(f"{self.where} sets attribute '{clipped(str(k))}', which class "
                                       f"{po.cls.qualname} does not declare")
                out[i] = v if type(v) in leaves else done[id(v)]
        for v, ok, fit in zip(out, quick, fits):
            # (a simple value of its type: one lookup; others: the slot's own quick test)
            if type(v) not in ok and (fit is None or not fit(v)):
                self.check_attributes(po, out)
                break
        return FILLED

    def check_attributes(self, po: P.Object, values: list) -> None:
        """Each attribute value must fit its declared type (an error names the first that
        does not), as the code compiled against the declarations assumes."""
        t, _, _, _, quick, fits = self.classes[po.cls]
        for a, v, ok, fit in zip(t.attributes, values, quick, fits):
            if type(v) in ok or (fit is not None and fit(v)):
                continue
            problem = type_problem(v, a.type)
            if problem:
                raise ArchiveError(f"attribute '{a.name}' of a {po.cls.qualname} object in "
                                   f"{self.where} is declared {a.type.annotation_str()} but "
                                   f"{problem}")

    def load_class(self, cls: P.Global) -> _Class:
        """The archive's class `cls`, the slots of its attributes by name, and those names
        and slots in the table's order."""
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
        slots = t.attribute_slots()
        quick, fits = slot_tests([a.type for a in t.attributes])
        return t, slots, tuple(slots), tuple(slots.values()), quick, fits


# (class type, attribute slots by name, their names and slots in the table's order; in slot
# order, the Python types each slot's value may have without a closer look, and for other
# declared types a quick test of the value)
_Class = tuple[T.ClassType, dict[str, int], tuple[str, ...], tuple[int, ...],
               tuple[frozenset, ...], tuple[Optional[Callable[[Any], bool]], ...]]
_TYPED_LISTS = frozenset({P.BUILD_INTLIST, P.BUILD_DOUBLELIST, P.BUILD_BOOLLIST,
                          P.BUILD_TENSORLIST})


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
            # (digits only, and few: int() of thousands of digits is refused by Python)
            if not text.isdigit() or len(text) > _VERSION_DIGITS:
                raise ArchiveError(f"bad version record {reader.top}/{name}: {quoted(text)}")
            v = int(text)
            if not MIN_VERSION <= v <= MAX_SUPPORTED_VERSION:
                raise ArchiveError(f"archive format version {v} is not supported: tsjit reads "
                                   f"versions {MIN_VERSION} to {MAX_SUPPORTED_VERSION}")
            return v
    raise ArchiveError(f"{reader.path} is not a TorchScript archive: it has no version record")


_VERSION_DIGITS = 18    # more is no version (and a number of any length would do for none)

# What load_module is given to check an archive's code: called with the compilation unit
# once every code file is declared (`check="full"`).
CodeCheck = Callable[[CompilationUnit], None]


def load_module(path: Any, make_module: Callable[[Object], Any],
                extra_files: Optional[dict] = None, *, limits: Optional[Limits] = None,
                map_to_cpu: bool = False, check: Optional[CodeCheck] = None) -> Any:
    """Load the module saved in archive `path` (a file name, the archive's bytes or its
    open reader) as `make_module(root object)` (jit/ passes its ScriptModule: serialize
    knows no jit/); each key of the dict `extra_files` is set to the content of that
    extra/ file.

    Everything runs under `limits` (None: those in force), code run while loading
    (`__setstate__`) within `limits.load_seconds`; the module keeps them (`_limits`) for
    its calls. `map_to_cpu`: tensors saved on another device load to the CPU (else they
    are refused, as on a CPU-only PyTorch). `check`: given the compilation unit once
    every class and function of the archive's code is declared (`check="full"`).
    """
    if isinstance(path, (str, os.PathLike)) and not os.path.exists(path):
        raise ArchiveError(f"no such file: {os.fspath(path)}")
    active = current_limits()
    if limits is None:
        limits = active
    elif not isinstance(limits, Limits):
        raise TsjitError(f"limits must be a tsjit.Limits, not {type(limits).__name__}")
    clock = LoadClock(limits.load_seconds)
    if limits is active:    # (the usual case: no context to enter)
        module = _open_and_load(path, make_module, extra_files, map_to_cpu, check, clock)
    else:
        with use_limits(limits):
            module = _open_and_load(path, make_module, extra_files, map_to_cpu, check, clock)
    object.__setattr__(module, "_limits", limits)
    return module


class LoadClock:
    """The time code run while loading may take, shared by all of it (`__setstate__`s)."""

    def __init__(self, seconds: Optional[float]) -> None:
        self.seconds = seconds
        self.start = time.monotonic()
        self.what = "code run while loading"

    def call(self, fn: Any, args: list) -> Any:
        """`fn(*args)` within what is left of the budget."""
        if self.seconds is None:
            return call_function(fn, args)
        left = self.seconds - (time.monotonic() - self.start)
        with time_budget(max(left, 0.0), "load_seconds", self.what):
            return call_function(fn, args)


def _open_and_load(path: Any, make_module: Callable[[Object], Any],
                   extra_files: Optional[dict], map_to_cpu: bool, check: Optional[CodeCheck],
                   clock: LoadClock) -> Any:
    reader = path if isinstance(path, ArchiveReader) else ArchiveReader(path)
    clock.what = f"code run while loading {reader.path}"
    try:
        return _load(reader, make_module, extra_files, map_to_cpu, check, clock)
    finally:
        reader.release_file()   # (records read later, e.g. debug info, come from the map)


def _load(reader: ArchiveReader, make_module: Callable[[Object], Any],
          extra_files: Optional[dict], map_to_cpu: bool, check: Optional[CodeCheck],
          clock: LoadClock) -> Any:
    """The module in an open archive (see load_module)."""
    version = read_version(reader)
    if reader.has("byteorder"):
        order = reader.read("byteorder").decode("ascii", "replace").strip()
        if order != "little":
            raise ArchiveError(f"archive byte order {quoted(order)} is not supported (only "
                               "little)")
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
    importer = SourceImporter(cu, read_code, constants, version)
    if reader.has("constants.pkl"):
        where = f"{top}/constants.pkl"
        raw = unpickle(reader.read("constants.pkl"), where)
        storages = _Storages(reader, "constants", map_to_cpu)
        loaded = _ObjectLoader(importer, storages, where, clock).value(raw)
        if not isinstance(loaded, tuple):
            raise ArchiveError(f"{where} does not hold a tuple")
        constants.extend(loaded)
    where = f"{top}/data.pkl"
    raw = unpickle(reader.read("data.pkl"), where)
    root = _ObjectLoader(importer, _Storages(reader, "data", map_to_cpu), where,
                         clock).value(raw)
    if not isinstance(root, Object) or not root.type.is_module:
        raise ArchiveError(f"{where} does not hold a module")
    if check is not None:
        importer.load_files(name for name in reader.names()
                            if name.startswith("code/") and name.endswith(".py"))
        check(cu)
    module = make_module(root)
    object.__setattr__(module, "_archive", reader)
    if extra_files is not None:
        fill_extra_files(reader, extra_files)
    return module


__all__ = ["load_module", "read_version", "Device", "CodeCheck"]
