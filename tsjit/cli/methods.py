"""Which methods `tsjit code` and `tsjit graph` show: `--module PATH`, `--method NAME`, `--all`
(every module type once), and their graphs as compiled or with every call inlined."""
from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from ..ir.diagnostics import TsjitError


@dataclass
class Selected:
    """One method of one module of a loaded archive."""
    module: str            # dotted path, "" for the top module
    type_name: str
    name: str
    function: Any          # ir.function.Function

    @property
    def title(self) -> str:
        return f"{self.type_name}.{self.name}" + (f" (module {self.module})" if self.module else "")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The selection options."""
    p.add_argument("--module", metavar="PATH", help="a submodule by dotted path (e.g. layer1.0)")
    p.add_argument("--method", metavar="NAME", help="only this method")
    p.add_argument("--all", action="store_true", help="every module type's methods (each type once)")
    p.add_argument("--inlined", action="store_true", help="with every known call inlined")


def select(path: str, args: argparse.Namespace) -> list[Selected]:
    """The methods the options name (default: the top module's)."""
    from ..jit import load
    if args.all and args.module:
        raise TsjitError("--all and --module exclude each other")
    modules = dict(load(path).named_modules())
    if args.module is not None and args.module not in modules:
        near = [n for n in modules if n][:8]
        raise TsjitError(f"{path} has no submodule {args.module!r} (some it has: "
                         f"{', '.join(near) or 'none'})")
    chosen = list(modules.items()) if args.all else [(args.module or "", modules[args.module or ""])]
    out: list[Selected] = []
    seen: set[str] = set()
    for name, m in chosen:
        t = m._c.type
        if t.qualified_name in seen:
            continue
        seen.add(t.qualified_name)
        out += [Selected(name, t.qualified_name, k, fn) for k, fn in t.methods.items()
                if args.method in (None, k)]
    if not out:
        raise TsjitError(f"no method {args.method!r} in the selected module"
                         f"{'s' if args.all else ''} of {path}")
    return out


def graph_of(sel: Selected, inlined: bool) -> Any:
    """The method's graph, or a copy with every statically known call inlined."""
    from ..ir.cloning import copy_graph
    from ..ir.passes import inlining
    g = sel.function.graph
    if inlined:
        g = copy_graph(g)
        inlining.run(g, should_inline=lambda fn: True)
    return g


def code_of(sel: Selected, inlined: bool) -> str:
    """The method as Python source, from its (inlined) graph."""
    from ..ir.function import Function
    from ..printer import PythonPrinter
    fn = sel.function
    if inlined:
        fn = Function(fn.qualified_name, graph_of(sel, True), schema=fn.schema, owner=fn.owner)
    p = PythonPrinter()
    p.print_function(fn, is_method=True, annotate_self=False)
    return p.w.text()
