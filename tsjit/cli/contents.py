"""What a file holds, read lazily: its records, pickles, module tree, class declarations and
tensors (as references to storage bytes), without compiling code or loading tensor data.

`info`, `weights`, `show`, `diff`, `convert` and `report` look at files through `open_file`.
Pickles are read by the project's restricted unpickler into its neutral model (`Object`,
`Reduce`, `PersistentId`): nothing is imported or called, so any global may be *named*.
A tensor is a `TensorRef` (storage record, dtype, offset, shape, stride); its bytes are
read when asked for, a chunk at a time for contiguous tensors, so that statistics over a
1 GiB file need memory for one chunk, not the file.

The fast path knows the records PyTorch and tsjit write (`_rebuild_tensor_v2` over typed
storages, module objects whose state is their attribute dict). A file outside it (a legacy
checkpoint, `_rebuild_tensor_v3`, a module with `__getstate__`) is read through
`tsjit.load` instead: same answers, the loader's cost.
"""
from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from typing import Any, Iterator, Optional

from ..ir.diagnostics import TsjitError
from .files import checkpoint_kind

# A class as the printer writes it: `class Name(Base):`, then its body indented by two.
_CLASS = re.compile(r"^class (\w+)\((\w*)\):", re.M)
_LIST = r"^  {}\s*=\s*\[(.*?)\]"
_PARAMS = re.compile(_LIST.format("__parameters__"), re.M | re.S)
_BUFFERS = re.compile(_LIST.format("__buffers__"), re.M | re.S)
_DEF = re.compile(r"^  def (\w+)\((.*?)\)\s*->\s*(.*?):[ \t]*$", re.M | re.S)
_QUOTED = re.compile(r"\"([^\"]*)\"|'([^']*)'")
_CHUNK_BYTES = 8 << 20      # bytes read at a time from a contiguous tensor's storage


class OffTheFastPath(Exception):
    """The file has a record the fast path does not read; `tsjit.load` will."""


@dataclass
class ClassDecl:
    """A class of an archive's code as declared: base, parameter and buffer names, methods."""
    qualified_name: str
    base: str
    parameters: list[str]
    buffers: list[str]
    methods: dict[str, str]        # name -> `name(args) -> type`
    code_file: str                 # the record declaring it
    source: str                    # the class's text

    @property
    def is_module(self) -> bool:
        return self.base == "Module"


@dataclass(frozen=True)
class TensorRef:
    """One tensor of a file: where its bytes are and how they are laid out."""
    name: str
    group: str                     # parameters, buffers, tensors (checkpoints), constants
    record: str                    # storage record, relative to the archive's top folder
    dtype: str                     # tsjit's dtype name (float32, bfloat16, ...)
    offset: int                    # in elements
    shape: tuple[int, ...]
    stride: tuple[int, ...]
    array: Any = None              # the values, when read through tsjit.load already

    @property
    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def itemsize(self) -> int:
        return _np_dtype(self.dtype).itemsize

    @property
    def nbytes(self) -> int:
        return self.numel * self.itemsize

    @property
    def contiguous(self) -> bool:
        expected = 1
        for d, s in zip(reversed(self.shape), reversed(self.stride)):
            if d != 1 and s != expected:
                return False
            expected *= d
        return True


def _np_dtype(name: str) -> Any:
    from .._tensor.dtypes import as_dtype
    np_dtype = as_dtype(name).np
    if np_dtype is None:
        raise TsjitError(f"tensors of dtype {name} cannot be read by tsjit (numpy has no such type)")
    return np_dtype


def is_tensor_record(v: Any) -> bool:
    """Whether a neutral-model value is a `_rebuild_tensor_v2` call (a tensor)."""
    from ..serialize.pickle_format import REBUILD_TENSOR_V2, Reduce
    return type(v) is Reduce and v.func is REBUILD_TENSOR_V2


class FileView:
    """One file opened for looking: `kind` is torchscript, checkpoint-zip or checkpoint-legacy."""

    def __init__(self, path: str) -> None:
        what = checkpoint_kind(path)
        self.path = path
        self.kind = "torchscript" if what is None else \
            "checkpoint-legacy" if "legacy" in what else "checkpoint-zip"
        self.reader: Any = None
        if self.kind != "checkpoint-legacy":
            from ..serialize import ArchiveReader
            self.reader = ArchiveReader(path)
        self._big = ">" if self.byteorder == "big" else "<"

    # ----------------------------------------------------------------- records
    def names(self) -> list[str]:
        """Record names (relative to the top folder); none for a legacy checkpoint."""
        return self.reader.names() if self.reader is not None else []

    def read(self, record: str) -> bytes:
        """The bytes of one record; an error naming what exists when it is missing."""
        if self.reader is None:
            raise TsjitError(f"{self.path} is a legacy torch.save file: it has no records "
                             "(its one pickle is `data.pkl` for `tsjit show`)")
        if not self.reader.has(record):
            raise TsjitError(f"{self.path} has no record {record!r} (`tsjit list {self.path}` "
                             "lists them)")
        return self.reader.read(record)

    def pickle(self, record: str) -> Any:
        """A pickle record in the neutral model; any global is named, none imported."""
        from ..serialize.unpickler import unpickle, unpickle_prefix
        if self.reader is None:
            if record != "data.pkl":
                raise TsjitError(f"{self.path} is a legacy torch.save file: its one pickle "
                                 "is shown as `data.pkl`")
            with open(self.path, "rb") as f:
                data = f.read()
            pos = 0
            for _ in range(3):          # magic number, protocol version, system info
                _, pos = unpickle_prefix(data, pos, self.path, _any_global)
            return unpickle_prefix(data, pos, self.path, _any_global)[0]
        return unpickle(self.read(record), f"{self.reader.top}/{record}", _any_global)

    @functools.cached_property
    def version(self) -> Optional[int]:
        for name in ("version", ".data/version"):
            if self.reader is not None and self.reader.has(name):
                text = self.reader.read(name).decode("ascii", "replace").strip()
                return int(text) if text.isdigit() else None
        return None

    @functools.cached_property
    def byteorder(self) -> Optional[str]:
        if self.reader is None:
            return None
        if self.reader.has("byteorder"):
            return self.reader.read("byteorder").decode("ascii", "replace").strip()
        return "little"

    def extra_files(self) -> list[tuple[str, int]]:
        """(name, size) of each extra file."""
        if self.reader is None:
            return []
        from ..serialize import list_extra_files
        return [(n, self.reader.record_size("extra/" + n)) for n in list_extra_files(self.reader)]

    def code_files(self) -> dict[str, str]:
        """Code record name -> text (read once)."""
        return dict(self._code)

    @functools.cached_property
    def _code(self) -> dict[str, str]:
        return {n: self.reader.read(n).decode("utf-8", "replace") for n in self.names()
                if n.startswith("code/") and n.endswith(".py")}

    # ----------------------------------------------------------------- classes and modules
    @functools.cached_property
    def classes(self) -> dict[str, ClassDecl]:
        """The classes the code declares, by qualified name."""
        out: dict[str, ClassDecl] = {}
        for record, text in self.code_files().items():
            module = record[len("code/"):-len(".py")].replace("/", ".")
            starts = list(_CLASS.finditer(text))
            for k, c in enumerate(starts):
                body = text[c.start():starts[k + 1].start() if k + 1 < len(starts) else len(text)]
                methods = {d.group(1): f"{d.group(1)}({' '.join(d.group(2).split())}) -> {d.group(3)}"
                           for d in _DEF.finditer(body)}
                q = f"{module}.{c.group(1)}"
                out[q] = ClassDecl(q, c.group(2), _names(_PARAMS, body), _names(_BUFFERS, body),
                                   methods, record, body)
        return out

    @functools.cached_property
    def root(self) -> Any:
        """data.pkl in the neutral model."""
        return self.pickle("data.pkl")

    def modules(self) -> list[tuple[str, Any]]:
        """(dotted name, neutral Object) of each module, the top one named ""."""
        if self.kind != "torchscript":
            return []
        return list(self._modules("", self.root))

    def _modules(self, name: str, obj: Any) -> Iterator[tuple[str, Any]]:
        from ..serialize.pickle_format import Object
        if type(obj) is not Object or not isinstance(obj.state, dict):
            raise OffTheFastPath(f"module {name or '<top>'} is not an attribute dict")
        yield name, obj
        for k, v in obj.state.items():
            if type(v) is Object and self.class_of(v) is not None and self.class_of(v).is_module:
                yield from self._modules(f"{name}.{k}" if name else k, v)

    def class_of(self, obj: Any) -> Optional[ClassDecl]:
        """The declaration of a neutral Object's class, if the code declares it."""
        return self.classes.get(qualified(obj.cls))

    # ----------------------------------------------------------------- tensors
    def tensors(self) -> list[TensorRef]:
        """Every tensor: an archive's parameters then buffers (by module), a checkpoint's
        tensors by dotted path."""
        try:
            return self._fast_tensors()
        except OffTheFastPath:
            return self._loaded_tensors()

    def _fast_tensors(self) -> list[TensorRef]:
        if self.kind == "checkpoint-legacy":
            raise OffTheFastPath("legacy checkpoint")
        if self.kind == "checkpoint-zip":
            return [self._ref(n, "tensors", r)
                    for n, r in named_tensors(self.root, "", _neutral_tensor)]
        out: list[TensorRef] = []
        modules = self.modules()
        for group in ("parameters", "buffers"):
            for name, obj in modules:
                decl = self.class_of(obj)
                for attr in getattr(decl, group):
                    v = obj.state.get(attr)
                    if v is not None:
                        if not is_tensor_record(v):
                            raise OffTheFastPath(f"{name}.{attr}")
                        out.append(self._ref(f"{name}.{attr}" if name else attr, group, v))
        return out

    def _ref(self, name: str, group: str, r: Any) -> TensorRef:
        """The TensorRef of `_rebuild_tensor_v2` record `r` (read as the loader reads it)."""
        from ..serialize.pickle_format import STORAGE_DTYPES, PersistentId
        from ..serialize.tensor_records import TENSOR_CALLS, storage_ref, tensor_args
        found = tensor_args(TENSOR_CALLS[r.func], r.args)
        if found is None:
            raise OffTheFastPath(name)
        storage, offset, size, stride, _, _ = found
        ref = storage_ref(storage.pid) if type(storage) is PersistentId else None
        if ref is None or ref.cls.module != "torch" or ref.cls.name not in STORAGE_DTYPES:
            raise OffTheFastPath(name)
        folder = "constants/" if group == "constants" else "data/"
        return TensorRef(name, group, folder + str(ref.key), STORAGE_DTYPES[ref.cls.name],
                         int(offset), tuple(size), tuple(stride))

    def _loaded_tensors(self) -> list[TensorRef]:
        """The tensors through tsjit.load: for files off the fast path."""
        if self.kind == "torchscript":
            from ..jit import load
            m = load(self.path)
            pairs = [("parameters", n, t) for n, t in m.named_parameters()] + \
                    [("buffers", n, t) for n, t in m.named_buffers()]
        else:
            from ..serialization import load
            value = load(self.path, weights_only=False, mmap=self.kind == "checkpoint-zip")
            pairs = [("tensors", n, t) for n, t in named_tensors(value)]
        return [TensorRef(n, g, "", str(t.dtype).replace("torch.", ""), 0, tuple(t.shape),
                          tuple(t.stride()), t) for g, n, t in pairs]

    def array(self, ref: TensorRef) -> Any:
        """The tensor's values as a numpy array (a view of the file where possible)."""
        import numpy as np
        if ref.array is not None:
            return ref.array.numpy(force=True)
        dt = _np_dtype(ref.dtype).newbyteorder(self._big)
        view = self.reader.storage_view(ref.record)
        flat = np.frombuffer(view, dtype=dt, count=len(view) // dt.itemsize)
        if ref.numel == 0:
            return np.zeros(ref.shape, dt)
        last = ref.offset + sum((d - 1) * s for d, s in zip(ref.shape, ref.stride))
        if ref.offset < 0 or last >= flat.size or min(ref.stride, default=0) < 0:
            raise TsjitError(f"tensor {ref.name} lies outside its storage {ref.record}")
        return np.lib.stride_tricks.as_strided(
            flat[ref.offset:], ref.shape, tuple(s * dt.itemsize for s in ref.stride),
            writeable=False)

    def chunks(self, ref: TensorRef) -> Iterator[Any]:
        """The tensor's values, flat, a bounded chunk at a time: read from the file for a
        contiguous tensor (no page of the mapping stays resident), else from its view."""
        import numpy as np
        if ref.array is not None or not ref.contiguous or ref.numel == 0:
            yield self.array(ref).reshape(-1)
            return
        dt = _np_dtype(ref.dtype).newbyteorder(self._big)
        entry = self.reader.info(ref.record)
        if entry.method != 0 or (ref.offset + ref.numel) * dt.itemsize > entry.size:
            yield self.array(ref).reshape(-1)
            return
        start = entry.data_offset + ref.offset * dt.itemsize
        end = start + ref.numel * dt.itemsize
        step = max(dt.itemsize, _CHUNK_BYTES // dt.itemsize * dt.itemsize)
        with open(self.path, "rb", buffering=0) as f:
            for at in range(start, end, step):
                data = os.pread(f.fileno(), min(step, end - at), at)
                yield np.frombuffer(data, dtype=dt)


def _any_global(module: str, name: str) -> bool:
    # Showing names a global, never imports or calls it (the unpickler does neither).
    return True


def qualified(g: Any) -> str:
    """`module.name` of a neutral-model Global."""
    return f"{g.module}.{g.name}"


def _names(pattern: re.Pattern, body: str) -> list[str]:
    m = pattern.search(body)
    return [a or b for a, b in _QUOTED.findall(m.group(1))] if m else []


def named_tensors(v: Any, name: str = "", tensor_of: Any = None) -> Iterator[tuple[str, Any]]:
    """(dotted name, tensor) for each tensor inside nested dicts, lists and tuples: run-time
    values, or with `tensor_of=_neutral_tensor` a checkpoint's neutral model (in the order
    tsjit.load's containers hold them)."""
    t = (tensor_of or _runtime_tensor)(v)
    if t is not None:
        yield name or "<root>", t
    elif isinstance(v, dict):
        for k, x in v.items():
            yield from named_tensors(x, f"{name}.{k}" if name else str(k), tensor_of)
    elif isinstance(v, (list, tuple)):
        for i, x in enumerate(v):
            yield from named_tensors(x, f"{name}.{i}" if name else str(i), tensor_of)
    elif tensor_of is not None:
        from ..serialize.pickle_format import ORDERED_DICT, Object, Reduce
        if type(v) is Reduce and v.func is ORDERED_DICT:
            yield from named_tensors(dict(v.items or ()), name, tensor_of)
        elif type(v) in (Reduce, Object) and _has_storage(v):
            # another call or object: tsjit.load rebuilds it some other way
            raise OffTheFastPath(name)


def _runtime_tensor(v: Any) -> Any:
    from .._tensor import Tensor
    return v if isinstance(v, Tensor) else None


def _neutral_tensor(v: Any) -> Any:
    """The tensor record of a tensor or a parameter (`_rebuild_parameter*`), else None."""
    from ..serialize.pickle_format import Reduce
    from ..serialize.tensor_records import TENSOR_CALLS
    if is_tensor_record(v):
        return v
    call = TENSOR_CALLS.get(v.func) if type(v) is Reduce else None
    if call is not None and call.parameter and v.args and is_tensor_record(v.args[0]):
        return v.args[0]
    return None


def _has_storage(v: Any) -> bool:
    """Whether a neutral-model value refers to a storage anywhere inside (a tensor record
    the fast path does not read, such as `_rebuild_tensor_v3`, holds one)."""
    from ..serialize.pickle_format import Object, PersistentId, Reduce
    if type(v) is PersistentId:
        return True
    if isinstance(v, dict):
        return any(_has_storage(x) for x in v.values())
    if isinstance(v, (list, tuple)):
        return any(_has_storage(x) for x in v)
    if type(v) in (Reduce, Object):
        return any(_has_storage(x) for x in (v.args, v.state, v.items or (), v.appended or ()))
    return False


def open_file(path: str) -> FileView:
    """A lazy view of a TorchScript archive or a torch.save checkpoint."""
    return FileView(path)
