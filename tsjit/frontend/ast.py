"""The TorchScript abstract syntax tree: dataclasses, each with a source range.

Nodes are never changed once built. They are not frozen dataclasses because those take
three times as long to build (each field set through object.__setattr__), and parsing and
archive loading build many; __slots__ keeps them small.

Only `parser.py` builds these (from lark trees), with one exception: the outline of an
archive's code (`code_outline.py`) builds a Module of ClassDefs (bases as Names) whose
statements it leaves unparsed as spans (`DefSpan`, `DeclSpan`: `Span` nodes, with what
loading reads of them), and `parser.expand` parses a span to the statement the parser
gives for the whole file. Everything after the parser sees only these classes. Abstract
grammar:

    Module     = (Def | ClassDef | Stmt)*
    Def        = name, Param*, returns?, Stmt*, decorators, type_comment?
    Param      = name, annotation?, default?, kwarg_only
    ClassDef   = name, bases, Stmt*, decorators
    Stmt       = ExprStmt(value) | Assign(targets+, value, type_comment?)
               | AnnAssign(target, annotation, value?) | AugAssign(target, op, value)
               | If(test, body, orelse) | While(test, body) | For(target, iter, body)
               | Return(value?) | Raise(exc?) | Assert(test, msg?) | Pass | Break
               | Continue | Delete(targets) | With(items, body) | Def | ClassDef
               | DefSpan(name) | DeclSpan(kind, name, value)    (archive code, unparsed)
    Expr       = Name(id) | Constant(value) | JoinedStr(parts) | FormattedValue(value,
                 conversion?, format_spec?) | Attribute(value, attr) | Subscript(value,
                 index) | Slice(lower?, upper?, step?) | Call(func, args, keywords)
               | BinOp(op, left, right) | UnaryOp(op, operand) | BoolOp(op, left, right)
               | Compare(left, ops, comparators) | IfExp(test, body, orelse)
               | ListLit(elts) | TupleLit(elts) | DictLit(keys, values) | Starred(value)
               | ListComp(elt, generators) | DictComp(key, value, generators)
    Comprehension = target, iter, ifs

Operator spellings are Python's: BinOp op in `+ - * / // % ** @ << >> & | ^`,
UnaryOp op in `- + ~ not`, BoolOp op in `and or`, Compare ops in
`== != < <= > >= is is_not in not_in`, AugAssign op as the BinOp it applies.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Union

from ..ir.diagnostics import SourceRange


@dataclass(eq=False, slots=True)
class Node:
    range: SourceRange


# --- expressions -------------------------------------------------------------------

@dataclass(eq=False, slots=True)
class Expr(Node):
    pass


@dataclass(eq=False, slots=True)
class Name(Expr):
    id: str


@dataclass(eq=False, slots=True)
class Constant(Expr):
    """int, float, complex, str, bool, None or Ellipsis (`...`)."""

    value: Any


@dataclass(eq=False, slots=True)
class FormattedValue(Expr):
    """One `{value!conversion:format_spec}` of an f-string."""

    value: Expr
    conversion: Optional[str]  # "s", "r", "a" or None
    format_spec: Optional[Expr]  # a JoinedStr or None


@dataclass(eq=False, slots=True)
class JoinedStr(Expr):
    """An f-string: Constant(str) and FormattedValue parts in order."""

    parts: tuple[Expr, ...]


@dataclass(eq=False, slots=True)
class Attribute(Expr):
    value: Expr
    attr: str


@dataclass(eq=False, slots=True)
class Slice(Expr):
    lower: Optional[Expr]
    upper: Optional[Expr]
    step: Optional[Expr]


@dataclass(eq=False, slots=True)
class Subscript(Expr):
    """`value[index]`; a multi-dimensional index is a TupleLit of Exprs/Slices."""

    value: Expr
    index: Expr


@dataclass(eq=False, slots=True)
class Keyword(Node):
    name: str
    value: Expr


@dataclass(eq=False, slots=True)
class Starred(Expr):
    value: Expr


@dataclass(eq=False, slots=True)
class Call(Expr):
    func: Expr
    args: tuple[Expr, ...]
    keywords: tuple[Keyword, ...]


@dataclass(eq=False, slots=True)
class BinOp(Expr):
    op: str
    left: Expr
    right: Expr


@dataclass(eq=False, slots=True)
class UnaryOp(Expr):
    op: str
    operand: Expr


@dataclass(eq=False, slots=True)
class BoolOp(Expr):
    op: str  # "and" | "or"
    left: Expr
    right: Expr


@dataclass(eq=False, slots=True)
class Compare(Expr):
    """A (possibly chained) comparison: left ops[0] comparators[0] ops[1] ..."""

    left: Expr
    ops: tuple[str, ...]
    comparators: tuple[Expr, ...]


@dataclass(eq=False, slots=True)
class IfExp(Expr):
    test: Expr
    body: Expr
    orelse: Expr


@dataclass(eq=False, slots=True)
class ListLit(Expr):
    elts: tuple[Expr, ...]


@dataclass(eq=False, slots=True)
class TupleLit(Expr):
    elts: tuple[Expr, ...]


@dataclass(eq=False, slots=True)
class DictLit(Expr):
    keys: tuple[Expr, ...]
    values: tuple[Expr, ...]


@dataclass(eq=False, slots=True)
class Comprehension(Node):
    target: Expr
    iter: Expr
    ifs: tuple[Expr, ...]


@dataclass(eq=False, slots=True)
class ListComp(Expr):
    elt: Expr
    generators: tuple[Comprehension, ...]


@dataclass(eq=False, slots=True)
class DictComp(Expr):
    key: Expr
    value: Expr
    generators: tuple[Comprehension, ...]


# --- statements --------------------------------------------------------------------

@dataclass(eq=False, slots=True)
class Stmt(Node):
    pass


@dataclass(eq=False, slots=True)
class ExprStmt(Stmt):
    value: Expr


@dataclass(eq=False, slots=True)
class Assign(Stmt):
    """`t1 = t2 = value`; targets in source order."""

    targets: tuple[Expr, ...]
    value: Expr
    type_comment: Optional[str] = None


@dataclass(eq=False, slots=True)
class AnnAssign(Stmt):
    target: Expr
    annotation: Expr
    value: Optional[Expr]


@dataclass(eq=False, slots=True)
class AugAssign(Stmt):
    target: Expr
    op: str
    value: Expr


@dataclass(eq=False, slots=True)
class If(Stmt):
    """`elif` chains are nested Ifs as the single statement of `orelse`."""

    test: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]


@dataclass(eq=False, slots=True)
class While(Stmt):
    test: Expr
    body: tuple[Stmt, ...]


@dataclass(eq=False, slots=True)
class For(Stmt):
    target: Expr
    iter: Expr
    body: tuple[Stmt, ...]


@dataclass(eq=False, slots=True)
class Return(Stmt):
    value: Optional[Expr]


@dataclass(eq=False, slots=True)
class Raise(Stmt):
    exc: Optional[Expr]


@dataclass(eq=False, slots=True)
class Assert(Stmt):
    test: Expr
    msg: Optional[Expr]


@dataclass(eq=False, slots=True)
class Pass(Stmt):
    pass


@dataclass(eq=False, slots=True)
class Break(Stmt):
    pass


@dataclass(eq=False, slots=True)
class Continue(Stmt):
    pass


@dataclass(eq=False, slots=True)
class Delete(Stmt):
    targets: tuple[Expr, ...]


@dataclass(eq=False, slots=True)
class WithItem(Node):
    context: Expr
    var: Optional[Expr]


@dataclass(eq=False, slots=True)
class With(Stmt):
    items: tuple[WithItem, ...]
    body: tuple[Stmt, ...]


@dataclass(eq=False, slots=True)
class Param(Node):
    name: str
    annotation: Optional[Expr]
    default: Optional[Expr]
    kwarg_only: bool = False


@dataclass(eq=False, slots=True)
class Def(Stmt):
    """A function or method. `type_comment` is the `# type: (int) -> int` text, if any."""

    name: str
    params: tuple[Param, ...]
    returns: Optional[Expr]
    body: tuple[Stmt, ...]
    decorators: tuple[Expr, ...] = ()
    type_comment: Optional[str] = None


@dataclass(eq=False, slots=True)
class ClassDef(Stmt):
    name: str
    bases: tuple[Expr, ...]
    body: tuple[Stmt, ...]
    decorators: tuple[Expr, ...] = ()


@dataclass(eq=False, slots=True)
class Span(Stmt):
    """A statement of archive code not parsed yet: its text is `range`'s (which starts
    after the line's indentation); `parser.expand` parses it."""


@dataclass(eq=False, slots=True)
class DefSpan(Span):
    """A function or method definition, parsed when the function is first compiled."""

    name: str


@dataclass(eq=False, slots=True)
class DeclSpan(Span):
    """A one-line declaration of a class body, and what loading reads of it (`kind`):

    "attr"   `name : T` or `__annotations__["name"] = T`; `value` is T's text
    "names"  `name = ["a", "b", ]` (`__parameters__`, `__buffers__`, `__annotations__`);
             `value` is the tuple of the strings listed
    "final"  `name : Final[T] = v`, v a number, bool, None, plain string or a tuple of
             numbers; `value` is v
    "stmt"   any other statement; `name` is "" and `value` None (only the parser reads it)
    """

    kind: str
    name: str
    value: Any


@dataclass(eq=False, slots=True)
class Module(Node):
    """A whole file (a `code/` file of an archive, or a user's source snippet)."""

    body: tuple[Stmt, ...]


AnyNode = Union[Expr, Stmt, Module]
