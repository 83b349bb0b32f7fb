"""Exit transform: early `return`, `break` and `continue` -> structured control flow.

The compiler emits exits as nodes: `prim::ReturnStmt(value)` for a return and
`prim::LoopContinuation(cond, carried...)` for `break` (cond False) and `continue` (cond:
the loop condition, re-evaluated). Their inputs have the shape of the outputs of the
block they leave (the graph, or the loop body). This pass removes them:

* an exit ends its block: the nodes after it are dead and removed;
* an `if` one of whose branches may exit gets two more kinds of outputs, a flag "has
  exited" and the exit values; the rest of the enclosing block moves into a guard
  `if flag: <pass the exit values on> else: <the rest>`;
* at the target block (the graph, or the loop body) the outputs become the exit values
  when the flag is set, else the normal ones.

Returns inside loops are not handled here: the compiler lowers them to a flag, a value
and a `break` (see FunctionCompiler.stmt_Return).

A `with` region (the nodes between a `prim::Enter` and the `prim::Exit` of the same
object) that holds an exit is made a `prim::With` node for the time of the pass: its one
block runs once, like an `if` whose branch is always taken, so the exit leaves the region
by its end and the Exit, kept aside, still runs on every path. The region is put back
flat afterwards (PyTorch lowers `with` the same way).
"""
from __future__ import annotations

from typing import Optional

from ..graph import Block, Graph, Node, Value
from .. import types as T
from ..node_kinds import prim

NEVER, MAYBE, ALWAYS = 0, 1, 2
RETURN, CONTINUATION = prim.ReturnStmt, prim.LoopContinuation


def _const(b: Block, value: bool, before: Optional[Node] = None) -> Value:
    n = b.graph.create(prim.Constant, [], 0)
    n.attrs["value"] = value
    out = n.add_output(T.BoolType)
    if before is None:
        b.append(n)
    else:
        n.insert_before(before)
    return out


def _uninit(b: Block, t: T.Type) -> Value:
    n = b.graph.create(prim.Uninitialized, [], 0)
    out = n.add_output(t)
    b.append(n)
    return out


def _kill_from(b: Block, index: int) -> None:
    """Remove b.nodes[index:] (unreachable after an exit); block outputs they defined
    become uninitialized values."""
    dead = b.nodes[index:]
    dead_ids = {id(n) for n in dead}
    for i, v in enumerate(b.outputs):
        if id(v.node) in dead_ids:
            b.return_node.replace_input(i, _uninit(b, v.type))
    for n in reversed(dead):
        n.destroy()


def _transform(b: Block, kind: str, types: list[T.Type]) -> tuple[int, Optional[Value], list[Value]]:
    """Remove exits of `kind` from `b` (not looking into loops); returns
    (NEVER | MAYBE | ALWAYS, has-exited flag when MAYBE, exit values)."""
    i, statuses = _first_exit(b, kind)
    if i < 0:
        return NEVER, None, []
    n = b.nodes[i]
    if statuses is None:                    # the exit itself
        values = list(n.inputs)
        n.remove_all_inputs()
        _kill_from(b, i)
        return ALWAYS, None, values
    if ALWAYS in statuses and n.kind == prim.If:
        # The rest of the block runs only on the branch that goes on: move it there
        # (no guard needed, see _tail).
        _continue_in(b, i, n.blocks[1 - statuses.index(ALWAYS)],
                     n.blocks[statuses.index(ALWAYS)])
    results = [_transform(sub, kind, types) for sub in n.blocks]
    flag_out, exits = _exit_outputs(n, results, types)
    if all(r[0] == ALWAYS for r in results):
        _kill_from(b, i + 1)
        return ALWAYS, None, exits
    if ALWAYS in statuses:
        return MAYBE, flag_out, exits       # nothing is left after the if
    return _guard_rest(b, i, flag_out, exits, kind, types)


def _first_exit(b: Block, kind: str) -> tuple[int, Optional[list[int]]]:
    """The index of the first node of `b` that is an exit of `kind` (statuses None) or an
    if or with region that may lead to one (with its blocks' statuses); -1 when there is
    none."""
    for i, n in enumerate(b.nodes):
        if n.kind == kind:
            return i, None
        if n.kind in _BRANCHING:
            statuses = [_status(sub, kind) for sub in n.blocks]
            if any(x != NEVER for x in statuses):
                return i, statuses
    return -1, None


def _guard_rest(b: Block, i: int, flag: Value, exits: list[Value], kind: str,
                types: list[T.Type]) -> tuple[int, Optional[Value], list[Value]]:
    """Move b.nodes[i+1:] into `if flag: (exited) else: <rest>`."""
    rest = b.nodes[i + 1:]
    guard = b.graph.create(prim.If, [flag], 0)
    guard.insert_after(b.nodes[i])
    exited, go_on = guard.add_block(), guard.add_block()
    for n in rest:
        n._unlink()
        go_on.append(n)
    normal = list(b.outputs)
    new_normal = [guard.add_output(v.type) for v in normal]
    new_flag = guard.add_output(T.BoolType)
    new_exits = [guard.add_output(t) for t in types]
    for k in range(len(normal)):
        b.return_node.replace_input(k, new_normal[k])
    # Exited: the block's own outputs are never read on this path.
    for v in normal:
        exited.register_output(_uninit(exited, v.type))
    exited.register_output(_const(exited, True))
    for v in exits:
        exited.register_output(v)
    # Not exited: the rest computes the outputs, and may exit itself.
    for v in normal:
        go_on.register_output(v)
    _register_exit(go_on, _transform(go_on, kind, types), types)
    return MAYBE, new_flag, new_exits


def _status(b: Block, kind: str) -> int:
    """Whether `b` leaves by an exit of `kind` never, maybe or always (no changes made)."""
    maybe = False
    for n in b.nodes:
        if n.kind == kind:
            return ALWAYS
        if n.kind in _BRANCHING:
            s = [_status(sub, kind) for sub in n.blocks]
            if all(x == ALWAYS for x in s):
                return ALWAYS
            maybe = maybe or any(x != NEVER for x in s)
    return MAYBE if maybe else NEVER


def _tail(b: Block, kind: str, types: list[T.Type]) -> None:
    """Remove exits of `kind` from `b`, whose outputs are the target's own: an exit's
    values simply become them.

    An `if` one of whose branches always exits takes the rest of the block into its other
    branch, so no flag is needed (`if c: return 1` / `y = ...` becomes `if c: 1 else:
    ...`), as PyTorch lowers it. Otherwise a flag and a guard carry the exit on.
    """
    i, statuses = _first_exit(b, kind)
    if i < 0:
        return
    n = b.nodes[i]
    if statuses is None:                    # the exit: its values are the outputs
        values = list(n.inputs)
        n.remove_all_inputs()
        _kill_from(b, i)
        for k, v in enumerate(values):
            b.return_node.replace_input(k, v)
        return
    if ALWAYS in statuses and n.kind == prim.If:
        leave = n.blocks[statuses.index(ALWAYS)]
        go_on = n.blocks[1 - statuses.index(ALWAYS)]
        _continue_in(b, i, go_on, leave)
        _tail(leave, kind, types)
        _tail(go_on, kind, types)
        return
    results = [_transform(sub, kind, types) for sub in n.blocks]
    flag, exits = _exit_outputs(n, results, types)
    guard = b.graph.create(prim.If, [flag], 0)
    guard.insert_after(n)
    exited, go_on = guard.add_block(), guard.add_block()
    for v in exits:
        exited.register_output(v)
    _continue_in(b, i + 1, go_on, exited)
    _tail(go_on, kind, types)


def _continue_in(b: Block, i: int, go_on: Block, other: Block) -> None:
    """Move the nodes of `b` after its `i`th node (an if) into that if's branch `go_on`,
    which then computes `b`'s outputs; `other` gives them too (left uninitialized when it
    gives none: it is the exiting branch, whose exit will set them)."""
    n = b.nodes[i]
    rest = b.nodes[i + 1:]
    # After the move the rest sees the if's results as `go_on` computes them.
    for k, out in enumerate(n.outputs):
        out.replace_all_uses_with(go_on.outputs[k])
    for k in reversed(range(len(n.outputs))):
        for sub in n.blocks:
            sub.return_node.remove_input(k)
        n.erase_output(k)
    for m in rest:
        m._unlink()
        go_on.append(m)
    provided = len(other.outputs)
    for k, v in enumerate(list(b.outputs)):
        go_on.register_output(v)
        if k >= provided:
            other.register_output(_uninit(other, v.type))
        b.return_node.replace_input(k, n.add_output(v.type))


def _exit_outputs(n: Node, results: list, types: list[T.Type]) -> tuple[Value, list[Value]]:
    """Give if `n` a has-exited flag and the exit values as outputs, from its branches'
    `_transform` results."""
    for sub, result in zip(n.blocks, results):
        _register_exit(sub, result, types)
    return n.add_output(T.BoolType), [n.add_output(t) for t in types]


def _register_exit(b: Block, result: tuple, types: list[T.Type]) -> None:
    """Add block `b`'s has-exited flag and exit values (its `_transform` result) to its
    outputs: constants where the answer is known (never, always)."""
    status, flag, values = result
    if status == NEVER:
        flag, values = _const(b, False), [_uninit(b, t) for t in types]
    elif status == ALWAYS:
        flag = _const(b, True)
    b.register_output(flag)
    for v in values:
        b.register_output(v)


def _loops(b: Block) -> list[Node]:
    out = []
    for n in b.nodes:
        for sub in n.blocks:
            out.extend(_loops(sub))
        if n.kind == prim.Loop:
            out.append(n)
    return out


def _wrap_regions(b: Block, exits: dict[int, Node]) -> None:
    """Make each with region of `b` (and of its nested blocks) that holds an exit a
    `prim::With` node after its Enter; its Exit is kept aside in `exits`."""
    i = 0
    while i < len(b.nodes):
        n = b.nodes[i]
        for sub in n.blocks:
            _wrap_regions(sub, exits)
        i += 1
        if n.kind != prim.Enter:
            continue
        j, depth = i, 0
        while not (b.nodes[j].kind == prim.Exit and depth == 0):
            depth += {prim.Enter: 1, prim.Exit: -1}.get(b.nodes[j].kind, 0)
            j += 1
        region = b.nodes[i:j]
        if not any(m.kind in (RETURN, CONTINUATION) for r in region for m in _walk_node(r)):
            continue
        with_node = b.graph.create(prim.With, [], 0)
        with_node.insert_after(n)
        body = with_node.add_block()
        for m in region:
            m._unlink()
            body.append(m)
        exit_node = b.nodes[i + 1]
        exit_node._unlink()
        exits[id(with_node)] = exit_node
        for m in region:            # values read after the region leave it as outputs
            for v in m.outputs:
                outside = [u for u in v.uses if not _within(u.user, body)]
                if outside:
                    body.register_output(v)
                    out = with_node.add_output(v.type)
                    for u in outside:
                        u.user.replace_input(u.offset, out)
        # (the loop visits the With node next, and so the region's nested blocks)


def _walk_node(n: Node) -> list[Node]:
    return [n] + [m for sub in n.blocks for m in sub.walk()]


def _within(n: Node, b: Block) -> bool:
    """Whether node `n` is in block `b` or in a block nested in it."""
    while n is not None and n.owning_block is not None:
        if n.owning_block is b:
            return True
        n = n.owning_block.owning_node
    return False


def _unwrap_regions(graph: Graph, exits: dict[int, Node]) -> None:
    """Put every `prim::With` region back flat, followed by its Exit."""
    for w in [n for n in graph.walk() if n.kind == prim.With]:
        body = w.blocks[0]
        for m in list(body.nodes):
            m._unlink()
            m.insert_before(w)
        exits[id(w)].insert_before(w)
        for out, v in zip(w.outputs, body.outputs):
            out.replace_all_uses_with(v)
        w.destroy()


_BRANCHING = (prim.If, prim.With)


def run(graph: Graph) -> bool:
    """Lower every ReturnStmt and LoopContinuation; returns whether there were any."""
    # One walk finds what there is to do: most functions end in their only return and
    # have no `with` region and no break/continue, and the walks those need are skipped.
    kinds = {n.kind for n in graph.walk()}
    if RETURN not in kinds and CONTINUATION not in kinds:
        return False
    exits: dict[int, Node] = {}
    regions = prim.Enter in kinds
    if regions:
        _wrap_regions(graph.block, exits)
    if CONTINUATION in kinds:
        for loop in _loops(graph.block):      # innermost first
            body = loop.blocks[0]
            _tail(body, CONTINUATION, [v.type for v in body.outputs])
    _tail(graph.block, RETURN, [v.type for v in graph.outputs])
    if regions:
        _unwrap_regions(graph, exits)
    return True
