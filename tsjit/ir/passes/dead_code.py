"""Dead code elimination: remove nodes without side effects whose outputs nobody uses."""
from __future__ import annotations

from ..graph import Block, Graph, Node, Value
from ..node_kinds import EFFECTFUL_OPERATORS, node_kind, prim
from .pipeline import rerun_after


def has_side_effects(n: Node) -> bool:
    """Whether removing `n` could change what the program does."""
    kind = node_kind(n.kind)
    if kind is not None:
        if kind.blocks:
            return any(has_side_effects(m) for b in n.blocks for m in b.nodes)
        return kind.side_effects
    if n.kind in EFFECTFUL_OPERATORS:
        return True
    schema = n.schema
    # An operator returning nothing is called for its effect (set_grad_enabled,
    # manual_seed); in-place ops end in "_" (add_); dunder operators (__not__,
    # __getitem__) do not count.
    if schema is not None and (not schema.returns or schema.is_mutable() or
                               schema.name.endswith("_") and not schema.name.endswith("__")):
        return True
    return n.kind.startswith("aten::") and schema is None


def _drop_unused_outputs(n: Node) -> bool:
    """Remove if-outputs and loop-carried values that nothing reads."""
    changed = False
    if n.kind == prim.If:
        for i in reversed(range(len(n.outputs))):
            if not n.outputs[i].uses:
                for b in n.blocks:
                    b.return_node.remove_input(i)
                n.erase_output(i)
                changed = True
    elif n.kind == prim.Loop:
        body = n.blocks[0]
        for i in reversed(range(len(n.outputs))):
            inp = body.inputs[i + 1]
            # Unused after the loop, and inside only handed on unchanged to the next trip.
            passes_through = all(u.user is body.return_node and u.offset == i + 1
                                 for u in inp.uses)
            if not n.outputs[i].uses and passes_through:
                body.return_node.remove_input(i + 1)
                body.erase_input(i + 1)
                n.remove_input(i + 2)
                n.erase_output(i)
                changed = True
    return changed


def _constant_true(v: Value) -> bool:
    return v.node.kind == prim.Constant and v.node.attrs.get("value") is True


def _sweep(b: Block, need_effects: bool = True) -> tuple[bool, bool]:
    """Remove the dead nodes of `b`, innermost blocks first: (whether anything changed,
    whether a node left in `b` has side effects; asked only with `need_effects`)."""
    changed = effects = False
    for n in reversed(list(b.nodes)):
        inner_effects = False
        if n.blocks:
            changed |= _drop_unused_outputs(n)
            for inner in n.blocks:
                inner_changed, inner_has = _sweep(inner)
                changed |= inner_changed
                inner_effects |= inner_has
            # What a loop's body no longer reads may now only pass through it: dropped,
            # it leaves more of the body dead. (Everything else a removal frees is met
            # later in this sweep: a node's inputs are defined before it, so after it.)
            while n.kind == prim.Loop and inner_changed and _drop_unused_outputs(n):
                changed = True
                inner_changed, inner_effects = _sweep(n.blocks[0])
        used = any(o.uses for o in n.outputs)
        if used and not need_effects:
            continue    # it stays, and nobody asks about its effects
        # has_side_effects(n) for an if/loop is whether a node left in its blocks has
        # some: the sweep of those blocks just found that out, so it is not walked again.
        effect = inner_effects if n.blocks else has_side_effects(n)
        # A loop that still carries a value reads it in its body (unread ones were just
        # dropped), and one whose body computes its condition (a break) decides when it
        # stops: like PyTorch, such a loop stays even when nothing reads its results, so
        # that what its body may raise is still raised.
        if n.kind == prim.Loop and (n.outputs or not _constant_true(n.blocks[0].outputs[0])):
            effect = True
        if not effect and not used:
            n.destroy()
            changed = True
        else:
            effects |= effect
    return changed, effects


# Uses dropped by replacing values (folding, peephole, simplified branches); pooling only
# moves uses between equal constants, and one run removes all it can.
@rerun_after("constant_propagation", "simplify_control_flow", "peephole")
def run(graph: Graph) -> bool:
    """Remove dead nodes (in one sweep); returns whether anything was removed."""
    return _sweep(graph.block, need_effects=False)[0]
