"""The Python-facing wrappers of scripted code: ScriptModule, ScriptMethod, ScriptFunction."""
from __future__ import annotations

import functools
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Optional

import numpy as np

from ..interpreter.objects import Object
from ..interpreter.errors import ScriptError
from ..interpreter.objects import UNINITIALIZED
from ..interpreter.prim_kernels import PYTHON_VALUES
from ..ir import Function, Graph
from ..ir import types as T
from ..ir.diagnostics import TsjitError
from ..ir.limits import Limits, current_limits, time_budget, use_limits
from .._tensor import Tensor, from_numpy
from ..nn.modules.module import Module
from .conversion import NOT_CONVERTED, ConversionError, converter, result_converter, to_python, to_script


def call_function(fn: Function, args: list) -> Any:
    """Run `fn` on `args`. The interpreter (and the executor policy, see executors.py) loads
    on the first call, not when something is first scripted: scripting needs neither."""
    global call_function
    from . import executors  # noqa: F401  (installs the executor policy before anything runs)
    from ..interpreter.run import call_function
    return call_function(fn, args)


class ArgumentError(TsjitError, TypeError):
    """A scripted callable was called with arguments its schema does not accept."""


class ModuleAttributeError(TsjitError, AttributeError):
    """A script module has no such attribute or method (an AttributeError, so hasattr and
    getattr with a default work as on any Python object)."""


def _to_runtime(v: Any) -> Any:
    """Accept numpy arrays where tensors are expected."""
    if isinstance(v, np.ndarray):
        return from_numpy(v)
    if isinstance(v, ScriptModule):
        return v._c
    return v


@dataclass(frozen=True)
class CallPlan:
    """How a call from Python crosses into `function` and back, decided on its first call
    (the types do not change): each parameter's converter (after `self` for a method), the
    result's (None: the value as it is) and whether the result may be or hold a module
    object that must become a ScriptModule. Calls of small functions from Python paid
    three times torch.jit's boundary cost walking the types at each call."""

    schema: Any
    skip_self: bool
    formals: tuple
    converters: tuple
    result: Optional[Callable[[Any], Any]]
    wraps: bool


def call_plan(fn: Function, skip_self: bool) -> CallPlan:
    """`fn`'s CallPlan (kept on the Function)."""
    plan = fn.call_plan
    schema = fn.schema
    if plan is None or plan.schema is not schema or plan.skip_self is not skip_self:
        formals = schema.arguments[1:] if skip_self else schema.arguments
        ret = schema.returns[0].type
        plan = fn.call_plan = CallPlan(schema, skip_self, tuple(formals),
                                       tuple(converter(f.type) for f in formals),
                                       result_converter(ret), _may_hold_module(ret))
    return plan


def _may_hold_module(t: T.Type) -> bool:
    """Whether a result of type `t` may be, or hold in a tuple, a module object (what
    `_wrap_result` replaces)."""
    if isinstance(t, T.ClassType):
        return t.is_module
    if isinstance(t, (T.TupleType, T.OptionalType, T.UnionType)):
        return any(_may_hold_module(x) for x in t.contained())
    return isinstance(t, T.InterfaceType) or t in (T.AnyType, T.AnyClassType, T.AnyTupleType)


def bind_arguments(fn: Function, args: tuple, kwargs: dict, skip_self: bool) -> list:
    """Run-time arguments for `fn` from a Python call, converted to the declared types
    (see conversion.py) with defaults filled in."""
    plan = call_plan(fn, skip_self)
    formals = plan.formals
    if len(args) > len(formals):
        raise ArgumentError(f"{fn.name}() expected at most {len(formals)} argument(s) but "
                            f"received {len(args)} argument(s). Declaration: {plan.schema}")
    out = []
    for f, convert, a in zip(formals, plan.converters, args):
        v = convert(a)
        if v is NOT_CONVERTED:
            raise _argument_error(fn, f, a)
        out.append(v)
    for f in formals[len(args):]:
        if f.name in kwargs:
            out.append(_convert_argument(fn, f, kwargs.pop(f.name)))
        elif f.has_default:
            out.append(f.default)
        else:
            raise ArgumentError(f"{fn.name}() is missing value for argument '{f.name}'. "
                                f"Declaration: {schema}")
    if kwargs:
        raise ArgumentError(f"{fn.name}() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'. Declaration: {schema}")
    return out


def _convert_argument(fn: Function, formal: Any, v: Any) -> Any:
    try:
        return to_script(v, formal.type)
    except ConversionError:
        raise _argument_error(fn, formal, v) from None


def _argument_error(fn: Function, formal: Any, v: Any) -> ArgumentError:
    return ArgumentError(f"{fn.name}() expected a value of type "
                         f"'{formal.type.annotation_str()}' for argument '{formal.name}' but "
                         f"instead found type '{type(v).__name__}'. Declaration: {fn.schema}")


def _accepts(t: T.Type, v: Any) -> bool:
    from ..interpreter.prim_kernels import value_is
    if t == T.FloatType and isinstance(v, int) and not isinstance(v, bool):
        return False
    if isinstance(t, T.ClassType) and not t.is_module:
        return isinstance(v, Object) and v.type is t
    if isinstance(t, (T.ClassType, T.InterfaceType)) or t in (T.AnyType, T.NumberType):
        return True
    return value_is(v, t)


class _Compiled:
    """What scripted functions and methods show: graph, schema, name, printed code."""

    function: Function
    _is_method = False

    @property
    def graph(self) -> Graph:
        return self.function.graph

    @property
    def schema(self) -> Any:
        return self.function.schema

    @property
    def name(self) -> str:
        return self.function.name

    @property
    def qualified_name(self) -> str:
        return self.function.qualified_name

    @property
    def code(self) -> str:
        return self.code_with_constants[0]

    @property
    def code_with_constants(self) -> tuple[str, "ConstMap"]:
        """The printed code and the tensor constants it names (`CONSTANTS.c0` ...)."""
        from ..printer import PythonPrinter
        p = PythonPrinter()
        # A method prints with a bare `self`, as PyTorch's `.code` does.
        p.print_function(self.function, is_method=self._is_method, annotate_self=False)
        return p.w.text(), ConstMap({f"c{i}": t for i, t in enumerate(p.constants.tensors)})

    @property
    def inlined_graph(self) -> Graph:
        """A copy of the graph with every call of a known function or method inlined."""
        from ..ir.cloning import copy_graph
        from ..ir.passes import inlining
        g = copy_graph(self.function.graph)
        inlining.run(g, lambda callee: True)
        return g


class ConstMap:
    """The tensor constants of printed code by name, as PyTorch's `code_with_constants`
    gives them."""

    def __init__(self, const_mapping: dict) -> None:
        self.const_mapping = const_mapping

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["const_mapping"][name]
        except KeyError:
            raise AttributeError(name) from None


class ScriptFunction(_Compiled):
    """A compiled free function: call it, look at `.graph` and `.code`."""

    def __init__(self, fn: Function) -> None:
        self.function = fn

    @property
    def __tsjit_function__(self) -> Function:
        """What scripted code calling this function calls."""
        return self.function

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        fn = self.function
        result = call_function(fn, bind_arguments(fn, args, kwargs, False))
        convert = fn.call_plan.result
        return result if convert is None else convert(result)

    def __repr__(self) -> str:
        return f"<tsjit.ScriptFunction {self.function.qualified_name}>"

    def save(self, path: Any, _extra_files: Optional[dict] = None) -> None:
        """Write the function as PyTorch writes one: a module `PlaceholderModule` whose
        `forward` is the function (loading gives that module)."""
        self.as_module().save(path, _extra_files)

    def as_module(self) -> "ScriptModule":
        """A `__torch__.PlaceholderModule` whose forward has this function's body."""
        from ..ir.cloning import copy_graph
        from ..ir.schema import Argument, FunctionSchema
        t = T.ClassType("__torch__.PlaceholderModule", is_module=True)
        t.add_attribute("training", T.BoolType)
        g = copy_graph(self.function.graph)
        g.block.insert_input(0, t, "self")
        s = self.function.schema
        t.methods["forward"] = Function(
            "__torch__.PlaceholderModule.forward", g,
            FunctionSchema("forward", "", (Argument("self", t),) + s.arguments, s.returns),
            owner=t)
        t.methods["forward"].source_def = getattr(self.function, "source_def", None)
        return ScriptModule(Object(t, [True]))


class ScriptMethod(_Compiled):
    """A method bound to its module."""

    _is_method = True

    def __init__(self, owner: "ScriptModule", fn: Function) -> None:
        self.owner = owner
        self.function = fn

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        fn = self.function
        bound = bind_arguments(fn, args, kwargs, True)
        limits = self.owner._limits
        if limits is None or (limits.call_seconds is None and current_limits() is limits):
            result = call_function(fn, [self.owner._c] + bound)
        else:
            result = _call_within(limits, fn, [self.owner._c] + bound)
        plan = fn.call_plan
        if plan.result is not None:
            result = plan.result(result)
        return _wrap_result(result, limits) if plan.wraps else result


def _call_within(limits: Limits, fn: Function, args: list) -> Any:
    """Call `fn` under a loaded module's limits (its `call_seconds` budget included)."""
    with use_limits(limits), time_budget(limits.call_seconds, "call_seconds",
                                         f"a call of {fn.qualified_name}"):
        return call_function(fn, args)


def _wrap_result(v: Any, limits: Optional[Limits] = None) -> Any:
    if isinstance(v, Object) and v.type.is_module:
        return ScriptModule(v, limits)
    if type(v) is tuple:
        return tuple(_wrap_result(x, limits) for x in v)
    return v


def _unwrap(v: Any) -> Any:
    return v._c if isinstance(v, ScriptModule) else v


class ScriptModule(Module):
    """A scripted or loaded module: its attributes, submodules and methods (an nn.Module,
    as PyTorch's is).

    A subclass written as PyTorch's `torch.jit.ScriptModule` subclasses are (attributes set
    in `__init__`, methods marked `@torch.jit.script_method`) is an nn.Module while its
    `__init__` runs and is compiled when it returns.

    `_limits`: those a loaded module was loaded with, under which its methods (and those of
    the submodules reached through it) run; None for a scripted module (no limits).
    """

    __tsjit_module_base__ = True   # its methods are never compiled into a module class
    _limits: Optional[Limits] = None

    def __init__(self, obj: Optional[Object] = None, limits: Optional[Limits] = None) -> None:
        if obj is None:
            Module.__init__(self)      # a subclass instance being built
        else:
            object.__setattr__(self, "_c", obj)
            if limits is not None:
                object.__setattr__(self, "_limits", limits)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        init = cls.__init__

        @functools.wraps(init)
        def __init__(self: "ScriptModule", *args: Any, **kw: Any) -> None:
            init(self, *args, **kw)
            if type(self) is cls and "_c" not in self.__dict__:
                from .scripting import compile_in_place
                compile_in_place(self)
        cls.__init__ = __init__   # type: ignore[method-assign]

    @property
    def _type(self) -> T.ClassType:
        return self._c.type

    def __getattr__(self, name: str) -> Any:
        obj = self.__dict__.get("_c")
        if obj is None:
            return Module.__getattr__(self, name)
        t = obj.type
        fn = t.methods.get(name)
        if fn is not None:
            return ScriptMethod(self, fn)
        attr = t.find_attribute(name)
        if attr is not None:
            v = obj.getattr(name)
            if v is UNINITIALIZED:
                raise ModuleAttributeError(f"attribute '{name}' of {t.name} was never set")
            return _wrap_result(to_python(v, attr.type), self._limits)
        if name in t.constants:
            return t.constants[name]
        raise ModuleAttributeError(f"'{t.name}' script module has no attribute or method '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        if "_c" not in self.__dict__:
            Module.__setattr__(self, name, value)
            return
        t = self._c.type
        attr = t.find_attribute(name)
        if attr is None:
            raise ModuleAttributeError(f"cannot add attribute '{name}' to script module {t.name}; "
                                 "its attributes are fixed when it is scripted")
        value = _to_runtime(value)
        if isinstance(attr.type, T.ClassType) and not attr.type.is_module:
            try:
                value = to_script(value, attr.type)   # a Python instance of its class: copied
            except ConversionError:
                pass
        if not _accepts(attr.type, value):
            raise ArgumentError(f"attribute '{name}' has type {attr.type.annotation_str()}, "
                                f"which a {type(value).__name__} does not fit")
        self._c.setattr(name, value)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def __getitem__(self, key: Any) -> Any:
        return getattr(self, str(key))

    def __len__(self) -> int:
        return len(list(self.named_children()))

    # --- introspection -------------------------------------------------------------
    @property
    def graph(self) -> Graph:
        return self._c.type.methods["forward"].graph

    @property
    def code(self) -> str:
        return self.forward.code

    @property
    def code_with_constants(self) -> tuple[str, ConstMap]:
        return self.forward.code_with_constants

    @property
    def inlined_graph(self) -> Graph:
        return self.forward.inlined_graph

    def define(self, source: str) -> None:
        """Compile the `def`s of `source` as methods of this module (`self` is the module;
        other names resolve in the caller's variables, as in PyTorch)."""
        import sys
        from .scripting import define_methods
        frame = sys._getframe(1)
        define_methods(self._c.type, source, {**frame.f_globals, **frame.f_locals})

    @property
    def original_name(self) -> str:
        return self._c.type.name

    @property
    def qualified_name(self) -> str:
        return self._c.type.qualified_name

    def named_children(self) -> Iterator[tuple[str, "ScriptModule"]]:
        for a in self._c.type.attributes:
            # (a slot typed by a module interface holds a submodule too, as in PyTorch)
            if isinstance(a.type, (T.ClassType, T.InterfaceType)) and a.type.is_module:
                v = self._c.getattr(a.name)
                if isinstance(v, Object):
                    yield a.name, ScriptModule(v, self._limits)

    def children(self) -> Iterator["ScriptModule"]:
        for _, m in self.named_children():
            yield m

    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, "ScriptModule"]]:
        yield prefix, self
        for name, m in self.named_children():
            yield from m.named_modules(f"{prefix}.{name}" if prefix else name)

    def modules(self) -> Iterator["ScriptModule"]:
        for _, m in self.named_modules():
            yield m

    def _named_tensors(self, kind: str, prefix: str = "") -> Iterator[tuple[str, Tensor]]:
        for mp, m in self.named_modules(prefix):
            for a in m._c.type.attributes:
                if getattr(a, kind):
                    v = m._c.getattr(a.name)
                    if isinstance(v, Tensor):
                        yield (f"{mp}.{a.name}" if mp else a.name), v

    def named_parameters(self) -> Iterator[tuple[str, Tensor]]:
        return self._named_tensors("is_parameter")

    def parameters(self) -> Iterator[Tensor]:
        for _, p in self.named_parameters():
            yield p

    def named_buffers(self) -> Iterator[tuple[str, Tensor]]:
        return self._named_tensors("is_buffer")

    def buffers(self) -> Iterator[Tensor]:
        for _, b in self.named_buffers():
            yield b

    def state_dict(self) -> "OrderedDict[str, Tensor]":
        """Parameters and buffers by dotted name (parameters first within each module)."""
        out: OrderedDict[str, Tensor] = OrderedDict()
        for mp, m in self.named_modules():
            for a in m._c.type.attributes:
                if a.is_parameter or a.is_buffer:
                    v = m._c.getattr(a.name)
                    if isinstance(v, Tensor):
                        out[f"{mp}.{a.name}" if mp else a.name] = v
        return out

    def load_state_dict(self, state: dict, strict: bool = True) -> Any:
        """Copy tensors from `state` into this module's parameters and buffers in place."""
        own = self.state_dict()
        missing = [k for k in own if k not in state]
        unexpected = [k for k in state if k not in own]
        if strict and (missing or unexpected):
            raise TsjitError(f"Error(s) in loading state_dict for {self.original_name}: "
                             f"missing keys {missing}, unexpected keys {unexpected}")
        for k, t in own.items():
            if k in state:
                src = _to_runtime(state[k])
                if tuple(src.shape) != tuple(t.shape):
                    raise TsjitError(f"size mismatch for {k}: copying a tensor of shape "
                                     f"{tuple(src.shape)} into one of shape {tuple(t.shape)}")
                t.copy_(src)
        return missing, unexpected

    @property
    def training(self) -> bool:
        obj = self.__dict__.get("_c")
        if obj is None:                      # a subclass instance being built
            return bool(self.__dict__.get("training", True))
        return bool(obj.getattr("training")) if obj.type.attribute_slot("training") >= 0 else False

    @training.setter
    def training(self, mode: bool) -> None:
        if "_c" not in self.__dict__:
            self.__dict__["training"] = mode   # scripting reads it as nn.Module's attribute
        else:
            self.train(mode)

    @property
    def forward(self) -> "ScriptMethod":
        """The compiled forward (nn.Module's own `forward` is not this module's)."""
        fn = self._c.type.methods.get("forward")
        if fn is None:
            raise ModuleAttributeError(f"'{self._c.type.name}' script module has no method 'forward'")
        return ScriptMethod(self, fn)

    def train(self, mode: bool = True) -> "ScriptModule":
        for m in self.modules():
            if m._c.type.attribute_slot("training") >= 0:
                m._c.setattr("training", mode)
        return self

    def eval(self) -> "ScriptModule":
        return self.train(False)

    def save(self, path: Any, _extra_files: Optional[dict] = None) -> None:
        """Write this module as an archive (see tsjit.save)."""
        from . import save
        save(self, path, _extra_files)

    def save_to_buffer(self, _extra_files: Optional[dict] = None) -> bytes:
        """The archive's bytes."""
        import io
        buf = io.BytesIO()
        self.save(buf, _extra_files)
        return buf.getvalue()

    # --- nn.Module's conveniences ------------------------------------------------------
    def apply(self, fn: Any) -> "ScriptModule":
        """Call `fn` on every submodule (children first) and this module."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Gradients are never computed in tsjit: every parameter's `.grad` stays None."""
        for p in self.parameters():
            p.grad = None

    def to(self, *args: Any, **kwargs: Any) -> "ScriptModule":
        """Parameters and floating buffers converted in place (`to(torch.float64)`);
        a device other than the CPU is refused."""
        dtype = kwargs.get("dtype")
        for a in args:
            if isinstance(a, Tensor):
                dtype = a.dtype
            elif _is_dtype(a):
                dtype = a
            elif str(a) not in ("cpu", "cpu:0"):
                raise TsjitError(f"tsjit runs on the CPU only, not on {a!r}")
        if "device" in kwargs and str(kwargs["device"]) not in ("cpu", "cpu:0"):
            raise TsjitError(f"tsjit runs on the CPU only, not on {kwargs['device']!r}")
        if dtype is not None:
            for t in list(self.parameters()) + list(self.buffers()):
                if t.is_floating_point():
                    t.data = t.to(dtype)
        return self

    def cpu(self) -> "ScriptModule":
        return self

    def float(self) -> "ScriptModule":
        from .._tensor import float32
        return self.to(float32)

    def double(self) -> "ScriptModule":
        from .._tensor import float64
        return self.to(float64)

    def half(self) -> "ScriptModule":
        from .._tensor import float16
        return self.to(float16)

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        return f"<tsjit.ScriptModule {self._c.type.qualified_name}>"


def _is_dtype(v: Any) -> bool:
    from .._tensor import dtype
    return isinstance(v, dtype)


# PyTorch's name for a scripted module's class.
RecursiveScriptModule = ScriptModule

__all__ = ["ScriptModule", "RecursiveScriptModule", "ScriptMethod", "ScriptFunction", "ArgumentError", "ScriptError",
           "Optional"]


# Python code called from TorchScript (@ignore) sees modules as ScriptModules.
PYTHON_VALUES.update({"to": _wrap_result, "from": _unwrap})
