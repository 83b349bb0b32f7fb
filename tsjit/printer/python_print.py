"""PythonPrint: graphs and class types -> readable Python source, as PyTorch writes `code/`.

Naming: a value prints under its debug name without the `.N` suffix, made unique within
the function by appending a per-file counter (`x`, `x0`, `x1`); unnamed values are `_0`,
`_1`, ... numbered across the file. Inlining: a value with one use, no name and a plain
node is printed inside the expression that uses it, provided that keeps the evaluation
order (it is produced right before its user, ignoring constants); an inlined expression
that would make a line of 40 columns or more (indentation included) is bound to a
temporary instead, with the arguments evaluated before it. Constants print as literals,
long ones bound at the top of the function in order of first use; tensor constants as
`CONSTANTS.cN`. These are PyTorch's rules: printing a loaded archive gives its code back.
"""
from __future__ import annotations

import keyword
from typing import Any, Callable, Optional

from ..ir import Block, Function, Graph, Node, Value
from ..ir import types as T
from ..ir.diagnostics import TsjitError
from ..ir.printer import format_float_literal
from ..ir.schema import FunctionSchema
from ..ir.node_kinds import prim
from .writer import TaggedWriter

INT64_MAX = 2 ** 63 - 1
LONG_LINE = 40      # an expression this long (with its indentation) gets its own line
RESERVED = set(keyword.kwlist) | {
    "_", "aten", "attribute", "CONSTANTS", "fork", "getattr", "inf", "nan", "infj", "nanj",
    "ops", "__torch__", "torch", "annotate", "unchecked_cast", "uninitialized", "isinstance",
    "print", "range", "int", "float", "str", "bool", "complex", "len",
}
# Operators printed with Python syntax or a builtin name rather than `torch.<name>(...)`.
BUILTIN_CASTS = {"aten::Int": "int", "aten::Float": "float", "aten::str": "str",
                 "aten::Bool": "bool", "aten::Complex": "complex"}
BUILTIN_CALLS = {"aten::sorted": "sorted"}
# Printed as `annotate(T, x)`: the compiler inserts them where a value converts implicitly.
IMPLICIT_CONVERSIONS = {"aten::ScalarImplicit", "aten::FloatImplicit", "aten::IntImplicit"}


_ESCAPES = {"\\": "\\\\", "'": "\\'", '"': '\\"', "\a": "\\a", "\b": "\\b", "\f": "\\f",
            "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def quote_string(s: str) -> str:
    """A double-quoted Python string literal, escaped as PyTorch escapes it (both quote
    kinds, C escapes, three-digit octal for other control characters)."""
    out = ['"']
    for ch in s:
        esc = _ESCAPES.get(ch)
        if esc is not None:
            out.append(esc)
        elif ord(ch) < 0x20 or ord(ch) == 0x7f:
            out.append(f"\\{ord(ch):03o}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


class ConstantTable:
    """Tensor constants of an archive: `CONSTANTS.c<i>` names the i-th."""

    def __init__(self) -> None:
        self.tensors: list[Any] = []

    def index(self, t: Any) -> int:
        for i, x in enumerate(self.tensors):
            if x is t:
                return i
        self.tensors.append(t)
        return len(self.tensors) - 1


class PythonPrinter:
    """Prints the code objects of one `code/` file."""

    def __init__(self, constants: Optional[ConstantTable] = None,
                 on_dependency: Optional[Callable[[Any], None]] = None,
                 archive: bool = False) -> None:
        self.archive = archive      # printing an archive's code/ (not `.code` for reading)
        self.w = TaggedWriter()
        self.constants = constants or ConstantTable()
        self.on_dependency = on_dependency or (lambda dep: None)
        self.next_id: dict[str, int] = {}
        self.level = 0

    # --- names --------------------------------------------------------------------
    def gen_name(self, candidate: str) -> str:
        name = candidate
        while name in self.used or name in RESERVED or not name.isidentifier():
            # The counter is the one of the name just found taken (PyTorch's rule: after
            # `_0` come `_00`, `_01`, ...), and lives as long as the file's printer.
            n = self.next_id.get(name, 0)
            self.next_id[name] = n + 1
            name = f"{candidate}{n}"
        self.used.add(name)
        return name

    def name_for(self, v: Value, candidate: Optional[str] = None) -> str:
        base = candidate or (v.debug_name_base() if v.has_debug_name() else "_")
        if not base.isidentifier() or keyword.iskeyword(base):
            base = "_"
        name = self.gen_name(base)
        self.names[id(v)] = name
        return name

    def type_str(self, t: T.Type) -> str:
        self.note_type(t)
        return t.annotation_str()

    def note_type(self, t: T.Type) -> None:
        if isinstance(t, (T.ClassType, T.InterfaceType, T.EnumType)) or \
                isinstance(t, T.TupleType) and t.qualified_name:
            self.on_dependency(t)
        for c in t.contained():
            self.note_type(c)

    # --- writing ------------------------------------------------------------------
    def indent(self) -> None:
        self.w.write("  " * self.level)

    def line(self, text: str) -> None:
        self.indent()
        self.w.write(text + "\n")

    # --- classes ------------------------------------------------------------------
    def print_class(self, t: T.ClassType) -> None:
        """A class (or module class) with its attributes and compiled methods."""
        with self.w.source(None):
            self.line(f"class {t.name}(Module):" if t.is_module else f"class {t.name}:")
            self.level += 1
            if t.is_module:
                params = "".join(quote_string(a.name) + ", " for a in t.attributes if a.is_parameter)
                buffers = "".join(quote_string(a.name) + ", " for a in t.attributes if a.is_buffer)
                self.line(f"__parameters__ = [{params}]")
                self.line(f"__buffers__ = [{buffers}]")
            for i, a in enumerate(t.attributes):
                ts = self.type_str(a.type)
                if a.name.isidentifier() and not keyword.iskeyword(a.name):
                    self.line(f"{a.name} : {ts}")
                else:
                    if i == 0:      # PyTorch starts the dict when the first name needs it
                        self.line("__annotations__ = []")
                    self.line(f"__annotations__[{quote_string(a.name)}] = {ts}")
            for name, value in t.constants.items():
                ctype = _constant_annotation(value)
                self.line(f"{name} : Final[{ctype}] = {self.literal(value)}")
            empty = not t.attributes and not t.constants and not t.methods and not t.is_module
            if empty:
                self.line("pass")
            for fn in list(t.methods.values()):
                fn.ensure_defined()   # lazily loaded methods are compiled to be printed
                self.print_function(fn, is_method=True)
            self.level -= 1

    def print_named_type(self, t: T.Type) -> None:
        """A NamedTuple, interface or enum declaration."""
        with self.w.source(None):
            if isinstance(t, T.TupleType):
                self.line(f"class {t.qualified_name.rsplit('.', 1)[-1]}(NamedTuple):")
                self.level += 1
                for name, et in zip(t.names or (), t.elems):
                    self.line(f"{name} : {self.type_str(et)}")
                self.level -= 1
            elif isinstance(t, T.InterfaceType):
                base = "ModuleInterface" if t.is_module else "Interface"
                self.line(f"class {t.qualified_name.rsplit('.', 1)[-1]}({base}):")
                self.level += 1
                for name, schema in t.methods.items():
                    params = ["self"] + [f"{a.name}: {self.type_str(a.type)}"
                                         for a in schema.arguments[1:]]
                    ret = self.type_str(schema.returns[0].type)
                    self.line(f"def {name}(" + ", ".join(params) + f") -> {ret}:")
                    self.level += 1
                    self.line("pass")
                    self.level -= 1
                self.level -= 1
            elif isinstance(t, T.EnumType):
                self.line(f"class {t.qualified_name.rsplit('.', 1)[-1]}(Enum):")
                self.level += 1
                for name, value in t.members.items():
                    self.line(f"{name} = {self.literal(value)}")
                self.level -= 1

    # --- functions ----------------------------------------------------------------
    def print_function(self, fn: Function, is_method: bool = False,
                       annotate_self: bool = True) -> None:
        """`def name(params) -> ret:` and the body of fn's graph.

        `annotate_self=False` prints a method's `self` bare, as `ScriptModule.code` does.
        """
        g = fn.graph
        self.used: set[str] = set()
        self.names: dict[int, str] = {}
        self.inline: set[int] = set()
        self.inline_text: dict[int, str] = {}   # value id -> its expression, once printed
        self.split_uses: dict[int, int] = {}     # user node id -> highest input offset split
        self.annotated: set[int] = set()         # Optional/Union variables annotated already
        self.regions: list[int] = []             # where the open `with` bodies start
        schema = fn.schema
        scan_block(g.block, self.inline)
        params = []
        for v, arg in zip(g.inputs, schema.arguments):
            name = arg.name if arg.name.isidentifier() else "_"
            name = self.gen_name(name)
            self.names[id(v)] = name
            if is_method and not annotate_self and v is g.inputs[0]:
                params.append(name)
                continue
            p = f"{name}: {self.type_str(arg.type)}"
            if arg.has_default:
                p += "=" + self.literal(arg.default)
            params.append(p)
        ret = schema.returns[0].type if schema.returns else T.NoneType
        with self.w.source(_def_range(fn)):
            self.line(f"def {fn.name}(" + ",\n    ".join(params) + f") -> {self.type_str(ret)}:")
        self.level += 1
        self.print_constants(g.block)
        self.print_block_body(g.block)
        outs = g.outputs
        # A returned constant is shared by every use after pooling: its range says nothing
        # stable about this line, so the line keeps the function's.
        returned = outs[0].node if outs else None
        with self.w.source(returned.source_range if returned is not None and
                           returned.kind != prim.Constant else None):
            self.line(f"return {self.expr(outs[0])}" if len(outs) == 1 else
                      "return (" + ", ".join(self.expr(o) for o in outs) + ")")
        self.level -= 1

    def print_constants(self, b: Block) -> None:
        """Constants first, in the order they are first used (as PyTorch prints them): long
        ones get a line of their own; all are rendered now, so the code objects and tensor
        constants they refer to are numbered in that order."""
        for n in _constants_by_first_use(b):
            text = self.literal_of(n)
            if self.is_long_constant(n):
                with self.w.source(n.source_range):
                    self.line(f"{self.name_for(n.output())} = {text}")

    def print_block_body(self, b: Block) -> None:
        for n in b.nodes:
            if n.kind == prim.Constant:
                continue        # printed by print_constants
            if id(n) in self.inline:
                with self.w.source(n.source_range):
                    self.print_inline(n)
                continue
            with self.w.source(n.source_range):
                self.print_node(n)

    def print_inline(self, n: Node) -> None:
        """Build the expression of an inlined node where it is evaluated; one that makes
        a long line (40 columns with the indentation, as PyTorch counts) is split off."""
        v = n.output()
        text = self.node_expr(n)
        self.inline_text[id(v)] = text
        if len(text) + 2 * self.level >= LONG_LINE:
            split: list[Value] = []
            use = v.uses[0]
            self.scan_long_inlines(use.user, use.offset, split)
            # Arguments evaluated before the long one are bound first too, so that
            # splitting never changes the evaluation order.
            for value in reversed(split):
                with self.w.source(value.node.source_range):
                    self.line(f"{self.name_for(value)} = {self.inline_text.pop(id(value))}")

    def scan_long_inlines(self, user: Node, offset: int, out: list[Value]) -> None:
        """Collect the inlined arguments of `user` up to `offset`, and (if `user` itself
        is inlined) those before it in its own user, innermost last."""
        done = self.split_uses.get(id(user))
        for i in range(offset, (done + 1 if done is not None else 0) - 1, -1):
            arg = user.inputs[i]
            if id(arg) in self.inline_text:
                out.append(arg)
        self.split_uses[id(user)] = offset
        if done is None and id(user) in self.inline:
            use = user.output().uses[0]
            self.scan_long_inlines(use.user, use.offset - 1, out)

    def has_statements(self, b: Block) -> bool:
        return any(id(n) not in self.inline and not _prints_nothing(n) for n in b.nodes)

    def assign_outputs(self, b: Block, targets: list[Value]) -> None:
        """`a, b = x, y` for block outputs flowing into `targets` (skipping no-op pairs)."""
        lhs, rhs = [], []
        for t, v in zip(targets, b.outputs):
            tn, vs = self.names[id(t)], self.expr(v)
            if tn != vs:
                lhs.append(tn)
                rhs.append(vs)
        if lhs:
            self.line(", ".join(lhs) + self.union_annotation(targets) + " = " + ", ".join(rhs))

    def union_annotation(self, targets: list[Value]) -> str:
        """` : T` on the first assignment of a lone Optional/Union variable (so compiling the
        printed code gives it that type again), as PyTorch writes it."""
        if len(targets) != 1 or not _is_union(targets[0].type) or id(targets[0]) in self.annotated:
            return ""
        self.annotated.add(id(targets[0]))
        return f" : {self.type_str(targets[0].type)}"

    # --- nodes --------------------------------------------------------------------
    def print_node(self, n: Node) -> None:
        k = n.kind
        if k == prim.If:
            self.print_if(n)
            return
        if k == prim.Loop:
            self.print_loop(n)
            return
        if k == prim.fork:
            # As PyTorch writes it: the call as a closure, forked.
            b = n.blocks[0]
            name = self.gen_name("__forked_function")
            self.line(f"def {name}():")
            self.level += 1
            self.print_block_body(b)
            self.line(f"return {self.expr(b.outputs[0])}")
            self.level -= 1
            self.line(f"{self.name_for(n.output())} = fork({name})")
            return
        if k == prim.Enter:
            # `with obj as x:` (`as` only when the __enter__ result is read); the region's
            # nodes are printed one level deeper until the Exit of the same object.
            out = n.output()
            target = f" as {self.name_for(out)}" if out.uses else ""
            self.line(f"with {self.expr(n.input(0))}{target}:")
            self.level += 1
            self.regions.append(self.w.length)
            return
        if k == prim.Exit:
            if self.w.length == self.regions.pop():
                self.line("pass")
            self.level -= 1
            return
        if k == prim.SetAttr:
            obj, val = n.inputs
            name = n.attrs["name"]
            target = f"{self.expr(obj)}.{name}" if name.isidentifier() else \
                f"setattr({self.expr(obj)}, {quote_string(name)})"
            self.line(f"{target} = {self.expr(val)}")
            return
        if k == prim.RaiseException or not n.outputs:
            self.line(self.node_expr(n))
            return
        if k in (prim.TupleUnpack, prim.ListUnpack):
            names = [self.name_for(o) for o in n.outputs]
            self.line(", ".join(names) + ", = " + self.expr(n.input(0)))
            return
        names = [self.name_for(o) for o in n.outputs]
        self.line(", ".join(names) + " = " + self.node_expr(n))

    def is_long_constant(self, n: Node) -> bool:
        # Long literals and function references are bound to a temporary, as PyTorch does.
        if isinstance(n.output().type, T.FunctionType):
            text = n.attrs["name"]
        else:
            text = self.literal(n.attrs["value"]) if "value" in n.attrs else "None"
        return len(text) + 2 * self.level >= LONG_LINE

    def print_if(self, n: Node) -> None:
        for o in n.outputs:
            self.name_for(o)
        self.line(f"if {self.expr(n.input(0))}:")
        for i, b in enumerate(n.blocks):
            if i == 1:
                self.line("else:")
            self.level += 1
            self.print_block_body(b)
            self.assign_outputs(b, list(n.outputs))
            if not self.has_statements(b) and not any(
                    self.names[id(t)] != self.expr(v) for t, v in zip(n.outputs, b.outputs)):
                self.line("pass")
            self.level -= 1

    def print_loop(self, n: Node) -> None:
        body = n.blocks[0]
        max_trip, cond = n.input(0), n.input(1)
        for o, bi in zip(n.outputs, body.inputs[1:]):
            name = self.name_for(o)
            self.names[id(bi)] = name
        # Loop-carried values start under the name they keep in the body and after the loop.
        for o, init in zip(n.outputs, n.inputs[2:]):
            if self.names[id(o)] != self.expr(init):
                # Annotated where the type would not follow from the initial value.
                if _is_union(o.type) and id(o) not in self.annotated or \
                        not _is_union(o.type) and o.type != init.type:
                    self.annotated.add(id(o))
                    self.line(f"{self.names[id(o)]}: {self.type_str(o.type)} = {self.expr(init)}")
                else:
                    self.line(f"{self.names[id(o)]} = {self.expr(init)}")
        if _constant(max_trip) == INT64_MAX:
            cond_name = self.gen_name("_")
            self.line(f"{cond_name} = {self.expr(cond)}")
            self.line(f"while {cond_name}:")
            self.level += 1
            self.print_block_body(body)
            lhs, rhs = [cond_name], [self.expr(body.outputs[0])]
            for o, v in zip(n.outputs, body.outputs[1:]):
                if self.names[id(o)] != self.expr(v):
                    lhs.append(self.names[id(o)])
                    rhs.append(self.expr(v))
            self.line(", ".join(lhs) + " = " + ", ".join(rhs))
            self.level -= 1
            return
        if _is_counted_while(n):
            self.print_counted_while(n)
            return
        trip = self.name_for(body.inputs[0])
        self.line(f"for {trip} in range({self.expr(max_trip)}):")
        self.level += 1
        self.print_block_body(body)
        lhs, rhs = [], []
        for o, v in zip(n.outputs, body.outputs[1:]):
            if self.names[id(o)] != self.expr(v):
                lhs.append(self.names[id(o)])
                rhs.append(self.expr(v))
        if lhs:
            # (never annotated: the variables were declared before the loop)
            self.line(", ".join(lhs) + " = " + ", ".join(rhs))
        elif not self.has_statements(body):
            self.line("pass")
        self.level -= 1

    def print_counted_while(self, n: Node) -> None:
        """A loop with both a trip count and a condition, as PyTorch writes it: a while loop
        whose trip counter is carried explicitly (so it reads as plain Python), printed as
        PyTorch prints the loop it rewrites it to (the counter carried last, its step after
        the body, a constant first test folded), which is also what compiling the printed
        loop gives back (no jitter)."""
        body = n.blocks[0]
        max_trip, cond = n.input(0), n.input(1)
        limit = self.expr(max_trip)       # a name or a constant: never inlined (see scan)
        counter = self.gen_name("_")
        self.names[id(body.inputs[0])] = counter
        self.line(f"{counter} = 0")
        cond_name = self.gen_name("_")
        trips = _constant(max_trip)
        first = f"torch.gt({limit}, 0)" if isinstance(trips, bool) or not isinstance(trips, int) \
            else repr(trips > 0)
        if _constant(cond) is not True:
            first = f"torch.__and__({first}, {self.expr(cond)})"
        self.line(f"{cond_name} = {first}")
        self.line(f"while {cond_name}:")
        self.level += 1
        self.print_block_body(body)
        nxt = self.gen_name("_")
        self.line(f"{nxt} = torch.add({counter}, 1)")
        go_on = self.bound_if_long(f"torch.lt({nxt}, {limit})")
        if _constant(body.outputs[0]) is not True:
            go_on = self.bound_if_long(f"torch.__and__({go_on}, {self.expr(body.outputs[0])})")
        lhs, rhs = [cond_name], [go_on]
        for o, v in zip(n.outputs, body.outputs[1:]):
            if self.names[id(o)] != self.expr(v):
                lhs.append(self.names[id(o)])
                rhs.append(self.expr(v))
        self.line(", ".join(lhs + [counter]) + " = " + ", ".join(rhs + [nxt]))
        self.level -= 1

    def bound_if_long(self, text: str) -> str:
        """`text`, or a temporary bound to it on a line of its own when it makes a long line
        (as the inlining of a node's expression does)."""
        if len(text) + 2 * self.level < LONG_LINE:
            return text
        name = self.gen_name("_")
        self.line(f"{name} = {text}")
        return name

    # --- expressions --------------------------------------------------------------
    def expr(self, v: Value) -> str:
        name = self.names.get(id(v))
        if name is not None:
            return name
        n = v.node
        if n.kind == prim.Constant:
            return self.literal_of(n)
        if id(n) in self.inline:
            text = self.inline_text.get(id(v))
            return text if text is not None else self.node_expr(n)
        raise AssertionError(f"value {v} printed before it has a name")

    def literal_of(self, n: Node) -> str:
        if isinstance(n.output().type, T.FunctionType):
            self.on_dependency(n.callee)
            return n.attrs["name"]
        if "value" not in n.attrs:
            return "None"
        return self.literal(n.attrs["value"])

    def literal(self, v: Any) -> str:
        if v is None:
            return "None"
        if isinstance(v, bool):
            return "True" if v else "False"
        if isinstance(v, int):
            return int.__repr__(v)   # a dtype (an int) prints as its ScalarType code, as PyTorch's
        if isinstance(v, float):
            return format_float_literal(v)
        if isinstance(v, str):
            return quote_string(v)
        if isinstance(v, list):
            return "[" + ", ".join(self.literal(x) for x in v) + "]"
        if isinstance(v, tuple):
            return "(" + ", ".join(self.literal(x) for x in v) + ("," if len(v) == 1 else "") + ")"
        if isinstance(v, complex):
            return f"complex({format_float_literal(v.real)}, {format_float_literal(v.imag)})"
        if type(v).__name__ == "Tensor":
            return f"CONSTANTS.c{self.constants.index(v)}"
        if type(v).__name__ == "Device":
            return f"torch.device({quote_string(str(v))})"
        if isinstance(v, T.EnumValue):
            self.on_dependency(v.type)
            return f"{v.type.qualified_name}.{v.name}"
        raise TsjitError(f"cannot write a constant of type {type(v).__name__} into code; "
                         "constants must be numbers, strings, None, tensors, devices, enums "
                         "or lists/tuples of them")

    def args(self, vs: Any) -> str:
        return ", ".join(self.expr(v) for v in vs)

    def node_expr(self, n: Node) -> str:
        k = n.kind
        ins = n.inputs
        if k == prim.Constant:
            return self.literal_of(n)
        if k == prim.GetAttr:
            name = n.attrs["name"]
            obj = self.expr(ins[0])
            return f"{obj}.{name}" if name.isidentifier() and not keyword.iskeyword(name) else \
                f"getattr({obj}, {quote_string(name)})"
        if k == prim.CallMethod:
            self.note_type(ins[0].type)
            return f"({self.expr(ins[0])}).{n.attrs['name']}(" + \
                "".join(self.expr(v) + ", " for v in ins[1:]) + ")"
        if k == prim.CallFunction:
            return f"{self.expr(ins[0])}(" + "".join(self.expr(v) + ", " for v in ins[1:]) + ")"
        if k == prim.ListConstruct:
            t = n.output().type
            if not ins:
                return f"annotate({self.type_str(t)}, [])"
            if isinstance(t, T.ListType) and not _inferable_from_members(t.elem):
                return f"annotate({self.type_str(t)}, [{self.args(ins)}])"
            return "[" + self.args(ins) + "]"
        if k == prim.TupleConstruct:
            t = n.output().type
            if isinstance(t, T.TupleType) and t.qualified_name:
                self.note_type(t)
                return f"{t.qualified_name}({self.args(ins)})"
            return "(" + self.args(ins) + ("," if len(ins) == 1 else "") + ")"
        if k == prim.DictConstruct:
            t = n.output().type
            pairs = [f"{self.expr(ins[i])}: {self.expr(ins[i + 1])}" for i in range(0, len(ins), 2)]
            text = "{" + ", ".join(pairs) + "}"
            if not ins or isinstance(t, T.DictType) and not (
                    _inferable_from_members(t.key) and _inferable_from_members(t.value)):
                return f"annotate({self.type_str(t)}, {text})"
            return text
        if k == prim.TupleIndex:
            return f"({self.expr(ins[0])})[{self.expr(ins[1])}]"
        if k == "aten::__getitem__":
            # A name is indexed as is; any other expression in parentheses.
            container = self.expr(ins[0])
            if not container.isidentifier():
                container = f"({container})"
            return f"{container}[{self.expr(ins[1])}]"
        if k == prim.unchecked_cast:
            return f"unchecked_cast({self.type_str(n.output().type)}, {self.expr(ins[0])})"
        if k == prim.Uninitialized:
            return f"uninitialized({self.type_str(n.output().type)})"
        if k == prim.CreateObject:
            q = self.type_str(n.output().type)
            return f"{q}.__new__({q})"
        if k == prim.isinstance:
            types = n.attrs["_types"]
            ts = ", ".join(self.type_str(t) for t in types)
            return f"isinstance({self.expr(ins[0])}, {ts if len(types) == 1 else '(' + ts + ')'})"
        if k == prim.tolist:
            # Written as the source form, whose annotation carries the result type.
            return f"annotate({self.type_str(n.output().type)}, {self.expr(ins[0])}.tolist())"
        if k == prim.EnumName:
            return f"({self.expr(ins[0])}).name"
        if k == prim.EnumValue:
            return f"({self.expr(ins[0])}).value"
        if k == prim.Print:
            return f"print({self.args(ins)})"
        if k == prim.PythonOp:
            if self.archive:
                raise TsjitError(f"Could not export Python function call '{n.attrs['name']}'. "
                                 "Remove calls to Python functions (@ignore) before export, "
                                 "or mark them @unused", n.source_range)
            return f"^{n.attrs['name']}()({self.args(ins)})"   # as PyTorch shows it
        if k == prim.RaiseException:
            # The exception class argument is left out when it is None (its default).
            shown = ins[:1] if len(ins) == 2 and _constant(ins[1]) is None else ins
            return f"ops.prim.RaiseException({self.args(shown)})"
        if k in IMPLICIT_CONVERSIONS:
            return f"annotate({self.type_str(n.output().type)}, {self.expr(ins[0])})"
        if k in BUILTIN_CASTS and len(ins) == 1:
            return f"{BUILTIN_CASTS[k]}({self.expr(ins[0])})"
        if k in BUILTIN_CALLS:
            return f"{BUILTIN_CALLS[k]}({self.args(ins)})"
        return self.op_call(n)

    def op_call(self, n: Node) -> str:
        schema: Optional[FunctionSchema] = n.schema
        ns, name = n.kind.split("::", 1)
        callee = f"torch.{name}" if ns == "aten" else f"ops.{ns}.{name}"
        if schema is None:
            return f"{callee}({self.args(n.inputs)})"
        formals = schema.arguments
        ins = list(n.inputs)
        # Trailing arguments equal to their defaults are left out, as PyTorch does.
        keep = len(ins)
        while keep > 0 and keep <= len(formals) and formals[keep - 1].has_default and \
                _constant_equals(ins[keep - 1], formals[keep - 1].default):
            keep -= 1
        parts = []
        for i, v in enumerate(ins[:keep]):
            if i < len(formals) and formals[i].kwarg_only:
                parts.append(f"{formals[i].name}={self.expr(v)}")
            else:
                parts.append(self.expr(v))
        return f"{callee}({', '.join(parts)})"


def _constant(v: Value) -> Any:
    n = v.node
    if n.kind != prim.Constant:
        return ...
    return n.attrs.get("value")


def _constant_equals(v: Value, default: Any) -> bool:
    c = _constant(v)
    return c is not ... and _same_constant(c, default)


def _same_constant(a: Any, b: Any) -> bool:
    """Equality as PyTorch compares constants with defaults: an int never equals a float
    or a bool (so `softplus(x, 1., 20.)` keeps its float arguments)."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same_constant(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _constants_by_first_use(b: Block) -> list[Node]:
    """The constant nodes `b` uses, in the order their first uses are met."""
    out: dict[int, Node] = {}

    def visit_node(n: Node) -> None:
        for v in n.inputs:
            if v.node.kind == prim.Constant:
                out.setdefault(id(v.node), v.node)
        for sub in n.blocks:
            visit_block(sub)

    def visit_block(blk: Block) -> None:
        for n in blk.nodes:
            visit_node(n)
        visit_node(blk.return_node)

    visit_block(b)
    return list(out.values())


def _inferable_from_members(t: T.Type) -> bool:
    """Whether a list/dict element type follows from the elements (else it is annotated)."""
    return not isinstance(t, (T.OptionalType, T.UnionType, T.InterfaceType)) and \
        t not in (T.NumberType, T.AnyType)


def _is_union(t: T.Type) -> bool:
    return isinstance(t, (T.OptionalType, T.UnionType))


def _prints_nothing(n: Node) -> bool:
    return n.kind == prim.Constant


def _constant_annotation(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "str"
    if v is None:
        return "NoneType"
    if isinstance(v, tuple):
        return "Tuple[" + ", ".join(_constant_annotation(x) for x in v) + "]"
    return "Any"


def _def_range(fn: Function) -> Any:
    d = getattr(fn, "source_def", None)
    return getattr(d, "range", None)


# --- inlining analysis ------------------------------------------------------------

def _can_inline(v: Value) -> bool:
    n = v.node
    if n.kind in (prim.Constant, prim.Param) or len(n.outputs) != 1 or len(v.uses) != 1:
        return False
    use = v.uses[0]
    if v.has_debug_name() and use.user.kind != prim.Return:
        return False
    if n.blocks:
        return False
    if use.user.kind == prim.Loop and use.offset >= 2:
        return False
    if n.kind in (prim.isinstance, prim.TupleUnpack, prim.ListUnpack, prim.Uninitialized):
        return False
    return True


def _previous_non_constant(n: Node, index: dict[int, int]) -> Optional[Node]:
    nodes = n.owning_block.nodes
    i = len(nodes) if n.kind == prim.Return else index[id(n)]
    i -= 1
    while i >= 0 and nodes[i].kind == prim.Constant:
        i -= 1
    return nodes[i] if i >= 0 else None


def _is_counted_while(n: Node) -> bool:
    """A loop with both a trip count and a condition (a for loop left by break or return),
    which is printed as a while loop with its counter stepped after the body."""
    return n.kind == prim.Loop and _constant(n.input(0)) != INT64_MAX and \
        (_constant(n.input(1)) is not True or _constant(n.blocks[0].outputs[0]) is not True)


def scan_block(b: Block, inline: set[int], outputs: bool = True) -> None:
    """Mark nodes whose single output is printed inside its user (evaluation order kept);
    `outputs=False`: the block's outputs are not (statements are printed after them)."""
    index = {id(n): i for i, n in enumerate(b.nodes)}  # positions, found once per block
    if outputs:
        _scan_node(b.return_node, inline, index)
    for n in reversed(b.nodes):
        _scan_node(n, inline, index)


def _scan_node(n: Node, inline: set[int], index: dict[int, int]) -> None:
    if id(n) in inline:
        return
    counted = _is_counted_while(n)
    for b in n.blocks:
        # a counted loop's counter is stepped after its body: the body's outputs are named
        scan_block(b, inline, outputs=not counted)
    if counted:
        return      # its trip count is read twice (first test, and each step's)
    point: Optional[Node] = n
    # Inputs are evaluated left to right, so match them right to left against the nodes
    # emitted just before `n`.
    for v in reversed(n.inputs):
        point = _scan_value(point, v, inline, index)


def _scan_value(point: Optional[Node], v: Value, inline: set[int],
                index: dict[int, int]) -> Optional[Node]:
    producer = v.node
    if point is None:
        return None
    if producer.kind == prim.Constant:
        return point
    if _can_inline(v) and producer.owning_block is point.owning_block and \
            _previous_non_constant(point, index) is producer:
        inline.add(id(producer))
        for inp in reversed(producer.inputs):
            producer_point = _scan_value(producer, inp, inline, index)
            if producer_point is None:
                break
            producer = producer_point
        return producer
    return point
