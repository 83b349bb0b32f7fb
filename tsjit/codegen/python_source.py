"""Graph -> Python source: one Python function per graph.

`prim::If` / `prim::Loop` become `if` / `while` (`for ... in range` for counted loops);
values become locals named `<hint>_<number>` (sanitized, so never a keyword, a builtin
or one of the bound names, which all start with `_`); operators become calls of their
kernels bound into the function's globals, or the exact Python of `inline_ops`.
Nothing is taken from archive text: names are rebuilt from value hints, strings are
emitted with `repr`, every other constant is a bound object.

A pure expression used once, in the same block, is folded into its user when that keeps
the order in which the graph evaluates things (its pending values are the last ones
defined, consumed in definition order) and the folded expression nests at most
`MAX_FOLD_DEPTH` levels; otherwise it is assigned where it stood. Python's own parser
refuses deeper expressions and blocks (`MAX_BLOCK_DEPTH`, `MAX_LOOP_DEPTH`); a graph
nested deeper than those is a TsjitError, and the function stays interpreted.

Each function comes in two variants: the usual one, and a budgeted one (made when first
needed) that checks the execution budget on entry and every `CHECK_EVERY` loop iterations;
the usual one starts by handing its call to the budgeted one when a budget is in force, so
code run without a budget pays one context-variable read per call and nothing per iteration.

Every line records the node it came from, so an exception raised on a line is reported
at that node's source range with the frames of the calls it was inlined through.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Optional

from ..interpreter.code import node_kernel
from ..interpreter.executor import executor_for
from ..interpreter.errors import CAUGHT, ScriptError
from ..interpreter.objects import Object
from ..ir import Block, Graph, Node, Value
from ..ir import types as T
from ..ir.diagnostics import SourceRange, TsjitError
from ..ir.liveness import Releases, releases
from ..ir.node_kinds import prim
from .inline_ops import TEMPLATES, Context, Inline

Location = tuple[Optional[SourceRange], tuple]

# Python's tokenizer allows 200 nested brackets and 100 indentation levels, and its
# compiler 20 nested loops and try blocks (the generated function's `try` is one).
MAX_FOLD_DEPTH = 40
MAX_BLOCK_DEPTH = 90
MAX_LOOP_DEPTH = 18
_IDENT = re.compile(r"[^0-9A-Za-z_]")
_ATOM = re.compile(r"^(?:[A-Za-z_][0-9A-Za-z_]*|-?[0-9.e+]+|'[^'\\]*'|True|False|None)$")
# A loop bound this large is TorchScript's "no bound" (while loops).
_UNBOUNDED = 1 << 62
_INDENT = "    "
# Globals the generated function reads that the compiler binds (not in `Generated.namespace`),
# and the locals it makes besides value names.
CALLER_GLOBALS = ("_locate", "_budgeted", "_deadline", "_tick")
HELPER_LOCALS = ("_left",)


@dataclass
class Generated:
    """Generated source with what it needs to run: its globals, and where each line came from."""

    name: str
    source: str
    namespace: dict[str, Any]
    locations: list[Optional[Location]] = field(default_factory=list)   # by line number


def raise_script_error(message: str, cls: Optional[str]) -> ScriptError:
    """The exception a program's `raise` statement throws (as the interpreter's RAISE)."""
    return ScriptError(message, (cls or "builtins.Exception").rsplit(".", 1)[-1])


def set_slot(obj: Object, slot: int, value: Any) -> None:
    """obj.slots[slot] = value, growing the slots of an object made before the attribute."""
    obj._grow()
    obj.slots[slot] = value


def call_interface(name: str, args: list) -> Any:
    """Call method `name` of args[0]'s class, found at run time (interface calls)."""
    obj = args[0]
    fn = obj.type.methods.get(name)
    if fn is None:
        raise ScriptError(f"object of type {obj.type.name} has no method '{name}'")
    return (fn.executor or executor_for(fn)).call(args)


class _Source(Context):
    def __init__(self, name: str, budgeted: bool = False) -> None:
        self.name = name
        self.budgeted = budgeted
        self.lines: list[str] = []
        self.locations: list[Optional[Location]] = [None]       # line numbers start at 1
        self.namespace: dict[str, Any] = {}
        self._bound: dict[int, str] = {}
        self.names: dict[Value, str] = {}
        self.aliases: dict[Value, str] = {}     # values that are another value's expression
        self.pending: list[tuple[Value, str]] = []
        self.fold_depth: dict[Value, int] = {}  # how deeply a pending expression nests
        self.folded = 0   # the deepest expression the last `operands` folded in
        self.depth = 0
        self.loops = 0
        self.loop_depth = 0
        self.node: Optional[Node] = None
        self.drops = Releases()

    # --- Context for templates ----------------------------------------------------------
    def bind(self, obj: Any, prefix: str = "_c") -> str:
        name = self._bound.get(id(obj))
        if name is None:
            name = self._bound[id(obj)] = f"{prefix}{len(self._bound)}"
            self.namespace[name] = obj
        return name

    def kernel(self, n: Node) -> str:
        return self.bind(node_kernel(n), "_k")

    def out(self, n: Node, i: int = 0) -> str:
        return self.local(n.outputs[i])

    def constant(self, n: Node, i: int) -> Any:
        v = n.input(i)
        return v.node.attrs.get("value") if v.node.kind == prim.Constant else _NOT_CONSTANT

    # --- names, constants, lines --------------------------------------------------------
    def local(self, v: Value) -> str:
        name = self.names.get(v)
        if name is None:
            base = _IDENT.sub("_", v.debug_name_base()).lstrip("_0123456789") or "v"
            name = self.names[v] = f"{base}_{v.unique}"
        return name

    def literal(self, v: Value) -> str:
        value = v.node.attrs.get("value")
        if value is None or isinstance(value, bool):
            return repr(value)
        if type(value) is int:
            return repr(value) if value >= 0 else f"({value})"
        if type(value) is float and math.isfinite(value):
            return repr(value) if math.copysign(1.0, value) > 0 else f"({value!r})"
        if type(value) is str:
            return repr(value)
        return self.bind(value)

    def emit(self, line: str) -> None:
        self.lines.append(_INDENT * self.depth + line)
        n = self.node
        self.locations.append((n.source_range, n.callstack) if n is not None else None)

    # --- operands -----------------------------------------------------------------------
    def atom(self, v: Value) -> str:
        """A name or literal for `v` (no pending expression is folded)."""
        if v.node.kind == prim.Constant:
            return self.literal(v)
        if v in self.aliases:
            return self.aliases[v]
        for i, (pv, _) in enumerate(self.pending):
            if pv is v:
                self.flush()
                break
        return self.local(v)

    def operands(self, values: list[Value], order: Optional[tuple[int, ...]] = None,
                 atoms: bool = False) -> list[str]:
        """Texts for `values`, folding in pending expressions where evaluation order allows."""
        pending_ids = {id(pv) for pv, _ in self.pending}
        seq = [values[i] for i in order] if order else values
        used = [v for v in seq if id(v) in pending_ids]
        tail = [pv for pv, _ in self.pending[len(self.pending) - len(used):]] if used else []
        if atoms or [id(v) for v in used] != [id(v) for v in tail]:
            self.flush()
            return [self.atom(v) for v in values]
        taken = dict((id(pv), e) for pv, e in self.pending[len(self.pending) - len(used):])
        if used:
            del self.pending[len(self.pending) - len(used):]
            self.folded = max(self.fold_depth.pop(v, 1) for v in used)
        return [taken[id(v)] if id(v) in taken else self.atom(v) for v in values]

    def flush(self) -> None:
        """Assign every pending expression to its name, in order."""
        pending, self.pending = self.pending, []
        self.fold_depth.clear()
        self.folded = 0
        for v, e in pending:
            self.emit(f"{self.local(v)} = {e}")

    # --- nodes --------------------------------------------------------------------------
    def block(self, b: Block) -> None:
        for n in b.nodes:
            self.node = n
            self.visit(n)
            self.release(self.drops.after.get(n))

    def release(self, values: Optional[list[Value]]) -> None:
        """Unbind the locals of tensors nothing reads any more, so their memory is reused
        (ir/liveness.py). A name another value aliases, or a pending expression still
        reads, is kept."""
        if not values:
            return
        aliased = set(self.aliases.values())
        names = []
        for v in values:
            name = self.names.get(v)
            if name is None or v in self.aliases or name in aliased or \
                    any(re.search(rf"\b{name}\b", e) for _, e in self.pending):
                continue
            names.append(name)
        if names:
            self.emit(f"{' = '.join(names)} = None")

    def visit(self, n: Node) -> None:
        k = n.kind
        if k == prim.Constant:
            return
        if k == prim.If:
            self.if_(n)
        elif k == prim.Loop:
            self.loop(n)
        elif k == prim.Uninitialized:
            self.aliases[n.output()] = "None"
        elif k == prim.unchecked_cast:
            self.aliases[n.output()] = self.atom(n.input(0))
        elif k in _STRUCTURAL:
            self.structural(n)
        elif k in (prim.CallFunction, prim.CallMethod):
            self.call(n)
        elif k == prim.RaiseException:
            msg, cls = self.operands(list(n.inputs))
            self.flush()
            self.emit(f"raise {self.bind(raise_script_error, '_raise')}({msg}, {cls})")
        else:
            template = TEMPLATES.get(n.schema.qualified) if n.schema is not None else None
            inline = template(n, self) if template is not None else None
            if inline is not None:
                self.inline(n, inline)
            else:
                self.kernel_call(n)

    def result(self, n: Node, text: str, pure: bool) -> None:
        """Give `n`'s single output the expression `text` (folded later or assigned now)."""
        v = n.output()
        depth, self.folded = self.folded + 1, 0
        if pure and len(v.uses) == 1 and v.uses[0].user.owning_block is n.owning_block \
                and v.uses[0].user.kind != prim.Loop and depth <= MAX_FOLD_DEPTH:
            self.pending.append((v, text))
            self.fold_depth[v] = depth
        else:
            self.flush()
            self.emit(f"{self.local(v)} = {text}")

    def inline(self, n: Node, t: Inline) -> None:
        args = self.operands(list(n.inputs), t.order, t.atoms)
        if t.expr is not None:
            self.result(n, t.expr(args), t.pure)
            return
        assert t.stmts is not None
        self.flush()
        out = self.local(n.outputs[0]) if n.outputs and t.returns_input is None else ""
        for line in t.stmts(args, out):
            self.emit(line)
        if t.returns_input is not None and n.outputs:
            self.aliases[n.output()] = args[t.returns_input] if _ATOM.match(args[t.returns_input]) \
                else self.local(n.inputs[t.returns_input])

    def kernel_call(self, n: Node) -> None:
        call = f"{self.kernel(n)}({', '.join(self.operands(list(n.inputs)))})"
        self.outputs(n, call)

    def outputs(self, n: Node, call: str) -> None:
        self.flush()
        if n.kind in (prim.TupleUnpack, prim.ListUnpack) or len(n.outputs) > 1:
            self.emit(f"{''.join(self.local(o) + ', ' for o in n.outputs)}= {call}")
        elif n.outputs:
            self.emit(f"{self.local(n.output())} = {call}")
        else:
            self.emit(call)

    def structural(self, n: Node) -> None:
        k = n.kind
        if k == prim.GetAttr:
            (obj,) = self.operands(list(n.inputs))
            self.result(n, f"{obj}.slots[{_slot(n)}]", True)
        elif k == prim.SetAttr:
            obj, val = self.operands(list(n.inputs), atoms=True)
            slot = _slot(n)
            self.emit(f"if {slot} < len({obj}.slots): {obj}.slots[{slot}] = {val}")
            self.emit(f"else: {self.bind(set_slot, '_set_slot')}({obj}, {slot}, {val})")
        elif k == prim.TupleConstruct:
            args = self.operands(list(n.inputs))
            self.result(n, f"({args[0]},)" if len(args) == 1 else f"({', '.join(args)})", True)
        elif k == prim.ListConstruct:
            self.result(n, f"[{', '.join(self.operands(list(n.inputs)))}]", True)
        elif k == prim.DictConstruct:
            a = self.operands(list(n.inputs))
            self.result(n, "{" + ", ".join(f"{a[i]}: {a[i + 1]}" for i in range(0, len(a), 2)) + "}", True)
        elif k == prim.TupleIndex and n.input(1).node.kind == prim.Constant:
            (t,) = self.operands([n.input(0)])
            self.result(n, f"{t}[{self.literal(n.input(1))}]", True)
        elif k == prim.TupleUnpack:
            (t,) = self.operands([n.input(0)])
            self.outputs(n, t)
        else:
            self.kernel_call(n)

    def call(self, n: Node) -> None:
        fn = n.callee
        if n.kind == prim.CallFunction:
            args = self.operands(list(n.inputs[1:]))
            target = f"{self.bind(executor_for(fn), '_f')}.call"
        elif isinstance(n.input(0).type, T.ClassType) and fn is not None:
            args = self.operands(list(n.inputs))
            target = f"{self.bind(executor_for(fn), '_f')}.call"
        else:
            args = self.operands(list(n.inputs))
            target = f"{self.bind(call_interface, '_call_interface')}"
            args = [repr(n.attrs["name"]), f"[{', '.join(args)}]"]
            self.outputs(n, f"{target}({', '.join(args)})")
            return
        self.outputs(n, f"{target}([{', '.join(args)}])")

    def assign(self, targets: list[str], values: list[Value]) -> None:
        """Parallel assignment of `values` to `targets` (skipping self-assignments)."""
        exprs = self.operands(values)
        self.flush()
        pairs = [(t, e) for t, e in zip(targets, exprs) if t != e]
        if len(pairs) == 1:
            self.emit(f"{pairs[0][0]} = {pairs[0][1]}")
        elif pairs:
            self.emit(f"{', '.join(t for t, _ in pairs)} = {', '.join(e for _, e in pairs)}")

    def nested(self, b: Block, targets: list[str], values: list[Value], loop: bool = False) -> None:
        """Emit block `b` one level deeper, then assign `values` to `targets`."""
        outer, self.pending = self.pending, []
        outer_depths, self.fold_depth = self.fold_depth, {}
        self.depth += 1
        if self.depth > MAX_BLOCK_DEPTH or self.loop_depth > MAX_LOOP_DEPTH:
            raise TsjitError("blocks nest too deeply for generated Python "
                             f"({MAX_BLOCK_DEPTH} levels, {MAX_LOOP_DEPTH} loops at most)",
                             self.node.source_range if self.node is not None else None)
        start = len(self.lines)
        node = self.node
        if loop and self.budgeted:
            self.emit("_left -= 1")
            self.emit("if not _left:")
            self.emit(f"{_INDENT}_left = _tick()")
        self.release(self.drops.at_start.get(b))
        self.block(b)
        self.node = node
        self.assign(targets, values)
        if len(self.lines) == start:
            self.emit("pass")
        self.depth -= 1
        self.pending, self.fold_depth = outer, outer_depths

    def if_(self, n: Node) -> None:
        (cond,) = self.operands([n.input(0)])
        self.flush()
        targets = [self.local(o) for o in n.outputs]
        self.emit(f"if {cond}:")
        self.nested(n.blocks[0], targets, list(n.blocks[0].outputs))
        else_at = len(self.lines)
        self.emit("else:")
        self.nested(n.blocks[1], targets, list(n.blocks[1].outputs))
        if self.lines[-1].strip() == "pass" and len(self.lines) == else_at + 2:
            del self.lines[else_at:], self.locations[else_at + 1:]

    def loop(self, n: Node) -> None:
        self.flush()
        body = n.blocks[0]
        trip, carried = body.inputs[0], body.inputs[1:]
        targets = [self.local(o) for o in n.outputs]
        for v, name in zip(carried, targets):
            self.names[v] = name
        max_trip, cond0 = self.atom(n.input(0)), self.atom(n.input(1))
        self.assign(targets, list(n.inputs[2:]))
        self.release([v for v in self.drops.entering.get(n, ()) if self.names.get(v) not in targets])
        unbounded = _constant(n.input(0)) is not None and _constant(n.input(0)) >= _UNBOUNDED
        cond_out = body.outputs[0]
        counter = self.local(trip) if trip.uses else "_"
        if _constant(n.input(1)) is True and _constant(cond_out) is True:
            self.emit("while True:" if unbounded and not trip.uses else
                      f"for {counter} in range({max_trip}):")
            self.loop_depth += 1
            self.nested(body, targets, list(body.outputs[1:]), loop=True)
            self.loop_depth -= 1
            return
        self.loops += 1
        cond = f"_loop{self.loops}"
        counted = bool(trip.uses) or not unbounded
        if counted:
            counter = self.local(trip)
            self.emit(f"{counter} = 0")
        self.emit(f"{cond} = {cond0}")
        self.emit(f"while {cond}{'' if unbounded else f' and {counter} < {max_trip}'}:")
        self.loop_depth += 1
        self.nested(body, [cond] + targets, list(body.outputs), loop=True)
        self.loop_depth -= 1
        if counted:
            self.depth += 1
            self.emit(f"{counter} += 1")
            self.depth -= 1


_STRUCTURAL = {prim.GetAttr, prim.SetAttr, prim.TupleConstruct, prim.ListConstruct,
               prim.DictConstruct, prim.TupleIndex, prim.TupleUnpack}
_NOT_CONSTANT = object()


def _constant(v: Value) -> Any:
    return v.node.attrs.get("value") if v.node.kind == prim.Constant else None


def _slot(n: Node) -> int:
    t = n.input(0).type
    name = n.attrs["name"]
    i = t.attribute_slot(name) if isinstance(t, T.ClassType) else -1
    if i < 0:
        raise TsjitError(f"'{t}' has no attribute '{name}'", n.source_range)
    return i


def generate(name: str, graph: Graph, budgeted: bool = False) -> Generated:
    """Python source for `graph` as a function `name(args)` taking its inputs as a list
    (its budgeted variant if `budgeted`; the usual one calls `_budgeted(args)` under a
    budget). Its globals `_locate`, `_budgeted`, `_deadline` and `_tick` are the
    caller's to bind."""
    src = _Source(name, budgeted)
    src.drops = releases(graph)
    src.emit(f"def {name}(args):")
    src.depth = 1
    if budgeted:
        src.emit(f"_left = _tick()")
    else:
        src.emit("if _deadline() is not None:")
        src.emit(f"{_INDENT}return _budgeted(args)")
    if graph.inputs:
        src.emit(f"{''.join(src.local(v) + ', ' for v in graph.inputs)}= args")
    src.emit("try:")
    src.depth = 2
    src.block(graph.block)
    src.node = None
    outs = src.operands(list(graph.outputs))
    src.flush()
    src.emit(f"return {outs[0]}" if len(outs) == 1 else f"return ({', '.join(outs)},)")
    src.depth = 1
    src.emit(f"except {src.bind(CAUGHT, '_CAUGHT')} as e:")
    src.emit("    raise _locate(e, e.__traceback__.tb_lineno) from None")
    return Generated(name, "\n".join(src.lines) + "\n", src.namespace, src.locations)
