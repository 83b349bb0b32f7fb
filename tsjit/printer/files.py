"""Placing printed code objects into `code/` files, in the order PyTorch writes them.

Types are visited depth first from the root module type in the order PythonPrint meets
them (attribute types, then types used by methods); functions are printed after all
types. A code object `__torch__.a.b.C` goes to `code/__torch__/a/b.py`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from ..ir import Function
from ..ir import types as T
from ..ir.diagnostics import SourceRange
from .python_print import ConstantTable, PythonPrinter


@dataclass
class CodeFile:
    path: str                                       # "code/__torch__/a/b.py"
    text: str
    ranges: list[tuple[int, Optional[SourceRange]]]  # (char offset, original range)


def qualifier_path(qualified_name: str) -> str:
    """`__torch__.a.b.C` -> `code/__torch__/a/b.py`."""
    prefix = qualified_name.rsplit(".", 1)[0]
    return "code/" + prefix.replace(".", "/") + ".py"


def print_code_files(roots: list[Any], constants: Optional[ConstantTable] = None) -> list[CodeFile]:
    """Print every code object reachable from `roots` (types or Functions) into files."""
    constants = constants or ConstantTable()
    printers: dict[str, PythonPrinter] = {}
    seen: set[int] = set()
    functions: list[Function] = []

    def printer_for(qualified: str, deps: list) -> PythonPrinter:
        path = qualifier_path(qualified)
        p = printers.get(path)
        if p is None:
            p = printers[path] = PythonPrinter(constants)
        p.on_dependency = deps.append
        return p

    def visit(obj: Any) -> None:
        if id(obj) in seen or obj is None:
            return
        if isinstance(obj, Function):
            if obj.owner is None:
                seen.add(id(obj))
                functions.append(obj)
            return
        if not isinstance(obj, (T.ClassType, T.InterfaceType, T.EnumType, T.TupleType)):
            return
        if isinstance(obj, T.TupleType) and not obj.qualified_name:
            return
        seen.add(id(obj))
        deps: list = []
        p = printer_for(obj.qualified_name, deps)
        if isinstance(obj, T.ClassType):
            p.print_class(obj)
        else:
            p.print_named_type(obj)
        for d in deps:
            visit(d)

    for r in roots:
        if isinstance(r, Function):
            seen.add(id(r))
            functions.append(r)
        else:
            visit(r)
    i = 0
    while i < len(functions):
        fn = functions[i]
        deps: list = []
        printer_for(fn.qualified_name, deps).print_function(fn)
        for d in deps:
            visit(d)
        i += 1
    return [CodeFile(path, p.w.text(), p.w.ranges) for path, p in printers.items()]
