"""`tsjit.jit.CompilationUnit(source)`: compile functions given as source text."""
from __future__ import annotations

import sys
import textwrap
from typing import Any, Optional

from ..frontend import ast
from ..frontend.compiler import FunctionCompiler
from ..frontend.parser import parse
from ..frontend.resolver import PythonResolver
from ..frontend.script import ScriptCompiler
from ..ir import CompilationUnit as IRCompilationUnit
from ..ir import Function
from ..ir.diagnostics import CompileError
from .script_module import ScriptFunction


class CompilationUnit:
    """Functions compiled from `source`; each is an attribute (`cu.f(1, 2)`).

    Names the source uses resolve through `globals_` (e.g. `{"torch": tsjit}`), else, as
    in PyTorch, through the variables of the code that creates the unit (its locals,
    then its globals); then the language's builtins.
    """

    def __init__(self, source: str = "", globals_: Optional[dict] = None,
                 filename: str = "<source>", _frames_up: int = 0) -> None:
        self._cu = IRCompilationUnit()
        self._script = ScriptCompiler(self._cu)
        if globals_ is None:
            frame = sys._getframe(1 + _frames_up)
            globals_ = {**frame.f_globals, **frame.f_locals}
        self._globals = dict(globals_)
        self._functions: dict[str, Function] = {}
        if source:
            self.define(source, filename)

    def define(self, source: str, filename: str = "<source>") -> None:
        """Compile every `def` of `source` (they may call each other); the source may be
        indented as a whole (e.g. a triple-quoted string inside a function)."""
        module = parse(textwrap.dedent(source), filename)
        resolver = _LocalResolver(self._script, self._globals, self)
        defs = []
        for stmt in module.body:
            if not isinstance(stmt, ast.Def):
                raise CompileError("CompilationUnit source may only define functions", stmt.range)
            fn = Function(f"__torch__.{stmt.name}",
                          definer=lambda f, d=stmt: FunctionCompiler(self._cu, resolver, f, d).compile())
            fn.source_def = stmt
            self._cu.register_function(fn)
            self._functions[stmt.name] = fn
            defs.append(fn)
        for fn in defs:
            fn.ensure_defined()

    def __getattr__(self, name: str) -> ScriptFunction:
        fns = self.__dict__.get("_functions", {})
        if name in fns:
            return ScriptFunction(fns[name])
        raise AttributeError(f"this CompilationUnit defines no function '{name}'")


class _LocalResolver(PythonResolver):
    def __init__(self, script: ScriptCompiler, globals_: dict, unit: CompilationUnit) -> None:
        super().__init__(script, globals_, {})
        self.unit = unit

    def resolve_name(self, name: str, c: Any, rng: Any) -> Any:
        fn = self.unit._functions.get(name)
        if fn is not None:
            from ..frontend.sugared import FunctionValue
            return FunctionValue(fn)
        return super().resolve_name(name, c, rng)
