"""Environments: the name -> SugaredValue table of one block, chained to the enclosing one."""
from __future__ import annotations

from typing import Any, Optional

from ..ir import Block
from ..ir import types as T
from . import ast
from .sugared import SimpleValue, SugaredValue


class Undefined(SugaredValue):
    """A name that is not usable here, with the reason to report if it is used."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        self.kind = reason


class _Open:
    """The open environments of one function (the chain from its own to the one being
    compiled, `current`) and, per name, the open ones that bind it, innermost last.

    Looking a name up by walking the chain costs its depth: an `if` nested n deep whose
    branches bind new names looked up each of O(n) names at each of n levels through n
    environments (cubic). From the current environment, or one just closed under it
    (what `if` and loop merging reads), the innermost binding is the last open binder.
    Environments close when the compiler returns to an enclosing one and never reopen,
    so closed binders are dropped from the ends of the lists as they are met: each entry
    is pushed and popped once. Any other change of `current` (not to a child, not back
    to an ancestor) turns this off for the function: lookups walk the chain, as before.
    """

    def __init__(self) -> None:
        self.current: Optional[Environment] = None
        self.binders: dict[str, list[Environment]] = {}
        self.usable = True

    def enter(self, env: "Environment") -> None:
        """Make `env` the environment being compiled."""
        cur = self.current
        if env is cur:
            return
        if cur is None or env.parent is cur and not env.closed:
            env.open = True
            for name in env.vars:  # bound before it was entered (a loop's carried values)
                self.binders.setdefault(name, []).append(env)
        else:
            e: Optional[Environment] = cur
            while e is not None and e is not env:
                e.open, e.closed = False, True
                e = e.parent
            if e is None:
                self.usable = False
        self.current = env

    def find(self, name: str) -> Optional[SugaredValue]:
        """The innermost binding of `name` in an open environment."""
        stack = self.binders.get(name)
        if not stack:
            return None
        while stack and not stack[-1].open:
            stack.pop()
        for env in reversed(stack):   # (a name bound to None reads through, as in lookup)
            v = env.vars[name] if env.open else None
            if v is not None:
                return v
        return None


class Environment:
    """Variables of one block; lookups fall back to the parent environment."""

    def __init__(self, parent: Optional["Environment"], block: Block) -> None:
        self.parent = parent
        self.block = block
        self.vars: dict[str, SugaredValue] = {}
        self.declared: dict[str, T.Type] = {}
        self.exited = False   # a return/break/continue/raise ended this block
        self.refined: dict[str, T.Type] = {}   # narrower types proven for this block
        self.refinement_bindings: set[str] = set()   # names bound only by a refinement
        self.scopes: _Open = parent.scopes if parent is not None else _Open()
        self.open = self.closed = False

    def lookup(self, name: str) -> Optional[SugaredValue]:
        v = self.vars.get(name)
        if v is not None:
            return v
        scopes = self.scopes
        if scopes.usable and (self.open and scopes.current is self or
                              self.closed and scopes.current is self.parent):
            return scopes.find(name)
        env = self.parent
        while env is not None:
            v = env.vars.get(name)
            if v is not None:
                return v
            env = env.parent
        return None

    def refinement(self, name: str) -> Optional[T.Type]:
        """The narrowest type proven for `name` here (stops where `name` was assigned)."""
        env: Optional[Environment] = self
        while env is not None:
            if name in env.refined:
                return env.refined[name]
            if name in env.vars and name not in env.refinement_bindings:
                return None
            env = env.parent
        return None

    def assigned(self) -> list[str]:
        """Names bound in this block, in order of first assignment (refinements excluded)."""
        return [n for n in self.vars if n not in self.refinement_bindings]

    def outer_type(self, name: str) -> Optional[T.Type]:
        """The type of `name` as an enclosing block defined it, when this block has not
        bound it itself (refinements aside); None otherwise."""
        if name in self.vars:
            return None
        env = self.parent
        while env is not None:
            v = env.vars.get(name)
            if v is not None and name not in env.refinement_bindings:
                return v.value.type if isinstance(v, SimpleValue) else None
            env = env.parent
        return None

    def declared_type(self, name: str) -> Optional[T.Type]:
        env: Optional[Environment] = self
        while env is not None:
            t = env.declared.get(name)
            if t is not None:
                return t
            env = env.parent
        return None

    def assign(self, name: str, sv: SugaredValue, name_value: bool = False,
               declared: Optional[T.Type] = None) -> None:
        """Bind `name`; with `name_value`, give a simple value defined in this block the name."""
        if declared is not None:
            self.declared[name] = declared
        self.refined.pop(name, None)
        self.refinement_bindings.discard(name)
        if name_value and isinstance(sv, SimpleValue) and meaningful_name(name):
            v = sv.value
            # Only name values defined in this block: naming an outer value after an inner
            # variable would make printed code differ between save and reload.
            # A ModuleList entry's automatic `_0` gives way to the variable's name.
            if (not v.has_debug_name() or not meaningful_name(v.debug_name_base())) and \
                    v.node.owning_block is self.block:
                v.set_debug_name(name)
        self.bind(name, sv)

    def bind(self, name: str, sv: SugaredValue) -> None:
        """Set `name` here, and nothing else (`assign` also updates declarations)."""
        if name not in self.vars:
            scopes = self.scopes
            if self.open and scopes.current is self:
                scopes.binders.setdefault(name, []).append(self)
            elif self.open:
                scopes.usable = False   # an enclosing block bound a name: chain order lost
        self.vars[name] = sv



def meaningful_name(name: str) -> bool:
    """Printed temporaries (`_0`, `_12`) and internal names do not name values."""
    if not name or name.startswith("$"):
        return False
    return not (name[0] == "_" and name[1:].isdigit())


def assigned_names(stmts: Any, target: Optional[ast.Expr] = None) -> list[str]:
    """Variables a statement list may assign, in source order (for loop-carried values)."""
    out: dict[str, None] = {}

    def add_target(t: ast.Expr) -> None:
        if isinstance(t, ast.Name):
            out[t.id] = None
        elif isinstance(t, (ast.TupleLit, ast.ListLit)):
            for e in t.elts:
                add_target(e)
        elif isinstance(t, ast.Starred):
            add_target(t.value)

    def visit(s: ast.Stmt) -> None:
        if isinstance(s, (ast.Def, ast.ClassDef)):
            return      # (a nested function's own variables are not this block's)
        if isinstance(s, ast.Assign):
            for t in s.targets:
                add_target(t)
        elif isinstance(s, (ast.AnnAssign, ast.AugAssign)):
            add_target(s.target)
        elif isinstance(s, ast.For):
            add_target(s.target)
        elif isinstance(s, ast.With):
            for item in s.items:
                if item.var is not None:
                    add_target(item.var)
        for attr in ("body", "orelse"):
            for inner in getattr(s, attr, ()) or ():
                if not isinstance(inner, (ast.Def, ast.ClassDef)):
                    visit(inner)

    if target is not None:
        add_target(target)
    for s in stmts:
        visit(s)
    return list(out)
