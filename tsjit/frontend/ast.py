"""The TorchScript abstract syntax tree: dataclasses, each with a source range.

Nodes are never changed once built. They are not frozen dataclasses because those take
three times as long to build (each field set through object.__setattr__), and parsing and
archive loading build many; __slots__ keeps them small. Nor are they made by `dataclass()`:
it cost 10 ms of every process's first parse (an exec per method per class); `_NodeType`
gives each class the __slots__ of the fields it declares, and `_build` its __init__. They behave as `@dataclass(eq=False, slots=True)` classes
(`dataclasses.fields` and `dataclasses.replace` work; equality is identity).

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

import dataclasses
import functools
import types
from typing import Any, Optional, Union

from ..ir.diagnostics import SourceRange


class _NodeType(type):
    """Node classes: the fields a class declares (its annotations) become its __slots__;
    their defaults are kept aside for its __init__ (a class attribute would shadow a slot)."""

    def __new__(mcls, name: str, bases: tuple, ns: dict) -> "_NodeType":
        own = ns.get("__annotations__", {})
        defaults = {f: ns.pop(f) for f in own if f in ns}
        ns["__slots__"] = tuple(own)
        cls = super().__new__(mcls, name, bases, ns)
        cls._own_defaults = defaults
        return cls


class Node(metaclass=_NodeType):
    range: SourceRange

    def __repr__(self) -> str:
        fields = ", ".join(f"{f}={getattr(self, f)!r}" for f in type(self).__dataclass_fields__)
        return f"{type(self).__qualname__}({fields})"


# --- expressions -------------------------------------------------------------------

class Expr(Node):
    pass


class Name(Expr):
    id: str


class Constant(Expr):
    """int, float, complex, str, bool, None or Ellipsis (`...`)."""

    value: Any


class FormattedValue(Expr):
    """One `{value!conversion:format_spec}` of an f-string."""

    value: Expr
    conversion: Optional[str]  # "s", "r", "a" or None
    format_spec: Optional[Expr]  # a JoinedStr or None


class JoinedStr(Expr):
    """An f-string: Constant(str) and FormattedValue parts in order."""

    parts: tuple[Expr, ...]


class Attribute(Expr):
    value: Expr
    attr: str


class Slice(Expr):
    lower: Optional[Expr]
    upper: Optional[Expr]
    step: Optional[Expr]


class Subscript(Expr):
    """`value[index]`; a multi-dimensional index is a TupleLit of Exprs/Slices."""

    value: Expr
    index: Expr


class Keyword(Node):
    name: str
    value: Expr


class Starred(Expr):
    value: Expr


class Call(Expr):
    func: Expr
    args: tuple[Expr, ...]
    keywords: tuple[Keyword, ...]


class BinOp(Expr):
    op: str
    left: Expr
    right: Expr


class UnaryOp(Expr):
    op: str
    operand: Expr


class BoolOp(Expr):
    op: str  # "and" | "or"
    left: Expr
    right: Expr


class Compare(Expr):
    """A (possibly chained) comparison: left ops[0] comparators[0] ops[1] ..."""

    left: Expr
    ops: tuple[str, ...]
    comparators: tuple[Expr, ...]


class IfExp(Expr):
    test: Expr
    body: Expr
    orelse: Expr


class ListLit(Expr):
    elts: tuple[Expr, ...]


class TupleLit(Expr):
    elts: tuple[Expr, ...]


class DictLit(Expr):
    keys: tuple[Expr, ...]
    values: tuple[Expr, ...]


class Comprehension(Node):
    target: Expr
    iter: Expr
    ifs: tuple[Expr, ...]


class ListComp(Expr):
    elt: Expr
    generators: tuple[Comprehension, ...]


class DictComp(Expr):
    key: Expr
    value: Expr
    generators: tuple[Comprehension, ...]


# --- statements --------------------------------------------------------------------

class Stmt(Node):
    pass


class ExprStmt(Stmt):
    value: Expr


class Assign(Stmt):
    """`t1 = t2 = value`; targets in source order."""

    targets: tuple[Expr, ...]
    value: Expr
    type_comment: Optional[str] = None


class AnnAssign(Stmt):
    target: Expr
    annotation: Expr
    value: Optional[Expr]


class AugAssign(Stmt):
    target: Expr
    op: str
    value: Expr


class If(Stmt):
    """`elif` chains are nested Ifs as the single statement of `orelse`."""

    test: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]


class While(Stmt):
    test: Expr
    body: tuple[Stmt, ...]


class For(Stmt):
    target: Expr
    iter: Expr
    body: tuple[Stmt, ...]


class Return(Stmt):
    value: Optional[Expr]


class Raise(Stmt):
    exc: Optional[Expr]


class Assert(Stmt):
    test: Expr
    msg: Optional[Expr]


class Pass(Stmt):
    pass


class Break(Stmt):
    pass


class Continue(Stmt):
    pass


class Delete(Stmt):
    targets: tuple[Expr, ...]


class WithItem(Node):
    context: Expr
    var: Optional[Expr]


class With(Stmt):
    items: tuple[WithItem, ...]
    body: tuple[Stmt, ...]


class Param(Node):
    name: str
    annotation: Optional[Expr]
    default: Optional[Expr]
    kwarg_only: bool = False


class Def(Stmt):
    """A function or method. `type_comment` is the `# type: (int) -> int` text, if any."""

    name: str
    params: tuple[Param, ...]
    returns: Optional[Expr]
    body: tuple[Stmt, ...]
    decorators: tuple[Expr, ...] = ()
    type_comment: Optional[str] = None


class ClassDef(Stmt):
    name: str
    bases: tuple[Expr, ...]
    body: tuple[Stmt, ...]
    decorators: tuple[Expr, ...] = ()


class Span(Stmt):
    """A statement of archive code not parsed yet: its text is `range`'s (which starts
    after the line's indentation); `parser.expand` parses it."""


class DefSpan(Span):
    """A function or method definition, parsed when the function is first compiled."""

    name: str


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


class Module(Node):
    """A whole file (a `code/` file of an archive, or a user's source snippet)."""

    body: tuple[Stmt, ...]


AnyNode = Union[Expr, Stmt, Module]


@functools.cache
def _init_code(arity: int) -> types.CodeType:
    """The code of `def __init__(self, f0, .., fN): self.f0 = f0; ..` for `arity` fields."""
    names = [f"f{i}" for i in range(arity)]
    ns: dict[str, Any] = {}
    exec(f"def __init__(self, {', '.join(names)}):\n"     # noqa: S102  (text made here)
         + "".join(f"    self.{f} = {f}\n" for f in names), ns)
    return ns["__init__"].__code__


def _build(classes: list[_NodeType]) -> None:
    """Give every node class (bases before subclasses) its __init__ and its dataclass
    fields. An __init__ is the code for its number of fields with the fields' names put in
    (compiling an __init__ per class cost more than the rest of the module)."""
    for cls in classes:
        base = cls.__mro__[1]
        fields = dict(getattr(base, "__dataclass_fields__", {}))
        for name, typ in cls.__dict__.get("__annotations__", {}).items():
            f = (dataclasses.field(default=cls._own_defaults[name])
                 if name in cls._own_defaults else dataclasses.field())
            f.name, f.type, f._field_type = name, typ, dataclasses._FIELD  # type: ignore[attr-defined]
            fields[name] = f
        cls.__dataclass_fields__ = fields
        names = tuple(fields)
        # the template's locals are (self, f0, ..) and the attributes it sets (f0, ..)
        code = _init_code(len(names)).replace(co_varnames=("self",) + names, co_names=names)
        defaults = tuple(f.default for f in fields.values() if f.default is not dataclasses.MISSING)
        init = types.FunctionType(code, globals(), "__init__", defaults or None)
        init.__qualname__ = f"{cls.__qualname__}.__init__"
        init.__annotations__ = {f.name: f.type for f in fields.values()}
        init.__annotations__["return"] = None
        cls.__init__ = init


_build([c for c in list(globals().values()) if isinstance(c, _NodeType)])
