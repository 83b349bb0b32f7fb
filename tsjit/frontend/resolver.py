"""Resolvers: how names the compiler cannot find locally are looked up.

`Resolver` is the base (builtins only). `PythonResolver` resolves through a Python
function's globals and closure, so model source written against `import tsjit as torch`
compiles as is; the archive importer has its own resolver for `code/` files.
"""
from __future__ import annotations

import builtins as py_builtins
import math
import types as pytypes
from typing import Any, Optional

from ..ir import Function
from ..ir import types as T
from ..ir.diagnostics import CompileError, SourceRange, TsjitError
from ..ir.schema import FunctionSchema
from ..ir.node_kinds import prim
from ..ops import registry
from . import ast
from .builtins import lookup_builtin
from .python_source import parse_python_def
from .schema_matching import NamedValue, match_schemas
from .sugared import (BuiltinFunction, ClassValue, FunctionValue, NamespaceValue, SimpleValue,
                      SugaredValue)


class Resolver:
    """Builtins only; subclasses add their own namespaces."""

    def resolve_name(self, name: str, c: Any, rng: SourceRange) -> Optional[SugaredValue]:
        return lookup_builtin(name)

    def resolve_annotation(self, e: ast.Expr, c: Any) -> Optional[SugaredValue]:
        try:
            return c.emit_sugared(e)
        except CompileError:
            return None

    def resolve_type(self, name: str, c: Any, rng: SourceRange) -> Optional[T.Type]:
        return None

    def resolve_qualified(self, name: str, c: Any, rng: SourceRange) -> SugaredValue:
        raise CompileError(f"unknown name {name}", rng)

    def function(self, name: str, c: Any, rng: SourceRange) -> Optional[Function]:
        return c.cu.find_function(name)

    def method_schema(self, c: Any, fn: Function, rng: SourceRange) -> FunctionSchema:
        """The callee's schema, compiling it first if needed (with a located error chain)."""
        try:
            return fn.schema
        except TsjitError as err:
            caller = getattr(c, "fn", None)
            if caller is not None:
                err.add_context(f"'{fn.qualified_name}' is being compiled since it was called "
                                f"from '{caller.qualified_name}'")
                err.add_context(rng.highlight())
            raise

    def missing_attribute(self, c: Any, obj: Any, t: T.ClassType, name: str,
                          rng: SourceRange) -> SugaredValue:
        kind = "Module" if t.is_module else "Object"
        raise CompileError(f"{kind} '{t.name}' has no attribute '{name}'", rng)

    def old_schemas(self, name: str) -> dict[str, FunctionSchema]:
        """Old schemas (by overload) that calls of operator `name` match and upgrade; only
        code from archives of an older format version has any (see frontend/upgraders.py)."""
        return {}

    def emit_upgraded(self, c: Any, schema: Any, inputs: list, rng: SourceRange) -> Any:
        """Emit a call matched against one of `old_schemas`' schemas as its upgrader (the
        resolver of archive code does: upgraders.py loads with archive code only)."""
        raise CompileError(f"no upgrader for {schema.qualified} here", rng)

    def namespace_missing(self, c: Any, ns: NamespaceValue, name: str,
                          rng: SourceRange) -> SugaredValue:
        raise CompileError(f"unknown builtin op {ns.namespace}::{name}", rng)


# Python callables with a meaning of their own in TorchScript, by identity.
_MATH_SPECIALS = {"inf": math.inf, "nan": math.nan, "pi": math.pi, "e": math.e, "tau": math.tau}


_PLAIN_VALUES = (bool, int, float, str, tuple, list, dict)


class PythonResolver(Resolver):
    """Resolves names through a Python function's globals and closure variables."""

    def __init__(self, script: Any, globals_: dict, closure: dict) -> None:
        self.script = script          # frontend.script.ScriptCompiler
        self.globals = globals_
        self.closure = closure

    def resolve_name(self, name: str, c: Any, rng: SourceRange) -> Optional[SugaredValue]:
        for scope in (self.closure, self.globals):
            if name in scope:
                value = scope[name]
                if type(value) in _PLAIN_VALUES:
                    # As PyTorch: a variable's value is not a constant of the program (a
                    # module's attribute, `math.pi`, is).
                    raise CompileError(
                        f"python value of type '{type(value).__name__}' cannot be used as a "
                        "value. Perhaps it is a closed over global variable? If so, please "
                        "consider passing it in as an argument or use a local variable "
                        "instead.", rng)
                return self.to_sugared(value, name, c, rng)
        if hasattr(py_builtins, name) or name == "None":
            return lookup_builtin(name) or self.unsupported(name, rng)
        return None

    def resolve_annotation(self, e: ast.Expr, c: Any) -> Optional[SugaredValue]:
        if isinstance(e, ast.Name) and (e.id in self.closure or e.id in self.globals) and \
                isinstance(self.closure.get(e.id, self.globals.get(e.id)), type):
            # A Python class: an error making its type (a bad enum, a class that does not
            # compile) is the error to report, not "unknown type annotation".
            return c.emit_sugared(e)
        return super().resolve_annotation(e, c)

    def unsupported(self, name: str, rng: SourceRange) -> SugaredValue:
        raise CompileError(f"Python builtin '{name}' is currently not supported in TorchScript", rng)

    def missing_attribute(self, c: Any, obj: Any, t: T.ClassType, name: str,
                          rng: SourceRange) -> SugaredValue:
        pyfn = self.script.unused_methods.get((id(t), name))
        if pyfn is not None:
            return IgnoredMethod(pyfn, self)
        pyfn = self.script.ignored_methods.get((id(t), name))
        if pyfn is not None:
            return PythonCall(pyfn, self, obj, t)
        fn = self.script.function_attributes.get((id(t), name))
        if fn is not None:
            return self.to_sugared(fn, name, c, rng)
        return super().missing_attribute(c, obj, t, name, rng)

    def to_sugared(self, obj: Any, name: str, c: Any, rng: SourceRange) -> SugaredValue:
        """The SugaredValue for a Python object found by name."""
        return self.script.python_value(obj, name, c, rng)


class PythonModuleValue(SugaredValue):
    """A Python module (`tsjit`, `tsjit.nn.functional`, `math`, a user module)."""

    def __init__(self, module: pytypes.ModuleType, resolver: PythonResolver) -> None:
        self.module = module
        self.resolver = resolver

    @property
    def kind(self) -> str:  # type: ignore[override]
        return f"module '{self.module.__name__}'"

    def attr(self, c: Any, rng: SourceRange, name: str) -> SugaredValue:
        if self.module is math:
            if name in _MATH_SPECIALS:
                return SimpleValue(c.emit_constant(_MATH_SPECIALS[name], rng))
            for ns in ("aten", "prim"):
                if registry.overloads(f"{ns}::{name}"):
                    return BuiltinFunction(f"{ns}::{name}")
        if not hasattr(self.module, name):
            raise CompileError(f"module '{self.module.__name__}' has no attribute '{name}'", rng)
        return self.resolver.to_sugared(getattr(self.module, name), name, c, rng)


IGNORED_MESSAGE = "This Python function is annotated to be ignored and cannot be run"


class IgnoredMethod(SugaredValue):
    """A call of an @ignore / @unused method: raises when run, as in a saved archive."""

    kind = "an ignored method"

    def __init__(self, pyfn: Any, resolver: "PythonResolver") -> None:
        self.pyfn, self.resolver = pyfn, resolver

    def call(self, c: Any, rng: SourceRange, args: Any, kwargs: Any) -> SugaredValue:
        d = parse_python_def(self.pyfn)
        ret = c.type_from_expr(d.returns) if d.returns is not None else T.NoneType
        msg = c.emit_constant(IGNORED_MESSAGE, rng)
        c.insert(prim.RaiseException, [msg, c.emit_constant(None, rng)], [], rng)
        if ret == T.NoneType:
            return SimpleValue(c.emit_constant(None, rng))
        return SimpleValue(c.insert(prim.Uninitialized, [], [ret], rng).output())


class PythonCall(SugaredValue):
    """A call of an @ignore function or method: Python runs it when the code runs, as in
    PyTorch (`prim::PythonOp`; code that holds one cannot be saved)."""

    kind = "an ignored Python function"

    def __init__(self, pyfn: Any, resolver: "PythonResolver", self_value: Any = None,
                 owner: Optional[T.ClassType] = None) -> None:
        self.pyfn, self.resolver = pyfn, resolver
        self.self_value, self.owner = self_value, owner

    def call(self, c: Any, rng: SourceRange, args: Any, kwargs: Any) -> SugaredValue:
        schema = self.resolver.script.python_schema(self.pyfn, self.owner)
        if self.self_value is not None:
            args = [NamedValue(self.self_value)] + list(args)
        m = match_schemas(c, [schema], args, kwargs, rng, what=self.pyfn.__name__)
        n = c.insert(prim.PythonOp, m.inputs, m.return_types, rng)
        n.attrs["name"] = self.pyfn.__name__
        n.attrs["function"] = self.pyfn
        return SimpleValue(c.pack_outputs(n, rng))


__all__ = ["Resolver", "PythonResolver", "PythonModuleValue", "ClassValue", "SimpleValue"]
