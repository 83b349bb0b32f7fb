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
from ..ir.diagnostics import TsjitError
from ..ir.gc_pause import gc_paused
from ..ir.limits import CHECK_EVERY, current_deadline, check_deadline
from .optimize import optimized_graph
from .python_source import Generated, generate

# The only builtins generated code may reach (it names no others).
GENERATED_BUILTINS = {name: getattr(builtins, name) for name in ("len", "range", "IndexError", "KeyError", "ValueError",
                                                          "TypeError")}
_IDENT = re.compile(r"[^0-9A-Za-z_]")


def generated_source(fn: Function, budgeted: bool = False) -> Generated:
    """The Python source (and its namespace and line map) the codegen tier makes for `fn`."""
    name = "f_" + _IDENT.sub("_", fn.qualified_name)
    return generate(name, optimized_graph(fn), budgeted)


def _tick() -> int:
    """Check the execution budget; the loop iterations until the next check."""
    check_deadline()
    return CHECK_EVERY


@gc_paused()
def compile_function(fn: Function, budgeted: bool = False) -> Callable[[list], Any]:
    """`fn` as a Python function of its argument list, raising as the interpreter does
    (`budgeted`: the variant that checks the execution budget, see python_source)."""
    gen = generated_source(fn, budgeted)
    filename = f"<tsjit {fn.qualified_name}{' (budgeted)' if budgeted else ''}>"
    locations = gen.locations
    qualified = fn.qualified_name

    def locate(err: BaseException, lineno: int) -> BaseException:
        rng, callstack = locations[lineno] if 0 <= lineno < len(locations) and \
            locations[lineno] is not None else (None, ())
        return located(err, qualified, rng, callstack)

    variant: list[Callable[[list], Any]] = []

    def run_budgeted(args: list) -> Any:
        if not variant:
            variant.append(compile_function(fn, budgeted=True))
        return variant[0](args)

    # `__name__` attributes warnings from generated code to tsjit (see kernel_util's filter).
    namespace = dict(gen.namespace, _locate=locate, __builtins__=GENERATED_BUILTINS,
                     __name__="tsjit.codegen.generated", _budgeted=run_budgeted,
                     _deadline=current_deadline, _tick=_tick)
    generic = gen.source.replace(f"def {gen.name}(args):", f"def {_GENERIC}(args):", 1)
    try:
        code = _compiled(generic)
    except (SyntaxError, RecursionError, MemoryError, ValueError) as err:  # limits of Python's compiler
        raise TsjitError(f"Python cannot compile the code generated for '{qualified}': "
                         f"{type(err).__name__}: {err}") from None
    exec(code, namespace)   # noqa: S102 - source built from IR
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
