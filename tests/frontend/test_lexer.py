"""The parser's lexer (`parser._Lexer`): tokens, Python's layout rules (indentation,
blank lines, continuation lines) and its errors, against Python's own `tokenize` where
the two languages agree."""
from __future__ import annotations

import io
import tokenize

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tsjit.frontend import parser as P
from tsjit.ir.diagnostics import ParseError

_LAYOUT = {"_NEWLINE": "NEWLINE", "_INDENT": "INDENT", "_DEDENT": "DEDENT"}


def ours(text: str) -> list[tuple[str, int]]:
    """(text or layout kind, offset) of each token our lexer gives for a whole file."""
    lexer = P._get_driver().lexer
    out = []
    for tok in lexer.tokens(text, P._LexState(text, 0, False, True)):
        if tok.type in _LAYOUT:
            out.append((_LAYOUT[tok.type], -1))   # (ours sit at the previous token's end)
        else:
            out.append((str(tok), tok.start_pos))
    return out


def pythons(text: str) -> list[tuple[str, int]]:
    """The same from Python's tokenize (comments and blank-line NLs dropped)."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    out = []
    for t in tokenize.generate_tokens(io.StringIO(text).readline):
        if t.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            out.append((tokenize.tok_name[t.type], -1))
        elif t.type not in (tokenize.NL, tokenize.COMMENT, tokenize.ENDMARKER):
            out.append((t.string, starts[t.start[0] - 1] + t.start[1]))
    return out


SAMPLES = {
    "statements": "x = 1\ny = x + 2.5e3\n",
    "blocks": "def f(a: int) -> int:\n    if a > 0:\n        return a\n    return -a\n",
    "blank lines and comments": "x = 1\n\n   # a comment\n\ny = 2  # trailing\n",
    "brackets span lines": "y = f(1,\n      2,\n  3)\nz = [\n    4,\n]\n",
    "backslash continuation": "x = 1 + \\\n    2\n",
    "tabs": "if x:\n\ty = 1\n\tif y:\n\t\tz = 2\n",
    "dedent several levels": "if a:\n  if b:\n    c = 1\nd = 2\n",
    "strings": "s = 'a' \"b\" r'\\d' f'{x}' '''t\nu'''\n",
    "no final newline": "x = 1\nif x:\n    y = 2",
    "operators": "a //= b ** -c @ d; e <<= 1 >> 2; f = a != b <= c\n",
}


@pytest.mark.parametrize("text", SAMPLES.values(), ids=SAMPLES.keys())
def test_tokens_agree_with_python_tokenize(text: str) -> None:
    assert ours(text) == pythons(text)


def test_newline_and_dedent_are_zero_width_at_the_previous_token() -> None:
    text = "if a:\n    b = 1   # c\n\nd = 2\n"
    lexer = P._get_driver().lexer
    toks = list(lexer.tokens(text, P._LexState(text, 0, False, True)))
    after_one = [t for t in toks if t.type in ("_NEWLINE", "_DEDENT")][1:3]
    end_of_one = text.index("1") + 1
    assert [(t.type, t.start_pos, t.end_pos) for t in after_one] == \
        [("_NEWLINE", end_of_one, end_of_one), ("_DEDENT", end_of_one, end_of_one)]


def test_type_comments_are_collected() -> None:
    text = "x = []  # type: List[int]\ny = 1  # type: ignore\n"
    state = P._LexState(text, 10, False, True)
    list(P._get_driver().lexer.tokens(text, state))
    assert state.type_comments == [(10 + text.index("# type"), "List[int]")]


def _error(text: str) -> tuple[str, int, int]:
    with pytest.raises(ParseError) as info:
        P.parse(text)
    r = info.value.range
    return info.value.message, r.lineno(), r.column()


@pytest.mark.parametrize("text, message, line, col", [
    ("x = 1\n  y = 2\n", "unexpected indent", 2, 3),
    ("if x:\n    y = 1\n  z = 2\n", "unindent does not match any outer indentation level", 3, 3),
    ("if x:\n        y = 1\n\tz = 2\n", "inconsistent use of tabs and spaces in indentation", 3, 2),
    ("x = (1,\n     2]\n", "closing parenthesis ']' does not match opening parenthesis '('", 2, 7),
    ("x = 1)\n", "unmatched ')'", 1, 6),
    ("x = [1,\n  2\n", "'[' was never closed", 1, 5),
    ("x = 1\ny = $\n", "invalid character '$'", 2, 5),
    ("x = 'abc\n", "unterminated string literal", 1, 5),
    ("x = 1\nlambda: 1\n", "lambda expressions are not supported in TorchScript", 2, 1),
    ("raise ValueError() from None\n", "'raise ... from ...' is not supported in TorchScript", 1, 20),
])
def test_errors_name_the_line_and_column(text: str, message: str, line: int, col: int) -> None:
    assert _error(text) == (message, line, col)


def test_python_rejects_the_same_layout_errors() -> None:
    for text in ("if x:\n    y = 1\n  z = 2\n", "if x:\n        y = 1\n\tz = 2\n"):
        with pytest.raises((IndentationError, SyntaxError, tokenize.TokenError)):
            compile(text, "<t>", "exec")


# Programs where Python and TorchScript lex alike: statements, nested blocks, blank and
# comment lines, and calls whose arguments run over several lines.
_names = st.sampled_from(["a", "b1", "_c", "torch", "x_y"])
_atoms = st.one_of(_names, st.integers(0, 999).map(str), st.sampled_from(["1.5", "'s'", "None"]))


@st.composite
def _expr(draw: st.DrawFn) -> str:
    parts = draw(st.lists(_atoms, min_size=1, max_size=3))
    ops = draw(st.lists(st.sampled_from([" + ", "*", " == ", " // "]), min_size=len(parts) - 1,
                        max_size=len(parts) - 1))
    out = parts[0] + "".join(o + p for o, p in zip(ops, parts[1:]))
    if draw(st.booleans()):
        sep = draw(st.sampled_from([", ", ",\n        ", " ,\n\n  "]))
        out = f"f({out}{sep}{draw(_atoms)})"
    return out


@st.composite
def _block(draw: st.DrawFn, depth: int = 0) -> list[str]:
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["assign", "blank", "comment", "if"] if depth < 3
                                    else ["assign", "blank"]))
        if kind == "assign":
            lines.append(f"{draw(_names)} = {draw(_expr())}")
        elif kind == "blank":
            lines.append(draw(st.sampled_from(["", "   ", "# note", "      # deeper note"])))
        elif kind == "comment":
            lines.append(f"{draw(_names)} = 1  # type: int")
        else:
            indent = draw(st.sampled_from(["  ", "    ", "\t"]))
            lines.append(f"if {draw(_expr())}:")
            lines += [indent + ln if ln.strip() else ln for ln in draw(_block(depth + 1))]
            if not any(ln.strip() and not ln.lstrip().startswith("#") for ln in lines[-1:]):
                lines.append(indent + "pass")
    if not any(ln.strip() and not ln.lstrip().startswith("#") for ln in lines):
        lines.append("pass")
    return lines


@settings(max_examples=150, deadline=None)
@given(_block(), st.booleans())
def test_random_programs_lex_as_python_lexes_them(lines: list[str], final_newline: bool) -> None:
    text = "\n".join(lines) + ("\n" if final_newline else "")
    assert ours(text) == pythons(text)
