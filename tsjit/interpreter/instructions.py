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
| NEXT     | trip, target                 | r[trip] += 1; pc = target                                |
| GETATTR  | slot, obj, out               | r[out] = r[obj].slots[slot]                              |
| SETATTR  | slot, obj, val               | r[obj].slots[slot] = r[val]                              |
| CALL     | function, ins, outs          | call a Function with r[ins]; results into r[outs]        |
| CALLI    | name, ins, outs              | call method `name` of r[ins[0]]'s class (interfaces)     |
| RAISE    | msg, cls                     | raise the script exception `cls: msg`                    |
| RET      | outs                         | return r[outs] (one value, or a tuple for several)       |
"""
from __future__ import annotations

from typing import NamedTuple

OP1, OP2, OP3, OP, OPN, OPV, MOVE, MOVES, JUMP, JF, LOOP, NEXT, GETATTR, SETATTR, CALL, \
    CALLI, RAISE, RET = range(18)


class OpcodeInfo(NamedTuple):
    name: str
    operands: tuple[str, ...]
    doc: str


OPCODES: dict[int, OpcodeInfo] = {
    OP1: OpcodeInfo("OP1", ("kernel", "a", "out"), "one-input operator"),
    OP2: OpcodeInfo("OP2", ("kernel", "a", "b", "out"), "two-input operator"),
    OP3: OpcodeInfo("OP3", ("kernel", "a", "b", "c", "out"), "three-input operator"),
    OP: OpcodeInfo("OP", ("kernel", "ins", "out"), "operator with any inputs"),
    OPN: OpcodeInfo("OPN", ("kernel", "ins", "outs"), "operator with several outputs"),
    OPV: OpcodeInfo("OPV", ("kernel", "ins"), "operator without outputs"),
    MOVE: OpcodeInfo("MOVE", ("src", "dst"), "copy a register"),
    MOVES: OpcodeInfo("MOVES", ("srcs", "dsts"), "parallel copy of registers"),
    JUMP: OpcodeInfo("JUMP", ("target",), "jump"),
    JF: OpcodeInfo("JF", ("cond", "target"), "jump if false"),
    LOOP: OpcodeInfo("LOOP", ("trip", "max", "cond", "target"), "loop test, exit to target"),
    NEXT: OpcodeInfo("NEXT", ("trip", "target"), "count a trip and jump to the loop test"),
    GETATTR: OpcodeInfo("GETATTR", ("slot", "obj", "out"), "read an object slot"),
    SETATTR: OpcodeInfo("SETATTR", ("slot", "obj", "val"), "write an object slot"),
    CALL: OpcodeInfo("CALL", ("function", "ins", "outs"), "call a function or method"),
    CALLI: OpcodeInfo("CALLI", ("name", "ins", "outs"), "call a method found at run time"),
    RAISE: OpcodeInfo("RAISE", ("msg", "cls"), "raise an exception from the program"),
    RET: OpcodeInfo("RET", ("outs",), "return"),
}


def disassemble(code: list[tuple]) -> str:
    """A readable listing of an instruction list."""
    lines = []
    for pc, ins in enumerate(code):
        info = OPCODES[ins[0]]
        parts = []
        for name, val in zip(info.operands, ins[1:]):
            if name == "kernel":
                val = getattr(val, "__qualname__", repr(val))
            elif name == "function":
                val = getattr(val, "qualified_name", repr(val))
            parts.append(f"{name}={val}")
        lines.append(f"{pc:4d}  {info.name:<8} " + " ".join(parts))
    return "\n".join(lines)
