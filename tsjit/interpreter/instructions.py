"""The instruction set of the interpreter: one documented table.

Code is a flat list of tuples `(opcode, operand, ...)` over a register file (a Python
list, one register per IR value). Operands are register indices, jump targets, kernels
and slot numbers resolved when the Code is built, so the run loop never looks a name
up. Operators read their inputs from registers and write outputs to registers directly
(a register machine rather than a push/pop stack): one dispatch per graph node, which
is what the per-node budget allows in Python.

| opcode   | operands                     | effect                                                   |
|----------|------------------------------|----------------------------------------------------------|
| OP1      | kernel, a, out               | r[out] = kernel(r[a])                                    |
| OP2      | kernel, a, b, out            | r[out] = kernel(r[a], r[b])                              |
| OP3      | kernel, a, b, c, out         | r[out] = kernel(r[a], r[b], r[c])                        |
| OP       | kernel, ins, out             | r[out] = kernel(*r[ins])                                 |
| OPN      | kernel, ins, outs            | r[outs...] = kernel(*r[ins]) (a tuple of results)        |
| OPV      | kernel, ins                  | kernel(*r[ins]) (no result)                              |
| MOVE     | src, dst                     | r[dst] = r[src]                                          |
| MOVES    | srcs, dsts                   | r[dsts...] = r[srcs...] (a parallel move)                |
| JUMP     | target                       | pc = target                                              |
| JF       | cond, target                 | if not r[cond]: pc = target                              |
| LOOP     | trip, max, cond, target      | if not (r[trip] < r[max] and r[cond]): pc = target       |
| GETATTR  | slot, obj, out               | r[out] = r[obj].slots[slot]                              |
| SETATTR  | slot, obj, val               | r[obj].slots[slot] = r[val]                              |
| CALL     | function, ins, outs          | call a Function with r[ins]; results into r[outs]        |
| CALLI    | name, ins, outs              | call method `name` of r[ins[0]]'s class (interfaces)     |
| RAISE    | msg, cls                     | raise the script exception `cls: msg`                    |
| RET      | outs                         | return r[outs] (one value, or a tuple for several)       |
| OP2JF    | kernel, a, b, target         | if not kernel(r[a], r[b]): pc = target (fused test + JF) |
| IADD     | a, b, out                    | r[out] = r[a] + r[b], wrapped to int64 (aten::add.int)   |
| ISUB     | a, b, out                    | r[out] = r[a] - r[b], wrapped to int64 (aten::sub.int)   |
| IMUL     | a, b, out                    | r[out] = r[a] * r[b], wrapped to int64 (aten::mul.int)   |
| IREM     | a, b, out, kernel            | int64 remainder (aten::remainder.int); kernel for edges  |
| IFDIV    | a, b, out, kernel            | int64 floor division (aten::floordiv.int); kernel for edges |
| BACK     | srcs, dsts, trip, max, cond, body | loop back edge: r[dsts] = r[srcs]; r[trip] += 1;    |
|          |                              | if r[trip] < r[max] and r[cond]: pc = body, else go on   |

Instructions that read several registers at once (OP, OPN, OPV, MOVES, CALL, CALLI, BACK)
carry a trailing `gather` operand: an `operator.itemgetter` over those registers, which
reads them in C (a list comprehension costs a frame per use in Python 3.11).

The fused forms are what the builder emits for the common shapes (a comparison that only
feeds an `if`; the end of a loop body), to save dispatches in the hottest paths. IADD,
ISUB and IMUL compute int64 arithmetic in the loop itself (no kernel call); they give
exactly the registered kernels' results, which tests check.
"""
from __future__ import annotations

from typing import NamedTuple

OP1, OP2, OP3, OP, OPN, OPV, MOVE, MOVES, JUMP, JF, LOOP, GETATTR, SETATTR, CALL, \
    CALLI, RAISE, RET, OP2JF, BACK, IADD, ISUB, IMUL, IREM, IFDIV = range(24)


class OpcodeInfo(NamedTuple):
    name: str
    operands: tuple[str, ...]
    doc: str


OPCODES: dict[int, OpcodeInfo] = {
    OP1: OpcodeInfo("OP1", ("kernel", "a", "out"), "one-input operator"),
    OP2: OpcodeInfo("OP2", ("kernel", "a", "b", "out"), "two-input operator"),
    OP3: OpcodeInfo("OP3", ("kernel", "a", "b", "c", "out"), "three-input operator"),
    OP: OpcodeInfo("OP", ("kernel", "ins", "out", "gather"), "operator with any inputs"),
    OPN: OpcodeInfo("OPN", ("kernel", "ins", "outs", "gather"), "operator with several outputs"),
    OPV: OpcodeInfo("OPV", ("kernel", "ins", "gather"), "operator without outputs"),
    MOVE: OpcodeInfo("MOVE", ("src", "dst"), "copy a register"),
    MOVES: OpcodeInfo("MOVES", ("srcs", "dsts", "gather"), "parallel copy of registers"),
    JUMP: OpcodeInfo("JUMP", ("target",), "jump"),
    JF: OpcodeInfo("JF", ("cond", "target"), "jump if false"),
    LOOP: OpcodeInfo("LOOP", ("trip", "max", "cond", "target"), "loop test, exit to target"),
    GETATTR: OpcodeInfo("GETATTR", ("slot", "obj", "out"), "read an object slot"),
    SETATTR: OpcodeInfo("SETATTR", ("slot", "obj", "val"), "write an object slot"),
    CALL: OpcodeInfo("CALL", ("function", "ins", "outs", "gather"), "call a function or method"),
    CALLI: OpcodeInfo("CALLI", ("name", "ins", "outs", "gather"), "call a method found at run time"),
    RAISE: OpcodeInfo("RAISE", ("msg", "cls"), "raise an exception from the program"),
    RET: OpcodeInfo("RET", ("outs",), "return"),
    OP2JF: OpcodeInfo("OP2JF", ("kernel", "a", "b", "target"), "two-input test, jump if false"),
    BACK: OpcodeInfo("BACK", ("srcs", "dsts", "trip", "max", "cond", "body", "gather"), "loop back edge"),
    IADD: OpcodeInfo("IADD", ("a", "b", "out"), "int64 addition"),
    ISUB: OpcodeInfo("ISUB", ("a", "b", "out"), "int64 subtraction"),
    IMUL: OpcodeInfo("IMUL", ("a", "b", "out"), "int64 multiplication"),
    IREM: OpcodeInfo("IREM", ("a", "b", "out", "kernel"), "int64 remainder"),
    IFDIV: OpcodeInfo("IFDIV", ("a", "b", "out", "kernel"), "int64 floor division"),
}


def disassemble(code: list[tuple]) -> str:
    """A readable listing of an instruction list."""
    lines = []
    for pc, ins in enumerate(code):
        info = OPCODES[ins[0]]
        parts = []
        for name, val in zip(info.operands, ins[1:]):
            if name == "gather":
                continue
            if name == "kernel":
                val = getattr(val, "__qualname__", repr(val))
            elif name == "function":
                val = getattr(val, "qualified_name", repr(val))
            parts.append(f"{name}={val}")
        lines.append(f"{pc:4d}  {info.name:<8} " + " ".join(parts))
    return "\n".join(lines)
