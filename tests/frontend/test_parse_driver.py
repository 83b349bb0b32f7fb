"""The parser's own LALR driver (tsjit.frontend.parser._Driver) against lark's parse loop.

The driver runs lark's tables with a leaner loop and lexer; it must build the same AST,
with the same ranges, and fail with the same errors as lark's `Lark.parse` would.
"""
from __future__ import annotations

import ast as pyast
import dataclasses
import glob
import os
from typing import Any, Iterator

import pytest

from tsjit.frontend import ast as A
from tsjit.frontend import parser as P
from tsjit.ir.diagnostics import ParseError

from tests.helpers.parse_errors import ERRORS

CORPUS = os.path.join(os.path.dirname(__file__), "..", "data", "corpus")
BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "bench")


def _with_lark(monkeypatch: pytest.MonkeyPatch, fn: Any, *args: Any) -> Any:
    P._get_lark()
    with monkeypatch.context() as m:
        m.setattr(P, "_driver", P.LarkLoop(P._get_lark()))
        return fn(*args)


def _ranged(node: Any) -> Any:
    """The AST as nested tuples, source ranges included."""
    if isinstance(node, A.Node):
        return (type(node).__name__, node.range.start, node.range.end,
                *(_ranged(getattr(node, f.name)) for f in dataclasses.fields(node)
                  if f.name != "range"))
    if isinstance(node, (tuple, list)):
        return tuple(_ranged(x) for x in node)
    return node


def _sources() -> list[str]:
    paths = sorted(glob.glob(os.path.join(CORPUS, "*", "source.py")))
    paths += sorted(glob.glob(os.path.join(BENCH, "*.py")))
    paths += sorted(glob.glob(os.path.join(os.path.dirname(P.__file__), "..", "nn", "*.py")))
    return paths


def _definitions() -> Iterator[tuple[str, str, Any]]:
    """(label, text, parse function) of every top-level class and function of the sources."""
    for path in _sources():
        with open(path, encoding="utf-8") as f:
            text = f.read()
        lines = text.splitlines(keepends=True)
        for node in pyast.parse(text).body:
            if isinstance(node, (pyast.FunctionDef, pyast.ClassDef)):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                fn = P.parse_class if isinstance(node, pyast.ClassDef) else P.parse_def
                yield f"{path}:{first}", "".join(lines[first - 1:node.end_lineno]), fn


@pytest.mark.slow
def test_sources_parse_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    checked = 0
    for label, text, fn in _definitions():
        try:
            expected = repr(_with_lark(monkeypatch, lambda: _ranged(fn(text, label))))
        except ParseError as e:  # Python-only syntax: the driver must fail alike
            with pytest.raises(ParseError) as err:
                fn(text, label)
            assert str(err.value) == str(e), label
            continue
        assert repr(_ranged(fn(text, label))) == expected, label
        checked += 1
    assert checked >= 100


EXTRA_ERRORS = ["x = 1 2\n", "def f(:\n", "f(\n", "x = [1,, 2]\n", "if x\n    pass\n",
                "class C:\npass\n", "x = 'a' 'b' +\n", "", "   \n", "@d\n", "x = ?\n"]


@pytest.mark.parametrize("text", [e[0] for e in ERRORS] + EXTRA_ERRORS)
def test_errors_alike(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def outcome() -> str:
        try:
            return repr(_ranged(P.parse(text, "f.py")))
        except ParseError as e:
            return "error: " + str(e)
    assert outcome() == _with_lark(monkeypatch, outcome)


def test_expressions_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    for text in ["a if b else c", "x[1:2, ::3]", "f(*a, k=1)", "f'{x!r:>{w}}'", "-2**-1",
                 "[i for i in range(3) if i]", "{k: v for k, v in d.items()}"]:
        assert _ranged(P.parse_expr(text)) == _with_lark(monkeypatch, lambda: _ranged(P.parse_expr(text)))


def test_falls_back_to_lark_when_its_internals_differ(monkeypatch: pytest.MonkeyPatch) -> None:
    # A lark release whose tables or lexer _Driver cannot read parses with lark's loop
    # (which the tests above check parses alike).
    import lark

    def unreadable(parser: Any) -> Any:
        raise AttributeError("no such lark internal")
    monkeypatch.setattr(P, "_Driver", unreadable)
    assert isinstance(P._make_driver(P._get_lark(), lark.__version__), P.LarkLoop)


def test_lark_releases_the_driver_is_not_tested_on_use_lark_loop() -> None:
    import lark
    first, last = P.DRIVER_LARK_VERSIONS
    assert first <= P._version(lark.__version__) < last     # (pyproject pins the range)
    assert isinstance(P._make_driver(P._get_lark(), lark.__version__), P._Driver)
    for other in [".".join(map(str, last)), "1.4.0rc1", "1.1.8", "1.1", "2.0.0"]:
        assert isinstance(P._make_driver(P._get_lark(), other), P.LarkLoop), other


def test_pyproject_pins_lark_to_the_driver_versions() -> None:
    pyproject = os.path.join(os.path.dirname(__file__), "..", "..", "pyproject.toml")
    with open(pyproject, encoding="utf-8") as f:
        text = f.read()
    first, last = (".".join(map(str, v)) for v in P.DRIVER_LARK_VERSIONS)
    assert f'"lark>={first},<{last}"' in text


def test_lists_grown_by_left_recursion_are_extended_in_place() -> None:
    # `_items: _items item | item`: each reduce takes in the inlined list and adds one
    # item. Copying the list at each step made long statement lists quadratic to parse.
    grow = P._expanding_filter([[0, True, 0], [1, False, 0]], 0, P._Inline)
    items = P._Inline(["a"])
    for x in "bcd":
        bigger = grow([items, x])
        assert bigger.children is items.children   # the same list, one item longer
        items = bigger
    assert items.children == ["a", "b", "c", "d"]
    # a list in the middle of a rule is copied after what comes before it
    mid = P._expanding_filter([[0, False, 1], [1, True, 0]], 1, list)
    assert mid(["x", P._Inline(["y", "z"])]) == [None, "x", "y", "z", None]
