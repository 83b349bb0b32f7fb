"""The passes before code generation keep every graph valid (the verifier runs after each
pass) over the whole corpus, and the peephole rewrites do what they say."""
import typing

import pytest

import tsjit
from tests.helpers.corpus import case_names, case_path
from tsjit.codegen.optimize import optimized_graph
from tsjit.ir import types as T
from tsjit.ir.cloning import copy_graph
from tsjit.ir.passes import peephole
from tsjit.ir.verifier import lint


def _functions(module):
    seen, todo = set(), [module._c.type]
    while todo:
        t = todo.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        for fn in t.methods.values():
            yield fn
        todo.extend(a.type for a in t.attributes if isinstance(a.type, T.ClassType))


@pytest.mark.parametrize("case", case_names())
def test_optimized_graphs_of_the_corpus_verify_after_every_pass(case):
    m = tsjit.load(case_path(case))
    for fn in _functions(m):
        g = optimized_graph(fn, verify=True)
        lint(g)


SOURCE = '''
def pair(a: int, b: int) -> Tuple[int, int]:
    return b, a

def use(a: int, x: Optional[int], t: Tensor) -> int:
    p, q = pair(a, a + 1)
    y = a
    if t is None:
        return 0
    return p + q + y + pair(1, 2)[0]
'''


def test_peephole_dissolves_tuples_and_static_none_tests():
    cu = tsjit.jit.CompilationUnit(SOURCE, {"Tuple": typing.Tuple, "Optional": typing.Optional,
                                            "Tensor": tsjit.Tensor})
    g = optimized_graph(cu.use.function)
    kinds = [n.kind for n in g.walk()]
    for gone in ("prim::TupleConstruct", "prim::TupleUnpack", "prim::TupleIndex",
                 "prim::CallFunction", "aten::__is__", "prim::If"):
        assert gone not in kinds, (gone, str(g))
    assert cu.use(3, None, tsjit.zeros(1)) == 3 + 4 + 3 + 2


def test_peephole_alone_leaves_a_valid_graph():
    cu = tsjit.jit.CompilationUnit(SOURCE, {"Tuple": typing.Tuple, "Optional": typing.Optional,
                                            "Tensor": tsjit.Tensor})
    g = copy_graph(cu.use.function.graph)
    peephole.run(g)
    lint(g)


def _node(g, kind, inputs, out_type, **attrs):
    from tsjit.ops import registry
    n = g.create(kind, inputs, 0)
    n.attrs.update(attrs)
    if kind.startswith("aten::"):
        n.schema = registry.find(kind).schema
    n.add_output(out_type)
    g.block.append(n)
    return n.output()


@pytest.mark.parametrize("kind,expected", [("aten::__is__", False), ("aten::__isnot__", True)])
def test_is_none_on_a_value_that_cannot_be_none_is_a_constant(kind, expected):
    from tsjit.ir import Graph
    g = Graph()
    x = g.add_input(T.IntType, "x")
    none = _node(g, "prim::Constant", [], T.NoneType)
    g.register_output(_node(g, kind, [x, none], T.BoolType))
    opt = g.add_input(T.OptionalType(T.IntType), "o")
    g.register_output(_node(g, kind, [opt, none], T.BoolType))
    assert peephole.run(g)
    lint(g)
    first, second = g.outputs
    assert first.node.kind == "prim::Constant" and first.node.attrs["value"] is expected
    assert second.node.kind == kind      # an Optional may be None: left alone


def test_needless_cast_is_the_value_itself():
    from tsjit.ir import Graph
    g = Graph()
    x = g.add_input(T.IntType, "x")
    o = g.add_input(T.OptionalType(T.IntType), "o")
    g.register_output(_node(g, "prim::unchecked_cast", [x], T.IntType))
    g.register_output(_node(g, "prim::unchecked_cast", [o], T.IntType))
    assert peephole.run(g)
    lint(g)
    assert g.outputs[0] is x and g.outputs[1].node.kind == "prim::unchecked_cast"


def test_a_number_through_a_tensor_and_back_is_the_number():
    from tsjit.ir import Graph
    from tsjit.ops import registry

    def node(g, qualified, inputs, out_type):
        n = g.create(qualified.split(".")[0], inputs, 0)
        n.schema = registry.find(qualified).schema
        n.add_output(out_type)
        g.block.append(n)
        return n.output()

    g = Graph()
    i, f = g.add_input(T.IntType, "i"), g.add_input(T.FloatType, "f")
    ti = node(g, "prim::NumToTensor.Scalar", [i], T.TensorType)
    tf = node(g, "prim::NumToTensor.Scalar", [f], T.TensorType)
    g.register_output(node(g, "aten::Int.Tensor", [ti], T.IntType))
    g.register_output(node(g, "aten::FloatImplicit", [tf], T.FloatType))
    g.register_output(node(g, "aten::Int.Tensor", [tf], T.IntType))     # truncates: kept
    assert peephole.run(g)
    lint(g)
    assert g.outputs[0] is i and g.outputs[1] is f
    assert g.outputs[2].node.schema.qualified == "aten::Int.Tensor"
