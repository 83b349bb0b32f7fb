"""Simplify `prim::If` and `prim::Loop` nodes the exit transform and the compiler leave
behind: constant conditions, loops that never run, outputs that are the same on both
paths, and loop-carried values the body passes through unchanged.

An output uninitialized on one path keeps its placeholder (it could take the other path's
value, the path never reading it): PyTorch keeps it, and its archives print it, so
compiling their code must not simplify it away."""
from __future__ import annotations

from typing import Any

from ..graph import Block, Graph, Node, Value
from .. import types as T
from ..node_kinds import prim
from .pipeline import rerun_after


def _constant(v: Value) -> Any:
    n = v.node
    return n.attrs.get("value", None) if n.kind == prim.Constant else ...


def _inside(v: Value, n: Node) -> bool:
    """Whether `v` is defined inside one of node n's blocks."""
    owner = v.node.owning_block
    while owner is not None:
        if owner.owning_node is n:
            return True
        owner = owner.owning_node.owning_block if owner.owning_node is not None else None
    return False


def _same_constant(a: Value, b: Value) -> bool:
    ca, cb = _constant(a), _constant(b)
    return ca is not ... and cb is not ... and type(ca) is type(cb) and repr(ca) == repr(cb) \
        and a.type == b.type and not (a.node.attrs.keys() ^ b.node.attrs.keys())


def _inline_branch(n: Node, branch: Block) -> None:
    """Replace an If by the nodes of its live branch."""
    for m in list(branch.nodes):
        m.move_before(n)
    for out, v in zip(n.outputs, branch.outputs):
        out.replace_all_uses_with(v)
    n.destroy()


def _simplify_if(n: Node) -> bool:
    cond = _constant(n.input(0))
    if isinstance(cond, bool):
        _inline_branch(n, n.blocks[0] if cond else n.blocks[1])
        return True
    changed = False
    then, orelse = n.blocks
    for i, out in enumerate(n.outputs):
        if not out.uses:
            continue
        tv, fv = then.outputs[i], orelse.outputs[i]
        replacement = None
        if tv is fv and not _inside(tv, n):
            replacement = tv
        elif _same_constant(tv, fv) and not _inside(tv, n):
            replacement = tv
        if replacement is not None and T.is_subtype(replacement.type, out.type):
            # (a narrower value, as PyTorch replaces it: one constant `1` of two `1`s
            # merged as an Optional[int] is an int)
            out.replace_all_uses_with(replacement)
            changed = True
    return changed


def _never_runs(n: Node) -> bool:
    """A loop whose trip count is a constant of at most 0, or whose first test is False."""
    trips = _constant(n.input(0))
    return _constant(n.input(1)) is False or \
        isinstance(trips, int) and not isinstance(trips, bool) and trips <= 0


def _simplify_loop(n: Node) -> bool:
    body = n.blocks[0]
    if _never_runs(n):
        # As PyTorch's constant propagation does: the carried values keep their first values.
        for out, init in zip(n.outputs, n.inputs[2:]):
            out.replace_all_uses_with(init)
        n.destroy()
        return True
    changed = False
    for i, out in enumerate(n.outputs):
        inp, res, init = body.inputs[i + 1], body.outputs[i + 1], n.input(i + 2)
        # The body hands the carried value back unchanged: it is the initial value (of a
        # narrower type too, as PyTorch replaces it).
        if res is inp and T.is_subtype(init.type, inp.type) and (inp.uses or out.uses):
            if any(u.user is not body.return_node for u in inp.uses) or out.uses:
                inp.replace_all_uses_with(init)
                body.return_node.replace_input(i + 1, inp)   # keep the pass-through itself
                out.replace_all_uses_with(init)
                changed = True
    return changed


def _walk(b: Block) -> bool:
    changed = False
    for n in list(b.nodes):
        if n.owning_block is None:
            continue
        for sub in n.blocks:
            changed |= _walk(sub)
        if n.kind == prim.If:
            changed |= _simplify_if(n)
        elif n.kind == prim.Loop:
            changed |= _simplify_loop(n)
    return changed


# A condition or trip count made constant (folding, peephole), or two branch results
# merged into one constant (pooling).
@rerun_after("constant_propagation", "constant_pooling", "peephole")
def run(graph: Graph) -> bool:
    """Simplify until nothing changes; returns whether anything did."""
    changed = False
    while _walk(graph.block):
        changed = True
    return changed
