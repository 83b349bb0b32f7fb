"""The verifier: node kinds by the table, operators by their schemas; pipelines verify."""
import os
import re

import pytest

from tsjit.ir import Graph, LintError, lint, parse_schema
from tsjit.ir import types as T
from tsjit.ir.node_kinds import KINDS, prim
from tsjit.ir.passes import run_pipeline, run_to_fixed_point

ADD_INT = parse_schema("aten::add.int(int a, int b) -> int")
APPEND = parse_schema("aten::append.t(t[](a!) self, t(c -> *) el) -> t[](a!)")


def _op(g, schema, inputs, out_types):
    n = g.insert(g.create(schema.name, inputs, 0))
    n.schema = schema
    for t in out_types:
        n.add_output(t)
    return n


def _constant(g, value, t):
    n = g.insert(g.create(prim.Constant, [], 0))
    n.attrs["value"] = value
    return n.add_output(t)


def test_the_table_names_every_kind_once():
    names = {v for k, v in vars(prim).items() if not k.startswith("_")}
    assert names == set(KINDS)
    assert all(name == f"prim::{attr}" for attr, name in vars(prim).items() if not attr.startswith("_"))


# The operator tables are a leaf module (tests/frontend/test_import_graph.py): there the
# name is what archive code calls (`ops.prim.RaiseException`), spelled as text.
_SPELLED_AS_CALL_NAMES = {(os.path.join("frontend", "operators.py"), "prim::RaiseException")}


def test_no_kind_of_the_table_is_spelled_as_a_string_elsewhere():
    root = os.path.join(os.path.dirname(__file__), "..", "..", "tsjit")
    literal = re.compile(r'"(%s)"' % "|".join(re.escape(k) for k in KINDS))
    found = []
    for folder, _, files in os.walk(root):
        for f in files:
            path = os.path.join(folder, f)
            if f.endswith(".py") and f != "node_kinds.py":
                with open(path, encoding="utf-8") as fh:
                    rel = os.path.relpath(path, root)
                    found += [f"{rel}: {m.group(1)}" for m in literal.finditer(fh.read())
                              if (rel, m.group(1)) not in _SPELLED_AS_CALL_NAMES]
    assert not found, "use ir.node_kinds.prim instead of string literals:\n" + "\n".join(found)


def test_operator_arity_and_types_follow_the_schema():
    g = Graph()
    x, s = g.add_input(T.IntType, "x"), g.add_input(T.StrType, "s")
    g.register_output(_op(g, ADD_INT, [x, x], [T.IntType]).output())
    lint(g)
    bad = _op(g, ADD_INT, [x], [T.IntType])
    with pytest.raises(LintError, match="1 arguments for 2"):
        lint(g)
    bad.add_input(s)
    with pytest.raises(LintError, match="argument 'b' of aten::add is %s : str, not int"):
        lint(g)
    bad.replace_input(1, x)
    bad.outputs[0].type = T.FloatType
    with pytest.raises(LintError, match="not of the schema's return type int"):
        lint(g)


def test_type_variables_bind_across_arguments():
    g = Graph()
    xs, y = g.add_input(T.ListType(T.IntType), "xs"), g.add_input(T.FloatType, "y")
    n = _op(g, APPEND, [xs, _constant(g, 1, T.IntType)], [T.ListType(T.IntType)])
    lint(g)
    n.replace_input(1, y)
    with pytest.raises(LintError, match="argument 'el'"):
        lint(g)


def test_unknown_kind_without_schema_is_rejected():
    g = Graph()
    g.insert(g.create("aten::mystery", [], 0))
    with pytest.raises(LintError, match="neither a node kind"):
        lint(g)


def _if(cond_type, blocks):
    g = Graph()
    n = g.insert(g.create(prim.If, [g.add_input(cond_type, "c")], 0))
    for _ in range(blocks):
        n.add_block()
    return g, n


def test_table_kinds_are_checked_for_blocks_and_arity():
    g, n = _if(T.BoolType, 1)
    with pytest.raises(LintError, match="2 block"):
        lint(g)
    n.add_block()
    lint(g)
    t = g.insert(g.create(prim.TupleIndex, [n.input(0)], 1))
    with pytest.raises(LintError, match="prim::TupleIndex has 1 inputs, not 2"):
        lint(g)
    t.destroy()
    n.add_output(T.IntType)
    with pytest.raises(LintError, match="a block of prim::If has 0 inputs and 0 outputs for 1"):
        lint(g)


def test_if_condition_and_branch_types():
    g, n = _if(T.IntType, 2)
    with pytest.raises(LintError, match="condition of prim::If is int"):
        lint(g)
    g, n = _if(T.BoolType, 2)
    n.add_output(T.IntType)
    for b, t in zip(n.blocks, (T.IntType, T.FloatType)):
        b.register_output(b.append(g.create(prim.Uninitialized, [], 0)).add_output(t))
    with pytest.raises(LintError, match="gives %.* : float for its output"):
        lint(g)


def test_loop_structure_is_checked():
    g = Graph()
    trips, x = g.add_input(T.IntType, "n"), g.add_input(T.IntType, "x")
    cond = _constant(g, True, T.BoolType)
    loop = g.insert(g.create(prim.Loop, [trips, cond, x], 0))
    body = loop.add_block()
    body.add_input(T.IntType, "i")
    carried = body.add_input(T.IntType, "x.1")
    body.register_output(cond)
    out = loop.add_output(T.IntType)
    g.register_output(out)
    with pytest.raises(LintError, match="prim::Loop with 1 outputs"):
        lint(g)
    body.register_output(carried)
    lint(g)
    carried.type = T.FloatType
    with pytest.raises(LintError, match="carried into"):
        lint(g)


def _breaks_graph(g):
    g.insert(g.create("aten::mystery", [], 0))
    return True


def test_pipelines_verify_under_tsjit_verify(monkeypatch):
    monkeypatch.setenv("TSJIT_VERIFY", "1")
    with pytest.raises(LintError, match="after pass .*_breaks_graph"):
        run_pipeline(Graph(), [_breaks_graph])
    broken = Graph()
    _breaks_graph(broken)
    with pytest.raises(LintError, match="before the first pass"):
        run_to_fixed_point(broken, [lambda g: False])
    with pytest.raises(LintError, match="after pass .*<lambda>"):
        run_pipeline(Graph(), [lambda g: not _breaks_graph(g), lambda g: False])
    monkeypatch.setenv("TSJIT_VERIFY", "0")
    assert run_pipeline(Graph(), [_breaks_graph])
    assert run_pipeline(Graph(), [_breaks_graph], verify=False)


def test_fixed_point_stops_when_a_round_changes_nothing():
    rounds = []

    def settles_after_three(g):
        rounds.append(1)
        return len(rounds) < 3

    assert run_to_fixed_point(Graph(), [settles_after_three])
    assert len(rounds) == 3
    assert not run_to_fixed_point(Graph(), [lambda g: False])
    rounds.clear()
    run_to_fixed_point(Graph(), [lambda g: bool(rounds.append(1)) or True], max_rounds=5)
    assert len(rounds) == 5


def test_types_through_tuples_lists_and_attributes():
    g = Graph()
    x, o = g.add_input(T.IntType, "x"), g.add_input(T.optional(T.IntType), "o")
    tup = g.insert(g.create(prim.TupleConstruct, [x, x], 0)).add_output(
        T.TupleType((T.IntType, T.IntType)))
    # A pass may narrow a value: unpacking (int, int) into int? outputs is sound.
    unpack = g.insert(g.create(prim.TupleUnpack, [tup], 0))
    unpack.add_output(T.optional(T.IntType)), unpack.add_output(T.IntType)
    lint(g)
    g.insert(g.create(prim.ListConstruct, [x, o], 0)).add_output(T.ListType(T.IntType))
    with pytest.raises(LintError, match="item %o : int\\? is not int"):
        lint(g)


def test_attributes_are_checked_against_the_class():
    cls = T.ClassType("__torch__.C")
    cls.add_attribute("a", T.IntType)
    g = Graph()
    obj = g.add_input(cls, "self")
    get = g.insert(g.create(prim.GetAttr, [obj], 0))
    get.attrs["name"] = "a"
    get.add_output(T.IntType)
    lint(g)
    s = g.insert(g.create(prim.SetAttr, [obj, g.add_input(T.StrType, "s")], 0))
    s.attrs["name"] = "a"
    with pytest.raises(LintError, match="value %s : str is not int"):
        lint(g)
    s.attrs["name"] = "b"
    with pytest.raises(LintError, match="has no attribute 'b'"):
        lint(g)
