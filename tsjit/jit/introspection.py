"""What a scripted module runs: the operators of its methods and everything they call."""
from __future__ import annotations

from typing import Any

from ..ir import types as T


def operator_names(m: Any) -> list[str]:
    """Sorted qualified names (`aten::add.Tensor`) of the operators the methods of the
    scripted module `m`, its submodules and the functions they call can run."""
    seen_types: set[int] = set()
    seen_fns: set[int] = set()
    names: set[str] = set()

    def visit_type(t: T.ClassType) -> None:
        if id(t) in seen_types:
            return
        seen_types.add(id(t))
        for fn in t.methods.values():
            visit_function(fn)
        for a in t.attributes:
            if isinstance(a.type, T.ClassType):
                visit_type(a.type)

    def visit_function(fn: Any) -> None:
        if id(fn) in seen_fns:
            return
        seen_fns.add(id(fn))
        for n in fn.graph.walk():
            if n.schema is not None and "::" in n.schema.name:
                names.add(n.schema.qualified)
            if n.callee is not None:
                visit_function(n.callee)
            for out in n.outputs:
                if isinstance(out.type, T.ClassType):
                    visit_type(out.type)

    visit_type(m._c.type)
    return sorted(names)


__all__ = ["operator_names"]
