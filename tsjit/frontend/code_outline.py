"""Outline of an archive `code/` file: declarations read now, function bodies on demand.

Loading an archive needs its classes' attributes, not their methods' code, and parsing
method bodies with tsjit's (pure Python) parser would make load time grow with the
amount of code. PythonPrint's files are regular: classes and functions at the top level,
bodies indented by two spaces; in class bodies, one-line declarations (`w : Tensor`,
`c : Final[int] = 3`, `__parameters__ = ["w", ]`, `__annotations__["0"] = T`) and
`def`s. The outline reads only the lines indented by at most two spaces (function code
is deeper, or under a top-level `def`) and leaves every statement it does not read as a
span (`ast.DefSpan`, `ast.DeclSpan`); `parser.expand` parses a span to the AST, ranges
included, that parsing the whole file gives. A DeclSpan carries what loading reads of
its line (see its kinds in ast.py); a line of another kind is one for the parser.

The lines found are the file's logical lines when nothing continues a line onto a
shallow one: the outline works on a skeleton of the text (strings and comments
blanked, offsets kept) and takes only files with no backslash, `;` or unterminated
string in it, and brackets balanced within each declaration and each function. Any
other shape (triple-quoted strings, tabs, decorators, nested classes, top-level
statements other than `class` and `def`, a declaration continued over lines...) gives
None: the caller parses the whole file, so behaviour and errors stay the parser's. In a
file the outline takes, an error inside a function shows when that function is
compiled, as it does for any function body.
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

# Files the outline leaves to the parser at once: strings over several lines, tabs,
# form feeds, carriage returns.
_IRREGULAR = re.compile("\"\"\"|'''|[\t\f\r]")
# One-line strings and comments, as the tokenizer finds them left to right.
_STRINGS_COMMENTS = re.compile(r"#[^\n]*|'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"")
# A non-blank line of the skeleton indented by at most two spaces (indentation in group
# 1), from the newline before it; one at indentation 0.
_SHALLOW = re.compile(r"\n( {0,2})(?=\S)")
_TOP = re.compile(r"\n()(?=\S)")
_FIRST = re.compile(r"( {0,2})(?=\S)")
_CLASS = re.compile(r"class (" + _NAME + r")(?:\(((?:" + _NAME + r"(?:, " + _NAME +
                    r")*)?)\))?:")
_DEF = re.compile(r"def +(" + _NAME + r") *\(")
# A declaration line (from its first character to its last) of the kinds loading reads:
# an attribute's type (groups 1 to 3: the key's quote if the line is
# `__annotations__[key] = T`, the attribute, T's text), a list of names (4, 5), a Final
# constant (6, 7). Type texts are checked when they are resolved (source_importer).
_LITERAL = (r"""-?(?:[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?|[0-9]+[eE][-+]?[0-9]+|0|[1-9][0-9]*)"""
            r"""|True|False|None""")
_DECL = re.compile(
    r"""(?:__annotations__\[(["'])((?:(?!\1)[^\\\n])*)\1\] = |(""" + _NAME + r") : )"
    r"([A-Za-z_][A-Za-z_0-9.\[\], ]*)"
    r"""|(__parameters__|__buffers__|__annotations__) = \[((?:"[^"\\\n]*", )*)\]"""
    r"|(" + _NAME + r") : Final\[[A-Za-z_0-9.\[\](), ]*\] = ("
    r"""(?:""" + _LITERAL + r""")|"[^"\\\n]*"|'[^'\\\n]*'"""
    r"|\((?:(?:" + _LITERAL + r"), )*(?:(?:" + _LITERAL + r"),?)?\))")


def outline(text: str, filename: str = "<string>") -> Optional[A.Module]:
    """The file's AST with its statements left as spans where loading can take them
    unparsed; None if the file has another shape (see the module's doc)."""
    if _IRREGULAR.search(text):
        return None
    skeleton = text
    if "'" in text or '"' in text or "#" in text:
        skeleton = _STRINGS_COMMENTS.sub(_blank, text)
    if any(c in skeleton for c in "\\;'\""):
        return None     # a continued line, `a; b`, or a string left open
    src = Source(text, filename)
    body: list[A.Stmt] = []
    line = _FIRST.match(skeleton) or _SHALLOW.search(skeleton)
    if line is None or skeleton[:line.start(1)].strip():
        return None     # no code, or an indented first line
    while line is not None:
        code = line.end()
        if code - line.start(1) != 0:
            return None
        if text.startswith("def ", code):
            after = _TOP.search(skeleton, code)
            stmt = _def_span(src, skeleton, code, after.start() if after else len(text))
        elif text.startswith("class ", code):
            stmt, after = _class(src, skeleton, code)
        else:
            return None
        if stmt is None:
            return None
        body.append(stmt)
        line = after
    if not body:
        return None
    return A.Module(SourceRange(src, 0, len(text)), tuple(body))


def _blank(m: re.Match) -> str:
    """A string or comment in the skeleton: as long, and neither brackets nor spaces for a
    string (it is code), spaces for a comment (it is not)."""
    s = m.group()
    return " " * len(s) if s[0] == "#" else "s" * len(s)


def _balanced(skeleton: str, start: int, end: int) -> bool:
    """Whether skeleton[start:end] closes as many brackets of each kind as it opens."""
    code = skeleton[start:end]      # (a copy: `in` and count() unbounded are memchr fast)
    return (code.count("(") == code.count(")") and
            (("[" not in code and "]" not in code) or code.count("[") == code.count("]")) and
            (("{" not in code and "}" not in code) or code.count("{") == code.count("}")))


def _line_end(skeleton: str, start: int, stop: int) -> int:
    """The end of the code in skeleton[start:stop] (blank lines and comments after it
    left out)."""
    while stop > start and skeleton[stop - 1] in " \n":
        stop -= 1
    return stop


def _def_span(src: Source, skeleton: str, code: int, stop: int) -> Optional[A.DefSpan]:
    """The span of the def at `code`, whose body ends before offset `stop`."""
    m = _DEF.match(src.text, code)
    end = _line_end(skeleton, code, stop)
    if m is None or m.group(1) in _RESERVED or not _balanced(skeleton, code, end):
        return None
    return A.DefSpan(SourceRange(src, code, end), m.group(1))


def _class(src: Source, skeleton: str, code: int) -> tuple[Optional[A.ClassDef],
                                                           Optional[re.Match]]:
    """The class whose header is at `code`, and the next line at the top level."""
    text = src.text
    eol = skeleton.find("\n", code)
    if eol < 0:
        return None, None
    m = _CLASS.fullmatch(text, code, _line_end(skeleton, code, eol))
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
    line = _SHALLOW.search(skeleton, eol)
    if line is not None and skeleton[eol:line.start()].strip():
        return None, None   # lines deeper than the body's first
    while line is not None and line.end() - line.start(1) == 2:
        at = line.end()
        after = _SHALLOW.search(skeleton, at)
        stop = after.start() if after else len(text)
        if text.startswith("def ", at):
            stmt = _def_span(src, skeleton, at, stop)
        else:
            stmt = _declaration(src, skeleton, at, stop)
        if stmt is None:
            return None, None
        stmts.append(stmt)
        line = after
    if not stmts or (line is not None and line.end() != line.start(1)):
        return None, None   # no body, or a line indented by one space
    return A.ClassDef(SourceRange(src, code, stmts[-1].range.end), m.group(1), tuple(bases),
                      tuple(stmts)), line


def _declaration(src: Source, skeleton: str, code: int, stop: int) -> Optional[A.Stmt]:
    """The one-line statement at `code` of a class body (nothing but blank lines between
    it and offset `stop`) as a DeclSpan, or a Pass."""
    end = _line_end(skeleton, code, stop)
    if "\n" in skeleton[code:end] or not _balanced(skeleton, code, end):
        return None
    text = src.text
    rng = SourceRange(src, code, end)
    if end - code == 4 and text.startswith("pass", code):
        return A.Pass(rng)
    if text.startswith("class ", code):
        return None     # nested classes: the parser's
    m = _DECL.fullmatch(text, code, end)
    if m is None:
        return A.DeclSpan(rng, "stmt", "", None)
    quote, key, attr, type_text, names_of, listed, final, literal = m.groups()
    if type_text is not None:
        if (quote is None and attr in _RESERVED) or type_text.startswith("Final["):
            return A.DeclSpan(rng, "stmt", "", None)    # the parser's error, or a Final
        return A.DeclSpan(rng, "attr", attr if quote is None else key, type_text)
    if names_of is not None:
        return A.DeclSpan(rng, "names", names_of,
                          tuple(listed[1:-3].split('", "')) if listed else ())
    if final in _RESERVED:
        return A.DeclSpan(rng, "stmt", "", None)
    return A.DeclSpan(rng, "final", final, _literal(literal))


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
