"""The interpreter loop, and calling Functions."""
from __future__ import annotations

from typing import Any

from .._tensor.kernel_util import fp_ignored
from ..ir import Function
from ..ir.diagnostics import TsjitError
from ..ir.limits import CHECK_EVERY, check_deadline, current_deadline
from .code import Code
from .executor import executor_for
from .errors import CAUGHT, ScriptError, located
from ..ops.formatting import wrap_int64
from .instructions import (BACK, CALL, CALLI, GETATTR, IADD, IFDIV, IMUL, IREM, ISUB, JF, JUMP,
                           LOOP, MOVE, MOVES, OP, OP1, OP2, OP2JF, OP3, OPN, OPV, RAISE, RET,
                           SETATTR)

_LO, _HI = -(1 << 63), (1 << 63) - 1
# Below this magnitude of the divisor, Python's `%` equals TorchScript's int64 remainder
# ((b + a % b) % b with C semantics): the intermediate sum cannot overflow.
_HALF = 1 << 62


def code_for(fn: Function) -> Code:
    """The Code of `fn`, built on first use."""
    return executor_for(fn).code


def call_function(fn: Function, args: list) -> Any:
    """Run `fn` on positional run-time values (`self` first for methods), in whichever
    tier its executor has reached: the entry from Python, so the call is one region of
    ignored floating-point errors for every kernel it runs (`kernel_util.fp_ignored`)."""
    with fp_ignored():
        return executor_for(fn).call(args)


def run(code: Code, args: list) -> Any:
    """Execute `code` with `args` in its first registers; returns the graph's output."""
    # Opcodes as locals: a local load is cheaper than a global one in the hot loop.
    _OP2, _OP2JF, _BACK, _MOVE, _IADD, _IREM, _IFDIV, _JUMP, _IMUL, _ISUB, _OP1, _LOOP, _JF, _MOVES, _OP3, _GETATTR, _OP, _CALL, _SETATTR, _OPV, _OPN, _RET, _CALLI, _RAISE = \
        OP2, OP2JF, BACK, MOVE, IADD, IREM, IFDIV, JUMP, IMUL, ISUB, OP1, LOOP, JF, MOVES, OP3, GETATTR, OP, CALL, SETATTR, OPV, OPN, RET, CALLI, RAISE
    r = code.template[:]
    r[:len(args)] = args
    instructions = code.instructions
    pc = 0
    # Under an execution budget, loops check the deadline on entry (so nested short loops
    # are checked too) and every CHECK_EVERY-th iteration; without one, a loop entry and a
    # back edge pay one test of `budgeted`.
    budgeted = current_deadline() is not None
    try:
        if budgeted:
            check_deadline()
        while True:
            ins = instructions[pc]
            op = ins[0]
            pc += 1
            # The most frequent instructions are tested first.
            if op == _OP2:
                r[ins[4]] = ins[1](r[ins[2]], r[ins[3]])
            elif op == _OP2JF:
                if not ins[1](r[ins[2]], r[ins[3]]):
                    pc = ins[4]
            elif op == _BACK:
                srcs = ins[1]
                if len(srcs) == 1:
                    r[ins[2][0]] = r[srcs[0]]
                else:
                    for d, v in zip(ins[2], ins[7](r)):
                        r[d] = v
                t = r[ins[3]] + 1
                r[ins[3]] = t
                if t < r[ins[4]] and r[ins[5]]:
                    pc = ins[6]
                    if budgeted and not t % CHECK_EVERY:
                        check_deadline()
            elif op == _MOVE:
                r[ins[2]] = r[ins[1]]
            elif op == _IADD:
                v = r[ins[1]] + r[ins[2]]
                r[ins[3]] = v if _LO <= v <= _HI else wrap_int64(v)
            elif op == _IREM:
                b = r[ins[2]]
                if 0 < b < _HALF or -_HALF < b < 0:
                    r[ins[3]] = r[ins[1]] % b
                else:
                    r[ins[3]] = ins[4](r[ins[1]], b)
            elif op == _IFDIV:
                b = r[ins[2]]
                if b > 0 or b < -1:   # no zero division, no INT64_MIN // -1 overflow
                    r[ins[3]] = r[ins[1]] // b
                else:
                    r[ins[3]] = ins[4](r[ins[1]], b)
            elif op == _JUMP:
                pc = ins[1]
            elif op == _IMUL:
                v = r[ins[1]] * r[ins[2]]
                r[ins[3]] = v if _LO <= v <= _HI else wrap_int64(v)
            elif op == _ISUB:
                v = r[ins[1]] - r[ins[2]]
                r[ins[3]] = v if _LO <= v <= _HI else wrap_int64(v)
            elif op == _OP1:
                r[ins[3]] = ins[1](r[ins[2]])
            elif op == _LOOP:
                if not (r[ins[1]] < r[ins[2]] and r[ins[3]]):
                    pc = ins[4]
                elif budgeted:
                    check_deadline()
            elif op == _JF:
                if not r[ins[1]]:
                    pc = ins[2]
            elif op == _MOVES:
                for d, v in zip(ins[2], ins[3](r)):
                    r[d] = v
            elif op == _OP3:
                r[ins[5]] = ins[1](r[ins[2]], r[ins[3]], r[ins[4]])
            elif op == _GETATTR:
                r[ins[3]] = r[ins[2]].slots[ins[1]]
            elif op == _OP:
                r[ins[3]] = ins[1](*ins[4](r))
            elif op == _CALL:
                fn = ins[1]
                r[ins[3]] = (fn.executor or executor_for(fn)).call(list(ins[4](r)))
            elif op == _SETATTR:
                obj = r[ins[2]]
                slots = obj.slots
                if ins[1] >= len(slots):
                    obj._grow()
                slots[ins[1]] = r[ins[3]]
            elif op == _OPV:
                ins[1](*ins[3](r))
            elif op == _OPN:
                results = ins[1](*ins[4](r))
                for d, v in zip(ins[3], results):
                    r[d] = v
            elif op == _RET:
                outs = ins[1]
                return r[outs[0]] if len(outs) == 1 else tuple(r[o] for o in outs)
            elif op == _CALLI:
                obj = r[ins[2][0]]
                fn = obj.type.methods.get(ins[1])
                if fn is None:
                    raise ScriptError(f"object of type {obj.type.name} has no method '{ins[1]}'")
                r[ins[3]] = (fn.executor or executor_for(fn)).call(list(ins[4](r)))
            elif op == _RAISE:
                cls = r[ins[2]] or "builtins.Exception"
                raise ScriptError(r[ins[1]], cls.rsplit(".", 1)[-1])
            else:
                raise TsjitError(f"bad opcode {op} at {pc - 1} in {code.name}")
    except CAUGHT as err:
        if code.with_regions:
            exit_regions(code.with_regions, r, pc - 1)
        raise located(err, code.name, code.ranges[pc - 1], code.callstacks.get(pc - 1, ())) from None


def exit_regions(regions: list, registers: list, at: int) -> None:
    """Run `__exit__(None, None, None)` of every `with` object whose region instruction
    `at` raised in, innermost first (as PyTorch's interpreter does on an error)."""
    for enter_pc, exit_pc, obj, exit_fn in regions:
        if enter_pc < at < exit_pc:
            call_function(exit_fn, [registers[obj], None, None, None])
