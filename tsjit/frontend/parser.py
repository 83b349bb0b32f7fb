"""TorchScript source text -> `tsjit.frontend.ast`, with a SourceRange on every node.

The only module that imports lark, and lazily: `import tsjit` stays cheap and the LALR
tables are built (or loaded from the cache, see _parser_cache.py) on first use.
Pipeline: `_Lexer` (lark's terminals, then indentation, brackets, keywords that
TorchScript lacks, `# type:` comments) -> LALR parser, which calls `_Builder`'s method
for each rule as it reduces -> AST. The parser is `_Driver`, a leaner loop over lark's
own tables, on the lark releases it is tested on (see DRIVER_LARK_VERSIONS), else lark's
(`LarkLoop`, with lark's lexer and `_LarkPostLexer`). No parse tree is built and nothing
recurses, so deep nesting is fine. Every failure, lark's or ours, is a
`ParseError(message, range)`. `expand` parses the spans of an archive's outline
(code_outline.py).
"""
from __future__ import annotations

import ast as _pyast
import bisect
import dataclasses
import operator
import os
import re
import threading
import warnings
from typing import Any, Callable, Iterator, Optional

from . import _parser_cache
from . import ast as A
from ..ir.diagnostics import ParseError, Source, SourceRange
from .nesting import check_nesting

__all__ = ["parse", "parse_def", "parse_class", "parse_expr", "expand"]

_GRAMMAR_PATH = os.path.join(os.path.dirname(__file__), "grammar.lark")
_lock = threading.RLock()  # lark's parser, our lark post-lexer and builder hold per-parse state
_lark: Any = None  # the lark.Lark instance, built on first use
_driver: Any = None  # the _Driver running lark's tables (or a LarkLoop), built with _lark
# The lark releases _Driver is tested on, [first, last): it reads their private tables
# and lexer. pyproject.toml pins the same range; any other release parses with lark's
# own loop (LarkLoop), which is about a third slower (docs/design.md).
DRIVER_LARK_VERSIONS = ((1, 1, 9), (1, 4))

# Python keywords with no TorchScript meaning. They lex as NAME (the grammar never uses
# them), so the lexer rejects them at the keyword itself with a clear message.
_UNSUPPORTED = {kw: what + " not supported in TorchScript" for kw, what in [
    ("lambda", "lambda expressions are"), ("import", "import statements are"),
    ("global", "'global' is"), ("nonlocal", "'nonlocal' is"), ("async", "'async' is"),
    ("await", "'await' is"), ("yield", "generators ('yield') are"),
    ("try", "try/except is"), ("except", "try/except is"), ("finally", "try/finally is")]}
_OPEN = {"LPAR": ")", "LSQB": "]", "LBRACE": "}"}
_CLOSE = ("RPAR", "RSQB", "RBRACE")
_TYPE_COMMENT = re.compile(r"#[ \t]*type:([^\n]*)")
_TERMINAL_NAMES = {"NAME": "name", "NUMBER": "number", "STRING": "string",
                   "_NEWLINE": "end of line", "_INDENT": "indent", "_DEDENT": "dedent",
                   "$END": "end of input"}


class _Tok(str):
    """A token: its text (the str itself), kind and offsets; what the builder reads.

    lark.Token's constructor takes keywords through a shim and fills line counters; the
    lexer makes about one of these per 4 characters of source.
    """

    __slots__ = ("type", "start_pos", "end_pos")
    line = column = end_line = end_column = None   # (lark's loop reads them, if it runs)
    value = property(str.__str__)   # as lark.Token's; rarely read, so not stored

    def __new__(cls, type: str, value: str, start_pos: int = 0, end_pos: int = 0) -> "_Tok":
        tok = str.__new__(cls, value)
        tok.type, tok.start_pos, tok.end_pos = type, start_pos, end_pos
        return tok


class _SyntaxErr(Exception):
    """Raised by the lexer, with offsets into the text being lexed."""

    def __init__(self, message: str, start: int, end: int) -> None:
        super().__init__(message)
        self.message, self.start, self.end = message, start, end


class _LexState:
    """Settings and outputs of one run of the lexer."""

    def __init__(self, text: str, base: int, expr_mode: bool, zero_base: bool) -> None:
        self.text, self.base = text, base  # `text` sits at offset `base` of its Source
        self.expr_mode = expr_mode  # one expression: newlines are insignificant
        self.zero_base = zero_base  # a whole file: the first line must not be indented
        self.type_comments: list[tuple[int, str]] = []  # (Source offset of '#', text)
        self.last_end = 0  # end offset of the last real token (set when the input ends)
        # id(node) -> (node, start, end) of a parenthesised expression: the node keeps its
        # own range (as in Python's ast) but its parent's range covers the parentheses.
        self.parens: dict[int, tuple[Any, int, int]] = {}
        # Literals equal to 2**63, valid only negated (-2**63 is int64's least value).
        self.edge_ints: dict[int, A.Constant] = {}


def _keyword_message(tok: Any, text: str) -> str:
    """Why a Python-only keyword (a NAME token) is rejected."""
    if tok.value != "from":
        return _UNSUPPORTED[tok.value]
    if text[text.rfind("\n", 0, tok.start_pos) + 1:tok.start_pos].strip():
        return "'raise ... from ...' is not supported in TorchScript"
    return _UNSUPPORTED["import"]


def _indent_cols(ws: str) -> tuple[int, int]:
    """Python's tokenizer columns: tabs to multiples of 8, and tab size 1 (for TabError)."""
    col = alt = 0
    for ch in ws:
        if ch == " ":
            col, alt = col + 1, alt + 1
        elif ch == "\t":
            col, alt = (col // 8 + 1) * 8, alt + 1
        elif ch == "\f":
            col = alt = 0
    return col, alt


_BAD = "_TSJIT_BAD_CHARACTER"   # the lexer's group for a character no terminal takes
_REJECT = "_TSJIT_REJECTED_NAME"   # the kind a Python-only keyword is retyped to
# Kinds the lexer does more with than pass on (the rest go straight to the parser).
_SPECIAL = frozenset(["_NEWLINE", _REJECT, _BAD, *_OPEN, *_CLOSE])


class _Lexer:
    """Source text -> the tokens the LALR tables take, with Python's layout rules.

    lark's terminals matched by one regex (the first alternative that matches, in lark's
    order, as lark's basic lexer), keywords retyped, and then what Python's tokenizer adds
    (cf. lark.indenter.PythonIndenter): _INDENT/_DEDENT from indentation, newlines inside
    brackets dropped, unmatched brackets and Python-only keywords rejected at the token,
    `# type:` comments collected. Emitted _NEWLINE/_DEDENT tokens are zero-width at the end
    of the previous real token, so they never stretch a range over comments or the next
    line's indentation. One pass, one generator: this runs for every token scripted.
    """

    def __init__(self, terminals: list[list[str]], flags: int, ignore: Any,
                 keywords: dict[str, dict[str, str]], space: str = "") -> None:
        # Each terminal's (empty) group comes after its pattern, so that the regex engine
        # skips an alternative by its first character (it does so for a literal or a
        # character set, not for a group's start): a third of the lexing time. The last
        # alternative takes any one character no terminal matches (an error). Ignored
        # `space` after a token is taken with it: a match less per space.
        alternatives = [f"(?:{regexp})(?P<{name}>)" for name, regexp in terminals]
        alternatives.append(f"[\\s\\S](?P<{_BAD}>)")
        trail = f"(?:{space})?" if space else ""
        self.scan = re.compile(f"(?:{'|'.join(alternatives)}){trail}", flags).finditer
        self.ignore = frozenset(ignore)
        self.special = _SPECIAL | self.ignore
        self.keywords = _with_rejected(keywords)

    def tokens(self, text: str, st: _LexState) -> Iterator[_Tok]:
        """The tokens of `text` (`st.text`)."""
        return self.layout(self.scan(text), st)

    def layout(self, matches: Iterator[Any], st: _LexState) -> Iterator[_Tok]:
        """Tokens from `matches` (re.Match objects, or _LarkMatch over lark's tokens)."""
        text, ignore, keywords, special = st.text, self.ignore, self.keywords, self.special
        new, expr_mode = str.__new__, st.expr_mode
        brackets: list[tuple[str, str, int, int]] = []  # (closer, opener, start, end)
        stack: Optional[list[tuple[int, int]]] = None  # open indentation levels
        level_ws = None   # the indentation text that gave the current level
        last = -1   # end of the previous real token (-1: none yet)
        line_start = True
        for m in matches:
            kind = m.lastgroup
            start, end = m.start(), m.end(kind)
            value = text[start:end]
            if kind in keywords:
                kind = keywords[kind].get(value, kind)
            if kind in special:
                if kind == "_NEWLINE":
                    if "#" in value:
                        self._comments(value, start, st)
                    if brackets or expr_mode or last < 0:
                        continue  # implicit continuation, or blank lines before any code
                    yield _Tok("_NEWLINE", "", last, last)
                    line_start = True
                    nl = value.rfind("\n")
                    if nl >= 0 and end < len(text):  # else: end of input, see below
                        ws = value[nl + 1:]
                        if ws != level_ws:   # (the same text: the same level)
                            assert stack is not None
                            yield from self._indent(stack, ws, end, last)
                            level_ws = ws
                    continue
                if kind in ignore:
                    continue
                if kind == _BAD:
                    raise _BadCharacter(end - 1)
                if kind == _REJECT:
                    tok = _Tok("NAME", value, start, end)
                    raise _SyntaxErr(_keyword_message(tok, text), start, end)
                if kind in _OPEN:
                    brackets.append((_OPEN[kind], value, start, end))
                else:
                    if not brackets:
                        raise _SyntaxErr(f"unmatched '{value}'", start, end)
                    closer, opener, _, _ = brackets.pop()
                    if closer != value:
                        raise _SyntaxErr(f"closing parenthesis '{value}' does not match opening "
                                         f"parenthesis '{opener}'", start, end)
            if stack is None and not expr_mode:
                first = _indent_cols(text[text.rfind("\n", 0, start) + 1:start])
                if st.zero_base and first[0]:
                    raise _SyntaxErr("unexpected indent", start, end)
                stack = [first]  # parse_def/parse_class: the first line sets the base level
                level_ws = None
            tok = new(_Tok, value)   # _Tok(kind, value, start, end), one call less
            tok.type, tok.start_pos, tok.end_pos = kind, start, end
            yield tok
            last, line_start = end, False
        st.last_end = max(last, 0)
        if brackets:
            _, opener, start, end = brackets[-1]
            raise _SyntaxErr(f"'{opener}' was never closed", start, end)
        if last >= 0 and stack is not None:  # files may lack the final newline
            if not line_start:
                yield _Tok("_NEWLINE", "", last, last)
            for _ in stack[1:]:
                yield _Tok("_DEDENT", "", last, last)

    @staticmethod
    def _comments(value: str, start: int, st: _LexState) -> None:
        for m in _TYPE_COMMENT.finditer(value):
            text = m.group(1).strip()
            if text and not re.match(r"ignore\b", text):
                st.type_comments.append((st.base + start + m.start(), text))

    @staticmethod
    def _indent(stack: list, ws: str, pos: int, last: int) -> Iterator[_Tok]:
        col, alt = _indent_cols(ws)
        if col > stack[-1][0]:
            if alt <= stack[-1][1]:
                raise _SyntaxErr("inconsistent use of tabs and spaces in indentation", pos, pos)
            stack.append((col, alt))
            # Never the first or last token of a rule, so an _INDENT may sit where the
            # indented line starts: an "unexpected indent" error then points there.
            yield _Tok("_INDENT", ws, pos, pos)
            return
        while col < stack[-1][0] and len(stack) > 1:  # never below the base level
            stack.pop()
            yield _Tok("_DEDENT", "", last, last)
        if col != stack[-1][0]:
            raise _SyntaxErr("unindent does not match any outer indentation level", pos, pos)
        if alt != stack[-1][1]:
            raise _SyntaxErr("inconsistent use of tabs and spaces in indentation", pos, pos)


def _with_rejected(keywords: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    """The keyword retyping, with Python-only keywords retyped to _REJECT."""
    names = dict(keywords.get("NAME", {}))
    names.update({kw: _REJECT for kw in [*_UNSUPPORTED, "from"]})
    return {**keywords, "NAME": names}


class _LarkMatch:
    """One of lark's tokens, as the re.Match `_Lexer.layout` reads."""

    __slots__ = ("lastgroup", "tok")

    def __init__(self, tok: Any) -> None:
        self.lastgroup, self.tok = tok.type, tok

    def start(self) -> int:
        return self.tok.start_pos

    def end(self, _kind: str) -> int:
        return self.tok.end_pos


class _LarkPostLexer:
    """lark's `postlex` when lark's own loop runs (LarkLoop): lark's basic lexer has
    matched and retyped the terminals; `_Lexer.layout` does the rest."""

    always_accept = ("_NEWLINE",)  # (read by lark's contextual lexer, if one is used)

    def __init__(self) -> None:
        self.state: Optional[_LexState] = None
        self.lexer = _Lexer([], 0, (), {})

    def process(self, stream: Iterator[Any]) -> Iterator[_Tok]:
        assert self.state is not None
        return self.lexer.layout(map(_LarkMatch, stream), self.state)


# No propagate_positions: it doubled the parse time; ranges come from the children
# instead (see the grammar's header). `transformer=` makes lark call _Builder's methods as
# it reduces: no parse tree, no recursion. The basic lexer: the grammar needs no context.
_OPTIONS = dict(parser="lalr", lexer="basic", maybe_placeholders=True,
                start=["file_input", "eval_input"])
_TABLES_FORMAT = 4  # of the cached driver tables (_driver_tables); part of the cache key


def _grammar() -> str:
    with open(_GRAMMAR_PATH, encoding="utf-8") as f:
        return f.read()


def _get_lark() -> Any:
    """The lark parser (lark's own loop and the source of the driver's tables), built on
    first use."""
    global _lark
    if _lark is None:
        with _lock:
            if _lark is None:
                import lark  # deferred: ~30 ms, and only building the tables needs it

                parser = lark.Lark(_grammar(), postlex=_lark_postlexer, transformer=_builder,
                                   **_OPTIONS)
                _check_builder(parser)
                _lark = parser
    return _lark


def _get_driver() -> Any:
    """The parse loop, built on first use: a _Driver over lark's tables (read from the
    cache, so that lark is not even imported, when they are there), or lark's own loop."""
    global _driver
    if _driver is None:
        with _lock:
            if _driver is None:
                driver = _cached_driver()
                if driver is None:
                    import lark

                    driver = _make_driver(_get_lark(), lark.__version__)
                _driver = driver
    return _driver


def _cache_path(version: str) -> Optional[str]:
    return _parser_cache.cache_file(_grammar(), version,
                                    f"{_OPTIONS!r} tables {_TABLES_FORMAT}")


def _cached_driver() -> Optional["_Driver"]:
    """A _Driver from cached tables, or None (none cached, unusable, or lark's release
    is not one the driver is tested on)."""
    version = _parser_cache.lark_version()
    if version is None or not _tested(version):
        return None
    path = _cache_path(version)
    tables = _parser_cache.read_data(path) if path else None
    if tables is not None:
        try:
            return _Driver(tables)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, re.error):
            pass   # tables of another shape (a corrupt file checksummed right): rebuilt
    return None


def _make_driver(parser: Any, lark_version: str) -> Any:
    """A _Driver over the parser's tables if `lark_version` is a release it is tested on
    and it can read them (then the tables are cached); else lark's own loop."""
    if _tested(lark_version):
        try:
            tables = _driver_tables(parser)
            driver = _Driver(tables)
        except (AttributeError, KeyError, TypeError, ImportError, NotImplementedError):
            pass    # internals differ from those _Driver reads
        else:
            path = _cache_path(lark_version)
            if path:
                _parser_cache.write_data(path, tables)
            return driver
    return LarkLoop(parser)


def _tested(lark_version: str) -> bool:
    first, last = DRIVER_LARK_VERSIONS
    return first <= _version(lark_version) < last


def _version(text: str) -> tuple[int, ...]:
    """(major, minor, patch) of a version string such as "1.3.1" or "1.4.0rc1"."""
    return tuple(int(re.match(r"\d*", part).group() or 0) for part in text.split(".")[:3])


def _display_names(parser: Any) -> dict[str, str]:
    """How error messages name each terminal that has no entry in _TERMINAL_NAMES."""
    return {t.name: repr(t.pattern.value) if type(t.pattern).__name__ == "PatternStr"
            else t.name for t in parser.terminals}


class LarkLoop:
    """Stands in for _Driver: hands the text to lark's own lexer and parse loop."""

    def __init__(self, parser: Any) -> None:
        self.parser = parser
        self.terminals = _display_names(parser)

    def run(self, text: str, st: _LexState, start: str) -> Any:
        """lark's parse, its errors given as the driver's."""
        import lark.exceptions as E

        saved, _lark_postlexer.state = _lark_postlexer.state, st
        try:
            return self.parser.parse(text, start=start)
        except E.UnexpectedCharacters as e:
            raise _BadCharacter(e.pos_in_stream) from None
        except E.UnexpectedToken as e:
            raise _UnexpectedToken(e.token, _expected(e)) from None
        except E.UnexpectedEOF:
            raise _UnexpectedEOF() from None
        finally:
            _lark_postlexer.state = saved


class _BadCharacter(Exception):
    """No terminal matches at offset `pos`."""

    def __init__(self, pos: int) -> None:
        super().__init__(pos)
        self.pos = pos


class _UnexpectedEOF(Exception):
    """The input ended inside a construct (from lark's loop)."""


class _UnexpectedToken(Exception):
    """The LALR table has no action for `token` in a state that expects `expected`."""

    def __init__(self, token: Any, expected: set[str]) -> None:
        super().__init__(token.type)
        self.token, self.expected = token, expected


class _Driver:
    """Lexer and LALR loop over lark's tables, without lark's per-token machinery.

    lark's own loop hashes a `Rule` (a Python-level __hash__/__eq__) for every reduce and
    goes through a LexerState/LineCounter per token; parsing was half of scripting a
    small module. Here each reduce action is a (size, callback, rule name) triple, one
    regex matches every terminal, and tokens carry only what the builder reads (type,
    value, start and end offsets). Shifts, reduces, child filtering and keyword retyping
    are lark's, read from lark's objects once (`_driver_tables`: plain data, so they can be
    cached and the driver built without importing lark), so the AST and every error are
    the same.
    """

    def __init__(self, tables: dict) -> None:
        # One alternation in lark's order: trying the groups in turn is the same choice.
        self.lexer = _Lexer(tables["terminals_re"], tables["flags"], tables["ignore"],
                            tables["keywords"], tables["space"])   # keywords: NAME -> {"if": "IF"}
        self.terminals: dict[str, str] = tables["terminals"]
        if tables["token_callbacks"]:
            raise NotImplementedError("callbacks on terminals")
        _check_builder_names(tables["builders"])
        # A `?rule` of one symbol passes its child on (callback None: see _chain).
        reduces = [(size, None if size == 1 and spec[1] and spec[2] is None
                    else _reduce_callback(size, *spec), origin)
                   for size, origin, *spec in tables["reduces"]]
        # Each row is flat: terminal index, then the target state (a shift, >= 0) or
        # -1 - the reduce's index.
        # Here an action is the target state (an int: a shift, or a goto on a rule's
        # name) or a reduce's (size, callback, rule name).
        terms = tables["terms"]
        self.states: dict[int, dict[str, Any]] = {}
        for state, row in tables["states"]:
            self.states[state] = {terms[t]: reduces[-1 - a] if a < 0 else a
                                  for t, a in zip(row[::2], row[1::2])}
        self.start_states: dict[str, int] = tables["start_states"]
        self.end_states: dict[str, int] = tables["end_states"]
        self.chains: dict[tuple[int, int, str], int] = {}  # see _chain

    def _chain(self, below: int, top: int, lookahead: str) -> int:
        """The state after every pass-through reduce that `lookahead` triggers on `top`.

        An expression climbs the whole precedence ladder (test -> or_test -> ... -> atom)
        by one-child reduces that only change the top state; which state they end in
        depends on the state below, the top state and the lookahead alone, so the climb
        is done once per such triple (in self.chains) instead of for every operand.
        """
        states = self.states
        while True:
            action = states[top].get(lookahead)
            if action is None or type(action) is int or action[1] is not None:
                return top
            top = states[below][action[2]]

    def run(self, text: str, st: _LexState, start: str) -> Any:
        """Parse `text` (`st.text`) from the `start` symbol."""
        return self.parse(self.lexer.tokens(text, st), start)

    def parse(self, tokens: Iterator[Any], start: str) -> Any:
        """Run the LALR automaton over `tokens` from the `start` symbol."""
        states, chains = self.states, self.chains
        end_state = self.end_states[start]
        state_stack, value_stack = [self.start_states[start]], []
        row = states[state_stack[-1]]
        tok = None
        for tok in tokens:
            kind = tok.type
            while True:
                action = row.get(kind)
                if type(action) is int:   # a shift
                    state_stack.append(action)
                    value_stack.append(tok)   # (no callbacks on terminals: see __init__)
                    row = states[action]
                    break
                if action is None:
                    raise _UnexpectedToken(tok, {t for t in row if t.isupper()})
                size, callback, origin = action
                if callback is None:  # the value stays; only the state changes
                    key = (state_stack[-2], state_stack[-1], kind)
                    top = chains.get(key)
                    if top is None:
                        top = chains[key] = self._chain(*key)
                    state_stack[-1] = top
                    row = states[top]
                    continue
                if size:
                    children = value_stack[-size:]
                    del state_stack[-size:], value_stack[-size:]
                else:
                    children = []
                value_stack.append(callback(children))
                top = states[state_stack[-1]][origin]
                state_stack.append(top)
                row = states[top]
        tok = _Tok("$END", "", tok.start_pos if tok else 0, tok.end_pos if tok else 0)
        while True:
            row = states[state_stack[-1]]
            action = row.get("$END")
            if action is None or type(action) is int:
                raise _UnexpectedToken(tok, {t for t in row if t.isupper()})
            size, callback, origin = action
            if callback is None:
                state_stack.pop()
            else:
                children = value_stack[-size:] if size else []
                if size:
                    del state_stack[-size:], value_stack[-size:]
                value_stack.append(callback(children))
            state_stack.append(states[state_stack[-1]][origin])
            if state_stack[-1] == end_state:
                return value_stack[-1]


def _driver_tables(parser: Any) -> dict:
    """What _Driver needs of lark's parser, as plain data (cached by _parser_cache): the lexer's patterns in
    lark's order, the keyword retyping, the LALR table, and for each rule lark's choice of
    builder and child filter. Reads lark's private objects: the releases it does so on
    are DRIVER_LARK_VERSIONS; anything unexpected raises, and lark's own loop is used."""
    import lark.lexer as L
    from lark.parse_tree_builder import (ChildFilterLALR, ChildFilterLALR_NoPlaceholders,
                                         ExpandSingleChild)
    from lark.parsers.lalr_analysis import Shift

    frontend = parser.parser
    lexer = frontend.lexer.lexer  # PostLexConnector -> BasicLexer
    scanner = lexer.scanner       # (built on first use; it sets lexer.callback too)
    keywords: dict[str, dict[str, str]] = {}
    for kind, cb in lexer.callback.items():
        terms = cb.scanner.terminals if isinstance(cb, L.UnlessCallback) else None
        if terms is None or any(type(t.pattern) is not L.PatternStr or t.pattern.flags
                                for t in terms):
            raise NotImplementedError(f"lexer callback for {kind}")
        keywords[kind] = {t.pattern.value: t.name for t in terms}
    lalr = frontend.parser.parser
    table, callbacks = lalr.parse_table, lalr.callbacks
    reduces: list[list] = []
    index: dict[int, int] = {}
    terms: dict[str, int] = {}
    states = []
    for state, actions in table.states.items():
        row: list[int] = []
        for term, (action, arg) in actions.items():
            row.append(terms.setdefault(term, len(terms)))
            if action is Shift:
                row.append(int(arg))
                continue
            if id(arg) not in index:
                index[id(arg)] = len(reduces)
                reduces.append(_rule_spec(arg, callbacks[arg], ChildFilterLALR,
                                          ChildFilterLALR_NoPlaceholders, ExpandSingleChild))
            row.append(-1 - index[id(arg)])
        states.append([state, row])
    terminals = [[t.name, t.pattern.to_regexp()] for t in scanner.terminals]
    # The ignored pattern that horizontal space matches, taken with the token before it.
    space = [p for name, p in terminals if name in lexer.ignore_types
             and re.fullmatch(p, " \t\f")]
    return {"terminals_re": terminals, "space": space[0] if space else "",
            "flags": lexer.g_regex_flags, "ignore": sorted(lexer.ignore_types),
            "keywords": keywords, "terminals": _display_names(parser),
            "token_callbacks": sorted(k for k in callbacks if isinstance(k, str)),
            "builders": _builder_names(parser.rules), "terms": list(terms),
            "states": states, "reduces": reduces,
            "start_states": dict(table.start_states), "end_states": dict(table.end_states)}


def _rule_spec(rule: Any, callback: Any, *kinds: type) -> list:
    """[size, rule name, builder name, expand single child, filter steps, trailing Nones]:
    lark's callback for `rule` as data (the filter steps are lark's (index, expand,
    Nones before) triples; None when lark filters nothing)."""
    child_filter, no_placeholders, expand_single = kinds
    steps: Optional[list] = None
    trailing = 0
    f = callback
    if type(f) is child_filter:
        steps, trailing, f = [list(x) for x in f.to_include], f.append_none, f.node_builder
    elif type(f) is no_placeholders:
        steps, f = [[i, expand, 0] for i, expand in f.to_include], f.node_builder
    expand1 = type(f) is expand_single
    if expand1:
        f = f.node_builder
    name = str(rule.alias or rule.options.template_source or rule.origin.name)
    size = len(rule.expansion)
    passes_child_on = size == 1 and expand1 and steps is None
    if f != getattr(_builder, name, None) and not name.startswith("_") and not passes_child_on:
        raise NotImplementedError(f"callback of rule {name}")   # not the plain chain read here
    return [size, str(rule.origin.name), name, expand1, steps, trailing]


class _Inline:
    """An inlined `_rule`'s children, which its parent's filter takes in (lark's Tree)."""

    __slots__ = ("children",)

    def __init__(self, children: list) -> None:
        self.children = children


def _reduce_callback(size: int, name: str, expand1: bool, steps: Optional[list],
                     trailing: int) -> Any:
    """What a reduce of a rule (of `size` symbols) calls on its children, lark's filter
    and builder for it."""
    build = getattr(_builder, name) if not name.startswith("_") else _Inline
    if expand1:
        inner = build
        build = lambda ch: ch[0] if len(ch) == 1 else inner(ch)   # noqa: E731
    if steps is None:
        return build
    picks: list[Optional[int]] = []
    for i, expand, nones in steps:
        if expand:
            return _expanding_filter(steps, trailing, build)
        picks += [None] * nones + [i]
    picks += [None] * trailing
    if picks == list(range(size)):
        return build   # keeps every child (the list is the reduce's own copy)
    if not picks:
        return lambda ch: build([])
    if None in picks:
        # The children list has one slot more, for None (reduced lists are fresh copies).
        get = operator.itemgetter(*[-1 if i is None else i for i in picks])
        if len(picks) == 1:
            return lambda ch: build([None])
        return lambda ch: (ch.append(None), build(list(get(ch))))[1]
    if len(picks) == 1:
        only = picks[0]
        return lambda ch: build([ch[only]])
    get = operator.itemgetter(*picks)
    return lambda ch: build(list(get(ch)))


def _expanding_filter(steps: list, trailing: int, build: Callable) -> Callable:
    """lark's ChildFilterLALR: keep the listed children, an inlined rule's own children in
    its place, and Nones where optional parts are missing. A list that grows by left
    recursion (`_items: _items item | item`) is extended in place, never copied: copying
    made a long statement list quadratic."""
    if build is _Inline and not trailing and len(steps) == 2 and steps[0] == [0, True, 0] \
            and not steps[1][1] and not steps[1][2]:
        # The list grows by one item (`_items: _items item`): the same _Inline, longer.
        item = steps[1][0]

        def grow(children: list) -> _Inline:
            children[0].children.append(children[item])
            return children[0]
        return grow

    def run(children: list) -> Any:
        out: list = []
        for i, expand, nones in steps:
            if nones:
                out += [None] * nones
            if expand:
                if out:
                    out += children[i].children
                else:
                    out = children[i].children   # (each inlined list has one parent)
            else:
                out.append(children[i])
        if trailing:
            out += [None] * trailing
        return build(out)
    return run


def _check_builder(parser: Any) -> None:
    """Fail loudly if a grammar rule would reach the builder without a method for it."""
    _check_builder_names(_builder_names(parser.rules))


def _builder_names(rules: Any) -> list[str]:
    """The names of the builder methods lark's rules call (inlined rules call none)."""
    names = set()
    for rule in rules:
        name = str(rule.alias or rule.origin.name)
        if name.startswith("_") or (rule.options.expand1 and len(rule.expansion) == 1
                                    and not rule.alias):
            continue  # inlined into its parent: never built on its own
        names.add(name)
    return sorted(names)


def _check_builder_names(names: list[str]) -> None:
    for name in names:
        if not callable(getattr(_builder, name, None)):
            raise ParseError(f"internal error: no AST builder for grammar rule {name!r}")


def _expected(e: Any) -> set[str]:
    """The terminals the parser could take where it failed. (A failure found by the
    contextual lexer only lists what that lexer state could match.)"""
    try:
        return {s for s in e.state.parse_conf.states[e.state.position] if s.isupper()}
    except (AttributeError, KeyError, TypeError):
        return set(e.expected or ())


def _terminal_text(name: str, terminals: dict[str, str], tok: Any = None) -> str:
    """How an error message names a terminal (or, given one, a token)."""
    if tok is not None and name in ("NAME", "NUMBER"):
        return f"{name.lower()} {tok.value!r}"
    if name in _TERMINAL_NAMES:
        return _TERMINAL_NAMES[name]
    if tok is not None and tok.value:
        return repr(str(tok.value))
    return terminals.get(name, name)


def _parse(text: str, start: str, src: Source, base: int = 0, expr_mode: bool = False,
           zero_base: bool = True) -> Any:
    """Parse `text`, found at offset `base` of `src`, to AST; every error is a ParseError."""
    driver = _get_driver()
    st = _LexState(text, base, expr_mode, zero_base)

    def at(lo: int, hi: int) -> SourceRange:
        lo = min(max(lo, 0), len(text))
        return src.range(base + lo, base + max(lo, min(hi, len(text))))

    with _lock:  # f-string fields re-enter from inside the builder: an RLock
        saved = _builder.enter(src, base, len(text), st)
        try:
            tree = driver.run(text, st, start)
            if st.edge_ints:   # 2**63 not negated
                raise ParseError(INT_RANGE, next(iter(st.edge_ints.values())).range)
            return tree
        except ParseError:
            raise
        except _SyntaxErr as e:
            raise ParseError(e.message, at(e.start, e.end)) from None
        except _BadCharacter as e:
            pos = e.pos
            ch = text[pos] if pos < len(text) else ""
            msg = "unterminated string literal" if ch in "'\"" else f"invalid character {ch!r}"
            raise ParseError(msg, at(pos, pos + 1)) from None
        except _UnexpectedToken as e:
            tok, expected = e.token, e.expected
            if tok.type == "$END":
                tok = _Tok("$END", "", st.last_end, st.last_end)
            if expected == {"_INDENT"}:
                msg = "expected an indented block"
            elif tok.type == "_INDENT":
                msg = "unexpected indent"
            elif tok.type == "NAME" and (tok.value in _UNSUPPORTED or tok.value == "from"):
                msg = _keyword_message(tok, text)
            else:
                msg = f"invalid syntax: unexpected {_terminal_text(tok.type, driver.terminals, tok)}"
                if 0 < len(expected) <= 4:
                    names = sorted(_terminal_text(x, driver.terminals) for x in expected)
                    msg += "; expected " + " or ".join(names)
            raise ParseError(msg, at(tok.start_pos or 0, tok.end_pos or 0)) from None
        except _UnexpectedEOF:
            raise ParseError("unexpected end of input", at(st.last_end, st.last_end)) from None
        except Exception as e:  # a lark error we did not foresee, or a bug: still a ParseError
            raise ParseError(f"invalid syntax ({type(e).__name__}: {e})",
                             at(st.last_end, st.last_end)) from e
        finally:
            _builder.leave(saved)


# ---------------------------------------------------------------- public API

def parse(text: str, filename: str = "<string>", starting_line: int = 1) -> A.Module:
    """Parse a whole file (an archive `code/` file or a user's source) into a Module."""
    return _checked(_parse(text, "file_input", Source(text, filename, starting_line)))


def _checked(tree: Any) -> Any:
    # Every tree the public functions return is checked once, here: nothing after the
    # parser may meet a tree nested past the source-depth limit.
    check_nesting(tree)
    return tree


def _parse_single(text: str, filename: str, starting_line: int, kind: type, what: str) -> Any:
    return _parse_single_in(Source(text, filename, starting_line), 0, len(text), kind, what)


def _parse_single_in(src: Source, start: int, end: int, kind: type, what: str) -> Any:
    # No dedent: the lexer takes the first line's indentation as the base level, so
    # ranges (and triple-quoted strings) keep pointing into the original text.
    body = _checked(_parse(src.text[start:end], "file_input", src, base=start, zero_base=False)).body
    if len(body) != 1 or not isinstance(body[0], kind):
        where = body[0] if body and not isinstance(body[0], kind) else body[1] if body else None
        raise ParseError(f"expected a single {what}",
                         where.range if where else src.range(start, start))
    return body[0]


def parse_def(text: str, filename: str = "<string>", starting_line: int = 1) -> A.Def:
    """Parse one (possibly indented, possibly decorated) function or method definition."""
    return _parse_single(text, filename, starting_line, A.Def, "function definition")


def parse_class(text: str, filename: str = "<string>", starting_line: int = 1) -> A.ClassDef:
    """Parse one (possibly indented, possibly decorated) class definition."""
    return _parse_single(text, filename, starting_line, A.ClassDef, "class definition")


def expand(stmt: A.Stmt) -> A.Stmt:
    """`stmt` with its spans parsed (a Span, or the Spans of a ClassDef's body): the
    statement parsing the whole file gives, ranges included."""
    if isinstance(stmt, A.Span):
        src, start = stmt.range.source, stmt.range.start
        # From the line's start: its indentation is the base level (see _parse_single_in).
        line_start = src.text.rfind("\n", 0, start) + 1
        if type(stmt) is A.DefSpan:
            return _parse_single_in(src, line_start, stmt.range.end, A.Def, "function definition")
        return _parse_single_in(src, line_start, stmt.range.end, A.Stmt, "statement")
    if isinstance(stmt, A.ClassDef) and any(isinstance(s, A.Span) for s in stmt.body):
        return A.ClassDef(stmt.range, stmt.name, stmt.bases, tuple(expand(s) for s in stmt.body),
                          stmt.decorators)
    return stmt


def parse_expr(text: str, filename: str = "<string>") -> A.Expr:
    """Parse one expression, e.g. a type annotation given as a string."""
    return _checked(_parse(text, "eval_input", Source(text, filename), expr_mode=True))


# ---------------------------------------------------------------- AST building

def _items(ch: list) -> list:
    return [c for c in ch if c is not None]


# Rules whose node is a plain function of (range, children). Children are AST nodes,
# kept tokens (str subclasses, hence the str() calls), lists and None placeholders.
_SIMPLE: dict[str, Callable[[SourceRange, list], Any]] = {
    "pass_stmt": lambda r, ch: A.Pass(r),
    "break_stmt": lambda r, ch: A.Break(r),
    "continue_stmt": lambda r, ch: A.Continue(r),
    "return_stmt": lambda r, ch: A.Return(r, ch[1]),
    "raise_stmt": lambda r, ch: A.Raise(r, ch[1]),
    "assert_stmt": lambda r, ch: A.Assert(r, ch[1], ch[2]),
    "while_stmt": lambda r, ch: A.While(r, ch[1], ch[2]),
    "with_stmt": lambda r, ch: A.With(r, tuple(ch[1:-1]), ch[-1]),
    "elif_clause": lambda r, ch: A.If(r, ch[1], ch[2], ()),  # if_stmt nests the chain
    "star_marker": lambda r, ch: A.Param(r, "*", None, None),  # the bare `*`: see funcdef
    "param": lambda r, ch: A.Param(r, str(ch[0]), ch[1], ch[2]),
    "classdef": lambda r, ch: A.ClassDef(r, str(ch[1]), tuple(ch[2] or ()), ch[3]),
    "ifexp": lambda r, ch: A.IfExp(r, ch[1], ch[0], ch[2]),
    "not_op": lambda r, ch: A.UnaryOp(r, "not", ch[1]),
    "power": lambda r, ch: A.BinOp(r, "**", ch[0], ch[1]),
    "starred_arg": lambda r, ch: A.Starred(r, ch[1]),
    "star_expr": lambda r, ch: A.Starred(r, ch[1]),
    "getitem": lambda r, ch: A.Subscript(r, ch[0], ch[1]),
    "getattr": lambda r, ch: A.Attribute(r, ch[0], str(ch[1])),
    "slice": lambda r, ch: A.Slice(r, ch[0], ch[2], ch[4]),  # [lo] : [up] [: [step]]
    "tuple_bare": lambda r, ch: A.TupleLit(r, tuple(_items(ch))),
    "subscript_tuple": lambda r, ch: A.TupleLit(r, tuple(_items(ch))),
    "empty_tuple": lambda r, ch: A.TupleLit(r, ()),
    "paren_tuple": lambda r, ch: A.TupleLit(r, tuple(ch[1])),
    "list_lit": lambda r, ch: A.ListLit(r, tuple(ch[1] or ())),
    "dict_lit": lambda r, ch: A.DictLit(r, tuple(k for k, _ in ch[1] or ()),
                                        tuple(v for _, v in ch[1] or ())),
    "dict_comp": lambda r, ch: A.DictComp(r, ch[1], ch[2], tuple(ch[3:-1])),
    "ellipsis": lambda r, ch: A.Constant(r, ...),
    "const_none": lambda r, ch: A.Constant(r, None),
    "const_true": lambda r, ch: A.Constant(r, True),
    "const_false": lambda r, ch: A.Constant(r, False),
}
# Rules whose result is a plain function of the children (no node, so no range).
_CHILDREN: dict[str, Callable[[list], Any]] = {
    "eval_input": lambda ch: ch[0],
    "decorator": lambda ch: ch[0],
    "comp_if": lambda ch: ch[1],
    "elifs": lambda ch: ch,
    "suite": lambda ch: _flatten(ch),
    "dict_pair": lambda ch: (ch[0], ch[1]),
    **{rule: lambda ch: _items(ch) for rule in (
        "simple_stmt", "parameters", "bases", "arguments", "tuple_items", "list_items",
        "del_targets", "dict_items")},
}
_ASSIGNABLE = (A.Name, A.Attribute, A.Subscript)
_KIND = {A.Call: "function call", A.Constant: "literal", A.JoinedStr: "f-string expression",
         A.Compare: "comparison", A.IfExp: "conditional expression", A.DictLit: "dict literal",
         A.ListComp: "list comprehension", A.DictComp: "dict comprehension",
         A.Starred: "starred expression"}


class _Builder:
    """Builds AST nodes while lark reduces: the method (or _SIMPLE entry) named after a
    rule or alias gets that rule's children.

    A node's range runs from its first child's start to its last child's end; the grammar
    keeps the tokens (keywords, brackets) at the edges of a construct for this. The
    per-parse state is swapped by `enter`/`leave`: f-string fields are parsed re-entrantly.
    """

    def __init__(self) -> None:
        self.src: Any = None
        self.base = self.length = 0
        self.st: Any = None
        for rule, make in _SIMPLE.items():
            setattr(self, rule, self._simple(make))
        for rule, make in _CHILDREN.items():
            setattr(self, rule, make)

    def _simple(self, make: Callable[[SourceRange, list], Any]) -> Callable[[list], Any]:
        rng = self.rng
        return lambda ch: make(rng(ch), ch)   # (one call: a partial of a method is three)

    def enter(self, src: Source, base: int, length: int, st: _LexState) -> tuple:
        saved = (self.src, self.base, self.length, self.st)
        self.src, self.base, self.length, self.st = src, base, length, st
        return saved

    def leave(self, saved: tuple) -> None:
        self.src, self.base, self.length, self.st = saved

    # -- ranges and checks
    def _edge(self, x: Any, end: bool) -> Optional[int]:
        if isinstance(x, A.Node):
            p = self.st.parens.get(id(x)) if self.st.parens else None
            if p is not None:
                return p[2] if end else p[1]
            return x.range.end if end else x.range.start
        if isinstance(x, str):  # a lark Token
            return self.base + (x.end_pos if end else x.start_pos)
        if isinstance(x, (list, tuple)):
            for y in (reversed(x) if end else x):
                pos = self._edge(y, end)
                if pos is not None:
                    return pos
        return None

    def _outer(self, items: Any, end: bool) -> Optional[int]:
        """_edge of the first of `items` that has one, with its usual cases (a token, a
        node not in parentheses) inline: this runs twice for nearly every node built."""
        for y in items:
            if y is not None:
                if type(y) is _Tok:
                    return self.base + (y.end_pos if end else y.start_pos)
                if isinstance(y, A.Node) and id(y) not in self.st.parens:
                    return y.range.end if end else y.range.start
                pos = self._edge(y, end)
                if pos is not None:
                    return pos
        return None

    def rng(self, ch: list) -> SourceRange:
        start, end = self._outer(ch, False), self._outer(reversed(ch), True)
        if start is None:  # nothing to measure (cannot happen with this grammar)
            start = end = self.base + self.st.last_end
        return SourceRange(self.src, start, end)

    def check_target(self, t: A.Expr, what: str = "assign to", starred_ok: bool = False) -> None:
        if isinstance(t, _ASSIGNABLE):
            return
        if isinstance(t, (A.TupleLit, A.ListLit)) and what != "use augmented assignment on":
            if sum(isinstance(e, A.Starred) for e in t.elts) > 1:
                raise ParseError("multiple starred expressions in assignment", t.range)
            for e in t.elts:
                self.check_target(e, what, starred_ok=what == "assign to")
            return
        if isinstance(t, A.Starred) and starred_ok:
            return self.check_target(t.value, what)
        kind = _KIND.get(type(t), "tuple" if isinstance(t, A.TupleLit) else "expression")
        raise ParseError(f"cannot {what} {kind}", t.range)

    def type_comment(self, lo: int, hi: Optional[int]) -> Optional[str]:
        """The first `# type:` comment in [lo, hi) or, if hi is None, on the rest of the line."""
        comments = self.st.type_comments  # (Source offset, text), in source order
        i = bisect.bisect_left(comments, (lo, ""))
        if i == len(comments):
            return None
        off, text = comments[i]
        if hi is None:
            return text if self.src.text[lo:off].strip() in ("", ";") else None
        return text if off < hi else None

    # -- statements
    def file_input(self, ch: list) -> A.Module:
        return A.Module(SourceRange(self.src, self.base, self.base + self.length), _flatten(ch))

    def expr_stmt(self, ch: list) -> A.ExprStmt:
        if isinstance(ch[0], A.Starred):
            raise ParseError("can't use starred expression here", ch[0].range)
        return A.ExprStmt(self.rng(ch), ch[0])

    def assign_stmt(self, ch: list) -> A.Assign:
        for t in ch[:-1]:
            self.check_target(t)
        r = self.rng(ch)
        return A.Assign(r, tuple(ch[:-1]), ch[-1], self.type_comment(r.end, None))

    def annassign_stmt(self, ch: list) -> A.AnnAssign:
        if not isinstance(ch[0], _ASSIGNABLE):
            raise ParseError("only a single name, attribute or subscript can be annotated",
                             ch[0].range)
        return A.AnnAssign(self.rng(ch), ch[0], ch[1], ch[2])

    def augassign_stmt(self, ch: list) -> A.AugAssign:
        self.check_target(ch[0], "use augmented assignment on")
        return A.AugAssign(self.rng(ch), ch[0], str(ch[1])[:-1], ch[2])

    def del_stmt(self, ch: list) -> A.Delete:
        for t in ch[1]:
            self.check_target(t, "delete")
        return A.Delete(self.rng(ch), tuple(ch[1]))

    def if_stmt(self, ch: list) -> A.If:
        r, orelse = self.rng(ch), ch[4] or ()
        for e in reversed(ch[3]):  # `elif` = an If alone in the previous `orelse`
            orelse = (A.If(SourceRange(self.src, e.range.start, r.end), e.test, e.body, orelse),)
        return A.If(r, ch[1], ch[2], orelse)

    def for_stmt(self, ch: list) -> A.For:
        self.check_target(ch[1])
        return A.For(self.rng(ch), ch[1], ch[2], ch[3])

    def with_item(self, ch: list) -> A.WithItem:
        if ch[1] is not None:
            self.check_target(ch[1])
        return A.WithItem(self.rng(ch), ch[0], ch[1])

    def decorated(self, ch: list) -> A.Stmt:
        # Like Python's ast, the definition's range starts at `def`/`class`.
        return dataclasses.replace(ch[-1], decorators=tuple(ch[:-1]))

    def funcdef(self, ch: list) -> A.Def:
        _, name, items, returns, colon, body = ch
        params: list[A.Param] = []
        seen: set[str] = set()
        star = None
        for item in items or ():
            if item.name == "*":
                if star is not None:
                    raise ParseError("* argument may appear only once", item.range)
                star = item
                continue
            if item.name in seen:
                raise ParseError(f"duplicate argument '{item.name}' in function definition",
                                 item.range)
            seen.add(item.name)
            if (star is None and item.default is None and params
                    and params[-1].default is not None):
                raise ParseError("non-default argument follows default argument", item.range)
            params.append(item if star is None else dataclasses.replace(item, kwarg_only=True))
        if star is not None and (not params or not params[-1].kwarg_only):
            raise ParseError("named arguments must follow bare *", star.range)
        tc = self.type_comment(self.base + colon.end_pos, body[0].range.start)
        return A.Def(self.rng(ch), str(name), tuple(params), returns, body, (), tc)

    # -- expressions
    def _boolop(self, op: str, ch: list) -> A.Expr:
        acc = ch[0]
        for right in ch[1:]:  # left-associative pairs: (a or b) or c
            r = SourceRange(self.src, self._edge(acc, False), self._edge(right, True))
            acc = A.BoolOp(r, op, acc, right)
        return acc

    def or_test(self, ch: list) -> A.Expr:
        return self._boolop("or", ch)

    def and_test(self, ch: list) -> A.Expr:
        return self._boolop("and", ch)

    def comparison(self, ch: list) -> A.Compare:
        ops: list[str] = []
        comparators: list[A.Expr] = []
        words: list[str] = []
        for c in ch[1:]:
            if isinstance(c, str):
                words.append(str(c))
            else:  # "not in" -> not_in, "is not" -> is_not
                ops.append("_".join(words))
                comparators.append(c)
                words = []
        return A.Compare(self.rng(ch), ch[0], tuple(ops), tuple(comparators))

    def _binops(self, ch: list) -> A.Expr:
        acc = ch[0]
        for i in range(1, len(ch), 2):  # [a, op, b, op, c]: left-associative
            r = SourceRange(self.src, self._edge(acc, False), self._edge(ch[i + 1], True))
            acc = A.BinOp(r, str(ch[i]), acc, ch[i + 1])
        return acc

    expr = xor_expr = and_expr = shift_expr = arith_expr = term = _binops

    def call(self, ch: list) -> A.Call:
        args: list[A.Expr] = []
        keywords: list[A.Keyword] = []
        for a in ch[1] or ():
            if isinstance(a, A.Keyword):
                if any(k.name == a.name for k in keywords):
                    raise ParseError(f"keyword argument repeated: {a.name}", a.range)
                keywords.append(a)
            elif keywords and not isinstance(a, A.Starred):
                raise ParseError("positional argument follows keyword argument", a.range)
            else:
                args.append(a)
        return A.Call(self.rng(ch), ch[0], tuple(args), tuple(keywords))

    def kwarg(self, ch: list) -> A.Keyword:
        if not isinstance(ch[0], A.Name):
            raise ParseError('expression cannot contain assignment, perhaps you meant "=="?',
                             self.rng(ch))
        return A.Keyword(self.rng(ch), ch[0].id, ch[1])

    def name(self, ch: list) -> A.Name:
        # (one token: its range directly; a name is about one node in three)
        tok, base = ch[0], self.base
        return A.Name(SourceRange(self.src, base + tok.start_pos, base + tok.end_pos), str(tok))

    def number(self, ch: list) -> A.Constant:
        tok, base = ch[0], self.base
        r = SourceRange(self.src, base + tok.start_pos, base + tok.end_pos)
        node = A.Constant(r, _number(str(tok), r))
        if node.value == _INT64_EDGE and type(node.value) is int:
            self.st.edge_ints[id(node)] = node
        return node

    def unary(self, ch: list) -> A.UnaryOp:
        if ch[0] == "-" and self.st.edge_ints:
            self.st.edge_ints.pop(id(ch[1]), None)
        return A.UnaryOp(self.rng(ch), str(ch[0]), ch[1])

    def paren(self, ch: list) -> A.Expr:
        inner = ch[1]
        if isinstance(inner, A.Starred):
            raise ParseError("can't use starred expression here", inner.range)
        self.st.parens[id(inner)] = (inner, self._edge(ch[0], False), self._edge(ch[2], True))
        return inner

    def list_comp(self, ch: list) -> A.ListComp:
        if isinstance(ch[1], A.Starred):
            raise ParseError("iterable unpacking cannot be used in comprehension", ch[1].range)
        return A.ListComp(self.rng(ch), ch[1], tuple(ch[2:-1]))

    def comp_for(self, ch: list) -> A.Comprehension:
        self.check_target(ch[1])
        return A.Comprehension(self.rng(ch), ch[1], ch[2], tuple(ch[3:]))

    def strings(self, toks: list) -> A.Expr:
        """Adjacent literals: one Constant(str), or a JoinedStr if any is an f-string."""
        parts: list[A.Expr] = []
        is_f = False
        for tok in toks:
            s = str(tok)
            where = SourceRange(self.src, self.base + tok.start_pos, self.base + tok.end_pos)
            q = min(i for i in (s.find('"'), s.find("'")) if i >= 0)
            prefix = s[:q].lower()
            if "b" in prefix:
                raise ParseError("bytes literals are not supported in TorchScript", where)
            if "f" not in prefix:
                parts.append(A.Constant(where, _string_value(s, q, where)))
                continue
            is_f = True
            quote = s[q:q + 3] if s[q:q + 3] in ('"""', "'''") else s[q]
            body = s[q + len(quote):len(s) - len(quote)]
            parts.extend(_FString(self, body, where.start + q + len(quote), "r" in prefix).parse())
        if not is_f:
            return A.Constant(self.rng(toks), "".join(p.value for p in parts))
        merged: list[A.Expr] = []
        for p in parts:  # adjacent literal pieces become one Constant, as in Python
            if isinstance(p, A.Constant) and merged and isinstance(merged[-1], A.Constant):
                merged[-1] = A.Constant(merged[-1].range.merge(p.range), merged[-1].value + p.value)
            elif not (isinstance(p, A.Constant) and p.value == ""):
                merged.append(p)
        return A.JoinedStr(self.rng(toks), tuple(merged))

    def sub_expr(self, text: str, offset: int) -> A.Expr:
        """Parse an f-string field's expression, found at `offset` of the current source."""
        return _parse(text, "eval_input", self.src, offset, expr_mode=True)


_lark_postlexer = _LarkPostLexer()
_builder = _Builder()


def _flatten(items: list) -> tuple:
    out: list = []
    for it in items:
        if isinstance(it, (list, tuple)):
            out.extend(it)
        elif it is not None:
            out.append(it)
    return tuple(out)


# ---------------------------------------------------------------- literals

def _literal_eval(text: str, where: SourceRange) -> Any:
    try:
        with warnings.catch_warnings():  # invalid escapes like "\d" only warn in Python
            warnings.simplefilter("ignore")
            return _pyast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError) as e:
        msg = getattr(e, "msg", None) or str(e)
        raise ParseError(f"invalid literal: {msg}", where) from None


def _string_value(s: str, q: int, where: SourceRange) -> str:
    n = 3 if s[q:q + 3] in ('"""', "'''") else 1
    if q == 0 and "\\" not in s and "\r" not in s:
        return s[n:len(s) - n]  # fast path: nothing to decode
    return _literal_eval(s, where)


# As PyTorch: integers are int64; 2**63 may only be negated.
INT_RANGE = "Integral constant out of range (must fit in a signed 64 bit integer)"
_INT64_EDGE = 1 << 63


def _number(s: str, where: SourceRange) -> Any:
    low = s.lower()
    try:
        if low.endswith("j"):
            return complex(s)
        if low.startswith(("0x", "0o", "0b")):
            value = int(s, 0)
            if value > _INT64_EDGE:
                raise ParseError(INT_RANGE, where)
            return value
        if "." in low or "e" in low:
            return float(s)
        if len(low) > 1 and low[0] == "0" and low.strip("0_"):
            raise ParseError("leading zeros in decimal integer literals are not permitted; "
                             "use an 0o prefix for octal integers", where)
        digits = s.replace("_", "").lstrip("0") or "0"
        value = int(digits) if len(digits) <= 20 else _INT64_EDGE + 1
        if value > _INT64_EDGE:
            raise ParseError(INT_RANGE, where)
        return value
    except ValueError as e:
        raise ParseError(f"invalid number literal: {e}", where) from None


_ESCAPE_SCAN = re.compile(r'\\(?:.|\n)|\\\Z|"', re.S)


def _decode_escapes(chunk: str, where: SourceRange) -> str:
    """Decode the escapes of an f-string's literal part exactly as Python does."""
    if "\\" not in chunk and "\r" not in chunk:
        return chunk
    # Re-quote it as a plain triple-quoted literal for literal_eval: bare quotes and a lone
    # trailing backslash (left before a `{` field) get escaped; the rest is verbatim.
    quoted = _ESCAPE_SCAN.sub(lambda m: {'"': '\\"', "\\": "\\\\"}.get(m.group(), m.group()),
                              chunk)
    return _literal_eval('"""' + quoted + '"""', where)


class _FString:
    """Splits an f-string's body into Constant / FormattedValue parts (Python 3.11 rules)."""

    def __init__(self, builder: _Builder, body: str, offset: int, raw: bool) -> None:
        self.b, self.src, self.body, self.off, self.raw = builder, builder.src, body, offset, raw

    def err(self, msg: str, i: int, j: Optional[int] = None) -> ParseError:
        return ParseError("f-string: " + msg, self.src.range(self.off + i, self.off + (j or i + 1)))

    def parse(self) -> list[A.Expr]:
        return self.literal(0, nested=False)[0]

    def literal(self, i: int, nested: bool) -> tuple[list[A.Expr], int]:
        """Text and fields from `i` to the end or, in a format spec, to its closing `}`."""
        body, parts, buf, lit_start, chunk = self.body, [], [], i, i

        def flush(end: int) -> None:
            text = "".join(buf) + body[chunk:end]
            buf.clear()
            if text:
                where = self.src.range(self.off + lit_start, self.off + end)
                parts.append(A.Constant(where, text if self.raw else _decode_escapes(text, where)))

        while i < len(body):
            c = body[i]
            if c == "\\" and not self.raw:
                if body.startswith("N{", i + 1):  # \N{NAME}: its braces are not a field
                    close = body.find("}", i)
                    i = close + 1 if close >= 0 else len(body)
                else:  # a backslash before a brace stays literal; the brace still counts
                    i += 1 if body[i + 1:i + 2] in ("{", "}") else 2
            elif c in "{}" and body[i + 1:i + 2] == c and not nested:  # `{{`, `}}`: braces
                buf.append(body[chunk:i + 1])
                i = chunk = i + 2
            elif c == "{":
                flush(i)
                field, i = self.field(i)
                parts.extend(field)
                lit_start = chunk = i
            elif c == "}":
                if nested:
                    break
                raise self.err("single '}' is not allowed", i)
            else:
                i += 1
        flush(i)
        return parts, i

    def field(self, i: int) -> tuple[list[A.Expr], int]:
        """One `{expr[=][!c][:spec]}` starting at `i`: its parts and the index after it."""
        body, j, depth, n = self.body, i + 1, 0, len(self.body)
        selfdoc = False
        while j < n:  # find where the expression ends
            c = body[j]
            if c in "([{":
                depth += 1
            elif c in ")]}":
                if depth == 0:
                    break
                depth -= 1
            elif c in "'\"":
                j = body.find(c, j + 1)
                if j < 0:
                    raise self.err("unterminated string", i, n)
            elif c in "#\\":
                what = "'#'" if c == "#" else "a backslash"
                raise self.err(f"expression part cannot include {what}", j)
            elif c in "=!<>" and body[j + 1:j + 2] == "=":
                j += 1  # the operators == != <= >=
            elif depth == 0 and c in "!:=":
                selfdoc = c == "="
                break
            j += 1
        if not body[i + 1:j].strip():
            raise self.err("empty expression not allowed", i, j + 1)
        value = self.b.sub_expr(body[i + 1:j], self.off + i + 1)
        parts: list[A.Expr] = []
        if selfdoc:  # f"{x = }" is "x = " followed by repr(x)
            j += 1
            while j < n and body[j] in " \t\n":
                j += 1
            parts.append(A.Constant(self.src.range(self.off + i + 1, self.off + j), body[i + 1:j]))
        conversion = spec = None
        if j < n and body[j] == "!":
            conversion = body[j + 1:j + 2]
            if conversion not in ("s", "r", "a") or body[j + 2:j + 3] not in (":", "}"):
                raise self.err("invalid conversion character: expected 's', 'r', or 'a'", j)
            j += 2
        if j < n and body[j] == ":":
            spec_parts, end = self.literal(j + 1, nested=True)
            spec = A.JoinedStr(self.src.range(self.off + j + 1, self.off + end), tuple(spec_parts))
            j = end
        if j >= n or body[j] != "}":
            raise self.err("expecting '}'", i, j)
        if selfdoc and conversion is None and spec is None:
            conversion = "r"
        parts.append(A.FormattedValue(self.src.range(self.off + i, self.off + j + 1), value,
                                      conversion, spec))
        return parts, j + 1
