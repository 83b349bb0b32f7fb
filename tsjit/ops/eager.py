"""The eager API: `tsjit.add(x, y)`, `tsjit.sum(x, 1, keepdim=True)`, `x.view(2, 3)` ...

Every registered overload `is_eager` accepts (an aten schema that mentions a Tensor, or
takes no arguments) is callable here by its PyTorch name, whichever kernel module
registered it. A call is bound to the first overload whose schema accepts the arguments
(positional and keyword, defaults filled, Python-style conveniences applied: `zeros(2, 3)`
packs sizes into `int[]`, a single int fills `int[2]`, strings become devices), reading
each argument's written type (`Argument.written`: `ScalarType?`, `int[2]`), then the kernel
runs with one positional argument per schema argument. Creation functions with
Python-only keywords (`requires_grad`) come from `tsjit._tensor.creation`.
"""
from __future__ import annotations

import collections
import re
import types
from typing import Any, Callable

import numpy as np

from .._tensor import dtypes as D
from .._tensor.device import Device
from .._tensor.tensor import Tensor
from ..ir import types as T
from .registry import all_operators, overloads

# name ("add") -> [(FunctionSchema, binding plan, kernel)], filled a name at a time
_table: dict[str, list[tuple[Any, "_Plan", Callable]]] = {}


def _entries(name: str) -> list[tuple[Any, "_Plan", Callable]]:
    """The eager overloads of aten::`name` (looked up, and their schemas parsed, only when
    the name is first used: a fresh process parsed all ~2000 and imported every kernel
    module at its first eager call)."""
    got = _table.get(name)
    if got is None:
        got = [(o.schema, _Plan(o.schema), o.kernel)
               for o in overloads(f"aten::{name}") if is_eager(o.schema)]
        if got:     # (a name without overloads is asked again: one may be registered later)
            _table[name] = got
    return got


def _all_names() -> list[str]:
    """Every aten name with an eager overload, sorted."""
    return sorted({o.name[6:] for o in all_operators()
                   if o.name.startswith("aten::") and _entries(o.name[6:])})


def _mentions_tensor(t: T.Type) -> bool:
    return t == T.TensorType or any(_mentions_tensor(c) for c in t.contained())


def is_eager(schema: Any) -> bool:
    """Whether an overload is callable eagerly (`tsjit.add`): an aten operator whose schema
    mentions a Tensor, or that takes no arguments (`is_grad_enabled()`)."""
    # The scalar and string builtins of the language (aten::add.int) are no torch functions.
    # The list and dict builtins specialised for tensors (aten::sort.Tensor sorts a Tensor[])
    # are eager too: no schema tells `sorted.Tensor(Tensor[]) -> Tensor[]` from
    # `atleast_1d.Sequence(Tensor[]) -> Tensor[]`, and they accept only lists and dicts.
    if schema.namespace != "aten":
        return False
    if not schema.arguments:
        return not schema.is_vararg
    return any(_mentions_tensor(a.type) for a in schema.arguments + schema.returns)


class _NoMatch(Exception):
    pass


_NUM = (bool, int, float, complex, np.bool_, np.integer, np.floating, np.complexfloating)


def _py_number(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_, D.dtype))


class _Arg:
    """What one schema argument accepts, read once from its written type ("int[2]?")."""

    __slots__ = ("base", "optional", "is_list", "size", "elem_optional", "exact", "ints")

    def __init__(self, raw: str, t: Any) -> None:
        self.base = re.match(r"[A-Za-z_]+", raw).group(0) if raw[0] != "(" else "("
        self.optional = raw.endswith("?") or isinstance(t, T.OptionalType)
        self.is_list = "[" in raw
        m = re.search(r"\[(\d+)\]", raw)
        self.size = int(m.group(1)) if m else 1      # `int[2]`: a single int fills 2
        self.elem_optional = "?" in raw.split("[")[0]  # `Tensor?[]`
        # the Python type a value passes through unchanged (checked first: the hot path)
        self.exact = None if self.is_list else {
            "Tensor": Tensor, "int": int, "SymInt": int, "float": float, "bool": bool,
            "str": str}.get(self.base)
        self.ints = self.is_list and self.base in ("int", "SymInt")


class _Plan:
    """How call arguments bind to one schema, precomputed so a call does no parsing."""

    __slots__ = ("schema", "args", "positional", "names", "int_list", "tensor_list", "prefix",
                 "defaults")

    def __init__(self, schema: Any) -> None:
        self.schema = schema
        self.args = [_Arg(a.written, a.type) for a in schema.arguments]
        self.positional = [i for i, a in enumerate(schema.arguments) if not a.kwarg_only]
        self.names = {a.name: i for i, a in enumerate(schema.arguments)}
        # the first positional int[] argument: `x.view(2, 3)` packs extra ints into it
        self.int_list = next((i for i in self.positional
                              if self.args[i].is_list and self.args[i].base in ("int", "SymInt")),
                             None)
        self.tensor_list = next((i for i in self.positional
                                 if self.args[i].is_list and self.args[i].base == "Tensor"), None)
        # positional arguments are the schema's first ones: a call with only positional
        # arguments binds by position, then takes defaults (the eager hot path)
        self.prefix = self.positional == list(range(len(self.positional)))
        self.defaults = [a.default if a.has_default else _MISSING for a in schema.arguments]


def _coerce(v: Any, spec: _Arg, scalars: bool = False) -> Any:
    tp = type(v)
    if tp is spec.exact:
        return v                                  # the common cases first
    if spec.ints:
        if tp is int:
            return [v] * spec.size                # `max_pool2d(x, 2)`: 2 fills int[2]
        if (tp is list or tp is tuple) and all(type(x) is int for x in v):
            return list(v)
    base = spec.base
    if base == "Tensor" and not spec.is_list and isinstance(v, Tensor):
        return v
    if v is None:
        if spec.optional:
            return None
        raise _NoMatch
    is_list = spec.is_list
    if scalars and base == "Scalar" and not is_list and isinstance(v, Tensor) and v.dim() == 0:
        return v.item()
    if base == "ScalarType" and not is_list:
        if isinstance(v, D.dtype) or v in (float, int, bool, complex):
            return D.as_dtype(v)
        raise _NoMatch
    if base == "Device":
        if isinstance(v, Device):
            return v
        if isinstance(v, str):
            try:
                return Device(v)
            except RuntimeError:
                raise _NoMatch from None
        if _is_int(v):
            return Device("cuda", int(v))
        raise _NoMatch
    if base in ("Layout", "MemoryFormat", "Generator"):
        return v
    if is_list:
        if base in ("int", "SymInt"):
            if _is_int(v) or (isinstance(v, Tensor) and v.dim() == 0 and v.dtype.kind == "i"):
                return [int(v)] * spec.size
            if isinstance(v, (list, tuple)) and all(
                    _is_int(x) or (isinstance(x, Tensor) and x.dim() == 0) for x in v):
                return [int(x) for x in v]
            raise _NoMatch
        if base == "float":
            if isinstance(v, (list, tuple)) and all(isinstance(x, (int, float)) for x in v):
                return [float(x) for x in v]
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                return [float(v)]
            raise _NoMatch
        if base == "Tensor":
            if isinstance(v, (list, tuple)) and all(
                    isinstance(x, Tensor) or (x is None and spec.elem_optional)
                    for x in v):
                return list(v)
            raise _NoMatch
        if base == "bool":
            if isinstance(v, (list, tuple)) and all(isinstance(x, bool) for x in v):
                return list(v)
            raise _NoMatch
        return list(v) if isinstance(v, (list, tuple)) else _raise()
    if base == "Tensor":
        if isinstance(v, Tensor):
            return v
        raise _NoMatch
    if base in ("int", "SymInt"):
        if _is_int(v):
            return int(v)
        if isinstance(v, Tensor) and v.dim() == 0 and v.dtype.kind == "i":
            return int(v)    # as PyTorch's argument parser: a 0-dim integral tensor only
        raise _NoMatch
    if base == "float":
        if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(
                v, (bool, D.dtype)):
            return float(v)
        raise _NoMatch
    if base == "bool":
        if isinstance(v, (bool, np.bool_)):
            return bool(v)
        raise _NoMatch
    if base == "Scalar":
        if isinstance(v, _NUM) and not isinstance(v, D.dtype):
            return _py_number(v)
        raise _NoMatch
    if base == "str":
        if isinstance(v, str):
            return v
        raise _NoMatch
    return v


def _is_0dim(v: Any) -> bool:
    return isinstance(v, Tensor) and v.dim() == 0


def _raise() -> Any:
    raise _NoMatch


def _pack_varargs(args: tuple, plan: _Plan) -> tuple:
    # `x.view(2, 3)` / `zeros(2, 3)`: extra positional ints fill the first int[] argument
    # `einsum("ij,jk", a, b)`: extra positional tensors fill a Tensor[] argument
    i = plan.int_list
    if len(args) <= len(plan.positional):
        return args
    n = len(args) - len(plan.positional) + 1
    if i is not None and all(_is_int(x) for x in args[i:i + n]):
        return args[:i] + (list(args[i:i + n]),) + args[i + n:]
    i = plan.tensor_list
    if i is not None and all(isinstance(x, Tensor) for x in args[i:i + n]):
        return args[:i] + (list(args[i:i + n]),) + args[i + n:]
    return args


# Keyword names the Python API uses for a schema's argument: `torch.exp(input=x)` is
# `self`, `torch.split(x, split_size_or_sections=2)` is `split_size` / `split_sizes`.
_KEYWORD_ALIASES = {"input": ("self",), "split_size_or_sections": ("split_size", "split_sizes")}


def _bind(plan: _Plan, args: tuple, kwargs: dict, scalars: bool = False) -> list[Any]:
    """The kernel's arguments; `scalars`: a 0-dim tensor may be given for a Scalar."""
    if not kwargs and plan.prefix and len(args) <= len(plan.positional):
        out = [v if type(v) is spec.exact else _coerce(v, spec, scalars)
               for v, spec in zip(args, plan.args)]
        for d in plan.defaults[len(args):]:
            if d is _MISSING:
                raise _NoMatch
            out.append(list(d) if isinstance(d, list) else d)
        return out
    args = _pack_varargs(args, plan)
    params = plan.schema.arguments
    positional = plan.positional
    if len(args) > len(positional):
        raise _NoMatch
    values: list[Any] = [_MISSING] * len(params)
    for i, v in zip(positional, args):
        values[i] = v
    for k, v in kwargs.items():
        i = plan.names.get(k)
        if i is None:
            i = next((plan.names[a] for a in _KEYWORD_ALIASES.get(k, ()) if a in plan.names), None)
        if i is None or values[i] is not _MISSING:
            raise _NoMatch
        values[i] = v
    out = []
    for i, a in enumerate(params):
        v = values[i]
        if v is _MISSING:
            if not a.has_default:
                raise _NoMatch
            out.append(list(a.default) if isinstance(a.default, list) else a.default)
            continue
        out.append(_coerce(v, plan.args[i], scalars))
    return out


_MISSING = object()
_namedtuples: dict[tuple, Any] = {}


def _finish_result(schema: Any, r: Any) -> Any:
    rets = schema.returns
    if type(r) is list and len(rets) == 1 and rets[0].type == _TENSOR_LIST:
        return tuple(r)   # PyTorch's Python binding returns a Tensor[] as a tuple (split...)
    if isinstance(r, tuple) and len(rets) > 1 and all(x.name for x in rets):
        key = (schema.base_name, tuple(x.name for x in rets))
        cls = _namedtuples.get(key)
        if cls is None:
            cls = _namedtuples[key] = collections.namedtuple(schema.base_name, key[1])
        return cls(*r)
    return r


_TENSOR_LIST = T.ListType(T.TensorType)


def _copy_out(out: Tensor, r: Any) -> Tensor:
    if not isinstance(out, Tensor) or not isinstance(r, Tensor):
        raise TypeError("out= needs a tensor result and a Tensor")
    if out._a.shape == r._a.shape:
        out._writable()[...] = r._a.astype(out._a.dtype, copy=False)
    else:
        out._a = r._a.astype(out._a.dtype)
    return out


class Dispatcher:
    """Calls the first overload of aten::`name` whose schema accepts the arguments."""

    def __init__(self, name: str) -> None:
        self.__name__ = self.name = name
        self.__qualname__ = name
        self.__doc__ = f"torch.{name}: see the aten::{name} schemas."
        self._cands: Any = None     # the overloads, looked up on the first call

    def overloads(self) -> list[Any]:
        """The schemas tried, in order."""
        return [s for s, _, _ in _entries(self.name)]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        cands = self._cands
        if cands is None:
            cands = _entries(self.name)
            if not cands:
                raise AttributeError(f"tsjit has no tensor operator '{self.name}'")
            self._cands = cands
        out = kwargs.pop("out", None) if kwargs else None
        for schema, plan, kernel in cands:
            try:
                bound = _bind(plan, args, kwargs)
            except _NoMatch:
                continue
            r = _finish_result(schema, kernel(*bound))
            return _copy_out(out, r) if out is not None else r
        if any(_is_0dim(a) for a in args) or any(_is_0dim(v) for v in kwargs.values()):
            # No overload takes the tensors as they are: a 0-dim tensor may stand for a
            # Scalar (`addcmul(..., value=torch.tensor(1.5))`), as PyTorch's parser allows.
            # Tried last, so overloads taking Tensors keep their type promotion.
            for schema, plan, kernel in cands:
                try:
                    bound = _bind(plan, args, kwargs, scalars=True)
                except _NoMatch:
                    continue
                r = _finish_result(schema, kernel(*bound))
                return _copy_out(out, r) if out is not None else r
        sigs = "\n".join(" * " + str(s) for s, _, _ in cands)
        got = ", ".join([type(a).__name__ for a in args] +
                        [f"{k}={type(v).__name__}" for k, v in kwargs.items()])
        raise TypeError(f"{self.name}() received an invalid combination of arguments - got "
                        f"({got}), but expected one of:\n{sigs}")

    def __get__(self, obj: Any, cls: Any = None) -> Any:
        # Used as a Tensor method: a bound method (so `inspect.ismethod(x.view)`, as for
        # torch's builtin methods).
        if obj is None:
            return self
        return types.MethodType(self, obj)

    def __repr__(self) -> str:
        return f"<tsjit operator {self.name}>"


_dispatchers: dict[str, Dispatcher] = {}


def dispatcher(name: str) -> Dispatcher:
    """The (cached) eager entry point for aten::`name`."""
    d = _dispatchers.get(name)
    if d is None:
        d = _dispatchers[name] = Dispatcher(name)
    return d


def operator_names() -> list[str]:
    """Every aten name with a tensor kernel."""
    return _all_names()


def lookup(name: str) -> Dispatcher:
    """The eager entry point of operator `name` (`tsjit.add`); an AttributeError if no eager
    overload has that name."""
    if not name.startswith("__") and _entries(name):
        return dispatcher(name)
    raise AttributeError(f"module 'tsjit' has no attribute '{name}'")


def first_arg_is_self(name: str) -> bool:
    """Whether some overload of aten::`name` takes `Tensor self` first (a method)."""
    for s, plan, _ in _entries(name):
        if s.arguments and s.arguments[0].name in ("self", "input") and \
                plan.args[0].base == "Tensor" and not plan.args[0].is_list:
            return True
    return False


class Namespace:
    """A module `__getattr__` for torch.linalg / torch.special: `name` is aten::<prefix>name
    (torch.linalg.solve is aten::linalg_solve), so scripted code compiles to that operator."""

    def __init__(self, module: str, prefix: str) -> None:
        self.module, self.prefix = module, prefix

    def __call__(self, name: str) -> Dispatcher:
        if not name.startswith("__") and _entries(self.prefix + name):
            return dispatcher(self.prefix + name)
        raise AttributeError(f"module '{self.module}' has no attribute '{name}'")

    def names(self) -> list[str]:
        """The functions the namespace offers."""
        n = len(self.prefix)
        return [k[n:] for k in _all_names() if k.startswith(self.prefix)]
