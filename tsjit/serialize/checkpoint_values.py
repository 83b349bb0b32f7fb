"""Checkpoint pickles' neutral model -> Python values and tensors (`CheckpointRebuilder`).

Each global PyTorch 2.13's weights-only loading allows has a meaning here, a few lines
that check their arguments (a table from qualified name to method): tensors as views of
their storages, Parameters, OrderedDicts with their attributes, sets, Counters, complex
numbers, bytes, sizes, devices, dtypes, layouts and sparse tensors. Classes and functions
the user allowed are built (`__new__` and state) or called; with weights_only=False,
objects of other classes become inert stand-ins (`PickledObject`), and anything else a
file would call is refused.
"""
from __future__ import annotations

import collections
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from .._tensor import Size, Tensor, device as make_device
from .._tensor.dtypes import dtype as Dtype
from .._tensor.sparse import layout, layout_named, sparse_tensor
from . import checkpoint_format as F
from . import pickle_format as P
from .checkpoint_storages import Storage, storage_dtype
from .errors import CheckpointError
from .rebuild import FILLED, NO_SHELL, Plan, Rebuilder
from .tensor_records import TENSOR_CALLS, tensor_args
from .tensor_views import tensor_array
from .weights_only import qualified_name, refused_global


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


# the tensor calls (tensor_records: their arguments' layout), by qualified name
_TENSOR_CALLS = {g.qualname: c for g, c in TENSOR_CALLS.items()}
_CALLS: dict[str, str] = {      # qualified name -> the method of CheckpointRebuilder making it
    **{name: "parameter" if c.parameter else "tensor_call" for name, c in _TENSOR_CALLS.items()},
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
        method = _CALLS[full]
        if method == "tensor_call":
            return self.tensor_call(full, args)
        try:
            return getattr(self, method)(*args)
        except TypeError as exc:     # a wrong number of arguments
            raise self.fail(f"bad arguments for {full} ({exc})") from None

    def finish_ordered_dict(self, r: P.Reduce) -> Any:
        out = self.done[id(r)]
        if r.args:
            raise self.fail("OrderedDict with arguments")
        items = r.items or ()
        self.check_keys([self.get(k) for k, _ in items])
        for k, v in items:
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

    def tensor_call(self, full: str, args: tuple) -> Tensor:
        """A `_rebuild_tensor*` call (its arguments' values made already)."""
        call = _TENSOR_CALLS[full]
        found = tensor_args(call, args)
        if found is None:
            raise self.fail(f"bad arguments for {full} ({len(args)} of them, where it takes "
                            f"{call.min_args} to {call.max_args})")
        storage, offset, size, stride, requires_grad, dtype = found
        if call.dtype is not None and not isinstance(dtype, Dtype):
            raise self.fail("a tensor record without a dtype")
        return self.tensor(storage, offset, size, stride, dtype, requires_grad)

    def tensor(self, storage: Any, offset: Any, size: Any, stride: Any,
               dtype: Optional[Dtype], requires_grad: Any) -> Tensor:
        if not isinstance(storage, Storage):
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
        return set(self.check_keys(items))

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
            d = storage_dtype(g.name, self.where)
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

