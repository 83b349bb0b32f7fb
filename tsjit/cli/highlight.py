"""Python source as HTML, one string per line, over the tokens of the stdlib `tokenize`.

Each token becomes `<span class="CLASS">` (CLASS: k keyword, b builtin or constant, s string,
n number, c comment, o operator, f name being defined); a token spanning lines is closed
at each line end and reopened on the next, so the lines can be laid out separately.
Text tokenize cannot read (an unterminated string) is shown plain from there on.
"""
from __future__ import annotations

import builtins
import html
import io
import keyword
import tokenize

_BUILTINS = frozenset(dir(builtins)) | {"torch", "ops", "self"}


def highlight_lines(text: str) -> list[str]:
    """The HTML of each line of `text` (escaped, with token spans)."""
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    out: list[str] = []
    at = 0
    previous = ""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            begin = _offset(starts, tok.start)
            end = _offset(starts, tok.end)
            if begin < at or end > len(text):
                continue
            out.append(_spans(text[at:begin], ""))
            out.append(_spans(text[begin:end], _class(tok, previous)))
            at = end
            if tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                                tokenize.DEDENT, tokenize.COMMENT):
                previous = tok.string
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    out.append(_spans(text[at:], ""))
    return "".join(out).split("\n")


def _offset(starts: list[int], pos: tuple[int, int]) -> int:
    row, col = pos
    return starts[min(row - 1, len(starts) - 1)] + col


def _class(tok: tokenize.TokenInfo, previous: str) -> str:
    if tok.type == tokenize.NAME:
        if previous in ("def", "class"):
            return "f"
        if keyword.iskeyword(tok.string):
            return "k"
        return "b" if tok.string in _BUILTINS else ""
    return {tokenize.STRING: "s", tokenize.NUMBER: "n", tokenize.COMMENT: "c",
            tokenize.OP: "o"}.get(tok.type, "")


def _spans(text: str, cls: str) -> str:
    """`text` escaped, wrapped in a span of class `cls` on each of its lines."""
    if not cls:
        return html.escape(text, quote=False)
    return "\n".join(f'<span class="{cls}">{html.escape(part, quote=False)}</span>' if part else ""
                     for part in text.split("\n"))
