"""The archive format version: the lowest one that covers the operators the code uses.

PyTorch bumps the produced version only for operators whose behaviour changed between
versions (so older readers would misinterpret them); an archive without such operators
is version 3, the oldest this layout allows. From version 6 on the number is stored in
`.data/version` rather than `version`.
"""
from __future__ import annotations

from typing import Any

from ..ir import Function
from ..ir import types as T
from ..frontend.upgraders import UPGRADERS

MIN_VERSION = 3            # the oldest version of the zip-with-code layout
MAX_SUPPORTED_VERSION = 10  # the newest one PyTorch 2.13 writes and tsjit reads
DATA_VERSION_FROM = 6       # versions from here on live in `.data/version`

# Operator overloads whose semantics changed, and the version that changed them: those
# PyTorch keeps upgraders for (the same table upgrades old archives when they load).
VERSIONED_OPERATORS = {u.operator: u.below for u in UPGRADERS}


def version_record(version: int) -> str:
    """The record name that holds `version`."""
    return ".data/version" if version >= DATA_VERSION_FROM else "version"


def _functions(root: T.ClassType) -> list[Function]:
    seen: set[int] = set()
    out: list[Function] = []

    def visit_type(t: Any) -> None:
        if id(t) in seen:
            return
        seen.add(id(t))
        if isinstance(t, T.ClassType):
            for a in t.attributes:
                visit_type(a.type)
            for fn in t.methods.values():
                if fn.is_defined:
                    visit_fn(fn)
        for c in getattr(t, "contained", lambda: ())():
            visit_type(c)

    def visit_fn(fn: Function) -> None:
        if id(fn) in seen:
            return
        seen.add(id(fn))
        out.append(fn)
        for n in fn.graph.walk():
            if n.callee is not None:
                visit_fn(n.callee)
            for o in n.outputs:
                visit_type(o.type)

    visit_type(root)
    return out


def format_version(root: T.ClassType, files: Any = None) -> int:
    """The version an archive of module type `root` needs."""
    version = MIN_VERSION
    for fn in _functions(root):
        for n in fn.graph.walk():
            if n.schema is not None:
                version = max(version, VERSIONED_OPERATORS.get(n.schema.qualified, MIN_VERSION))
    return version
