"""Property test: random ASTs -> unparse -> parse -> the same AST (ranges aside)."""
from __future__ import annotations

import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
import pytest

from tsjit.frontend import ast as A
from tsjit.frontend.parser import parse, parse_expr
from tsjit.ir.diagnostics import Source
from tests.helpers.unparse import difference, same, unparse

R = Source("<generated>").range(0, 0)  # generated nodes need some range
# Identifiers, a few of them non-ASCII or keyword-like; sampled (regexes are slow here).
NAMES = st.sampled_from(["a", "b", "x", "y0", "_t", "self", "torch", "__torch__", "Tensor",
                         "List", "print", "match", "inf", "nan", "ifx", "not_", "is_", "orr",
                         "Ω", "naïve", "x_1", "__init__", "None_", "true", "lambda_"])
BINOPS = ["+", "-", "*", "/", "//", "%", "**", "@", "<<", ">>", "&", "|", "^"]
CMPOPS = ["==", "!=", "<", "<=", ">", ">=", "is", "is_not", "in", "not_in"]

names = NAMES.map(lambda s: A.Name(R, s))
numbers = st.one_of(
    st.integers(min_value=0, max_value=2**63 - 1),   # literals are int64 (beyond: a ParseError)
    st.floats(min_value=0, allow_nan=False, allow_infinity=False),
    st.floats(min_value=0, allow_nan=False, allow_infinity=False).map(lambda x: complex(0, x)),
).map(lambda v: A.Constant(R, v))
strings = st.text(max_size=8).map(lambda s: A.Constant(R, s))
singletons = st.sampled_from([None, True, False, ...]).map(lambda v: A.Constant(R, v))


def _merge_constants(parts: list) -> tuple:
    """Python's f-string parts never hold two adjacent or empty literal pieces."""
    out: list = []
    for p in parts:
        if isinstance(p, A.Constant):
            if not p.value:
                continue
            if out and isinstance(out[-1], A.Constant):
                out[-1] = A.Constant(R, out[-1].value + p.value)
                continue
        out.append(p)
    return tuple(out)


# f-string fields (Python 3.11 rules): no quotes or backslashes inside the expression.
field_exprs = st.recursive(
    st.one_of(names, st.integers(0, 999).map(lambda v: A.Constant(R, v))),
    lambda e: st.one_of(
        st.builds(lambda o, l, r: A.BinOp(R, o, l, r), st.sampled_from(BINOPS), e, e),
        st.builds(lambda v, a: A.Attribute(R, v, a), e, NAMES),
        st.builds(lambda f, a: A.Call(R, f, tuple(a), ()), e, st.lists(e, max_size=2)),
    ), max_leaves=4)
fstring_text = st.text(alphabet=string.ascii_letters + string.digits + " {}=:!.,<>()[]#",
                       max_size=6).map(lambda s: A.Constant(R, s))
spec_text = st.text(alphabet="<>^+-0123456789.,fdxs%", min_size=1, max_size=4).map(
    lambda s: A.Constant(R, s))
simple_fields = st.builds(lambda v, c: A.FormattedValue(R, v, c, None), field_exprs,
                          st.sampled_from([None, "r", "s", "a"]))
format_specs = st.lists(st.one_of(spec_text, simple_fields), max_size=3).map(
    lambda ps: A.JoinedStr(R, _merge_constants(ps)))
fields = st.builds(lambda v, c, s: A.FormattedValue(R, v, c, s), field_exprs,
                   st.sampled_from([None, "r", "s"]), st.none() | format_specs)
fstrings = st.lists(st.one_of(fstring_text, fields), max_size=4).map(
    lambda ps: A.JoinedStr(R, _merge_constants(ps)))


def _targets(e: st.SearchStrategy, subscripts: bool = True) -> st.SearchStrategy:
    """Assignment / loop targets; no filters (their retries are slow to report)."""
    simple = st.one_of(names, st.builds(lambda v, a: A.Attribute(R, v, a), e, NAMES))
    if subscripts:
        simple = simple | st.builds(lambda v, i: A.Subscript(R, v, i), e, e)
    return st.one_of(simple, st.lists(simple, min_size=1, max_size=3).map(
        lambda ts: A.TupleLit(R, tuple(ts))))


def _extend(e: st.SearchStrategy) -> st.SearchStrategy:
    maybe = st.none() | e
    slices = st.builds(lambda a, b, c: A.Slice(R, a, b, c), maybe, maybe, maybe)
    index = st.one_of(e, slices, st.lists(st.one_of(e, slices), max_size=3).map(
        lambda xs: A.TupleLit(R, tuple(xs))))
    comps = st.lists(st.builds(lambda t, i, c: A.Comprehension(R, t, i, tuple(c)),
                               _targets(e, subscripts=False),
                               e, st.lists(e, max_size=2)), min_size=1, max_size=2)
    args = st.lists(st.one_of(e, e.map(lambda x: A.Starred(R, x))), max_size=3)
    kwargs = st.lists(st.builds(lambda n, v: A.Keyword(R, n, v), NAMES, e), max_size=2,
                      unique_by=lambda k: k.name)
    return st.one_of(
        st.builds(lambda o, l, r: A.BinOp(R, o, l, r), st.sampled_from(BINOPS), e, e),
        st.builds(lambda o, x: A.UnaryOp(R, o, x), st.sampled_from(["-", "+", "~", "not"]), e),
        st.builds(lambda o, l, r: A.BoolOp(R, o, l, r), st.sampled_from(["and", "or"]), e, e),
        st.builds(lambda l, rest: A.Compare(R, l, tuple(o for o, _ in rest),
                                            tuple(c for _, c in rest)),
                  e, st.lists(st.tuples(st.sampled_from(CMPOPS), e), min_size=1, max_size=3)),
        st.builds(lambda t, b, o: A.IfExp(R, t, b, o), e, e, e),
        st.builds(lambda v, a: A.Attribute(R, v, a), e, NAMES),
        st.builds(lambda v, i: A.Subscript(R, v, i), e, index),
        st.builds(lambda f, a, k: A.Call(R, f, tuple(a), tuple(k)), e, args, kwargs),
        st.lists(e, max_size=3).map(lambda xs: A.ListLit(R, tuple(xs))),
        st.lists(e, max_size=3).map(lambda xs: A.TupleLit(R, tuple(xs))),
        st.lists(st.tuples(e, e), max_size=3).map(
            lambda kv: A.DictLit(R, tuple(k for k, _ in kv), tuple(v for _, v in kv))),
        st.builds(lambda x, g: A.ListComp(R, x, tuple(g)), e, comps),
        st.builds(lambda k, v, g: A.DictComp(R, k, v, tuple(g)), e, e, comps),
    )


# st.deferred keeps the strategies' reprs (which hypothesis builds for its reports) short.
leaves = st.deferred(lambda: st.one_of(names, numbers, strings, singletons, fstrings))
exprs = st.deferred(lambda: st.recursive(leaves, _extend, max_leaves=10))
# Statements carry small expressions: expressions have their own test, and generating
# big ones for every statement slot is what makes this test slow.
sexprs = st.deferred(lambda: st.recursive(leaves, _extend, max_leaves=3))
targets = _targets(sexprs)
bodies_base = st.one_of(
    sexprs.map(lambda x: A.ExprStmt(R, x)),
    st.builds(lambda ts, v, tc: A.Assign(R, tuple(ts), v, tc), st.lists(targets, min_size=1,
              max_size=2), sexprs, st.none() | st.sampled_from(["List[int]", "Dict[str, int]"])),
    st.builds(lambda t, a, v: A.AnnAssign(R, t, a, v), names, sexprs, st.none() | sexprs),
    st.builds(lambda t, o, v: A.AugAssign(R, t, o, v), names, st.sampled_from(BINOPS), sexprs),
    st.builds(lambda v: A.Return(R, v), st.none() | sexprs),
    st.builds(lambda v: A.Raise(R, v), st.none() | sexprs),
    st.builds(lambda t, m: A.Assert(R, t, m), sexprs, st.none() | sexprs),
    st.sampled_from([A.Pass(R), A.Break(R), A.Continue(R)]),
    st.lists(st.one_of(names, st.builds(lambda v, i: A.Subscript(R, v, i), sexprs, sexprs)),
             min_size=1, max_size=2).map(lambda ts: A.Delete(R, tuple(ts))),
)
params = st.lists(st.builds(lambda n, a, d: A.Param(R, n, a, d), NAMES, st.none() | sexprs,
                            st.none() | sexprs), max_size=3, unique_by=lambda p: p.name)


def _fix_params(ps: list, kwonly: int) -> tuple:
    """Defaults only at the end of the positional ones; the last `kwonly` are keyword-only."""
    out, seen_default = [], False
    for i, p in enumerate(ps):
        kw = i >= len(ps) - kwonly
        if not kw and p.default is None and seen_default:
            p = A.Param(R, p.name, p.annotation, A.Constant(R, 0))
        seen_default = seen_default or p.default is not None
        out.append(A.Param(R, p.name, p.annotation, p.default, kw))
    return tuple(out)


def _compound(s: st.SearchStrategy) -> st.SearchStrategy:
    block = st.lists(s, min_size=1, max_size=3).map(tuple)
    return st.one_of(
        st.builds(lambda t, b, o: A.If(R, t, b, o), sexprs, block, st.just(()) | block),
        st.builds(lambda t, b: A.While(R, t, b), sexprs, block),
        st.builds(lambda t, i, b: A.For(R, t, i, b), _targets(sexprs, subscripts=False), sexprs,
                  block),
        st.builds(lambda items, b: A.With(R, tuple(items), b), st.lists(st.builds(
            lambda c, v: A.WithItem(R, c, v), sexprs, st.none() | names), min_size=1,
            max_size=2), block),
        st.builds(lambda n, ps, k, r, b, d, tc: A.Def(R, n, _fix_params(ps, k), r, b, tuple(d), tc),
                  NAMES, params, st.integers(0, 2), st.none() | sexprs, block,
                  st.lists(sexprs, max_size=2), st.none() | st.just("(int) -> int")),
        st.builds(lambda n, bs, b, d: A.ClassDef(R, n, tuple(bs), b, tuple(d)), NAMES,
                  st.lists(sexprs, max_size=2), block, st.lists(sexprs, max_size=1)),
    )


statements = st.deferred(lambda: st.recursive(st.deferred(lambda: bodies_base), _compound,
                                              max_leaves=6))
SETTINGS = settings(deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.slow
@settings(SETTINGS, max_examples=200)
@given(exprs)
def test_expression_roundtrip(e: A.Expr) -> None:
    text = unparse(e)
    back = parse_expr(text)
    assert same(back, e), f"{text}\n{difference(back, e)}"


@pytest.mark.slow
@settings(SETTINGS, max_examples=80)
@given(st.lists(statements, max_size=3))
def test_module_roundtrip(body: list) -> None:
    module = A.Module(R, tuple(body))
    text = unparse(module)
    back = parse(text)
    assert same(back, module), f"{text}\n{difference(back, module)}"
    assert same(parse(text.rstrip("\n")), module), "without the final newline"
