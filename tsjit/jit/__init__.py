"""tsjit.jit: scripting, saving and loading (mirrors torch.jit)."""
from __future__ import annotations

import contextlib
from typing import Any, Final, Iterator, NamedTuple, Optional



def script(obj: Any, optimize: Any = None, _frames_up: int = 0, _rcb: Any = None,
           example_inputs: Any = None, type_hint: Any = None) -> Any:
    """Compile a module instance, function or class to TorchScript (a list or dict:
    a ScriptList / ScriptDict shared with the code it is passed to)."""
    from .scripting import script as _script   # the compiler loads on first use
    if type_hint is None and optimize is not None and type(optimize) is not bool:
        type_hint = optimize      # `script([[1]], List[List[int]])`, as PyTorch allows
    return _script(obj, type_hint)


def freeze(mod: Any, preserved_attrs: Any = None, optimize_numerics: bool = True) -> Any:
    """A copy of a scripted module with its parameters and attributes as code constants,
    submodule calls inlined, and only forward and the preserved methods/attributes left."""
    from .freezing import freeze as _freeze
    return _freeze(mod, preserved_attrs, optimize_numerics)


def compilation_unit() -> Any:
    """The process-wide CompilationUnit scripted code lives in."""
    from .scripting import compilation_unit as _cu
    return _cu()


def reset_compilation_unit() -> None:
    """Start a fresh CompilationUnit (mangling counters restart); for tests and tools."""
    from .scripting import reset_compilation_unit as _reset
    _reset()


def set_executor(mode: str, threshold: Any = None) -> None:
    """Run functions in the "interpreter", in generated "codegen", or "auto" (the
    interpreter for the first `threshold` calls of a function, then generated code)."""
    from .executors import set_executor as _set
    _set(mode, threshold)


def get_executor() -> tuple[str, int]:
    """The executor mode and tier-up threshold in force."""
    from .executors import get_executor as _get
    return _get()


def __getattr__(name: str) -> Any:
    # Loaded on first use, so `import tsjit` stays fast.
    if name == "CompilationUnit":
        from .source_cu import CompilationUnit
        return CompilationUnit
    if name in ("ArgumentError", "ScriptFunction", "ScriptMethod", "ScriptModule",
                "RecursiveScriptModule"):
        from . import script_module
        return getattr(script_module, name)
    if name == "Error":
        # torch.jit.Error: what scripted code raises when it fails
        from ..interpreter.errors import ScriptError
        return ScriptError
    if name == "Future":
        from ..interpreter.objects import Future
        return Future
    if name in ("ScriptList", "ScriptDict"):
        from . import containers
        return getattr(containers, name)
    raise AttributeError(f"module 'tsjit.jit' has no attribute '{name}'")



def export(fn: Any) -> Any:
    """Mark a module method to be compiled (and kept) even if forward does not call it."""
    fn.__tsjit_export__ = True
    return fn


def ignore(fn: Any) -> Any:
    """Leave a method to Python: it is not compiled."""
    fn.__tsjit_ignore__ = True
    return fn


def unused(fn: Any) -> Any:
    """Compile calls to this method as raising an exception; the body is not compiled."""
    fn.__tsjit_unused__ = True
    return fn


def interface(cls: Any) -> Any:
    """Declare a class as an interface: values of it are any module or class that has its
    methods (with compatible signatures)."""
    cls.__tsjit_interface__ = True
    return cls


def save(m: Any, path: Any, _extra_files: Optional[dict] = None) -> None:
    """Write a scripted module as an archive PyTorch's torch.jit.load reads;
    `_extra_files` ({name: bytes or str}) become the archive's extra/ files."""
    from ..serialize import save_module
    from .script_module import ScriptFunction
    if isinstance(m, ScriptFunction):
        m = m.as_module()        # as PyTorch saves a function
    save_module(m, path, _extra_files)


def load(f: Any, map_location: Any = None, _extra_files: Optional[dict] = None, *,
         limits: Any = None, check: Optional[str] = None) -> Any:
    """Load an archive written by tsjit.save or by PyTorch's torch.jit.save from `f` (a
    path or a file-like object); each key of the dict `_extra_files` is set to the
    content of that extra file (b"" if absent).

    `limits` (a `tsjit.Limits`; None: those in force, the defaults unless set) bounds
    what loading and every call of the module may cost; `check="full"` compiles all the
    archive's code while loading and refuses it if anything does not compile."""
    from ..serialize import load_module
    from ..serialize.sources import check_map_location, source_of
    from .script_module import ScriptModule
    check_map_location(map_location)
    if check is not None:
        from .code_check import check_argument
        check = check_argument(check)
    return load_module(source_of(f), ScriptModule, _extra_files, limits=limits,
                       map_to_cpu=map_location is not None, check=check)


def annotate(the_type: Any, the_value: Any) -> Any:
    """In Python, the value itself; in scripted code, a typed value."""
    return the_value


def isinstance(obj: Any, target_type: Any) -> bool:
    """`isinstance` that also checks container element types (`List[int]`,
    `Dict[str, Tensor]`, `Optional[...]`); in scripted code it refines the type."""
    from .python_checks import is_instance
    return is_instance(obj, target_type)


def is_scripting() -> bool:
    """False in Python; True in scripted code (`if not is_scripting(): <Python only>`)."""
    return False


def is_tracing() -> bool:
    """False: tsjit does not trace (in scripted code too, as in PyTorch)."""
    return False


def _unwrap_optional(x: Any) -> Any:
    """`x`, which must not be None."""
    assert x is not None, "Unwrapping null optional"
    return x


class Attribute(NamedTuple):
    """`self.x = torch.jit.Attribute(value, type)`: an attribute of a declared type (in
    Python, `.value` and `.type`; scripting gives the attribute that type)."""

    value: Any
    type: Any


Attribute.__tsjit_attribute__ = True   # type: ignore[attr-defined]  (seen by scripting)


def fork(func: Any, *args: Any, **kwargs: Any) -> Any:
    """Start `func(*args, **kwargs)`; tsjit runs it now (there is one thread). In scripted
    code too (a `prim::fork` node)."""
    from ..interpreter.objects import Future
    return Future(func(*args, **kwargs))


def wait(future: Any) -> Any:
    """The result of a `fork`."""
    return future.wait()


_fork, _wait = fork, wait


def script_method(fn: Any) -> Any:
    """Mark a method to be compiled (torch.jit.script_method): as `export`."""
    return export(fn)


def optimize_for_inference(mod: Any, other_methods: Any = None) -> Any:
    """A frozen copy of a scripted module, for inference (see freeze)."""
    return freeze(mod, other_methods)


@contextlib.contextmanager
def optimized_execution(should_optimize: bool) -> Iterator[None]:
    """Kept for code that sets it: tsjit's executors choose their tier themselves."""
    yield


def export_opnames(m: Any) -> list:
    """The operators (`aten::add.Tensor`...) the methods of scripted module `m` and the
    functions they call run, sorted."""
    from .introspection import operator_names
    return operator_names(m)


def _check(cond: Any, message: Any = None) -> None:
    """Raise RuntimeError(message) unless `cond` (torch._check); `message` may be a
    callable giving the text."""
    if not cond:
        text = message() if callable(message) else message
        raise RuntimeError(text if text is not None else "Expected cond to be True")


# What these mean inside scripted code (see frontend.builtins.python_builtin).
annotate.__tsjit_builtin__ = "annotate"                # type: ignore[attr-defined]
isinstance.__tsjit_builtin__ = "isinstance"            # type: ignore[attr-defined]
is_tracing.__tsjit_builtin__ = "is_tracing"            # type: ignore[attr-defined]
_check.__tsjit_builtin__ = "_check"                    # type: ignore[attr-defined]
is_scripting.__tsjit_op__ = "aten::is_scripting"       # type: ignore[attr-defined]
_unwrap_optional.__tsjit_op__ = "aten::_unwrap_optional"  # type: ignore[attr-defined]
fork.__tsjit_builtin__ = "fork"                        # type: ignore[attr-defined]
wait.__tsjit_op__ = "aten::wait"                       # type: ignore[attr-defined]


__all__ = ["CompilationUnit", "ArgumentError", "ScriptFunction", "ScriptMethod", "ScriptModule", "Final",
           "compilation_unit", "reset_compilation_unit", "script", "freeze", "export", "ignore",
           "unused", "interface",
           "save", "load", "annotate", "isinstance", "is_scripting", "is_tracing", "Attribute",
           "Error", "Future", "fork", "wait", "script_method", "optimize_for_inference",
           "optimized_execution", "export_opnames", "RecursiveScriptModule", "ScriptList",
           "ScriptDict"]
