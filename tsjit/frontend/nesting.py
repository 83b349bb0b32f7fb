"""How deeply a parsed tree nests, measured without recursion, against the source-depth limit.

Everything after the parser (the compiler, type parsing, passes, the printer, code
generation) walks trees and graphs recursively, so the nesting depth of the source bounds
their recursion. The parser checks every tree it builds here, once, before any of them
runs: deeper than `Limits.max_source_depth` is a LimitError at the first construct past the
limit, and a tree within it gets Python recursion room for its depth (`recursion_room`).
"""
from __future__ import annotations

import dataclasses
import sys
import threading

from ..ir.limits import LimitError, current_limits
from . import ast as A

# Fields that may hold nodes, per AST class (the others hold names, operators, values).
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}
_NODE_TYPES = ("Expr", "Stmt", "Keyword", "Param", "Comprehension", "WithItem", "Node")

# Python frames the recursive passes use per level of source nesting, at most (measured on
# the deepest paths: an expression nested in calls, an `if` nested in `if`s, a type in a type,
# through the compiler, the optimizer and code generation); and frames below the first level.
FRAMES_PER_LEVEL = 12
BASE_FRAMES = 400

_room_lock = threading.Lock()


def _child_fields(cls: type) -> tuple[str, ...]:
    fields = _CHILD_FIELDS.get(cls)
    if fields is None:
        fields = _CHILD_FIELDS[cls] = tuple(
            f.name for f in dataclasses.fields(cls)
            if f.name != "range" and any(t in str(f.type) for t in _NODE_TYPES))
    return fields


def nesting_depth(tree: A.Node, limit: int) -> tuple[int, A.Node | None]:
    """The depth of `tree` (a leaf is 1) and the first node found deeper than `limit`."""
    deepest, too_deep = 0, None
    stack = [(tree, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        node, depth = pop()
        if depth > deepest:
            deepest = depth
            if depth > limit and too_deep is None:
                too_deep = node
        below = depth + 1
        for name in _CHILD_FIELDS.get(type(node)) or _child_fields(type(node)):
            value = getattr(node, name)
            if type(value) is tuple:
                for item in value:
                    if isinstance(item, A.Node):
                        push((item, below))
            elif isinstance(value, A.Node):
                push((value, below))
    return deepest, too_deep


def check_nesting(tree: A.Node) -> None:
    """Refuse `tree` (LimitError, located) when it nests deeper than the source-depth limit."""
    limit = current_limits().max_source_depth
    depth, too_deep = nesting_depth(tree, limit)
    if too_deep is not None:
        raise LimitError("max_source_depth", "source nests too deeply", depth, range=too_deep.range)
    recursion_room(depth)


def recursion_room(depth: int) -> None:
    """Let Python recurse deeply enough for passes over source nested `depth` levels.

    The interpreter's recursion limit is one setting per process: it is raised to what the
    deepest source checked so far needs and never lowered, so a thread compiling shallow
    code cannot take the room from one compiling deep code.
    """
    need = BASE_FRAMES + FRAMES_PER_LEVEL * depth
    if need > sys.getrecursionlimit():
        with _room_lock:
            if need > sys.getrecursionlimit():
                sys.setrecursionlimit(need)
