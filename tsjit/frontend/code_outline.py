"""Outline of an archive `code/` file: declarations read now, function bodies on demand.

Loading an archive needs its classes' attributes, not their methods' code, and parsing
method bodies with tsjit's (pure Python) parser would make load time grow with the
amount of code. PythonPrint's files are regular: classes and functions at the top level,
bodies indented by two spaces; in class bodies, one-line declarations (`w : Tensor`,
`c : Final[int] = 3`, `__parameters__ = ["w", ]`, `__annotations__["0"] = T`) and
`def`s. The outline reads only the lines indented by at most two spaces (function code
is deeper, or under a top-level `def`), found by regular expressions with no Python step
per line of function code, and leaves every statement as a span (`ast.DefSpan`,
`ast.DeclSpan`); `parser.expand` parses a span to the AST, ranges included, that parsing
the whole file gives. A DeclSpan carries what loading reads of its line (its kinds are
listed in ast.py); lines of other kinds are the parser's.

Those lines are the file's logical lines when no line continues onto one of them: the
brackets of each function and each declaration balance, and no backslash ends a line.
That is checked on the text as it is; only where it fails (brackets in strings or
comments, an escape before a newline) on the text with strings and comments blanked,
which takes a regular expression over every character. Any other shape (triple-quoted
strings, tabs, decorators, nested classes, top-level statements other than `class` and
`def`, a declaration continued over lines...) gives None: the caller parses the whole
file, so behaviour and errors stay the parser's. In a file the outline takes, an error
inside a function shows when that function is compiled, as it does for any function.
"""
from __future__ import annotations

import re
from typing import Optional

from ..ir.diagnostics import Source, SourceRange
from . import ast as A

_NAME = r"[A-Za-z_][A-Za-z_0-9]*"
_RESERVED = frozenset(
    ["and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
     "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in",
     "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
     "with", "yield", "None", "True", "False"])
_CONSTANTS = {"None": None, "True": True, "False": False}

# One-line strings and comments, as the tokenizer finds them left to right.
_STRINGS_COMMENTS = re.compile(r"#[^\n]*|'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"")
# A line of code (not blank, not a comment), from the newline before it: indented by at
# most two spaces (the indentation in group 1); by none; the first, at any indentation.
_SHALLOW = re.compile(r"\n( {0,2})(?=[^\s#])")
_TOP = re.compile(r"\n()(?=[^\s#])")
_FIRST = re.compile(r"(?:\A|\n)( *)(?=[^\s#])")
_CLASS = re.compile(r"class (" + _NAME + r")(?:\(((?:" + _NAME + r"(?:, " + _NAME +
                    r")*)?)\))?:")
_DEF = re.compile(r"def +(" + _NAME + r") *\(")
# A declaration line (from its first character to its last) of the kinds loading reads:
# an attribute's type (groups 1 to 4: the quote and the key if the line is
# `__annotations__[key] = T`, else the attribute; T's text), a list of names (5, 6), a
# Final constant (7 to 9: its name, type and value). Type texts are checked when they
# are resolved (source_importer).
_LITERAL = (r"""-?(?:[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?|[0-9]+[eE][-+]?[0-9]+|0|[1-9][0-9]*)"""
            r"""|True|False|None""")
_DECL = re.compile(
    r"""(?:__annotations__\[(["'])((?:(?!\1)[^\\\n])*)\1\] = |(""" + _NAME + r") : )"
    r"([A-Za-z_][A-Za-z_0-9.\[\], ]*)"
    r"""|(__parameters__|__buffers__|__annotations__) = \[((?:"[^"\\\n]*", )*)\]"""
    r"|(" + _NAME + r") : Final\[([A-Za-z_0-9.\[\](), ]*)\] = ("
    r"""(?:""" + _LITERAL + r""")|"[^"\\\n]*"|'[^'\\\n]*'"""
    r"|\((?:(?:" + _LITERAL + r"), )*(?:(?:" + _LITERAL + r"),?)?\))")


def outline(text: str, filename: str = "<string>") -> Optional[A.Module]:
    """The file's AST with its statements left as spans where loading can take them
    unparsed; None if the file has another shape (see the module's doc)."""
    # (`in` is memchr fast; a regex of these alternatives is ten times slower)
    if '"""' in text or "'''" in text or "\t" in text or "\f" in text or "\r" in text:
        return None     # strings over several lines, tabs, form feeds, carriage returns
    src = Source(text, filename)
    body: list[A.Stmt] = []
    line = _FIRST.search(text)
    while line is not None:
        code = line.end()
        if code != line.start(1):
            return None     # an indented line at the top level
        if text.startswith("def ", code):
            after = _TOP.search(text, code)
            stmt = _def_span(src, code, after.start() if after else len(text))
        elif text.startswith("class ", code):
            stmt, after = _class(src, code)
        else:
            return None
        if stmt is None:
            return None
        body.append(stmt)
        line = after
    if not body:
        return None
    return A.Module(SourceRange(src, 0, len(text)), tuple(body))


def _def_span(src: Source, code: int, stop: int) -> Optional[A.DefSpan]:
    """The span of the def at `code`, whose body ends before offset `stop`."""
    text = src.text
    m = _DEF.match(text, code)
    if m is None or m.group(1) in _RESERVED:
        return None
    end = _code_end(text, code, stop)
    if _code(text[code:end]) is None:
        return None
    return A.DefSpan(SourceRange(src, code, end), m.group(1))


def _class(src: Source, code: int) -> tuple[Optional[A.ClassDef], Optional[re.Match]]:
    """The class whose header is at `code`, and the next line at the top level."""
    text = src.text
    eol = text.find("\n", code)
    line = _FIRST.search(text, eol) if eol >= 0 else None
    if line is None or line.end() - line.start(1) != 2:
        return None, None   # no body, or one not indented by two
    m = _CLASS.fullmatch(text, code, _code_end(text, code, eol))
    if m is None or m.group(1) in _RESERVED:
        return None, None
    bases: list[A.Expr] = []
    if m.group(2):
        at = m.start(2)
        for name in m.group(2).split(", "):
            if name in _RESERVED:
                return None, None
            bases.append(A.Name(SourceRange(src, at, at + len(name)), name))
            at += len(name) + 2
    stmts: list[A.Stmt] = []
    while line is not None and line.end() - line.start(1) == 2:
        at = line.end()
        after = _SHALLOW.search(text, at)
        stop = after.start() if after else len(text)
        if text.startswith("def ", at):
            stmt = _def_span(src, at, stop)
        else:
            stmt = _declaration(src, at, stop)
        if stmt is None:
            return None, None
        stmts.append(stmt)
        line = after
    if line is not None and line.end() != line.start(1):
        return None, None   # a line indented by one space
    return A.ClassDef(SourceRange(src, code, stmts[-1].range.end), m.group(1), tuple(bases),
                      tuple(stmts)), line


def _declaration(src: Source, code: int, stop: int) -> Optional[A.Stmt]:
    """The one-line statement at `code` of a class body (nothing but blank lines and
    comments between it and offset `stop`) as a DeclSpan, or a Pass."""
    text = src.text
    end = _code_end(text, code, stop)
    m = _DECL.fullmatch(text, code, end)
    if m is not None:   # (one line, with strings only where _DECL takes them)
        quote, key, attr, type_text, names_of, listed, final, final_type, literal = m.groups()
        rng = SourceRange(src, code, end)
        if names_of is not None:
            return A.DeclSpan(rng, "names", names_of,
                              tuple(listed[1:-3].split('", "')) if listed else ())
        if type_text is not None:
            if ((quote is not None or attr not in _RESERVED) and _balanced(type_text)
                    and not type_text.startswith("Final[")):
                return A.DeclSpan(rng, "attr", attr if quote is None else key, type_text)
        elif final not in _RESERVED and _balanced(final_type):
            return A.DeclSpan(rng, "final", final, _literal(literal))
    line = _code(text[code:end], blank=True)    # another statement: the parser's
    if line is None or "\n" in line or ";" in line:
        return None     # not one line, or more than one statement
    if line == "pass":
        return A.Pass(SourceRange(src, code, end))
    if line.startswith(("class ", "@")):
        return None     # nested classes and decorators: the parser's
    return A.DeclSpan(SourceRange(src, code, end), "stmt", "", None)


def _code(lines: str, blank: bool = False) -> Optional[str]:
    """Whole lines of code, with their strings and comments blanked if `blank` or if need
    be to see that their brackets balance and that no backslash continues a line; None if
    they do not, or if a string is left open."""
    if not blank and _balanced(lines) and "\\\n" not in lines:
        return lines
    code = _STRINGS_COMMENTS.sub(_blank, lines)
    if "\\" in code or "'" in code or '"' in code or not _balanced(code):
        return None
    return code


def _blank(m: re.Match) -> str:
    """A string or comment blanked: as long, and neither brackets nor spaces for a string
    (it is code), spaces for a comment (it is not)."""
    s = m.group()
    return " " * len(s) if s[0] == "#" else "s" * len(s)


def _balanced(code: str) -> bool:
    """Whether `code` closes as many brackets of each kind as it opens."""
    # (`in` and count() over a whole string are memchr fast)
    return (code.count("(") == code.count(")") and
            (("[" not in code and "]" not in code) or code.count("[") == code.count("]")) and
            (("{" not in code and "}" not in code) or code.count("{") == code.count("}")))


def _code_end(text: str, start: int, stop: int) -> int:
    """The end of the code in text[start:stop] (whole lines), blank lines and comments
    after it left out."""
    while True:
        while stop > start and text[stop - 1] in " \n":
            stop -= 1
        line = max(text.rfind("\n", start, stop) + 1, start)
        if text.find("#", line, stop) < 0:
            return stop
        code = _STRINGS_COMMENTS.sub(_blank, text[line:stop]).rstrip()
        if code and not code.isspace():
            return line + len(code)
        stop = line


def _literal(text: str) -> object:
    """The value of a literal _DECL takes (a number, True, False, None, a plain string or
    a tuple of numbers)."""
    if text[0] in "'\"":
        return text[1:-1]
    if text[0] == "(":
        items = [t.rstrip(",") for t in text[1:-1].split(", ")]
        return tuple(_literal(t) for t in items if t)
    if text in _CONSTANTS:
        return _CONSTANTS[text]
    if "." in text or "e" in text or "E" in text:
        return float(text)
    return int(text)
