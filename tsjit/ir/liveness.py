"""Where tensor values die: the point after which nothing reads them.

Both executors would otherwise hold every value of a frame until the frame returns
(interpreter registers, generated-code locals). For a model that keeps every activation
alive through a call; they are then freed all at once, and the allocator may hand that
memory back to the system, so that the next call faults it in again page by page.
Releasing a tensor right after its last use lets its memory be reused at once, as
PyTorch's interpreter does.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .graph import Block, Graph, Node, Value
from . import types as T
from .node_kinds import prim


@dataclass
class Releases:
    """Tensor values to release: after a node, at the start of a block (an `if` branch
    that does not read them), or on entering a loop (initial values of carried ones)."""

    after: dict[Node, list[Value]] = field(default_factory=dict)
    at_start: dict[Block, list[Value]] = field(default_factory=dict)
    entering: dict[Node, list[Value]] = field(default_factory=dict)


def holds_tensors(t: T.Type) -> bool:
    """Whether a value of type `t` may keep tensors alive (objects are long-lived: no)."""
    if t == T.TensorType:
        return True
    if isinstance(t, T.ClassType):
        return False
    return any(holds_tensors(c) for c in t.contained())


def releases(graph: Graph) -> Releases:
    """Where each tensor value of `graph` can be released (never a value a block returns
    while it is still that block's, nor a constant)."""
    out = Releases()
    _block(graph.block, out, {})
    if graph.block.nodes:       # the frame ends there anyway
        out.after.pop(graph.block.nodes[-1], None)
    return out


def _block(b: Block, out: Releases, positions: dict) -> None:
    # A loop's carried values are replaced at every back edge: releasing them earlier in
    # the body would cost an instruction per trip to save part of one trip's memory.
    candidates = [] if b.owning_node is not None and b.owning_node.kind == prim.Loop \
        else list(b.inputs)
    for n in b.nodes:
        candidates.extend(n.outputs)
        for sub in n.blocks:
            _block(sub, out, positions)
    for v in candidates:
        if not holds_tensors(v.type) or v.node.kind == prim.Constant:
            continue
        if not v.uses:          # never read: gone as soon as it is made
            if v.node.owning_block is b:
                out.after.setdefault(v.node, []).append(v)
            continue
        _place(v, b, v.uses, out, positions)


def _place(v: Value, b: Block, uses: list, out: Releases, positions: dict) -> None:
    """Release `v` in block `b`, where `uses` (its uses inside `b`) are; `positions`
    caches each block's node indices (built once per block, not per value)."""
    position = positions.get(id(b))
    if position is None:
        position = positions[id(b)] = {id(n): i for i, n in enumerate(b.nodes)}
    last = -1
    for use in uses:
        user = _ancestor_in(use.user, b)
        if user is None:        # read by the block's return: lives to the end
            return
        last = max(last, position[id(user)])
    n = b.nodes[last]
    at_n = [u for u in uses if _ancestor_in(u.user, b) is n]
    if n.kind == prim.If:
        # Not read after the if: each branch can let it go after its own last use.
        for sub in n.blocks:
            inside = [u for u in at_n if _within(u.user, sub)]
            if not inside:
                out.at_start.setdefault(sub, []).append(v)
            elif any(u.user is sub.return_node for u in inside):
                out.after.setdefault(n, []).append(v)   # flows out of the if: after it
            else:
                _place(v, sub, inside, out, positions)
    elif n.kind == prim.Loop and all(u.user is n for u in at_n) and \
            all(u.offset >= 2 for u in at_n):
        out.entering.setdefault(n, []).append(v)     # only a carried value's start
    else:
        out.after.setdefault(n, []).append(v)


def _within(n: Node, b: Block) -> bool:
    while n.owning_block is not b:
        owner = n.owning_block.owning_node
        if owner is None:
            return False
        n = owner
    return True


def _ancestor_in(n: Node, b: Block) -> Node | None:
    """The node of `b` that is `n` or contains it; None for `b`'s return node."""
    while n.owning_block is not b:
        owner = n.owning_block.owning_node
        assert owner is not None, "a use outside the value's scope"
        n = owner
    return None if n is b.return_node else n
