"""Placing printed code objects into `code/` files, in the order PyTorch writes them.

Types and functions are printed breadth first from the root, in the order PythonPrint
meets them (attribute types, then what methods use). A code object `__torch__.a.b.C`
goes to `code/__torch__/a/b.py`.
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
    queue: list[Any] = []
    seen: set[int] = set()

    def add(obj: Any) -> None:
        if obj is None or id(obj) in seen:
            return
        if isinstance(obj, Function):
            if obj.owner is not None:
                return      # methods are printed with their class
        elif not isinstance(obj, (T.ClassType, T.InterfaceType, T.EnumType, T.TupleType)) or \
                isinstance(obj, T.TupleType) and not obj.qualified_name:
            return
        seen.add(id(obj))
        queue.append(obj)

    for r in roots:
        add(r)
    # One queue of types and functions in the order printing meets them (each printed
    # object may add more), as PyTorch converts its class dependencies.
    i = 0
    while i < len(queue):
        obj = queue[i]
        i += 1
        qualified = obj.qualified_name
        path = qualifier_path(qualified)
        p = printers.get(path)
        if p is None:
            p = printers[path] = PythonPrinter(constants, archive=True)
        deps: list = []
        p.on_dependency = deps.append
        if isinstance(obj, Function):
            p.print_function(obj)
        elif isinstance(obj, T.ClassType):
            p.print_class(obj)
        else:
            p.print_named_type(obj)
        for d in deps:
            add(d)
    return [CodeFile(path, p.w.text(), p.w.ranges) for path, p in printers.items()]
