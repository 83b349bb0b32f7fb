"""`script()`: compile Python functions and module instances into runnable objects."""
from __future__ import annotations

import dataclasses
import inspect
import textwrap
from typing import Any

from ..frontend import ast
from ..frontend.compiler import FunctionCompiler
from ..frontend.parser import parse
from ..frontend.resolver import PythonResolver
from ..frontend.script import SCRIPTED_DATACLASSES, ModuleTypeInfo, ScriptCompiler, infer_type
from ..interpreter import Object
from ..ir import CompilationUnit, Function
from ..ir import types as T
from ..ir.diagnostics import CompileError, TsjitError
from .containers import script_container
from .conversion import ConversionError, ScriptContainer, to_script
from .script_module import ScriptFunction, ScriptMethod, ScriptModule

# Like PyTorch's Python-side compilation unit: one per process, so names stay unique and
# repeated scripting of equal module types shares class types.
_cu = CompilationUnit()
_compiler = ScriptCompiler(_cu)


def compilation_unit() -> CompilationUnit:
    """The process-wide CompilationUnit scripted code lives in."""
    return _cu


def reset_compilation_unit() -> None:
    """Start a fresh CompilationUnit (mangling counters restart); for tests and tools."""
    global _cu, _compiler
    _cu = CompilationUnit()
    _compiler = ScriptCompiler(_cu)


def script(obj: Any, type_hint: Any = None) -> Any:
    """Compile a module instance, function or class to TorchScript; a list or dict becomes
    a ScriptList / ScriptDict (of `type_hint`, else of the type its values have)."""
    if isinstance(obj, (ScriptModule, ScriptFunction, ScriptContainer)):
        return obj
    if isinstance(obj, (list, dict)):
        return _script_container(obj, type_hint)
    if getattr(type(obj), "__tsjit_module__", False):
        return _script_module(obj)
    if inspect.isfunction(obj):
        fn = _compiler.function(obj)
        fn.ensure_defined()
        return ScriptFunction(fn)
    if inspect.isclass(obj):
        if getattr(obj, "__tsjit_module__", False):
            raise TsjitError(f"script() takes a module instance, not the class {obj.__name__}; "
                             f"call script({obj.__name__}(...))")
        if dataclasses.is_dataclass(obj):
            SCRIPTED_DATACLASSES.add(obj)
        _compiler.python_type(obj, None)
        return obj
    raise TsjitError(f"cannot script an object of type {type(obj).__name__}; script() takes "
                     "a module instance, a function or a class")


def define_methods(t: T.ClassType, source: str, globals_: dict) -> None:
    """Compile each `def` of `source` as a method of class `t` (ScriptModule.define)."""
    module = parse(textwrap.dedent(source), "<define>")
    resolver = PythonResolver(_compiler, globals_, {})
    fns = []
    for d in module.body:
        if not isinstance(d, ast.Def):
            raise CompileError("define() takes method definitions only", d.range)
        fn = Function(f"{t.qualified_name}.{d.name}", owner=t,
                      definer=lambda f, d=d: FunctionCompiler(_cu, resolver, f, d, t).compile())
        fn.source_def = d
        t.methods[d.name] = fn
        fns.append(fn)
    for fn in fns:
        fn.ensure_defined()


def _script_container(value: Any, type_hint: Any) -> ScriptContainer:
    t = _compiler.annotation_type(type_hint) if type_hint is not None else infer_type(value)
    if not isinstance(t, (T.ListType, T.DictType)) or \
            not isinstance(value, list if isinstance(t, T.ListType) else dict):
        raise TsjitError(f"cannot script a {type(value).__name__} as "
                         f"{t.annotation_str() if t is not None else 'a container'}: give a "
                         "type_hint (e.g. List[int]) its values fit")
    try:
        return script_container(value, t)
    except ConversionError as err:
        raise TsjitError(f"cannot script this {type(value).__name__}: {err}") from None


def _script_module(m: Any) -> ScriptModule:
    info = _compiler.module_type(m)
    _compile_methods(m, info)
    return ScriptModule(_create_object(m, info))


def compile_in_place(m: Any) -> None:
    """Compile a `torch.jit.ScriptModule` subclass instance at the end of its `__init__`:
    its Python state becomes the scripted object it holds from then on."""
    info = _compiler.module_type(m)
    _compile_methods(m, info)
    obj = _create_object(m, info)
    m.__dict__.clear()
    object.__setattr__(m, "_c", obj)
    for name, fn in obj.type.methods.items():
        # The compiled methods, before the class's Python ones of the same names.
        m.__dict__[name] = ScriptMethod(m, fn)


def _compile_methods(m: Any, info: ModuleTypeInfo) -> None:
    if info.scripted is not None:
        return        # a script module: compiled already
    for name, sub in m._modules.items():
        if sub is not None:
            _compile_methods(sub, info.submodules[name])
    _compiler.compile_module_methods(info.type, type(m))


def _create_object(m: Any, info: ModuleTypeInfo) -> Object:
    if info.scripted is not None:
        return info.scripted      # shared, as PyTorch shares a script submodule
    t = info.type
    slots = []
    for a in t.attributes:
        if a.is_parameter:
            slots.append(m._parameters[a.name])
        elif a.is_buffer:
            slots.append(m._buffers[a.name])
        elif a.name in info.submodules:
            slots.append(_create_object(m._modules[a.name], info.submodules[a.name]))
        else:
            slots.append(_attribute_value(getattr(m, a.name), a.type))
    return Object(t, slots)


def _attribute_value(v: Any, t: T.Type) -> Any:
    """An attribute's value as the scripted object holds it: converted to its type (Enum
    members, containers copied), or copied as it is where the type says less."""
    if getattr(type(v), "__tsjit_attribute__", False):
        v = v.value               # torch.jit.Attribute(value, type)
    try:
        return to_script(v, t)
    except ConversionError:
        return _copy_value(v)


def _copy_value(v: Any) -> Any:
    """Containers are copied into the scripted object, as PyTorch converts them."""
    if isinstance(v, list):
        return [_copy_value(x) for x in v]
    if isinstance(v, dict):
        return {k: _copy_value(x) for k, x in v.items()}
    if isinstance(v, tuple):
        return tuple(_copy_value(x) for x in v)
    return v
