"""Where ir/liveness.py releases tensors: after the last reader, inside the branch that
reads last, on entering a loop; never a value a block returns, a constant or a non-tensor."""
import tsjit
from tsjit.ir.liveness import holds_tensors, releases
from tsjit.ir import types as T

SRC = '''
def f(x: Tensor, flag: bool, n: int) -> Tensor:
    a = x * 2.0
    if flag:
        b = a + 1.0
        c = b * 3.0
    else:
        c = x - 1.0
    acc = c * 0.0
    for i in range(n):
        acc = acc + c
    y = acc * 2.0
    return y
'''


def _names(values):
    return sorted(v.debug_name() for v in values)


def test_release_points():
    g = tsjit.jit.CompilationUnit(SRC, {"Tensor": tsjit.Tensor}).f.graph
    r = releases(g)
    by_kind = {}
    for n, vs in r.after.items():
        by_kind.setdefault(n.kind, []).extend(_names(vs))
    if_node = next(n for n in g.block.nodes if n.kind == "prim::If")
    loop = next(n for n in g.block.nodes if n.kind == "prim::Loop")
    then, orelse = if_node.blocks
    # a dies inside the then-branch after its last reader, and at the start of the else
    assert _names(r.at_start.get(orelse, [])) == ["a"]
    assert "a" in _names(r.after[then.nodes[0]])
    # x is last read in the else branch and is not read by the then branch
    assert "x" in _names(r.at_start[then]) and "x" in _names(r.after[orelse.nodes[0]])
    # acc's initial value is only the loop's start; c is read in the body: after the loop
    assert [v.node.kind for v in r.entering[loop]] == ["aten::mul"]
    assert any(v.type == T.TensorType for v in r.after[loop])
    # the graph's result is never released, nor anything after its last node (the frame
    # ends there), nor any int
    assert g.block.nodes[-1] not in r.after
    released = [v for vs in list(r.after.values()) + list(r.at_start.values()) +
                list(r.entering.values()) for v in vs]
    assert g.outputs[0] not in released
    assert all(holds_tensors(v.type) for v in released)


def test_holds_tensors():
    assert holds_tensors(T.TensorType)
    assert holds_tensors(T.ListType(T.TensorType))
    assert holds_tensors(T.OptionalType(T.TupleType((T.IntType, T.TensorType))))
    assert not holds_tensors(T.ListType(T.IntType))
    assert not holds_tensors(T.DictType(T.StrType, T.FloatType))
