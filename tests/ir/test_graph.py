"""Graph / Node / Value invariants: use lists, naming, the verifier."""
import pytest

from tsjit.ir import Graph, LintError, lint, parse_schema
from tsjit.ir import types as T

ADD_INT = parse_schema("aten::add.int(int a, int b) -> int")


def _add(g, a, b, name=None):
    n = g.insert(g.create("aten::add", [a, b], 0))
    n.schema = ADD_INT
    return n.add_output(T.IntType, name)


def test_use_lists_follow_input_changes():
    g = Graph()
    x, y = g.add_input(T.IntType, "x"), g.add_input(T.IntType, "y")
    s = _add(g, x, y)
    n = s.node
    assert [(u.user, u.offset) for u in x.uses] == [(n, 0)]
    n.replace_input(0, y)
    assert not x.uses and sorted(u.offset for u in y.uses) == [0, 1]
    n.remove_input(0)
    assert [(u.user, u.offset) for u in y.uses] == [(n, 0)]
    n.add_input(x)
    assert [(u.user, u.offset) for u in x.uses] == [(n, 1)]
    g.register_output(s)
    lint(g)


def test_replace_all_uses_with():
    g = Graph()
    x, y = g.add_input(T.IntType, "x"), g.add_input(T.IntType, "y")
    a = _add(g, x, x)
    b = _add(g, a, a)
    g.register_output(b)
    a.replace_all_uses_with(y)
    assert b.node.inputs == (y, y) and not a.uses
    a.node.destroy()
    lint(g)


def test_destroy_refuses_used_node():
    g = Graph()
    x = g.add_input(T.IntType, "x")
    a = _add(g, x, x)
    g.register_output(a)
    with pytest.raises(AssertionError):
        a.node.destroy()


def test_renaming_keeps_newest_plain_name():
    g = Graph()
    x = g.add_input(T.IntType, "x")
    x2 = _add(g, x, x, "x")
    x3 = _add(g, x2, x2, "x")
    assert (x.debug_name(), x2.debug_name(), x3.debug_name()) == ("x.1", "x.2", "x")
    assert x3.debug_name_base() == "x" and x.debug_name_base() == "x"


def test_unnamed_values_print_by_number():
    g = Graph()
    x = g.add_input(T.TensorType, "x")
    n = g.insert(g.create("aten::relu", [x], 0))
    out = n.add_output(T.TensorType)
    g.register_output(out)
    assert str(g) == (f"graph(%x : Tensor):\n  %{out.unique} : Tensor = aten::relu(%x)\n"
                      f"  return (%{out.unique})\n")


def test_lint_rejects_use_before_definition():
    g = Graph()
    x = g.add_input(T.IntType, "x")
    a = _add(g, x, x)
    b = _add(g, a, a)
    # Move b's node before a's node: b now uses a before a is defined.
    b.node.move_before(a.node)
    g.register_output(b)
    with pytest.raises(LintError, match="before it is defined"):
        lint(g)


def test_lint_rejects_value_from_inner_block():
    g = Graph()
    c = g.add_input(T.BoolType, "c")
    n = g.insert(g.create("prim::If", [c], 0))
    then, orelse = n.add_block(), n.add_block()
    inner = then.append(g.create("prim::Constant", [], 0)).add_output(T.IntType)
    then.register_output(inner)
    orelse.register_output(inner)   # the false branch cannot see the true branch's value
    n.add_output(T.IntType)
    g.register_output(n.output())
    with pytest.raises(LintError):
        lint(g)
