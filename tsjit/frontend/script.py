"""Scripting Python objects: functions, TorchScript classes and nn.Module types.

`ScriptCompiler` owns the mapping from Python objects to code objects in one
CompilationUnit. A module instance gets a class type built from its attributes (its
"concrete type"); instances with equal concrete types share one class type, others get
a mangled name, as PyTorch 2.13 does. Method bodies compile lazily, on first need.
"""
from __future__ import annotations

import builtins as py_builtins
import collections
import enum
import inspect
import math
import sys
import types as pytypes
import typing
import warnings
import weakref
from dataclasses import dataclass, field
from typing import Any, Optional

from ..ir import CompilationUnit, Function
from ..ir import types as T
from ..ir.diagnostics import CompileError, SourceRange, TsjitError
from ..ir.schema import Argument, FunctionSchema
from ..ops import registry
from .._tensor import Device, Tensor
from . import ast
from .builtins import lookup_builtin, python_builtin
from .compiler import FunctionCompiler
from .emitter import constant_type
from .dataclass_methods import generated_source, is_generated, is_made_here
from .parser import parse_def
from .python_source import SourceUnavailableError, parse_python_def
from .resolver import PythonCall, PythonModuleValue, PythonResolver
from .sugared import (TypeValue, BooleanDispatchValue, BuiltinFunction, ClassValue, FunctionValue,
                      SimpleValue, SugaredValue)

# nn.Module bookkeeping that is never a scripted attribute.
IGNORED_MODULE_ATTRIBUTES = {
    "_parameters", "_buffers", "_modules", "_non_persistent_buffers_set", "_backward_hooks",
    "_forward_hooks", "_forward_pre_hooks", "_state_dict_hooks", "_load_state_dict_pre_hooks",
    "_load_state_dict_post_hooks", "_backward_pre_hooks", "_forward_hooks_with_kwargs",
    "_forward_hooks_always_called", "_forward_pre_hooks_with_kwargs", "_state_dict_pre_hooks",
    "dump_patches", "_version", "__jit_unused_properties__", "__jit_ignored_attributes__",
    "_tsjit_constants",
}


def qualified_name(obj: Any) -> str:
    """`__torch__.<module>.<name>`, with tsjit's own modules named as their torch twins."""
    module = getattr(obj, "__module__", None) or "__main__"
    name = getattr(obj, "__name__", None) or type(obj).__name__
    if name == "<lambda>":
        name = "_lambda"
    if module == "__main__":
        return f"__torch__.{name}"
    if module == "tsjit" or module.startswith("tsjit."):
        module = "torch" + module[len("tsjit"):]
    return f"__torch__.{module}.{name}"


# Types made from Python classes -> the class, process-wide (as PyTorch's script class
# registry): results of scripted calls become the Python Enum member or NamedTuple again.
_PYTHON_CLASSES: dict[T.Type, type] = {}


# Dataclasses given to script() themselves, process-wide (every CompilationUnit, as
# PyTorch's registry): only their generated methods get source (see script_class).
SCRIPTED_DATACLASSES: "weakref.WeakSet[type]" = weakref.WeakSet()


def python_class(t: T.Type) -> Optional[type]:
    """The Python class a NamedTuple, enum or class type was scripted from, if any."""
    return _PYTHON_CLASSES.get(t)


@dataclass
class ModuleTypeInfo:
    """A scripted module's class type plus where each attribute's value comes from."""

    type: T.ClassType
    submodules: dict[str, "ModuleTypeInfo"] = field(default_factory=dict)
    scripted: Any = None      # the run-time object of a module that is scripted already


class ScriptCompiler:
    """Compiles Python functions, classes and module instances into one CompilationUnit."""

    def __init__(self, cu: CompilationUnit) -> None:
        self.cu = cu
        self.functions: dict[Any, Function] = {}
        self.classes: dict[Any, T.Type] = {}
        self.module_types: dict[tuple, T.ClassType] = {}
        self.unused_methods: dict[tuple[int, str], Any] = {}
        self.ignored_methods: dict[tuple[int, str], Any] = {}
        self.function_attributes: dict[tuple[int, str], Any] = {}

    def _remember(self, cls: type, t: T.Type) -> None:
        self.classes[cls] = t
        _PYTHON_CLASSES[t] = cls

    # --- Python objects seen from scripted code ------------------------------------
    def python_value(self, obj: Any, name: str, c: Any, rng: SourceRange) -> SugaredValue:
        """What a Python object means inside TorchScript."""
        if isinstance(obj, pytypes.ModuleType):
            return PythonModuleValue(obj, c.resolver)
        op = getattr(obj, "__tsjit_op__", None)
        if op is not None:
            return BuiltinFunction(op)
        builtin = getattr(obj, "__tsjit_builtin__", None)
        if isinstance(builtin, str):
            return python_builtin(builtin)
        scripted = getattr(obj, "__tsjit_function__", None)
        if isinstance(scripted, Function):
            return FunctionValue(scripted)   # a ScriptFunction called from scripted code
        if obj is collections.OrderedDict:
            return python_builtin("dict")   # dicts keep insertion order: the same thing
        if obj is None:
            return SimpleValue(c.emit_constant(None, rng))
        if isinstance(obj, enum.Enum):
            et = self.python_type(type(obj), rng)
            return SimpleValue(c.emit_constant(et.member(obj.name), rng, et))
        if isinstance(obj, (bool, int, float, str, Device)):
            return SimpleValue(c.emit_constant(obj, rng))
        if obj is warnings.warn:
            return BuiltinFunction("aten::warn")
        if getattr(py_builtins, getattr(obj, "__name__", ""), None) is obj:
            b = lookup_builtin(obj.__name__)
            if b is None:
                raise CompileError(f"Python builtin '{obj.__name__}' is currently not supported "
                                   "in TorchScript", rng)
            return b
        module = getattr(obj, "__module__", "") or ""
        if callable(obj) and (module.startswith("tsjit._tensor") or module.startswith("tsjit.ops")
                              or module == "math" or getattr(obj, "__self__", None) is math):
            for ns in ("aten", "prim"):
                if registry.overloads(f"{ns}::{obj.__name__}"):
                    return BuiltinFunction(f"{ns}::{obj.__name__}")
        if obj is Device:
            return BuiltinFunction("aten::device")    # torch.device("cpu") is a call
        if isinstance(obj, type):
            t = self.python_type(obj, rng)
            if t is not None:
                return ClassValue(t)
        dispatch = getattr(obj, "__tsjit_boolean_dispatch__", None)
        if dispatch is not None:
            return BooleanDispatchValue(
                dispatch, lambda fn, c2, r2: self.python_value(fn, name, c2, r2))
        if inspect.isfunction(obj) and getattr(obj, "__tsjit_ignore__", False):
            return PythonCall(obj, c.resolver)
        if inspect.isfunction(obj):
            return FunctionValue(self.function(obj))
        if isinstance(obj, typing.TypeVar) or getattr(obj, "__origin__", None) is not None:
            t = self.annotation_type(obj)
            if t is None:
                raise CompileError(f"'{name}' is a type, not a value", rng)
            return TypeValue(t, name)   # a type alias (`Pair = Tuple[int, int]`)
        raise CompileError(f"Python value '{name}' of type {type(obj).__name__} cannot be used "
                           "in TorchScript", rng)

    def python_type(self, cls: type, rng: Optional[SourceRange]) -> Optional[T.Type]:
        """The TorchScript type of a Python class used in code or annotations."""
        simple = {int: T.IntType, float: T.FloatType, bool: T.BoolType, str: T.StrType,
                  complex: T.ComplexType, type(None): T.NoneType}
        if cls in simple:
            return simple[cls]
        if issubclass(cls, Tensor):
            return T.TensorType
        if issubclass(cls, Device):
            return T.DeviceType
        if cls in self.classes:
            return self.classes[cls]
        if getattr(cls, "__tsjit_interface__", False):
            return self.script_interface(cls)
        if issubclass(cls, enum.Enum):
            return self.script_enum(cls)
        if issubclass(cls, tuple) and hasattr(cls, "_fields"):
            return self.script_named_tuple(cls)
        if getattr(cls, "__tsjit_module__", False):
            return None  # modules are not constructible in TorchScript
        return self.script_class(cls)

    def script_interface(self, cls: type) -> T.InterfaceType:
        """An interface: the schemas of the methods the class declares."""
        t = T.InterfaceType(self.cu.unique_name(qualified_name(cls)),
                            is_module=bool(getattr(cls, "__tsjit_module__", False)))
        self.cu.register_type(t)
        self._remember(cls, t)
        for name, member in vars(cls).items():
            if not inspect.isfunction(member):
                continue
            d = parse_python_def(member)
            resolver = PythonResolver(self, member.__globals__, closure_vars(member))
            comp = FunctionCompiler(self.cu, resolver, Function(f"{t.qualified_name}.{name}"), d, t)
            args = comp.emit_params(d)
            ret = comp.type_from_expr(d.returns) if d.returns is not None else T.NoneType
            t.methods[name] = FunctionSchema(name, "", tuple(args), (Argument("", ret),))
        return t

    def python_schema(self, pyfn: Any, owner: Optional[T.ClassType] = None) -> Any:
        """The schema of a Python function left to Python (@ignore), from its annotations
        (unannotated parameters are Tensors, a missing return annotation is None)."""
        d = parse_python_def(pyfn)
        resolver = PythonResolver(self, pyfn.__globals__, closure_vars(pyfn))
        comp = FunctionCompiler(self.cu, resolver, Function(pyfn.__qualname__), d, owner)
        args = comp.emit_params(d)
        ret = comp.type_from_expr(d.returns) if d.returns is not None else T.NoneType
        return FunctionSchema(pyfn.__name__, "", tuple(args), (Argument("", ret),))

    def script_named_tuple(self, cls: type) -> T.TupleType:
        """A typing.NamedTuple class as a named tuple type (fields typed by annotations)."""
        ann = class_annotations(cls)
        names = tuple(cls._fields)
        types = []
        for n in names:
            t = self.annotation_type(ann[n]) if n in ann else T.TensorType
            types.append(t if t is not None else T.TensorType)
        defaults = tuple(getattr(cls, "_field_defaults", {}).get(n, ...) for n in names)
        t = T.TupleType(tuple(types), names, self.cu.unique_name(qualified_name(cls)), defaults)
        self.cu.register_type(t)
        self._remember(cls, t)
        return t

    def script_enum(self, cls: type) -> T.EnumType:
        """A Python Enum as an enum type (members must all be int, float or str)."""
        members = {m.name: m.value for m in cls}
        values = list(members.values())
        for vt, py in ((T.IntType, int), (T.FloatType, float), (T.StrType, str)):
            if values and all(type(v) is py for v in values):
                break
        else:
            kinds = sorted({type(v).__name__ for v in values})
            raise CompileError(f"Could not unify type list of enum {cls.__name__}'s values: "
                               f"members must all be int, all float or all str, not "
                               f"{' and '.join(kinds)}")
        t = T.EnumType(self.cu.unique_name(qualified_name(cls)), vt, members)
        self.cu.register_type(t)
        self._remember(cls, t)
        return t

    # --- functions ----------------------------------------------------------------
    def function(self, pyfn: Any) -> Function:
        """The Function for a Python function, declared now and compiled on first need."""
        fn = self.functions.get(pyfn)
        if fn is not None:
            return fn
        name = self.cu.unique_name(qualified_name(pyfn))
        fn = Function(name, definer=lambda f: self._define(f, pyfn, None))
        self.cu.register_function(fn)
        self.functions[pyfn] = fn
        return fn

    def _define(self, fn: Function, pyfn: Any, self_type: Optional[T.Type],
                generated: Optional[type] = None) -> None:
        """Compile `pyfn`; `generated`: the dataclass that generated it (see
        dataclass_methods), whose source is made here."""
        names: dict = {}
        if generated is not None:
            text, names = generated_source(generated, pyfn.__name__)
            d = parse_def(text, f"<dataclass {generated.__qualname__}.{pyfn.__name__}>")
        else:
            d = parse_python_def(pyfn)
        fn.source_def = d
        owner = python_class(self_type) if self_type is not None else None
        if owner is not None and owner.__name__ not in pyfn.__globals__:
            names.setdefault(owner.__name__, owner)   # a local class names itself in methods
        resolver = PythonResolver(self, {**pyfn.__globals__, **names}, closure_vars(pyfn))
        compiler = FunctionCompiler(self.cu, resolver, fn, d, self_type)
        compiler.python_defaults = python_defaults(pyfn)
        compiler.compile()

    def method(self, cls_type: T.ClassType, name: str, pyfn: Any,
               generated: Optional[type] = None) -> Function:
        """Declare method `name` of `cls_type`, compiled from `pyfn` on first need."""
        fn = Function(f"{cls_type.qualified_name}.{name}", owner=cls_type,
                      definer=lambda f: self._define(f, pyfn, cls_type, generated))
        cls_type.methods[name] = fn
        return fn

    def static_method(self, t: T.Type, name: str) -> Optional[Function]:
        """The Function of static method `name` of the Python class `t` was made from
        (named as a free function, `__torch__.<module>.<name>`, as PyTorch names it)."""
        cls = python_class(t)
        member = inspect.getattr_static(cls, name, None) if cls is not None else None
        return self.function(member.__func__) if isinstance(member, staticmethod) else None

    # --- TorchScript classes ------------------------------------------------------
    def script_class(self, cls: type) -> T.ClassType:
        """Compile a Python class as a TorchScript class (attributes from `__init__`)."""
        qn = self.cu.unique_name(qualified_name(cls))
        t = T.ClassType(qn)
        self.cu.register_type(t)
        self._remember(cls, t)
        # Only the class body's own methods, as PyTorch takes them (TorchScript classes
        # have no inheritance): a base's methods are not the class's.
        for name, member in vars(cls).items():
            if inspect.isfunction(member):
                # Methods dataclasses wrote get source made for them when the class is
                # given to script() itself (PyTorch's rule: a dataclass only met in an
                # annotation keeps methods without source, an OSError).
                generated = is_generated(cls, name, member)
                if generated and not is_made_here(name):
                    continue
                if generated and cls not in SCRIPTED_DATACLASSES:
                    raise SourceUnavailableError(
                        f"cannot get the source of {member.__qualname__} (written by "
                        f"dataclasses): script the dataclass {cls.__name__} itself "
                        "before using it")
                self.method(t, name, member, cls if generated else None)
        init = t.methods.get("__init__")
        if init is not None:
            init.ensure_defined()   # attributes are declared by __init__'s assignments
        return t

    # --- modules ------------------------------------------------------------------
    def module_type(self, m: Any) -> ModuleTypeInfo:
        """The class type of a module instance (shared with equal concrete types); a
        script module's own type and object."""
        scripted = vars(m).get("_c")
        if isinstance(getattr(scripted, "type", None), T.ClassType):
            return ModuleTypeInfo(scripted.type, {}, scripted)
        subs = {name: self.module_type(sub) for name, sub in m._modules.items() if sub is not None}
        annotations = class_annotations(type(m))
        declared = list(getattr(type(m), "__constants__", ()))
        declared += [name for name, ann in annotations.items() if _is_final(ann)]
        constants = set(declared)
        attrs: list[tuple[str, T.Type, bool, bool]] = []
        functions: dict[str, Any] = {}
        for name, p in m._parameters.items():
            attrs.append((name, T.TensorType if p is not None else T.NoneType, True, False))
        for name, b in m._buffers.items():
            attrs.append((name, T.TensorType if b is not None else T.NoneType, False, True))
        for name, value in vars(m).items():
            if name in IGNORED_MODULE_ATTRIBUTES or name in constants or name in subs:
                continue
            if inspect.isfunction(value) or getattr(value, "__tsjit_op__", None) or \
                    (callable(value) and not isinstance(value, type) and not hasattr(value, "_modules")
                     and (getattr(value, "__module__", "") or "").startswith("tsjit.")):
                functions[name] = value   # e.g. `self.activation = F.relu`: a static callee
                continue
            if callable(value) and not isinstance(value, (list, dict, tuple, Tensor)):
                continue
            ann = annotations.get(name)
            if getattr(type(value), "__tsjit_attribute__", False):
                ann = value.type          # torch.jit.Attribute(value, type)
            t = self.annotation_type(ann) if ann is not None else None
            if t is None:
                t = infer_type(value, lambda cls: self.python_type(cls, None))
            if t is None:
                continue  # PyTorch skips attributes it cannot type; using them is an error
            attrs.append((name, t, False, False))
        const_values = {}
        # In the order PyTorch finds them: the instance's attributes in the order they were
        # set, then the class's (in declaration order: a set's order would change from run
        # to run, and so would the printed code).
        in_instance = [name for name in vars(m) if name in constants]
        for name in dict.fromkeys(in_instance + declared):
            kind = _non_constant_member(m, name)
            if kind is not None:
                # PyTorch warns and keeps it what it is (TransformerEncoder's 'norm').
                warnings.warn(f"'{name}' was found in ScriptModule constants, but it is a "
                              f"non-constant {kind}. Consider removing it.")
                continue
            if hasattr(m, name):
                const_values[name] = _freeze_constant(getattr(m, name), name)
        for name, info in subs.items():
            declared = self.annotation_type(annotations[name]) if name in annotations else None
            attrs.append((name, declared if isinstance(declared, T.InterfaceType) else info.type,
                          False, False))
        key = (type(m), tuple((n, t, p, b) for n, t, p, b in attrs),
               tuple(sorted(const_values.items(), key=lambda kv: kv[0])),
               tuple(sorted((n, id(f)) for n, f in functions.items())))
        t = self.module_types.get(key)
        if t is None:
            t = T.ClassType(self.cu.unique_name(qualified_name(type(m))), is_module=True)
            for n, at, p, b in attrs:
                t.add_attribute(n, at, is_parameter=p, is_buffer=b)
            t.constants.update(const_values)
            self.cu.register_type(t)
            self.module_types[key] = t
            self.declare_module_methods(t, type(m))
            for n, f in functions.items():
                self.function_attributes[(id(t), n)] = f
        return ModuleTypeInfo(t, subs)

    def declare_module_methods(self, t: T.ClassType, cls: type) -> None:
        for klass in reversed(cls.__mro__):
            # nn.Module itself (marked __tsjit_module_base__) contributes no methods
            if klass is object or "__tsjit_module_base__" in vars(klass):
                continue
            for name, member in vars(klass).items():
                if not inspect.isfunction(member):
                    continue
                if getattr(member, "__tsjit_unused__", False):
                    # Calls compile to a raise, as the saved archive will have it.
                    self.unused_methods[(id(t), name)] = member
                    t.methods.pop(name, None)
                    continue
                if getattr(member, "__tsjit_ignore__", False):
                    # Calls run the Python method (see resolver.PythonCall).
                    self.ignored_methods[(id(t), name)] = member
                    t.methods.pop(name, None)
                    continue
                self.method(t, name, member)

    def compile_module_methods(self, t: T.ClassType, cls: type) -> None:
        """Compile `forward` and exported methods; drop methods nothing reached."""
        roots = [n for n, fn in t.methods.items()
                 if n == "forward" or getattr(getattr(cls, n, None), "__tsjit_export__", False)]
        for n in roots:
            t.methods[n].ensure_defined()
        for n in [n for n, fn in t.methods.items() if not fn.is_defined]:
            del t.methods[n]

    def annotation_type(self, ann: Any) -> Optional[T.Type]:
        """A Python annotation object (e.g. `typing.List[int]`) as a Type."""
        if isinstance(ann, str):
            return None
        origin = getattr(ann, "__origin__", None)
        args = getattr(ann, "__args__", ()) or ()
        if origin in (list, typing.List):
            return T.ListType(self.annotation_type(args[0]) or T.AnyType)
        if origin in (dict, typing.Dict):
            return T.DictType(self.annotation_type(args[0]) or T.AnyType,
                              self.annotation_type(args[1]) or T.AnyType)
        if origin in (tuple, typing.Tuple):
            return T.TupleType(tuple(self.annotation_type(a) or T.AnyType for a in args))
        if origin is typing.Union or isinstance(ann, pytypes.UnionType):   # also `int | None`
            return T.union_of([self.annotation_type(a) or T.AnyType for a in args])
        if _is_final(ann):
            return self.annotation_type(args[0]) if args else None
        if ann is typing.Any:
            return T.AnyType
        if isinstance(ann, type):
            try:
                return self.python_type(ann, None)
            except TsjitError:
                return None
        return None


def _is_final(ann: Any) -> bool:
    return getattr(ann, "__origin__", None) is typing.Final or ann is typing.Final or \
        getattr(ann, "__tsjit_final__", False)


def _non_constant_member(m: Any, name: str) -> Optional[str]:
    """'submodule' / 'parameter' / 'buffer' when `name` is one of those of `m`."""
    if m._modules.get(name) is not None:
        return "submodule"
    if name in m._parameters:
        return "parameter"
    if name in m._buffers:
        return "buffer"
    return None


def _freeze_constant(value: Any, name: str) -> Any:
    if isinstance(value, (bool, int, float, str, type(None))):
        return value
    if isinstance(value, (list, tuple)):
        return tuple(_freeze_constant(v, name) for v in value)
    raise CompileError(f"constant '{name}' of type {type(value).__name__} is not supported; "
                       "constants must be numbers, strings, None or tuples of them")


def infer_type(value: Any, python_type: Any = None) -> Optional[T.Type]:
    """The TorchScript type of a Python value, or None when it has none; `python_type`
    (a class -> its type), if given, types Enum members and NamedTuple instances."""
    if value is None or isinstance(value, (bool, int, float, str, complex, Tensor)):
        return constant_type(value)
    if isinstance(value, Device):
        return T.DeviceType
    if python_type is not None and (isinstance(value, enum.Enum) or
                                    isinstance(value, tuple) and hasattr(value, "_fields")):
        return python_type(type(value))
    if isinstance(value, tuple):
        elems = [infer_type(v, python_type) for v in value]
        return None if any(e is None for e in elems) else T.TupleType(tuple(elems))  # type: ignore[arg-type]
    if isinstance(value, list):
        if not value:
            return T.ListType(T.TensorType)
        return _unified(value, python_type)
    if isinstance(value, dict):
        if not value:
            return T.DictType(T.StrType, T.TensorType)
        k = _unified(list(value.keys()), python_type)
        v = _unified(list(value.values()), python_type)
        return None if k is None or v is None else T.DictType(k.elem, v.elem)  # type: ignore[union-attr]
    if python_type is not None and _is_class_instance(value):
        try:
            return python_type(type(value))   # its class, compiled as a TorchScript class
        except (TsjitError, SourceUnavailableError):
            return None   # as PyTorch: an attribute it cannot type is left out
    return None


def _is_class_instance(value: Any) -> bool:
    """An instance of a Python class written in Python (its __init__ has source)."""
    cls = type(value)
    return inspect.isfunction(vars(cls).get("__init__")) and \
        not getattr(cls, "__tsjit_module__", False)


def _unified(values: list, python_type: Any) -> Optional[T.ListType]:
    t = infer_type(values[0], python_type)
    for v in values[1:]:
        u = infer_type(v, python_type)
        if t is None or u is None:
            return None
        t = T.unify(t, u)
    return T.ListType(t) if t is not None else None


def class_annotations(cls: type) -> dict:
    """The annotations PyTorch uses for a module class: the first non-empty dict in the
    class or its bases, searched depth first (Python 3.10+ does not inherit them)."""
    def find(c: type) -> dict:
        ann = c.__dict__.get("__annotations__", {})
        if ann:
            return {k: _evaluate_annotation(v, c) for k, v in ann.items()}
        for base in c.__bases__:
            found = find(base)
            if found:
                return found
        return {}
    return find(cls)


def _evaluate_annotation(ann: Any, owner: type) -> Any:
    """A string annotation (`from __future__ import annotations`) evaluated where it was
    written; left as a string when that fails (it then carries no type). typing.NamedTuple
    keeps string annotations as ForwardRefs."""
    if isinstance(ann, typing.ForwardRef):
        ann = ann.__forward_arg__
    if not isinstance(ann, str):
        return ann
    module = sys.modules.get(owner.__module__)
    try:
        return eval(ann, dict(vars(module)) if module else {}, dict(vars(owner)))  # noqa: S307
    except Exception:  # noqa: BLE001  (any failure means: no usable annotation)
        return ann


def python_defaults(fn: Any) -> dict:
    """The plain-valued parameter defaults of a Python function, by name."""
    if inspect.isfunction(fn) and not hasattr(fn, "__wrapped__") and \
            not hasattr(fn, "__signature__"):
        # What inspect.signature reports for a plain function, read off the function
        # itself (signature() builds a Parameter per argument: a tenth of scripting a
        # small function went there).
        code, defaults = fn.__code__, fn.__defaults__ or ()
        positional = code.co_varnames[code.co_argcount - len(defaults):code.co_argcount]
        pairs = [*zip(positional, defaults), *(fn.__kwdefaults__ or {}).items()]
    else:
        try:
            params = inspect.signature(fn).parameters.values()
        except (TypeError, ValueError):
            return {}
        pairs = [(p.name, p.default) for p in params if p.default is not inspect.Parameter.empty]
    return {name: d for name, d in pairs
            if d is None or isinstance(d, (bool, int, float, str, enum.Enum))}


def closure_vars(fn: Any) -> dict:
    """A function's closure variables by name."""
    if fn.__closure__ is None:
        return {}
    out = {}
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
        try:
            out[name] = cell.cell_contents
        except ValueError:
            pass
    return out


__all__ = ["ScriptCompiler", "ModuleTypeInfo", "qualified_name", "infer_type", "python_class",
           "SCRIPTED_DATACLASSES"]
