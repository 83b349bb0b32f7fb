"""Outline of an archive `code/` file: declarations parsed now, function bodies on demand.

Loading an archive needs its classes' attributes, not their methods' code, and parsing
method bodies with tsjit's (pure Python) parser would make load time grow with the
amount of code. PythonPrint's files are regular: classes and functions at the top
level; in class bodies, one-line declarations (`name : Type`, `c : Final[int] = 3`,
`__parameters__ = ["w", ]`, `__annotations__["0"] = Type`) and `def`s. Each `def` stays
a `DefSpan`, parsed by tsjit's parser when the function is first compiled; a declaration
of an attribute's type (`w : Tensor`, `__annotations__["0"] = __torch__.a.B`,
`h : Optional[bool]`, most of them) stays a `DeclSpan`, its type's text being all
loading needs as a rule (`materialize` parses both kinds of span); other declarations
are parsed with a small parser for just that subset, giving the AST — ranges included —
tsjit's parser gives.

Two outliners find the lines. The layout outline (`_fast_outline`, loading's usual
path) reads only the lines indented by at most two spaces, found by one regex: in
PythonPrint's layout those are the top level and the class bodies, and function code is
deeper. It takes files with no tab, backslash or comment outside strings, and brackets
balanced within each declaration and each function. Anything else goes to the line
outline (`_Outliner`), which splits the whole file into logical lines (brackets, strings
and comments respected). Both give the same AST for a valid file; for an invalid one the
layout outline may leave the error inside a function, where it shows when that function
is compiled (as an error in any function body does).

Classes are `ClassOutline`s, ClassDefs whose body and bases are made when first read.
The layout outline takes a class body's lines of the usual kinds in a row with one
findall, as a `DeclRun` (its rows the groups the regex found); loading reads the runs
(`entries`) and the bases' names, and the spans of those lines are made only if the
body itself is read (`materialize`, which gives the parser's ClassDef).

Files of any other shape (triple-quoted strings, continuations, tabs, nested classes,
expressions beyond names, subscripts and literals...) give None: the caller parses the
whole file with the full parser, so behaviour and errors stay `parse`'s.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Optional

from ..ir.diagnostics import Source, SourceRange
from . import ast as A
from .parser import parse_def_at

# Tokens of declarations: names, numbers, simple strings, punctuation.
_TOKEN = re.compile(r"""( *)(?:([A-Za-z_][A-Za-z_0-9]*)|([0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)"""
                    r"""|('[^'\\\n]*'|"[^"\\\n]*")|([][(),.:=+-]))""")
_CONSTANTS = {"None": None, "True": True, "False": False}
_KEYWORDS = {"and", "as", "assert", "async", "await", "break", "class", "continue", "def",
             "del", "elif", "else", "except", "finally", "for", "from", "global", "if",
             "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise",
             "return", "try", "while", "with", "yield"}
_RESERVED = frozenset(_KEYWORDS) | frozenset(_CONSTANTS)
_DEF = re.compile(r"def +([A-Za-z_][A-Za-z_0-9]*) *\(")
_CLASS = re.compile(r"class +([A-Za-z_][A-Za-z_0-9]*) *")


@dataclass(eq=False, slots=True)
class DefSpan(A.Stmt):
    """A function definition not parsed yet: `def` at `range.start`, its line (with the
    indentation) starting at `line_start`."""

    name: str
    line_start: int

    def parse(self) -> A.Def:
        """The definition, parsed by tsjit's parser (ranges point into the whole file)."""
        return parse_def_at(self.range.source, self.line_start, self.range.end)


@dataclass(eq=False, slots=True)
class _LineSpan(A.Stmt):
    """A one-line class-body declaration not parsed yet (loading takes what it needs from
    the fields), parsed by the declaration parser when the statement itself is needed."""

    def parse(self) -> A.Stmt:
        """The statement, as the declaration parser gives it."""
        return _Parser(self.range.source, self.range.start, self.range.end).statement()


@dataclass(eq=False, slots=True)
class DeclSpan(_LineSpan):
    """A declaration of an attribute's type: `attr : T` or `__annotations__["attr"] = T`,
    T a dotted name or a subscript of such (`Optional[bool]`). Loading needs only the
    attribute's name and the type's text (types are found by their text, and PythonPrint
    repeats them); the type is parsed if its text is new to the archive."""

    attr: str
    type_text: str

    def type_expr(self) -> A.Expr:
        """The type's expression (with its range in the file), which ends the line."""
        end = self.range.end
        return _Parser(self.range.source, end - len(self.type_text), end).expr()


@dataclass(eq=False, slots=True)
class NamesSpan(_LineSpan):
    """`__parameters__ = ["w", "b", ]` or `__buffers__ = [...]`, of plain strings."""

    target: str
    names: tuple[str, ...]


@dataclass(eq=False, slots=True)
class FinalSpan(_LineSpan):
    """`name : Final[T] = v`, v a number, a bool, None or a plain string."""

    name: str
    value: object


_SPANS = (DefSpan, _LineSpan)


class DeclRun:
    """Lines in a row of a class body, each a one-line declaration the layout outline
    takes whole (a DeclSpan, NamesSpan or FinalSpan), kept as the regex found them until
    the spans are asked for: loading reads `rows`, one a line, with no object a line.
    A row is (line, quote, attr, type_text, names_of, listed, final, final_type,
    literal), the groups of _BODY_ROW, "" for those not in the line's kind: a line
    declaring an attribute's type has `attr` and `type_text` (as DeclSpan's; `quote` is
    that of the key if the line is `__annotations__[key] = T`), `__parameters__ = [...]`
    or `__buffers__ = [...]` has `names_of` and `listed` (see listed_names), a Final
    constant has `final`, its type and `literal` (see final_value). The lines run from
    `start` (the newline before the first) to `end` (the end of the last)."""

    __slots__ = ("src", "start", "end", "rows")

    def __init__(self, src: Source, start: int, end: int, rows: list[tuple]) -> None:
        self.src = src
        self.start = start
        self.end = end
        self.rows = rows

    def spans(self) -> list[_LineSpan]:
        """The lines' spans, as _declaration gives them."""
        out: list[_LineSpan] = []
        src = self.src
        start = self.start + 3      # ("\n  ")
        for row in self.rows:
            line, _, attr, type_text, names_of, listed, final, _, literal = row
            end = start + len(line)
            rng = SourceRange(src, start, end)
            if type_text:
                out.append(DeclSpan(rng, attr, type_text))
            elif names_of:
                out.append(NamesSpan(rng, names_of, listed_names(listed)))
            else:
                out.append(FinalSpan(rng, final, final_value(literal)))
            start = end + 3
        return out

    def span(self, row: tuple) -> _LineSpan:
        """The span of one of `rows`."""
        # (rows equal in value are equal lines, whose spans differ only in range: loading
        # asks for a span the first time it meets a type, that is for the first such row)
        return self.spans()[self.rows.index(row)]


class ClassOutline(A.ClassDef):
    """A ClassDef of an outline: loading reads `entries`, the body's statements with its
    runs of one-line declarations as DeclRuns, and `base_names`, the bases' names (the
    last of a dotted one's). `body` and `bases` are made of those when first read (then
    kept), so that loading makes no span of most lines and no node of the bases."""

    # (`body` and `bases` are properties here: ClassDef's slots for them stay empty)
    __slots__ = ("entries", "base_names", "_body", "_bases", "_bases_at")

    def __init__(self, range: SourceRange, name: str, bases: Optional[tuple[A.Expr, ...]],
                 entries: tuple, base_names: tuple[str, ...], bases_at: int = 0) -> None:
        """`bases` None: Names of `base_names`, from offset `bases_at` (", " between)."""
        self.range = range
        self.name = name
        self.decorators = ()
        self.entries = entries
        self.base_names = base_names
        self._body = None
        self._bases = bases
        self._bases_at = bases_at

    @property
    def body(self) -> tuple[A.Stmt, ...]:     # type: ignore[override]
        """The body's statements, spans made of the DeclRuns."""
        body = self._body
        if body is None:
            stmts: list[A.Stmt] = []
            for entry in self.entries:
                if type(entry) is DeclRun:
                    stmts.extend(entry.spans())
                else:
                    stmts.append(entry)
            body = self._body = tuple(stmts)
        return body

    @property
    def bases(self) -> tuple[A.Expr, ...]:    # type: ignore[override]
        """The bases' expressions."""
        bases = self._bases
        if bases is None:
            out = []
            src, at = self.range.source, self._bases_at
            for base in self.base_names:
                out.append(A.Name(SourceRange(src, at, at + len(base)), base))
                at += len(base) + 2
            bases = self._bases = tuple(out)
        return bases


def materialize(stmt: A.Stmt) -> A.Stmt:
    """`stmt` with every span (DefSpan, DeclSpan...) in it (or in its class body) parsed;
    a ClassOutline made a ClassDef, as the parser gives it."""
    if isinstance(stmt, _SPANS):
        return stmt.parse()
    if isinstance(stmt, A.ClassDef) and (type(stmt) is ClassOutline or
                                         any(isinstance(s, _SPANS) for s in stmt.body)):
        return A.ClassDef(stmt.range, stmt.name, stmt.bases,
                          tuple(materialize(s) for s in stmt.body), stmt.decorators)
    return stmt


class _Unsupported(Exception):
    """The file is not of the shape outline() handles; the caller parses it whole."""


@dataclass
class _Line:
    start: int      # offset of the line's first character (its indentation)
    code: int       # offset of its first non-blank character
    end: int        # offset just past its last token
    indent: int


def outline(text: str, filename: str = "<string>",
            checked: Optional[dict[str, bool]] = None) -> Optional[A.Module]:
    """The file's AST with function bodies left as DefSpans; None if it has another shape.
    `checked` (type texts -> _plain_type) may be shared by the files of one archive."""
    # ("'" first: a one-character search is memchr, far cheaper than a three-character one)
    if '"""' in text or ("'" in text and "'''" in text):
        return None     # strings may span lines: logical lines need the full lexer
    src = Source(text, filename)
    try:
        found = _fast_outline(src, {} if checked is None else checked)
    except _Unsupported:
        found = None
    if found is not None:
        return found
    try:
        return _Outliner(src).module()
    except _Unsupported:
        return None


def _fast_outline(src: Source, checked: Optional[dict[str, bool]] = None) -> Optional[A.Module]:
    """The outline of a file in PythonPrint's own layout, or None for `_Outliner` to try.

    Loading reads only the top level and class bodies: lines indented by at most two
    spaces (PythonPrint indents by two; function bodies and continued signatures are
    deeper). One regex finds those lines, with no Python step per line of function code
    (which `_logical_lines` takes). They are the logical lines that matter when nothing
    continues a line onto them: no backslash or comment outside strings, and brackets
    balanced within each function (counted in the raw text, so a bracket in a string
    unbalances the count and sends the file to `_Outliner`) and within each declaration
    (which the declaration parsers take only whole)."""
    text = src.text
    if "\t" in text or "\f" in text or "\r" in text:
        return None     # (three scans at memchr speed cost less than one regex search)
    if "\\" in text or "#" in text:
        code_only = _ONE_LINE_STRING.sub("", text)
        if "\\" in code_only or "#" in code_only:
            return None     # a continued line, or a comment (PythonPrint writes none)
    body: list[A.Stmt] = []
    klass: Optional[tuple] = None       # (header match, its body's statements)
    fn: Optional[tuple] = None          # the open def (see _open_def)
    gap_from = 0                        # end of the last shallow line that opens no body
    if checked is None:
        checked = {}                    # type texts of declarations -> _plain_type
    # One match a shallow line (not finditer), from the end of the last: the lines of a
    # run of declarations are taken by the run, and are not matched twice.
    m = _FIRST_LINE.match(text) or _SHALLOW_LINE.search(text)
    while m is not None:
        line_start, code = m.span(1)
        end = m.end()
        indent = code - line_start
        if indent & 1:
            return None                 # one or three spaces: not PythonPrint's layout
        resume = end
        while text[end - 1] == " ":
            end -= 1
        if fn is not None:
            if indent > fn[3]:
                m = _NEXT_SHALLOW.match(text, resume)
                continue                # in the body of a top-level function
            fn = _close_def(src, fn, line_start)
        elif line_start > gap_from and not text[gap_from:line_start].isspace():
            return None                 # deeper lines under a line that opens no body
        gap_from = end
        if indent == 0:
            if klass is not None:
                body.append(_class_def(src, *klass))
                klass = None
            # (_SHALLOW_LINE tells a def and a class header of PythonPrint's shape; any
            # other line, a header of another shape among them, is not taken)
            if m.group(4) is not None:
                fn = _open_def(src, m, end, 0, body)
            elif m.group(2) is not None:
                klass = (m, [])
                # (the body's first lines are declarations as a rule: the run is taken
                # now, as the loop would take it from the next line)
                run = _declaration_run(src, resume, checked)
                if run is not None:
                    klass[1].append(run)
                    gap_from = resume = run.end
            else:
                return None
        elif klass is None:
            return None
        elif m.group(4) is not None:
            fn = _open_def(src, m, end, 2, klass[1])
        elif end - code == 4 and text[code:end] == "pass":
            klass[1].append(A.Pass(SourceRange(src, code, end)))
        elif text.startswith("def ", code):
            raise _Unsupported()        # a def of another shape
        else:
            run = _declaration_run(src, line_start - 1, checked)
            if run is not None:
                klass[1].append(run)
                gap_from = resume = run.end
            else:
                # (either parse takes only a whole, bracket-balanced statement)
                klass[1].append(_declaration(src, code, end) or
                                _Parser(src, code, end).statement())
        m = _NEXT_SHALLOW.match(text, resume)
    if fn is not None:
        _close_def(src, fn, len(text))
    elif gap_from < len(text) and not text[gap_from:].isspace():
        return None
    if klass is not None:
        body.append(_class_def(src, *klass))
    if not body:
        return None
    return A.Module(SourceRange(src, 0, len(text)), tuple(body))


def _balanced(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] has as many closing brackets of each kind as opening."""
    # (on a copy: `in` is memchr, and str.count given bounds parses them slowly)
    code = text[start:end]
    return (code.count("(") == code.count(")") and
            (("[" not in code and "]" not in code) or code.count("[") == code.count("]")) and
            (("{" not in code and "}" not in code) or code.count("{") == code.count("}")))


def _open_def(src: Source, line: re.Match, end: int, indent: int, into: list) -> tuple:
    """An open def, its header line (as _SHALLOW_LINE matched it) ending at `end`: (name,
    code, line start, indent, the statement list it goes to, end of the header line)."""
    name = line.group(4)
    if name is None or src.text[end - 1] not in ":,":
        raise _Unsupported()    # e.g. a one-line `def f(): return 1`
    code = line.end(1)
    return (name, code, code - indent, indent, into, end)


def _close_def(src: Source, fn: tuple, stop: int) -> None:
    """Append the open def's DefSpan, the def ending before offset `stop`."""
    name, code, line_start, _, into, header_end = fn
    text = src.text
    while text[stop - 1] in " \n":
        stop -= 1
    if stop <= header_end or not _balanced(text, code, stop):
        raise _Unsupported()    # a def without a body, or brackets left open
    into.append(DefSpan(SourceRange(src, code, stop), name, line_start))
    return None


def _class_def(src: Source, header: re.Match, stmts: list) -> ClassOutline:
    """The ClassDef of a header (`class N(B1, B2):`, as _SHALLOW_LINE matched it) and its
    body's statements (and DeclRuns)."""
    if not stmts:
        raise _Unsupported()
    name, listed = header.group(2, 3)
    # (_SHALLOW_LINE takes names separated by ", " exactly)
    names = tuple(listed.split(", ")) if listed else ()
    if name in _RESERVED or not _RESERVED.isdisjoint(names):
        raise _Unsupported()
    last = stmts[-1]
    end = last.end if type(last) is DeclRun else last.range.end
    return ClassOutline(SourceRange(src, header.end(1), end), name, None, tuple(stmts),
                        names, header.start(3))


def _declaration(src: Source, code: int, end: int) -> Optional[_LineSpan]:
    """The line [code, end) as a span, if it is a declaration in PythonPrint's spelling
    of one of the usual kinds; None for the declaration parser to take it."""
    text = src.text
    m = _DECL.fullmatch(text, code, end)
    if m is not None:
        return _decl_span(src, m, code)
    if text.startswith("__", code):
        m = _NAMES.fullmatch(text, code, end)
        if m is None:
            return None
        return NamesSpan(SourceRange(src, code, end), m.group(1), listed_names(m.group(2)))
    m = _FINAL.fullmatch(text, code, end)
    if m is None or m.group(1) in _RESERVED or not _reserved_free(m.group(2)):
        return None
    return FinalSpan(SourceRange(src, code, end), m.group(1), final_value(m.group(3)))


def listed_names(listed: str) -> tuple[str, ...]:
    """The names of `__parameters__ = [...]` from what _NAMES took inside the brackets."""
    return tuple(listed[1:-3].split('", "')) if listed else ()


def final_value(literal: str) -> object:
    """The value of a literal _FINAL took (a number, True, False, None or a plain string)."""
    if literal[0] in "'\"":
        return literal[1:-1]
    if literal in _CONSTANTS:
        return _CONSTANTS[literal]
    if "." in literal or "e" in literal or "E" in literal:
        return float(literal)
    return int(literal)


def _declaration_run(src: Source, pos: int, checked: dict[str, bool]) -> Optional[DeclRun]:
    """The run of one-line declarations that starts at `pos` (the newline before a line
    of a class body), or None if that line is not one. The run ends at a line of another
    kind, or at one the declaration parser is to take (a keyword or a constant in it, a
    type of another shape), which is left to the caller's loop.

    One findall takes the lines (_BODY_ROW's last branch takes the rest of the text at
    the first line of another kind, so the rows are the lines in a row from `pos`), and
    one Python step a line checks them: they are most of what loading reads of a class.
    `checked` holds the type texts already checked (_plain_type): PythonPrint repeats
    them (`training : bool` in every module)."""
    rows = _BODY_ROW.findall(src.text, pos)
    end = pos
    taken = 0
    for line, quote, attr, type_text, names_of, _, final, final_type, _ in rows:
        if type_text:
            if attr in _RESERVED and not quote:
                _refuse(type_text)
                break
        elif final:
            if final in _RESERVED:
                break
            type_text = final_type
        elif not names_of:
            break                       # the rest of the text
        if type_text:
            plain = checked.get(type_text)
            if plain is None:
                plain = checked[type_text] = type_text in _PLAIN_TYPES or _plain_type(type_text)
            if not plain:
                if not final:
                    _refuse(type_text)
                break
        end += len(line) + 3            # ("\n  " and the line)
        taken += 1
    if not taken:
        return None
    del rows[taken:]
    return DeclRun(src, pos, end, rows)


def _refuse(type_text: str) -> None:
    """Raise _Unsupported for a declaration of an attribute's type that has a keyword or
    a constant in it if its type is of _DECL's shape: such a file goes to the line
    outline (the layout outline then leaves no error in a function for later, as the
    line outline does not), as it always has; a type of another shape is the
    declaration parser's (the caller's loop gives the line to it)."""
    if _TYPE.fullmatch(type_text) is not None:
        raise _Unsupported()


def _plain_type(type_text: str) -> bool:
    """Whether an attribute's type text is a type _DECL takes (a dotted name, subscripted
    by such up to three levels deep) with no keyword or constant in it."""
    return _PLAIN_TYPE.fullmatch(type_text) is not None


def _decl_span(src: Source, m: re.Match, start: int) -> Optional[DeclSpan]:
    """The DeclSpan of a match of _DECL (groups: attribute, or the key of
    `__annotations__[key]`, then the type) from offset `start`; None if a name in it is a
    keyword or a constant (the parser's to take, or reject)."""
    attr, key, type_text = m.groups()
    if attr is None:
        attr = key[1:-1]
    elif attr in _RESERVED:
        return None
    if not _reserved_free(type_text):
        return None
    return DeclSpan(SourceRange(src, start, m.end()), attr, type_text)


def _reserved_free(type_text: str) -> bool:
    """Whether no name in a type's text is a keyword or a constant."""
    return _RESERVED.isdisjoint(type_text.split(".") if "[" not in type_text
                                else _NAME.findall(type_text))


class _Outliner:
    def __init__(self, src: Source) -> None:
        self.src = src
        self.text = src.text

    def module(self) -> A.Module:
        lines = _logical_lines(self.text)
        body: list[A.Stmt] = []
        i = 0
        while i < len(lines):
            if lines[i].indent != 0:
                raise _Unsupported()
            if self.text.startswith("def ", lines[i].code):
                stmt, i = self.function(lines, i)
            elif self.text.startswith("class ", lines[i].code):
                stmt, i = self.klass(lines, i)
            else:
                raise _Unsupported()
            body.append(stmt)
        return A.Module(self.src.range(0, len(self.text)), tuple(body))

    def function(self, lines: list[_Line], i: int) -> tuple[DefSpan, int]:
        """The def at logical line i (its body: the lines indented deeper), and the next i."""
        first = lines[i]
        m = _DEF.match(self.text, first.code, first.end)
        if m is None or self.text[first.end - 1] != ":":
            raise _Unsupported()    # e.g. a one-line `def f(): return 1`
        j = i + 1
        while j < len(lines) and lines[j].indent > first.indent:
            j += 1
        if j == i + 1:
            raise _Unsupported()
        return DefSpan(self.src.range(first.code, lines[j - 1].end), m.group(1), first.start), j

    def klass(self, lines: list[_Line], i: int) -> tuple[ClassOutline, int]:
        """The class at logical line i (a ClassOutline, as the layout outline gives, with
        no DeclRun), and the next i."""
        header = lines[i]
        m = _CLASS.match(self.text, header.code, header.end)
        if m is None or self.text[header.end - 1] != ":" or i + 1 == len(lines):
            raise _Unsupported()
        p = _Parser(self.src, m.end(), header.end - 1)
        bases: tuple[A.Expr, ...] = ()
        if p.texts[0] == "(":
            p.i = 1
            bases = p.items(")")
        if p.kinds[p.i] != 0:
            raise _Unsupported()
        body: list[A.Stmt] = []
        indent = lines[i + 1].indent
        j = i + 1
        while j < len(lines) and lines[j].indent > 0:
            line = lines[j]
            if line.indent != indent:
                raise _Unsupported()
            if self.text.startswith("def ", line.code):
                stmt, j = self.function(lines, j)
                body.append(stmt)
                continue
            body.append(_declaration(self.src, line.code, line.end) or
                        _Parser(self.src, line.code, line.end).statement())
            j += 1
        if not body:
            raise _Unsupported()
        names = tuple(b.id if isinstance(b, A.Name) else getattr(b, "attr", "") for b in bases)
        return ClassOutline(self.src.range(header.code, body[-1].range.end), m.group(1),
                            bases, tuple(body), names), j


class _Parser:
    """Declarations of class bodies: NAME ':' expr ['=' expr] | expr '=' expr | 'pass',
    over dotted names, subscripts, numbers, strings, lists, tuples and `-` numbers."""

    def __init__(self, src: Source, pos: int, end: int) -> None:
        self.src = src
        # Parallel token lists, with an end marker ("") so that look-ahead needs no checks;
        # token offsets are relative to `base`, the line's position in the file.
        tokens = _tokenize(src.text[pos:end])
        if tokens is None:
            raise _Unsupported()        # a character no declaration token starts with
        self.texts, self.kinds, self.starts, self.ends = tokens
        self.base = pos
        self.i = 0

    def range(self, start: int, end_token: int) -> SourceRange:
        """From file offset `start` to the end of token `end_token`."""
        return SourceRange(self.src, start, self.base + self.ends[end_token])

    def statement(self) -> A.Stmt:
        start = self.base + self.starts[0]
        if self.texts == ("pass", ""):
            return A.Pass(self.range(start, 0))
        target = self.expr()
        sep = self.texts[self.i]
        self.i += 1
        if sep == ":" and type(target) is A.Name:
            annotation = self.expr()
            value = None
            if self.texts[self.i] == "=":
                self.i += 1
                value = self.expr()
            stmt: A.Stmt = A.AnnAssign(self.range(start, self.i - 1), target, annotation, value)
        elif sep == "=":
            value = self.expr()
            stmt = A.Assign(self.range(start, self.i - 1), (target,), value)
        else:
            raise _Unsupported()
        if self.kinds[self.i] != 0:
            raise _Unsupported()
        return stmt

    def items(self, close: str) -> tuple[A.Expr, ...]:
        """Comma-separated expressions up to `close` (consumed), a trailing comma allowed."""
        out = []
        texts = self.texts
        while texts[self.i] != close:
            out.append(self.expr())
            if texts[self.i] == ",":
                self.i += 1
            elif texts[self.i] != close:
                raise _Unsupported()
        self.i += 1
        return tuple(out)

    def expr(self) -> A.Expr:
        i, src, base = self.i, self.src, self.base
        text, kind = self.texts[i], self.kinds[i]
        if not text:
            raise _Unsupported()    # the end marker: an expression is missing (`x: T =`)
        start = base + self.starts[i]
        self.i = i + 1
        if kind == 1:
            e = self.dotted(text, i)
        elif kind == 2:
            e = A.Constant(SourceRange(src, start, base + self.ends[i]), _number(text))
        elif kind == 3:
            e = A.Constant(SourceRange(src, start, base + self.ends[i]), text[1:-1])
        elif text == "-":
            operand = self.expr()
            if type(operand) is not A.Constant:
                raise _Unsupported()
            return A.UnaryOp(SourceRange(src, start, operand.range.end), "-", operand)
        elif text == "[":
            elts = self.items("]")
            e = A.ListLit(self.range(start, self.i - 1), elts)
        elif text == "(":
            elts = self.items(")")
            if len(elts) == 1 and self.texts[self.i - 2] != ",":
                raise _Unsupported()    # a parenthesized expression: left to the parser
            e = A.TupleLit(self.range(start, self.i - 1), elts)
        else:
            raise _Unsupported()
        while self.texts[self.i] == "[":     # subscripts
            self.i += 1
            index = self.index()
            e = A.Subscript(SourceRange(src, e.range.start, base + self.ends[self.i - 1]), e,
                            index)
        return e

    def dotted(self, text: str, i: int) -> A.Expr:
        """A name and the `.name`s after it (token i, a NAME, just taken)."""
        src, base, ends = self.src, self.base, self.ends
        start = base + self.starts[i]
        if text in _CONSTANTS:
            return A.Constant(SourceRange(src, start, base + ends[i]), _CONSTANTS[text])
        if text in _KEYWORDS:
            raise _Unsupported()
        e: A.Expr = A.Name(SourceRange(src, start, base + ends[i]), text)
        texts, kinds = self.texts, self.kinds
        i += 1
        while texts[i] == ".":
            i += 1
            name = texts[i]
            if kinds[i] != 1 or name in _KEYWORDS or name in _CONSTANTS:
                raise _Unsupported()
            e = A.Attribute(SourceRange(src, start, base + ends[i]), e, name)
            i += 1
        self.i = i
        return e

    def index(self) -> A.Expr:
        """The inside of `[...]` after a value: one expression or a tuple of them."""
        items = self.items("]")
        if len(items) == 1 and self.texts[self.i - 2] != ",":
            return items[0]
        if not items:
            raise _Unsupported()
        return A.TupleLit(SourceRange(self.src, items[0].range.start, items[-1].range.end), items)


@functools.lru_cache(maxsize=4096)
def _tokenize(line: str) -> Optional[tuple[tuple, tuple, tuple, tuple]]:
    """(texts + end marker "", kinds + 0, starts, ends) of a declaration line's tokens, kinds
    being 1 names, 2 numbers, 3 strings, 4 punctuation; None if a character starts none.
    Cached: archives repeat the same declarations (`training : bool`) in every class."""
    texts, kinds, starts, ends = [], [], [], []
    at = 0
    # findall, not a match per token: positions follow from the lengths (tokens are
    # contiguous when the pieces add up to the whole line).
    for spaces, name, number, string, punct in _TOKEN.findall(line):
        at += len(spaces)
        starts.append(at)
        text, kind = (name, 1) if name else (number, 2) if number else \
            (string, 3) if string else (punct, 4)
        texts.append(text)
        kinds.append(kind)
        at += len(text)
        ends.append(at)
    if at != len(line):
        return None
    return tuple(texts) + ("",), tuple(kinds) + (0,), tuple(starts), tuple(ends)


def _number(text: str) -> object:
    if "." in text or "e" in text or "E" in text:
        return float(text)
    if len(text) > 1 and text[0] == "0":
        raise _Unsupported()        # the parser's error for leading zeros
    return int(text)


def _logical_lines(text: str) -> list[_Line]:
    """Non-blank logical lines (a line and the ones its open brackets continue onto).

    Regular expressions over the whole file do most of the work, not a Python step per
    token: a skeleton of the text (same length, so offsets carry over) has strings and
    comments blanked out; a copy of it (brackets made round) loses, pass by pass from the
    innermost out, the bracket pairs that open and close on one line. Only lines continued
    by brackets (or with unbalanced ones) keep some in that copy; those are counted."""
    skeleton = _STRINGS_COMMENTS.sub(_blank, text)
    if any(c in skeleton for c in _IRREGULAR):
        raise _Unsupported()    # an unterminated string, escape, tab, form feed, CR
    reduced = skeleton.translate(_ROUND)
    for _ in range(_MAX_NESTING):   # (bounded: the count below handles any nesting)
        reduced, n = _ONE_LINE_PAIR.subn("", reduced)
        if not n:
            break
    out: list[_Line] = []
    depth = 0
    start = 0           # of the current physical line
    for line, rest in zip(skeleton.split("\n"), reduced.split("\n")):
        if "(" in rest or ")" in rest:
            for c in rest:
                if c == "(":
                    depth += 1
                elif c == ")":
                    depth -= 1
                    if depth < 0:
                        raise _Unsupported()
        code = line.rstrip(" ")
        if code and not code.isspace():
            stop = start + len(code)
            if out and out[-1].end < 0:         # a continuation of an open logical line
                if depth == 0:
                    out[-1].end = stop
            else:
                indent = len(line) - len(line.lstrip(" "))
                out.append(_Line(start, start + indent, stop if depth == 0 else -1, indent))
        start += len(line) + 1
    if depth != 0 or (out and out[-1].end < 0):
        raise _Unsupported()
    return out


def _blank(m: re.Match) -> str:
    """A string or comment in the skeleton: as long, and neither brackets nor spaces for a
    string (it is code), spaces for a comment (it is not)."""
    s = m.group()
    return " " * len(s) if s[0] == "#" else "s" * len(s)


# Strings (one-line; a prefix like r or b is letters either way) and comments, found left to
# right as the tokenizer would; what the skeleton must then not contain; its brackets made
# round (only their depth counts, as for the tokenizer); an innermost pair on one line.
_STRINGS_COMMENTS = re.compile(r"#[^\n]*|'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"")
_IRREGULAR = "'\"\\\t\f\r"
_ROUND = str.maketrans("[{]}", "(())")
_ONE_LINE_PAIR = re.compile(r"\([^()\n]*\)")
_MAX_NESTING = 16   # passes of pair removal (each is linear); deeper brackets are counted

# The fast outline's patterns: a line's kind, where it starts: a class header of
# PythonPrint's shape (`class N(B1, B2):`, name and bases in groups 2 and 3, the bases
# None if the parentheses are not there or empty) or the start of a def (name in group
# 4), neither group for any other line; a line indented by at most three spaces (its
# indentation in group 1), the first line included; one-line strings (what is outside
# them may not continue a line or hold a comment).
_LINE_KIND = (r"(?:(?=class ([A-Za-z_][A-Za-z_0-9]*)(?:\(((?:[A-Za-z_][A-Za-z_0-9]*"
              r"(?:, [A-Za-z_][A-Za-z_0-9]*)*)?)\))?: *(?![^\n]))"
              r"|(?=def +([A-Za-z_][A-Za-z_0-9]*) *\())?")
_SHALLOW_LINE = re.compile(r"\n( {0,3})" + _LINE_KIND + r"\S[^\n]*")
# The next shallow line from the end of a line, after the deeper and blank lines (a
# function's body) in one possessive repeat: cheaper than a search, which tries a match
# at every newline.
_NEXT_SHALLOW = re.compile(r"(?:\n(?:    [^\n]*| *(?![^\n])))*+" + _SHALLOW_LINE.pattern)
_FIRST_LINE = re.compile(r"( {0,3})" + _LINE_KIND + r"\S[^\n]*")
_ONE_LINE_STRING = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"")
_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
# An attribute's type: a dotted name, subscripted by types up to three levels deep.
_TYPE0 = r"[A-Za-z_][A-Za-z_0-9]*(?:\.[A-Za-z_][A-Za-z_0-9]*)*"
_TYPE1 = _TYPE0 + r"(?:\[" + _TYPE0 + r"(?:, " + _TYPE0 + r")*\])?"
_TYPE2 = _TYPE0 + r"(?:\[" + _TYPE1 + r"(?:, " + _TYPE1 + r")*\])?"
_TYPE3 = _TYPE0 + r"(?:\[" + _TYPE2 + r"(?:, " + _TYPE2 + r")*\])?"
_DECL = re.compile(r"""(?:([A-Za-z_][A-Za-z_0-9]*) : |__annotations__\[("[^"\\\n]*"|'[^'\\\n]*')\] = )"""
                   r"(" + _TYPE3 + ")")
_NAMES = re.compile(r'(__parameters__|__buffers__) = \[((?:"[^"\\\n]*", )*)\]')
_FINAL = re.compile(r"([A-Za-z_][A-Za-z_0-9]*) : Final\[(" + _TYPE2 + r")\] = "
                    r"""(-?(?:[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?|[0-9]+[eE][-+]?[0-9]+"""
                    r"""|0|[1-9][0-9]*)|True|False|None|"[^"\\\n]*"|'[^'\\\n]*')""")
# Types of attributes in every archive (`training : bool`, `_is_full_backward_hook :
# Optional[bool]`...), plain (_plain_type) without a regex match.
_PLAIN_TYPES = frozenset(
    ["Tensor", "int", "float", "bool", "str", "complex", "NoneType", "Any", "Device",
     "device", "number", "Generator", "Storage", "Stream"] +
    [f"{k}[{t}]" for k in ("Optional", "List") for t in ("Tensor", "int", "float", "bool", "str")])
_TYPE = re.compile(_TYPE3)
# _TYPE3 with no name a keyword or a constant (as _reserved_free checks): one match.
_FREE_NAME = (r"(?!(?:" + "|".join(sorted(_RESERVED)) + r")(?![A-Za-z_0-9]))"
              r"[A-Za-z_][A-Za-z_0-9]*")
_PLAIN_TYPE = re.compile(_TYPE3.replace(r"[A-Za-z_][A-Za-z_0-9]*", _FREE_NAME))
# A class-body line of the usual kinds from the newline before it (indented by two), as
# _DECL, _NAMES and _FINAL take them (the rows of DeclRun): the line (group 1); an
# attribute's type (2 to 4: the quote of `__annotations__[key]` if the line is one, the
# attribute, its type); a list of names (5, 6); a Final constant (7 to 9). An attribute
# is the key of `__annotations__[key]` without its quotes (the conditional groups take
# the key's characters allowed within its quotes) or a name. An attribute's type is any
# text of the characters of type texts, taken without backtracking and then checked
# (once per text) by _plain_type: cheaper than matching each line's type with _TYPE3;
# a Final line matches no other kind. The last branch takes all the rest of the text,
# which ends a findall at the first line of another kind (`.+` with DOTALL jumps to the
# end, whatever the length).
_BODY_ROW = re.compile(
    r"""\n  ((?:__annotations__\[(["'])|)"""
    r"""((?(2)(?:(?<=")[^"\\\n]*+|(?<=')[^'\\\n]*+)|[A-Za-z_][A-Za-z_0-9]*+))"""
    r"""(?(2)\2\] = | : )([A-Za-z_][A-Za-z_0-9.\[\], ]*+)"""
    r"""|(__parameters__|__buffers__) = \[((?:"[^"\\\n]*+", )*+)\]"""
    r"|" + _FINAL.pattern + r")(?![^\n])|(?s:.+)")
