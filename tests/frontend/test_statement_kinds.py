"""Every statement kind of the AST is parsed, compiled and known to `assigned_names`.

A new statement kind (the recipe in docs/design.md) fails here until it has an example,
a `stmt_<Kind>` method in the compiler, and `assigned_names` finds the variables it binds
as CPython's own symbol table does (loops carry those variables).
"""
from __future__ import annotations

import symtable
import textwrap
from typing import Iterator

import pytest

from tsjit.frontend import ast
from tsjit.frontend.compiler import FunctionCompiler
from tsjit.frontend.environment import assigned_names
from tsjit.frontend.parser import parse_def

# One example per statement kind, as a function body.
EXAMPLES: dict[type, str] = {
    ast.ExprStmt: "f(a)",
    ast.Assign: "a, (b, *c) = d = e\no.p = 1\nn[0] = 2",
    ast.AnnAssign: "a: int = 1",
    ast.AugAssign: "a += 1",
    ast.If: "if t:\n    a = 1\nelse:\n    b = 2",
    ast.While: "while t:\n    a = 1",
    ast.For: "for i, (j, k) in xs:\n    a = i",
    ast.Return: "return a",
    ast.Raise: "raise ValueError(a)",
    ast.Assert: "assert a, 'm'",
    ast.Pass: "pass",
    ast.Break: "while t:\n    break",
    ast.Continue: "for i in xs:\n    continue",
    ast.Delete: "del a",
    ast.With: "with torch.no_grad() as g:\n    a = 1",
    ast.Def: "def g():\n    return a",
}
# Kinds that are no statement of a function body: the compiler rejects them there.
NOT_IN_FUNCTIONS = {ast.ClassDef: "classes are declared at module level",
                    ast.Span: "archive code not parsed yet (parser.expand parses it)",
                    ast.DefSpan: "a function of archive code, parsed when first compiled",
                    ast.DeclSpan: "a class-body declaration of archive code"}
# Kinds CPython counts as binding that carry no new value out of a loop.
NOT_A_BINDING = {ast.Delete: "`del a` leaves a undefined",
                 ast.Def: "a nested function is a closure `fork` takes, never a value a "
                          "loop carries"}


def _kinds(cls: type) -> Iterator[type]:
    for sub in cls.__subclasses__():
        # (a slots dataclass replaces its class; the first one may linger as a subclass)
        if getattr(ast, sub.__name__, None) is sub:
            yield sub
        yield from _kinds(sub)


def _body(src: str) -> tuple:
    return parse_def("def f():\n" + textwrap.indent(src, "    ")).body


def _walk(stmts: tuple) -> Iterator[ast.Stmt]:
    for s in stmts:
        yield s
        for attr in ("body", "orelse"):
            yield from _walk(getattr(s, attr, ()) or ())


def _python_assigned(src: str) -> set[str]:
    """The variables CPython's symbol table finds assigned in the function body `src`."""
    table = symtable.symtable("def f():\n" + textwrap.indent(src, "    "), "<example>", "exec")
    f = table.get_children()[0]
    return {s.get_name() for s in f.get_symbols() if s.is_assigned() and s.is_local()}


def test_every_statement_kind_has_an_example() -> None:
    kinds = set(_kinds(ast.Stmt))
    known = set(EXAMPLES) | set(NOT_IN_FUNCTIONS)
    assert kinds == known, f"kinds without an example: {sorted(k.__name__ for k in kinds - known)}"


@pytest.mark.parametrize("kind", list(EXAMPLES), ids=lambda k: k.__name__)
def test_the_example_parses_to_its_kind(kind: type) -> None:
    assert any(type(s) is kind for s in _walk(_body(EXAMPLES[kind])))


@pytest.mark.parametrize("kind", list(EXAMPLES), ids=lambda k: k.__name__)
def test_the_compiler_compiles_the_kind(kind: type) -> None:
    assert callable(getattr(FunctionCompiler, "stmt_" + kind.__name__, None))


@pytest.mark.parametrize("kind", list(NOT_IN_FUNCTIONS), ids=lambda k: k.__name__)
def test_kinds_not_in_functions_have_no_compiler_method(kind: type) -> None:
    assert not hasattr(FunctionCompiler, "stmt_" + kind.__name__)


@pytest.mark.parametrize("kind", list(EXAMPLES), ids=lambda k: k.__name__)
def test_assigned_names_agree_with_python(kind: type) -> None:
    src = EXAMPLES[kind]
    expected = set() if kind in NOT_A_BINDING else _python_assigned(src)
    assert set(assigned_names(_body(src))) == expected
