"""The outline of archive code files: the same AST (ranges included) as the full parser,
function bodies parsed only when compiled, anything irregular left to the full parser."""
from __future__ import annotations

import dataclasses
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest

import tsjit
from tsjit.frontend import ast as A
from hypothesis import given, settings
from hypothesis import strategies as st

from tsjit.frontend.code_outline import (_PLAIN_TYPES, _TYPE3, ClassOutline, DeclRun, DeclSpan,
                                         DefSpan, _fast_outline, _Outliner, _plain_type,
                                         _reserved_free, _Unsupported, materialize, outline)
from tsjit.frontend.parser import parse
from tsjit.ir.diagnostics import ParseError, Source, TsjitError

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


def _materialized(m: A.Module) -> A.Module:
    return A.Module(m.range, tuple(materialize(s) for s in m.body))


CODE = _code_files()


@pytest.mark.parametrize("name,text", CODE, ids=[n for n, _ in CODE])
def test_outline_matches_the_parser_on_corpus_code(name: str, text: str) -> None:
    got = outline(text, name)
    assert got is not None, "PythonPrint's files are regular: the outline should take them"
    assert _dump(_materialized(got)) == _dump(parse(text, name))


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
    assert isinstance(cls.body[-1], DefSpan) and cls.body[-1].name == "forward"
    assert isinstance(helper, DefSpan) and helper.name == "helper"
    assert _dump(_materialized(m)) == _dump(parse(text))


@pytest.mark.parametrize("text", [
    'class M(Module):\n  x : int\n  def f(self) -> str:\n    return """a\n(b"""\n',
    "class M(Module):\n  x : int\n  def f(self) -> int:\n    return 1 + \\\n      2\n",
    "class M(Module):\n\tx : int\n",
    "class M(Module):\n  x : Optional[(int)]\n",
    "class M(Module):\n  x : int = 1 + 2\n",
    "class M(Module):\n  x : str = r'a'\n",
    "class M(Module):\n  class N:\n    pass\n",
    "x = 1\n",
    "class M(Module):\n  def f(self) -> int: return 1\n",
    "class M(Module):\n  x : List[int\n",
    "class M(Module):\n  x : int = 012\n",
    "class M(Module):\n  x : Final[Tuple[int]] =\n",        # a value missing (found by fuzzing)
    "class M(Module):\n  x :\n",
    "class M(Module):\n  __annotations__[\"0\"] =\n",
])
def test_irregular_files_are_left_to_the_parser(text: str) -> None:
    assert outline(text) is None


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


# Logical lines are found by regular-expression passes (strings and comments blanked,
# bracket pairs on one line removed innermost first) and a count of what brackets remain.
_DEEP = "(" * 40 + "1" + ")" * 40


@pytest.mark.parametrize("text", [
    "class M(Module):\n  x : int\n  def f(self) -> int:\n    return " + _DEEP + "\n",
    "class M(Module):\n  x : int\n  def f(self) -> int:\n    return " + "(" * 30 +
    "\n      1" + ")" * 30 + "\n",
    "class M(Module):\n  s : str = \"a(#'[\"\n  def f(self) -> str:\n"
    "    return 'b)]}\"' # a comment ( with \" and '\n",
    "class M(Module):\n  x : int\n  def f(self, a: int,\n\n  # a comment inside brackets\n"
    "        b: int) -> int:  # )\n    return [a,\n b][0]\n",
])
def test_logical_lines_of_nested_and_continued_brackets(text: str) -> None:
    m = outline(text)
    assert m is not None
    assert _dump(_materialized(m)) == _dump(parse(text))


_UNBALANCED = [
    "class M(Module):\n  x : int\n  def f(self) -> int:\n    return " + _DEEP + ")\n",
    "class M(Module):\n  x : int\n  def f(self) -> int:\n    return )(1\n",
    "class M(Module):\n  x : int\n  def f(self) -> int:\n    return (" + _DEEP + "\n",
    "class M(Module):\n  x : int\n  def f(self) -> str:\n    return 'a\n",
]


@pytest.mark.parametrize("text", _UNBALANCED)
def test_unbalanced_brackets_and_open_strings_are_left_to_the_parser(text: str) -> None:
    assert _line_outline(text) is None
    found = outline(text)
    if found is not None:
        # (the layout-only outline takes a def whose brackets balance in number; its
        # body's error shows when it is compiled)
        with pytest.raises(ParseError):
            materialize(found.body[0].body[-1])


def _line_outline(text: str) -> Any:
    """The outline by logical lines (`_Outliner`), which the layout-only outline mirrors."""
    try:
        return _Outliner(Source(text, "<string>")).module()
    except _Unsupported:
        return None


@pytest.mark.parametrize("name,text", CODE, ids=[n for n, _ in CODE])
def test_layout_outline_takes_corpus_code_as_the_line_outline_does(name: str, text: str) -> None:
    fast = _fast_outline(Source(text, name))
    assert fast is not None, "PythonPrint's files are in its own layout"
    assert _dump(fast) == _dump(_line_outline(text))


# Pieces that change the layout of a file: brackets, quotes, comments, blank lines,
# indentation of every width, line continuations, statements of other shapes.
_PIECES = ["(", ")", "[", "]", "{", "}", "'", '"', "#", "\\", "\n", "\n ", "\n  ", "\n   ",
           "\n    ", " ", ",", ":", "def g(x):", "class C(Module):", "pass", "x : int",
           "\t", "y = 1", '__annotations__["k"] = A.B', "return x"]


@settings(max_examples=400)
@given(st.sampled_from([t for _, t in CODE[:40]]), st.data())
def test_layout_outline_agrees_with_the_line_outline_on_mutated_code(
        text: str, data: st.DataObject) -> None:
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(text)))
        cut = data.draw(st.integers(0, 3))
        text = text[:at] + data.draw(st.sampled_from(_PIECES)) + text[at + cut:]
    if '"""' in text or "\'\'\'" in text:
        return
    try:
        fast = _fast_outline(Source(text, "<string>"))
    except _Unsupported:
        fast = None
    if fast is None:
        return
    lines = _line_outline(text)
    if lines is not None:
        assert _dump(fast) == _dump(lines)
    try:
        whole = parse(text)
    except TsjitError:
        # A file that is not valid code may outline by layout (and not by lines): what is
        # broken is inside a function, and shows when the function is compiled.
        return
    assert _dump(_materialized(fast)) == _dump(whole)


def test_declarations_with_named_types_stay_unparsed() -> None:
    text = ("class M(Module):\n  w : Tensor\n  sub : __torch__.a.B\n"
            '  __annotations__["0"] = __torch__.a.B\n  n : None\n  o : Optional[int]\n'
            "  def forward(self: __torch__.M) -> Tensor:\n    return self.w\n")
    m = outline(text)
    assert m is not None
    w, sub, zero, n, o, _ = m.body[0].body
    assert [(d.attr, d.type_text) for d in (w, sub, zero, o)] == \
        [("w", "Tensor"), ("sub", "__torch__.a.B"), ("0", "__torch__.a.B"),
         ("o", "Optional[int]")]
    assert all(isinstance(d, DeclSpan) for d in (w, sub, zero, o))
    assert isinstance(n, A.AnnAssign)      # `None` is a constant: the parser's to take
    assert _dump(o.type_expr()) == _dump(o.parse().annotation)
    assert _dump(sub.type_expr()) == _dump(sub.parse().annotation)
    assert _dump(zero.type_expr()) == _dump(zero.parse().value)
    assert _dump(_materialized(m)) == _dump(parse(text))


def test_declarations_the_parser_takes_in_a_run() -> None:
    # A key of `__annotations__[...]` may be anything; a type of another shape than
    # _DECL's is the declaration parser's, and the run goes on after it.
    text = ("class M(Module):\n  w : Tensor\n  d : Dict[str,int]\n  o : Optional[int]\n"
            '  __annotations__["in"] = __torch__.a.B\n  k : Final[None] = 1\n  x : int\n'
            "  def forward(self: __torch__.M) -> Tensor:\n    return self.w\n")
    fast = _fast_outline(Source(text, "<string>"))
    assert fast is not None
    assert _dump(fast) == _dump(_line_outline(text))
    body = fast.body[0].body
    assert [type(s).__name__ for s in body] == \
        ["DeclSpan", "AnnAssign", "DeclSpan", "DeclSpan", "AnnAssign", "DeclSpan", "DefSpan"]
    assert (body[3].attr, body[3].type_text) == ("in", "__torch__.a.B")
    assert _dump(_materialized(fast)) == _dump(parse(text))


@pytest.mark.parametrize("line", ["n : None", "in : int", "o : Optional[None]",
                                  '__annotations__["k"] = a.True'])
def test_a_declaration_with_a_constant_or_keyword_goes_to_the_line_outline(line: str) -> None:
    # (as it always has: the layout outline would leave an error in a function of such
    # a file for later, the line outline does not)
    text = f"class M(Module):\n  w : Tensor\n  {line}\n  x : int\n"
    with pytest.raises(_Unsupported):
        _fast_outline(Source(text, "<string>"))
    broken = text + "  def f(self) -> str:\n    return 'a\n"
    assert outline(broken) is None
    assert _dump(outline(text)) == _dump(_line_outline(text))     # (None for a keyword)


def test_class_outline_makes_its_body_and_bases_when_read() -> None:
    text = ('class M(Module, Base):\n  __parameters__ = ["w", ]\n  __buffers__ = []\n'
            "  w : Tensor\n  k : Final[int] = -3\n  def f(self) -> int:\n    return 1\n")
    cls = outline(text).body[0]
    assert isinstance(cls, ClassOutline) and isinstance(cls, A.ClassDef)
    assert cls.base_names == ("Module", "Base")
    run, f = cls.entries
    assert isinstance(run, DeclRun) and isinstance(f, DefSpan)
    assert cls.body is cls.body and cls.bases is cls.bases      # made once
    assert [type(s).__name__ for s in cls.body] == \
        ["NamesSpan", "NamesSpan", "DeclSpan", "FinalSpan", "DefSpan"]
    assert cls.body[3].value == -3 and cls.body[0].names == ("w",)
    plain = materialize(cls)
    assert type(plain) is A.ClassDef
    assert _dump(plain) == _dump(parse(text).body[0])


# Type texts of pieces: names (constants and keywords among them), dots, brackets, commas.
_TYPE_TEXT = st.lists(st.sampled_from(["a", "Tensor", "None", "in", "if_", "0", ".", "[", "]",
                                       ", ", " ", "_", "List", "True"]),
                      max_size=12).map("".join)


@settings(max_examples=300)
@given(_TYPE_TEXT)
def test_plain_types_are_the_type_pattern_without_keywords(text: str) -> None:
    plain = re.fullmatch(_TYPE3, text) is not None and _reserved_free(text)
    assert _plain_type(text) == plain


def test_types_known_plain_are() -> None:
    assert all(_plain_type(t) for t in _PLAIN_TYPES)
