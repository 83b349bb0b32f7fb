"""Differential: generated int/bool programs give the same results compiled as in CPython."""
from hypothesis import HealthCheck, given, settings, strategies as st

import tsjit

VARS = ["a", "b", "c"]


def _expr(depth: int) -> st.SearchStrategy:
    leaf = st.one_of(st.sampled_from(VARS), st.integers(-9, 9).map(str))
    if depth == 0:
        return leaf
    sub = _expr(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(sub, st.sampled_from(["+", "-", "*"]), sub).map(lambda t: f"(({t[0]} {t[1]} {t[2]}) % 1000)"),
        st.tuples(sub, st.sampled_from(["//", "%"]), sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(sub, sub, sub).map(lambda t: f"({t[0]} if {t[1]} > {t[2]} else {t[1]})"),
        st.tuples(sub).map(lambda t: f"(-{t[0]})"),
        st.tuples(sub, sub).map(lambda t: f"max({t[0]}, {t[1]})"),
    )


def _cond() -> st.SearchStrategy:
    cmp = st.tuples(_expr(1), st.sampled_from(["<", "<=", ">", ">=", "==", "!="]), _expr(1)).map(
        lambda t: f"{t[0]} {t[1]} {t[2]}")
    return st.one_of(cmp, st.tuples(cmp, st.sampled_from(["and", "or"]), cmp).map(
        lambda t: f"({t[0]}) {t[1]} ({t[2]})"), cmp.map(lambda c: f"not ({c})"))


def _block(depth: int, indent: str) -> st.SearchStrategy:
    assign = st.tuples(st.sampled_from(VARS), st.sampled_from(["=", "+=", "-="]), _expr(2)).map(
        lambda t: [f"{indent}{t[0]} {t[1]} {t[2]}"])
    if depth == 0:
        return st.lists(assign, min_size=1, max_size=3).map(lambda ls: sum(ls, []))
    inner = _block(depth - 1, indent + "    ")
    if_ = st.tuples(_cond(), inner, inner).map(
        lambda t: [f"{indent}if {t[0]}:"] + t[1] + [f"{indent}else:"] + t[2])
    for_ = st.tuples(st.integers(0, 4), inner).map(
        lambda t: [f"{indent}for i in range({t[0]}):"] + t[1])
    k = f"k{depth}"   # one counter per nesting level, so inner loops do not reset outer ones
    while_ = st.tuples(st.integers(0, 4), inner).map(
        lambda t: [f"{indent}{k} = 0", f"{indent}while {k} < {t[0]}:"] + t[1] + [f"{indent}    {k} += 1"])
    stmt = st.one_of(assign, if_, for_, while_)
    return st.lists(stmt, min_size=1, max_size=4).map(lambda ls: sum(ls, []))


@st.composite
def programs(draw) -> str:
    body = draw(_block(2, "    "))
    return "\n".join(["def f(a: int, b: int, c: int) -> int:", "    i = 0"] + body +
                     ["    return a + 10 * b + 100 * c"]) + "\n"


def _python(src: str, args: tuple) -> object:
    ns: dict = {}
    exec(src, ns)
    try:
        return ns["f"](*args)
    except ZeroDivisionError:
        return ZeroDivisionError


def _compiled(src: str, args: tuple) -> object:
    try:
        return tsjit.jit.CompilationUnit(src).f(*args)
    except tsjit.ScriptError as err:
        return ZeroDivisionError if "ZeroDivision" in str(err) or "division" in str(err) else err


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), st.tuples(st.integers(-20, 20), st.integers(-20, 20), st.integers(-20, 20)))
def test_generated_programs_match_cpython(src, args):
    expected = _python(src, args)
    got = _compiled(src, args)
    if expected is ZeroDivisionError and got is not ZeroDivisionError:
        # TorchScript treats arithmetic as pure: a division whose result is never used is
        # removed as dead code (as in PyTorch), so its error may not happen.
        return
    assert got == expected, src
