"""Compiling a Function to a Python function: optimize its graph, generate source, exec it."""
from __future__ import annotations

import builtins
import functools
import linecache
import re
from types import CodeType
from typing import Any, Callable

from ..interpreter.errors import located
from ..ir import Function
from .optimize import optimized_graph
from .python_source import Generated, generate

# The only builtins generated code may reach (it names no others).
_BUILTINS = {name: getattr(builtins, name) for name in ("len", "range", "IndexError", "KeyError", "ValueError",
                                                          "TypeError")}
_IDENT = re.compile(r"[^0-9A-Za-z_]")


def generated_source(fn: Function) -> Generated:
    """The Python source (and its namespace and line map) the codegen tier makes for `fn`."""
    name = "f_" + _IDENT.sub("_", fn.qualified_name)
    return generate(name, optimized_graph(fn))


def compile_function(fn: Function) -> Callable[[list], Any]:
    """`fn` as a Python function of its argument list, raising as the interpreter does."""
    gen = generated_source(fn)
    filename = f"<tsjit {fn.qualified_name}>"
    locations = gen.locations
    qualified = fn.qualified_name

    def locate(err: BaseException, lineno: int) -> BaseException:
        rng, callstack = locations[lineno] if 0 <= lineno < len(locations) and \
            locations[lineno] is not None else (None, ())
        return located(err, qualified, rng, callstack)

    # `__name__` attributes warnings from generated code to tsjit (see kernel_util's filter).
    namespace = dict(gen.namespace, _locate=locate, __builtins__=_BUILTINS,
                     __name__="tsjit.codegen.generated")
    generic = gen.source.replace(f"def {gen.name}(args):", f"def {_GENERIC}(args):", 1)
    exec(_compiled(generic), namespace)   # noqa: S102 - source built from IR
    f = namespace[_GENERIC]
    f.__code__ = f.__code__.replace(co_name=gen.name, co_qualname=gen.name, co_filename=filename)
    f.__name__ = f.__qualname__ = gen.name
    # Python's own tracebacks (for debugging tsjit) can show the generated lines.
    linecache.cache[filename] = (len(gen.source), None, gen.source.splitlines(True), filename)
    return f


_GENERIC = "f"


@functools.lru_cache(maxsize=1024)
def _compiled(source: str) -> CodeType:
    """Python's compile() of generated source, shared by functions whose source differs only
    in the function's name (the methods of one class in many mangled copies, as every block
    of a real model has: Python's compile was a fifth of such a model's first call); the
    names, constants and kernels each binds live in its own namespace."""
    return compile(source, "<tsjit generated>", "exec")
