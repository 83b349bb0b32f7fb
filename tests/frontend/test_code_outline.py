"""The outline of archive code files: spans that expand to the AST (ranges included) the
full parser gives, function bodies parsed only when compiled, files of other shapes left
to the full parser, errors the parser's."""
from __future__ import annotations

import dataclasses
import zipfile
from pathlib import Path
from typing import Any

import pytest

from hypothesis import given, settings
from hypothesis import strategies as st

import tsjit
from tsjit.frontend import ast as A
from tsjit.frontend.code_outline import outline
from tsjit.frontend.constants import eval_constant
from tsjit.frontend.parser import expand, parse
from tsjit.ir.diagnostics import ParseError, TsjitError

CORPUS = Path(__file__).resolve().parent.parent / "data" / "corpus"


def _code_files() -> list[tuple[str, str]]:
    out = []
    for archive in sorted(CORPUS.glob("*/model.pt")):
        with zipfile.ZipFile(archive) as z:
            for name in z.namelist():
                if name.endswith(".py"):
                    out.append((f"{archive.parent.name}:{name}", z.read(name).decode("utf-8")))
    return out


def _dump(node: Any) -> Any:
    """Node kinds, fields and ranges, for exact comparison."""
    if isinstance(node, A.Node):
        return (type(node).__name__, node.range.start, node.range.end) + tuple(
            _dump(getattr(node, f.name)) for f in dataclasses.fields(node) if f.name != "range")
    if isinstance(node, (tuple, list)):
        return tuple(_dump(x) for x in node)
    return node


def _expanded(m: A.Module) -> A.Module:
    return A.Module(m.range, tuple(expand(s) for s in m.body))


CODE = _code_files()


@pytest.mark.parametrize("name,text", CODE, ids=[n for n, _ in CODE])
def test_outline_matches_the_parser_on_corpus_code(name: str, text: str) -> None:
    got = outline(text, name)
    assert got is not None, "PythonPrint's files are regular: the outline should take them"
    assert _dump(_expanded(got)) == _dump(parse(text, name))


def test_function_bodies_stay_unparsed() -> None:
    text = ("class M(Module):\n  __parameters__ = [\"w\", ]\n  w : Tensor\n"
            "  k : Final[Tuple[int, int]] = (1, -2)\n"
            "  def forward(self: __torch__.M,\n    x: Tensor) -> Tensor:\n"
            "    return torch.add(x, self.w)  # a comment (\n"
            "def helper(x: int) -> int:\n  return x\n"
            "class Empty:\n  pass\n")
    m = outline(text)
    assert m is not None
    cls, helper, empty = m.body
    assert isinstance(empty.body[0], A.Pass)
    assert isinstance(cls.body[-1], A.DefSpan) and cls.body[-1].name == "forward"
    assert isinstance(helper, A.DefSpan) and helper.name == "helper"
    assert _dump(_expanded(m)) == _dump(parse(text))



@pytest.mark.parametrize("text", [
    'class M(Module):\n  x : int\n  def f(self) -> str:\n    return """a\n(b"""\n',
    "class M(Module):\n  x : int\n  def f(self) -> int:\n    return 1 + \\\n      2\n",
    "class M(Module):\n\tx : int\n",
    "class M(Module):\n  class N:\n    pass\n",
    "x = 1\n",
    "@d\nclass M(Module):\n  x : int\n",
    "  class M(Module):\n    x : int\n",
    "class M(Module):\n      y : int\n  x : int\n",
    "class M(Module):\n  x : int\n    y : int\n",
    "class M(Module):\n   x : int\n",
    "class M(Module):\n  x : int\n x : int\n",
    "class M(Module):\n  x : List[int\n",
    "class M(Module):\n  x : List[\n  int]\n",
    "class M(Module):\n  x : int; y : int\n",
    "class M(Module):\n  x : str = 'a\n",
    "class M(Module):\n",
    "class in(Module):\n  x : int\n",
    "def if(x: int) -> int:\n  return x\n",
    "",
    # (a line continued onto one indented by at most two spaces: not PythonPrint's layout)
    "class M(Module):\n  x : int\n  def f(self, a: int) -> int:\n    return [a,\n b][0]\n",
    "class M(Module):\n  x : int\n  def f(self, a: str = \")\"\n  ) -> str:\n    return a\n",
])
def test_files_of_other_shapes_are_left_to_the_parser(text: str) -> None:
    assert outline(text) is None


@pytest.mark.parametrize("line", [
    "x : Optional[(int)]", "x : int = 1 + 2", "x : str = r'a'", "x : int = 012",
    "x :", '__annotations__["0"] =', "n : None", "in : int", "o : Optional[None]",
    '__annotations__["k"] = a.True', "k : Final[None] = 1", "k : Final[int]",
    "k : Final[Tuple[int, int]] = (1,2)", "k : Final[str] = 'a\\tb'", "d : Dict[str,int]",
    '__parameters__ = ["a", "b"]', "RED = 1", "x : Final[Tuple[int]] =",
])
def test_other_declarations_stay_spans_the_parser_takes(line: str) -> None:
    text = f"class M(Module):\n  w : Tensor\n  {line}\n  x : int\n"
    m = outline(text)
    assert m is not None
    try:
        whole = parse(text)
    except ParseError as e:
        with pytest.raises(ParseError) as info:     # the same error, when it is read
            _expanded(m)
        assert str(info.value) == str(e)
        return
    assert _dump(_expanded(m)) == _dump(whole)


def test_declarations_loading_reads() -> None:
    text = ('class M(Module, Base):\n  __parameters__ = ["w", ]\n  __buffers__ = []\n'
            '  w : Tensor\n  sub : __torch__.a.B\n  __annotations__["0"] = __torch__.a.B\n'
            "  o : Optional[int]\n  k : Final[int] = -3\n  s : Final[str] = 'a b'\n"
            "  t : Final[Tuple[int, int]] = (1, -2)\n  u : Final[Tuple[int]] = (0,)\n"
            "  e : Final[Tuple[()]] = ()\n  f : Final[float] = 1.5e-05\n  n : Final[None] = None\n"
            "  def f(self) -> int:\n    return 1\n")
    cls = outline(text).body[0]
    assert [b.id for b in cls.bases] == ["Module", "Base"]
    read = [(s.kind, s.name, s.value) for s in cls.body if isinstance(s, A.DeclSpan)]
    assert read == [
        ("names", "__parameters__", ("w",)), ("names", "__buffers__", ()),
        ("attr", "w", "Tensor"), ("attr", "sub", "__torch__.a.B"), ("attr", "0", "__torch__.a.B"),
        ("attr", "o", "Optional[int]"), ("final", "k", -3), ("final", "s", "a b"),
        ("final", "t", (1, -2)), ("final", "u", (0,)), ("final", "e", ()),
        ("final", "f", 1.5e-05), ("final", "n", None)]
    whole = parse(text).body[0]
    assert _dump(expand(cls)) == _dump(whole)
    for span, stmt in zip(cls.body, whole.body):     # values as the parser reads them
        if isinstance(span, A.DeclSpan) and span.kind == "final":
            assert span.value == eval_constant(stmt.value)


def test_syntax_error_in_a_method_shows_when_the_method_compiles(tmp_path: Path) -> None:
    class Net(tsjit.nn.Module):
        def forward(self, x: tsjit.Tensor) -> tsjit.Tensor:
            return x + 1

        @tsjit.jit.export
        def other(self, x: int) -> int:
            return x * 2

    path = tmp_path / "m.pt"
    tsjit.save(tsjit.script(Net()), path)
    with zipfile.ZipFile(path) as z:
        records = [(i, z.read(i)) for i in z.infolist()]
    broken = tmp_path / "broken.pt"
    with zipfile.ZipFile(broken, "w") as z:
        for info, data in records:
            if info.filename.endswith(".py") and b"def other" in data:
                data = data.replace(b"return torch.mul(x, 2)", b"return torch.mul(x, 2) +")
                assert b"2) +" in data
            z.writestr(info, data)
    m = tsjit.load(broken)              # the class declaration parses; the body waits
    assert m(tsjit.ones(2)).tolist() == [2.0, 2.0]
    with pytest.raises(TsjitError, match="invalid syntax") as info:
        m.other(3)
    assert "code/__torch__" in str(info.value)
    assert "^" in str(info.value)       # the line, with a caret under the error


# Strings and comments are blanked before brackets are counted.
_DEEP = "(" * 40 + "1" + ")" * 40


@pytest.mark.parametrize("text", [
    "class M(Module):\n  x : int\n  def f(self) -> int:\n    return " + _DEEP + "\n",
    "class M(Module):\n  x : int\n  def f(self) -> int:\n    return " + "(" * 30 +
    "\n      1" + ")" * 30 + "\n",
    "class M(Module):\n  s : str = \"a(#'[\"\n  def f(self) -> str:\n"
    "    return 'b)]}\"' # a comment ( with \" and '\n",
    "class M(Module):\n  x : int\n  def f(self, a: int,\n\n  # a comment inside brackets\n"
    "        b: int) -> int:  # )\n    return [a,\n      b][0]\n",
    "# a comment\nclass M(Module):\n# another\n  x : int  # a third\n\n  def f(self) -> int:\n"
    "# a comment in a body\n    return 1\n",
    "def f(x: int) -> int:\n  if x:\n    return 1\n  return 2\ndef g() -> int:\n  return 3",
])
def test_brackets_strings_and_comments(text: str) -> None:
    m = outline(text)
    assert m is not None
    assert _dump(_expanded(m)) == _dump(parse(text))


@pytest.mark.parametrize("text", [
    "class M(Module):\n  x : int\n  def f(self) -> int:\n    return " + _DEEP + ")\n",
    "class M(Module):\n  x : int\n  def f(self) -> int:\n    return (" + _DEEP + "\n",
    "class M(Module):\n  x : int\n  def f(self) -> str:\n    return 'a\n",
])
def test_unbalanced_brackets_and_open_strings_are_errors(text: str) -> None:
    with pytest.raises(ParseError):
        parse(text)
    m = outline(text)
    if m is not None:   # the error is inside the function: it shows when it is compiled
        with pytest.raises(ParseError):
            expand(m.body[0].body[-1])


def _spans(m: A.Module) -> list[A.Span]:
    return [s for top in m.body for s in ([top] if isinstance(top, A.Span) else top.body)
            if isinstance(s, A.Span)]


# Pieces that change the layout of a file: brackets, quotes, comments, blank lines,
# indentation of every width, line continuations, statements of other shapes.
_PIECES = ["(", ")", "[", "]", "{", "}", "'", '"', "#", "\\", "\n", "\n ", "\n  ", "\n   ",
           "\n    ", " ", ",", ":", ";", "def g(x):", "class C(Module):", "pass", "x : int",
           "\t", "y = 1", '__annotations__["k"] = A.B', "return x", "@d\n", "k : Final[int] = 1"]


@pytest.mark.slow
@settings(max_examples=400)
@given(st.sampled_from([t for _, t in CODE[:40]]), st.data())
def test_outline_of_mutated_code_is_the_parse_or_its_error(text: str,
                                                           data: st.DataObject) -> None:
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(text)))
        cut = data.draw(st.integers(0, 3))
        text = text[:at] + data.draw(st.sampled_from(_PIECES)) + text[at + cut:]
    m = outline(text)
    if m is None:
        return
    try:
        whole = parse(text)
    except TsjitError:
        # What is broken is inside a span: its error shows when the span is read
        # (a function body when the function compiles).
        errors = 0
        for span in _spans(m):
            try:
                expand(span)
            except ParseError:
                errors += 1
        assert errors
        return
    assert _dump(_expanded(m)) == _dump(whole)
