"""Graph -> Code: lowering structured IR to the linear instruction list.

Every IR value gets a register; constants live in the register template, so reading a
constant costs nothing at run time. `prim::If` becomes a conditional jump over the
then-block, `prim::Loop` a test at the top (LOOP) and a back edge (BACK); block outputs
become parallel moves into the registers of the if's outputs / the loop-carried values.
Kernels are bound here, once per node.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from ..ir import Block, Function, Graph, Node, Value
from ..ir.gc_pause import gc_paused
from ..ir.liveness import Releases, releases
from ..ir import types as T
from ..ir.diagnostics import SourceRange, TsjitError
from ..ir.node_kinds import prim
from ..ops import registry
from .._tensor.kernel_util import in_region
import operator

from .instructions import (BACK, CALL, CALLI, GETATTR, IADD, IFDIV, IMUL, IREM, ISUB, JF, JUMP,
                           LOOP, MOVE, MOVES, OP, OP1, OP2, OP2JF, OP3, OPN, OPV, RAISE, RET,
                           SETATTR)

# Operators the loop computes inline, and pure int comparisons whose C implementation
# (the `operator` module) gives exactly the registered kernel's result.
INLINE_INT_OPS = {"aten::add.int": IADD, "aten::sub.int": ISUB, "aten::mul.int": IMUL,
                  "aten::remainder.int": IREM, "aten::floordiv.int": IFDIV}
C_KERNELS = {"aten::eq.int": operator.eq, "aten::ne.int": operator.ne,
             "aten::lt.int": operator.lt, "aten::le.int": operator.le,
             "aten::gt.int": operator.gt, "aten::ge.int": operator.ge,
             "aten::eq.bool": operator.eq, "aten::ne.bool": operator.ne}
from .objects import Future
from .prim_kernels import prim_kernel


@dataclass
class Code:
    """An executable form of one graph."""

    name: str
    instructions: list[tuple] = field(default_factory=list)
    template: list = field(default_factory=list)     # initial register contents
    n_inputs: int = 0
    ranges: list[Optional[SourceRange]] = field(default_factory=list)  # per instruction
    # Instructions of inlined nodes: the frames of the calls they came through.
    callstacks: dict[int, tuple] = field(default_factory=dict)
    # `with` regions, innermost first: (pc of the __enter__ call, pc of the __exit__ call,
    # register of the object, __exit__). An error raised strictly between the two calls
    # runs __exit__ before it leaves the frame.
    with_regions: list[tuple[int, int, int, Function]] = field(default_factory=list)


class _Builder:
    def __init__(self, name: str, drops: Releases) -> None:
        self.code = Code(name)
        self.regs: dict[int, int] = {}
        self.callstack: tuple = ()   # of the node being lowered
        self.drops = drops           # where tensors are released (ir/liveness.py)
        self.none = -1               # a register that always holds None
        self.entered: list[int] = []  # pcs of the __enter__ calls of open with regions

    def reg(self, v: Value) -> int:
        r = self.regs.get(id(v))
        if r is None:
            r = self.regs[id(v)] = len(self.code.template)
            self.code.template.append(None)
        return r

    def emit(self, ins: tuple, rng: Optional[SourceRange]) -> int:
        self.code.instructions.append(ins)
        self.code.ranges.append(rng)
        if self.callstack:
            self.code.callstacks[len(self.code.instructions) - 1] = self.callstack
        return len(self.code.instructions) - 1

    def patch(self, at: int, ins: tuple) -> None:
        self.code.instructions[at] = ins

    def here(self) -> int:
        return len(self.code.instructions)

    def moves(self, srcs: list[Value], dsts: list[int], rng: Optional[SourceRange]) -> None:
        pairs = [(self.reg(s), d) for s, d in zip(srcs, dsts) if self.reg(s) != d]
        if len(pairs) == 1:
            self.emit((MOVE, pairs[0][0], pairs[0][1]), rng)
        elif pairs:
            srcs = tuple(p[0] for p in pairs)
            self.emit((MOVES, srcs, tuple(p[1] for p in pairs), gather(srcs)), rng)

    # --- nodes --------------------------------------------------------------------
    def block(self, b: Block) -> None:
        for n in b.nodes:
            self.node(n)

    def node(self, n: Node) -> None:
        outer, self.callstack = self.callstack, n.callstack
        self._node(n)
        self.release(self.drops.after.get(n), n.source_range)
        self.callstack = outer

    def release(self, values: Optional[list[Value]], rng: Optional[SourceRange]) -> None:
        """Clear the registers of tensors nothing reads any more (their memory is reused)."""
        if not values:
            return
        regs = tuple(self.reg(v) for v in values)
        if len(regs) == 1:
            self.emit((MOVE, self.none_register(), regs[0]), rng)
        else:
            srcs = (self.none_register(),) * len(regs)
            self.emit((MOVES, srcs, regs, gather(srcs)), rng)

    def none_register(self) -> int:
        if self.none < 0:
            self.none = len(self.code.template)
            self.code.template.append(None)
        return self.none

    def _node(self, n: Node) -> None:
        k = n.kind
        rng = n.source_range
        if k == prim.Constant:
            self.code.template[self.reg(n.output())] = n.attrs.get("value")
            return
        if k == prim.Uninitialized:
            self.reg(n.output())
            return
        if k == prim.If:
            self.if_(n)
            return
        if k == prim.Loop:
            self.loop(n)
            return
        if k == prim.fork:
            # Run the forked call now; its result becomes a done Future.
            b = n.blocks[0]
            self.block(b)
            self.emit((OP1, Future, self.reg(b.outputs[0]), self.reg(n.output())), rng)
            return
        ins = tuple(self.reg(v) for v in n.inputs)
        outs = tuple(self.reg(v) for v in n.outputs)
        if k == prim.GetAttr:
            self.emit((GETATTR, self.slot(n), ins[0], outs[0]), rng)
        elif k == prim.SetAttr:
            self.emit((SETATTR, self.slot(n), ins[0], ins[1]), rng)
        elif k == prim.CallMethod:
            t = n.input(0).type
            if isinstance(t, T.ClassType) and n.callee is not None:
                self.emit((CALL, n.callee, ins, outs[0], gather(ins)), rng)
            else:
                self.emit((CALLI, n.attrs["name"], ins, outs[0], gather(ins)), rng)
        elif k == prim.CallFunction:
            self.emit((CALL, n.callee, ins[1:], outs[0], gather(ins[1:])), rng)
        elif k == prim.Enter:
            self.entered.append(self.emit((CALL, n.callee, ins, outs[0], gather(ins)), rng))
        elif k == prim.Exit:
            args = ins + (self.none_register(),) * 3
            at = self.emit((CALL, n.callee, args, outs[0], gather(args)), rng)
            self.code.with_regions.append((self.entered.pop(), at, ins[0], n.callee))
        elif k == prim.RaiseException:
            self.emit((RAISE, ins[0], ins[1]), rng)
        elif k == prim.unchecked_cast:
            self.emit((MOVE, ins[0], outs[0]), rng)
        else:
            self.op(n, node_kernel(n), ins, outs, rng)

    def op(self, n: Node, kernel: Any, ins: tuple, outs: tuple, rng: Optional[SourceRange]) -> None:
        inline = INLINE_INT_OPS.get(n.schema.qualified) if n.schema is not None else None
        if inline is not None:
            # IREM / IFDIV keep the kernel for the rare operands the fast path leaves out.
            self.emit((inline, ins[0], ins[1], outs[0], kernel), rng)
            return
        if n.kind in (prim.TupleUnpack, prim.ListUnpack):
            self.emit((OPN, kernel, ins, outs, gather(ins)), rng)   # unpacks even a 1-tuple
            return
        if len(outs) == 1:
            if len(ins) == 1:
                self.emit((OP1, kernel, ins[0], outs[0]), rng)
            elif len(ins) == 2:
                self.emit((OP2, kernel, ins[0], ins[1], outs[0]), rng)
            elif len(ins) == 3:
                self.emit((OP3, kernel, ins[0], ins[1], ins[2], outs[0]), rng)
            else:
                self.emit((OP, kernel, ins, outs[0], gather(ins)), rng)
        elif not outs:
            self.emit((OPV, kernel, ins, gather(ins)), rng)
        else:
            self.emit((OPN, kernel, ins, outs, gather(ins)), rng)

    def slot(self, n: Node) -> int:
        t = n.input(0).type
        name = n.attrs["name"]
        if not isinstance(t, T.ClassType):
            raise TsjitError(f"attribute access on a value of type {t}", n.source_range)
        i = t.attribute_slot(name)
        if i < 0:
            raise TsjitError(f"'{t.name}' has no attribute '{name}'", n.source_range)
        return i

    def if_(self, n: Node) -> None:
        rng = n.source_range
        outs = [self.reg(v) for v in n.outputs]
        cond = n.input(0)
        prev = self.code.instructions[-1] if self.code.instructions else None
        if prev is not None and prev[0] == OP2 and prev[4] == self.reg(cond) and \
                len(cond.uses) == 1 and self.code.ranges[-1] is cond.node.source_range:
            # The comparison only feeds this if: test and branch in one instruction.
            self.code.instructions.pop()
            self.code.ranges.pop()
            jf = self.emit((OP2JF, prev[1], prev[2], prev[3], -1), rng)
            fused = True
        else:
            jf = self.emit((JF, self.reg(cond), -1), rng)
            fused = False
        then, orelse = n.blocks
        for b in (then, orelse):
            for v, out in zip(b.outputs, outs):
                # A value made in the branch only to be its result is computed straight
                # into the if's output register: no move.
                if v.node.owning_block is b and len(v.uses) == 1 and id(v) not in self.regs \
                        and v.node.kind != prim.Constant:
                    self.regs[id(v)] = out
        self.release(self.drops.at_start.get(then), rng)
        self.block(then)
        self.moves(list(then.outputs), outs, rng)
        jump = self.emit((JUMP, -1), rng)
        ins = self.code.instructions[jf]
        self.patch(jf, (OP2JF, ins[1], ins[2], ins[3], self.here()) if fused
                   else (JF, self.reg(cond), self.here()))
        self.release(self.drops.at_start.get(orelse), rng)
        self.block(orelse)
        self.moves(list(orelse.outputs), outs, rng)
        self.patch(jump, (JUMP, self.here()))

    def loop(self, n: Node) -> None:
        rng = n.source_range
        body = n.blocks[0]
        max_trip, cond0 = n.input(0), n.input(1)
        trip = self.reg(body.inputs[0])
        carried = [self.reg(v) for v in body.inputs[1:]]
        cond = len(self.code.template)
        self.code.template.append(None)
        zero = len(self.code.template)
        self.code.template.append(0)
        self.emit((MOVE, zero, trip), rng)
        self.moves([cond0] + list(n.inputs[2:]), [cond] + carried, rng)
        self.release(self.drops.entering.get(n), rng)
        top = self.emit((LOOP, trip, self.reg(max_trip), cond, -1), rng)
        self.block(body)
        # The back edge moves the body's results into place, counts the trip and tests
        # the loop condition itself, jumping straight into the body again.
        pairs = [(self.reg(s), d) for s, d in zip(body.outputs, [cond] + carried) if self.reg(s) != d]
        srcs = tuple(p[0] for p in pairs)
        self.emit((BACK, srcs, tuple(p[1] for p in pairs), trip,
                   self.reg(max_trip), cond, top + 1, gather(srcs)), rng)
        self.patch(top, (LOOP, trip, self.reg(max_trip), cond, self.here()))
        outs = [self.reg(v) for v in n.outputs]
        for c, o in zip(carried, outs):
            self.emit((MOVE, c, o), rng)


def gather(regs: tuple) -> Callable[[list], tuple]:
    """A C-level reader of registers `regs` as a tuple (no comprehension frame per use)."""
    if len(regs) >= 2:
        return operator.itemgetter(*regs)
    if len(regs) == 1:
        (i,) = regs
        return lambda r: (r[i],)
    return lambda r: ()


def node_kernel(n: Node) -> Any:
    """The callable that computes operator node `n` (a registered or prim kernel)."""
    if n.schema is not None:
        o = registry.find_by_schema(n.schema)
        if o is None:
            raise TsjitError(f"no kernel is registered for {n.schema}", n.source_range)
        return C_KERNELS.get(n.schema.qualified) or in_region(o.kernel)
    try:
        return prim_kernel(n)
    except KeyError:
        raise TsjitError(f"the interpreter cannot run {n.kind} nodes", n.source_range) from None


@gc_paused()
def build_code(fn: Function, graph: Optional[Graph] = None) -> Code:
    """Lower `fn`'s graph (or `graph`) to Code."""
    g = graph if graph is not None else fn.graph
    b = _Builder(fn.qualified_name, releases(g))
    for v in g.inputs:
        b.reg(v)
    b.code.n_inputs = len(g.inputs)
    b.block(g.block)
    outs = tuple(b.reg(v) for v in g.outputs)
    b.emit((RET, outs), None)
    b.code.with_regions.sort(key=lambda region: -region[0])
    return b.code
