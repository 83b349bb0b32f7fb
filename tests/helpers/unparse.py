"""A small unparser for tsjit ASTs (test helper), plus structural comparison.

It parenthesises every compound sub-expression, so the text it writes parses back to
the same tree whatever the operator precedences are: parentheses create no nodes.
"""
from __future__ import annotations

import dataclasses
from typing import Any

from tsjit.frontend import ast as A

_CMP = {"is_not": "is not", "not_in": "not in"}


def unparse(node: Any) -> str:
    """Source text for a Module, a statement or an expression."""
    if isinstance(node, A.Module):
        return "".join(_stmt(s, 0) for s in node.body)
    if isinstance(node, A.Stmt):
        return _stmt(node, 0)
    return expr(node)


def _block(body: tuple, level: int) -> str:
    return "".join(_stmt(s, level + 1) for s in body) if body else "    " * (level + 1) + "pass\n"


def _stmt(s: A.Stmt, level: int) -> str:
    pad = "    " * level
    if isinstance(s, A.ExprStmt):
        return pad + expr(s.value) + "\n"
    if isinstance(s, A.Assign):
        tc = f"  # type: {s.type_comment}" if s.type_comment else ""
        return pad + " = ".join(target(t) for t in s.targets) + " = " + expr(s.value) + tc + "\n"
    if isinstance(s, A.AnnAssign):
        value = "" if s.value is None else " = " + expr(s.value)
        return f"{pad}{target(s.target)}: {expr(s.annotation)}{value}\n"
    if isinstance(s, A.AugAssign):
        return f"{pad}{target(s.target)} {s.op}= {expr(s.value)}\n"
    if isinstance(s, A.If):
        out = f"{pad}if {expr(s.test)}:\n" + _block(s.body, level)
        orelse = s.orelse
        while len(orelse) == 1 and isinstance(orelse[0], A.If):  # an elif chain
            out += f"{pad}elif {expr(orelse[0].test)}:\n" + _block(orelse[0].body, level)
            orelse = orelse[0].orelse
        if orelse:
            out += f"{pad}else:\n" + _block(orelse, level)
        return out
    if isinstance(s, A.While):
        return f"{pad}while {expr(s.test)}:\n" + _block(s.body, level)
    if isinstance(s, A.For):
        return f"{pad}for {target(s.target)} in {expr(s.iter)}:\n" + _block(s.body, level)
    if isinstance(s, A.Return):
        return pad + "return" + ("" if s.value is None else " " + expr(s.value)) + "\n"
    if isinstance(s, A.Raise):
        return pad + "raise" + ("" if s.exc is None else " " + expr(s.exc)) + "\n"
    if isinstance(s, A.Assert):
        msg = "" if s.msg is None else ", " + expr(s.msg)
        return f"{pad}assert {expr(s.test)}{msg}\n"
    if isinstance(s, (A.Pass, A.Break, A.Continue)):
        return pad + type(s).__name__.lower() + "\n"
    if isinstance(s, A.Delete):
        return pad + "del " + ", ".join(target(t) for t in s.targets) + "\n"
    if isinstance(s, A.With):
        items = ", ".join(expr(i.context) + ("" if i.var is None else " as " + target(i.var))
                          for i in s.items)
        return f"{pad}with {items}:\n" + _block(s.body, level)
    if isinstance(s, A.Def):
        out = "".join(f"{pad}@{expr(d)}\n" for d in s.decorators)
        params, star = [], False
        for p in s.params:
            if p.kwarg_only and not star:
                params.append("*")
                star = True
            text = p.name + ("" if p.annotation is None else ": " + expr(p.annotation))
            if p.default is not None:
                text += (" = " if p.annotation is not None else "=") + expr(p.default)
            params.append(text)
        returns = "" if s.returns is None else " -> " + expr(s.returns)
        out += f"{pad}def {s.name}({', '.join(params)}){returns}:\n"
        if s.type_comment:
            out += f"{pad}    # type: {s.type_comment}\n"
        return out + _block(s.body, level)
    if isinstance(s, A.ClassDef):
        out = "".join(f"{pad}@{expr(d)}\n" for d in s.decorators)
        bases = "(" + ", ".join(expr(b) for b in s.bases) + ")" if s.bases else ""
        return out + f"{pad}class {s.name}{bases}:\n" + _block(s.body, level)
    raise TypeError(f"cannot unparse {type(s).__name__}")


def target(t: A.Expr) -> str:
    """An assignment/loop target: tuples without parentheses at the top."""
    if isinstance(t, A.TupleLit) and t.elts:
        return ", ".join(expr(e) for e in t.elts) + ("," if len(t.elts) == 1 else "")
    return expr(t)


def _fstring_body(js: A.JoinedStr) -> str:
    out = []
    for p in js.parts:
        if isinstance(p, A.Constant):
            out.append(p.value.replace("{", "{{").replace("}", "}}"))
        else:
            out.append(_field(p))
    return "".join(out)


def _field(fv: A.FormattedValue) -> str:
    # A space after `{` keeps `{{` from reading as an escaped brace for a dict/set value.
    text = "{ " + expr(fv.value)
    if fv.conversion:
        text += "!" + fv.conversion
    if fv.format_spec is not None:
        text += ":" + _fstring_body(fv.format_spec)
    return text + "}"


def _index(e: A.Expr, top: bool = True) -> str:
    if isinstance(e, A.Slice):
        text = ("" if e.lower is None else expr(e.lower)) + ":"
        text += "" if e.upper is None else expr(e.upper)
        return text + ("" if e.step is None else ":" + expr(e.step))
    if isinstance(e, A.TupleLit) and e.elts and top:  # x[a, b:c]: only the top tuple is bare
        return ", ".join(_index(x, False) for x in e.elts) + ("," if len(e.elts) == 1 else "")
    return expr(e)


def expr(e: A.Expr) -> str:
    """Source text of an expression; compound ones come parenthesised."""
    if isinstance(e, A.Name):
        return e.id
    if isinstance(e, A.Constant):
        return "..." if e.value is Ellipsis else repr(e.value)
    if isinstance(e, A.JoinedStr):
        return 'f"' + _fstring_body(e) + '"'
    if isinstance(e, A.Attribute):
        return f"({expr(e.value)}).{e.attr}"
    if isinstance(e, A.Subscript):
        return f"({expr(e.value)})[{_index(e.index)}]"
    if isinstance(e, A.Call):
        args = [expr(a) for a in e.args] + [f"{k.name}={expr(k.value)}" for k in e.keywords]
        return f"({expr(e.func)})({', '.join(args)})"
    if isinstance(e, A.Starred):
        return "*" + expr(e.value)
    if isinstance(e, (A.BinOp, A.BoolOp)):
        return f"({expr(e.left)} {e.op} {expr(e.right)})"
    if isinstance(e, A.UnaryOp):
        return f"(not {expr(e.operand)})" if e.op == "not" else f"({e.op}{expr(e.operand)})"
    if isinstance(e, A.Compare):
        rest = "".join(f" {_CMP.get(op, op)} {expr(c)}" for op, c in zip(e.ops, e.comparators))
        return f"({expr(e.left)}{rest})"
    if isinstance(e, A.IfExp):
        return f"({expr(e.body)} if {expr(e.test)} else {expr(e.orelse)})"
    if isinstance(e, A.ListLit):
        return "[" + ", ".join(expr(x) for x in e.elts) + "]"
    if isinstance(e, A.TupleLit):
        return "(" + ", ".join(expr(x) for x in e.elts) + ("," if len(e.elts) == 1 else "") + ")"
    if isinstance(e, A.DictLit):
        return "{" + ", ".join(f"{expr(k)}: {expr(v)}" for k, v in zip(e.keys, e.values)) + "}"
    if isinstance(e, A.ListComp):
        return "[" + expr(e.elt) + _generators(e.generators) + "]"
    if isinstance(e, A.DictComp):
        return "{" + expr(e.key) + ": " + expr(e.value) + _generators(e.generators) + "}"
    raise TypeError(f"cannot unparse {type(e).__name__}")


def _generators(gens: tuple) -> str:
    return "".join(f" for {target(g.target)} in {expr(g.iter)}"
                   + "".join(f" if {expr(c)}" for c in g.ifs) for g in gens)


def same(a: Any, b: Any) -> bool:
    """Structural equality of two ASTs, ignoring source ranges."""
    if isinstance(a, A.Node) or isinstance(b, A.Node):
        if type(a) is not type(b):
            return False
        return all(same(getattr(a, f.name), getattr(b, f.name))
                   for f in dataclasses.fields(a) if f.name != "range")
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def difference(a: Any, b: Any, path: str = "") -> str:
    """Where two ASTs first differ (ranges ignored), for assertion messages; "" if nowhere."""
    if isinstance(a, A.Node) and type(a) is type(b):
        for f in dataclasses.fields(a):
            if f.name != "range":
                d = difference(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
                if d:
                    return d
        return ""
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            d = difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return ""
    return "" if same(a, b) else f"at {path or 'top'}: {dump(a)} != {dump(b)}"


def dump(node: Any) -> str:
    """A compact, range-free rendering used by the golden tests."""
    if isinstance(node, A.Node):
        fields = [f for f in dataclasses.fields(node) if f.name != "range"]
        inner = ", ".join(dump(getattr(node, f.name)) for f in fields)
        return f"{type(node).__name__}({inner})"
    if isinstance(node, tuple):
        return "[" + ", ".join(dump(x) for x in node) + "]"
    return repr(node)
