"""The IR verifier: run after every pass and in tests.

`lint(graph)` checks the structure every pass may rely on: ownership of blocks, nodes
and values; definitions before uses (a value defined in a block is visible only there
and in its nested blocks); use lists both ways; each node's blocks, inputs and outputs
as the node-kind table (`node_kinds.py`) or the node's operator schema says; `if` and
`loop` blocks that agree with their node; the types through tuple, list, dict, attribute
and raise nodes; and each operator input's type against the schema's argument type
(binding its type variables), as schema matching left it.

Schema matching inserts its conversions as nodes (`aten::Float`, `aten::IntImplicit`,
`aten::ScalarImplicit`, a list built from a tuple or from one int for `int[2]`), so an
input is accepted exactly when matching would accept it: a subtype of the argument's
type, type variables bound left to right. What passes legitimately do is narrow: they
replace a value by one of a subtype (an `if` by its live branch, whose tuple may be
`(Tensor, Tensor)` where the `if` said `(Tensor, Optional[Tensor])`), so what a node
produces (a schema's return with the variables bound, a tuple's or list's items, an
attribute) must be a subtype of its output's type, not equal to it. Run over the corpus
(loaded, frozen, optimized for code generation), the golden tests, PyTorch's test/jit
files and the whole test suite, that found no graph needing more.
"""
from __future__ import annotations

import os
from typing import Callable, NoReturn

from . import types as T
from .diagnostics import TsjitError
from .graph import Block, Graph, Node, Use, Value
from .node_kinds import node_kind, prim
from .schema import FunctionSchema


class LintError(TsjitError):
    """The graph breaks an IR invariant; the message includes the graph."""


def verify_enabled() -> bool:
    """Whether pass pipelines verify the graph after each pass (`TSJIT_VERIFY=1`; tests set it)."""
    return os.environ.get("TSJIT_VERIFY", "") not in ("", "0")


def lint(graph: Graph) -> None:
    """Check ownership, def-before-use, use lists both ways, block structure and each
    node's arity and input types (see the module docstring); raise LintError if broken."""
    defined: set[int] = set()

    def fail(msg: str) -> NoReturn:
        raise LintError(f"{msg}\n{graph}")

    # Tests run this after every pass, so the loops read the private lists directly.
    def check_uses(n: Node) -> None:
        for i, v in enumerate(n._inputs):
            if id(v) not in defined:
                fail(f"{n.kind} uses {v} before it is defined (or from another scope)")
            if Use(n, i) not in v.uses:
                fail(f"use list of {v} misses input {i} of {n.kind}")

    def check_value_uses(v: Value) -> None:
        for u in v.uses:
            ins = u.user._inputs
            if u.offset >= len(ins) or ins[u.offset] is not v:
                fail(f"use list of {v} names {u.user.kind} input {u.offset}, which is not it")
            if u.user.graph is not graph:
                fail(f"{v} is used by a node of another graph")

    def visit_block(b: Block, scope: list[int]) -> None:
        if b.graph is not graph or b.param_node.owning_block is not b:
            fail("block ownership is broken")
        for v in b.inputs:
            if v.node is not b.param_node:
                fail(f"block input {v} is not owned by the block's Param node")
            defined.add(id(v))
            scope.append(id(v))
            check_value_uses(v)
        chain, m = [], b.param_node._next
        while m is not None and m is not b.return_node:
            chain.append(m)
            m = m._next
        if m is None or chain != b.nodes:
            fail("the block's node list is not its chain of nodes (changed other than "
                 "through Block and Node methods)")
        for n in b.nodes:
            if n.owning_block is not b:
                fail(f"{n.kind} is listed in a block it does not belong to")
            if n.graph is not graph:
                fail(f"{n.kind} belongs to another graph")
            check_uses(n)
            check_node(n, fail)
            for sub in n.blocks:
                if sub.owning_node is not n:
                    fail(f"a block of {n.kind} names another owner")
                inner: list[int] = []
                visit_block(sub, inner)
                for i in inner:
                    defined.discard(i)
            for j, o in enumerate(n.outputs):
                if o.node is not n or o.offset != j:
                    fail(f"output {j} of {n.kind} has a wrong owner or offset")
                defined.add(id(o))
                scope.append(id(o))
                check_value_uses(o)
        check_uses(b.return_node)
        _check_with_regions(b, fail)

    visit_block(graph.block, [])


Fail = Callable[[str], NoReturn]


def check_node(n: Node, fail: Fail) -> None:
    """Check `n`'s blocks, inputs and outputs against its kind's entry or its schema."""
    kind = node_kind(n.kind)
    if kind is None:
        if n.schema is None:
            fail(f"{n.kind} is neither a node kind of ir/node_kinds.py nor bound to an "
                 "operator schema")
        if n.schema.name != n.kind:
            fail(f"{n.kind} is bound to the schema of another operator: {n.schema}")
        if n.blocks:
            fail(f"operator {n.kind} owns blocks")
        _check_schema(n, n.inputs, fail)
        return
    if len(n.blocks) != kind.blocks:
        fail(f"{n.kind} must have {kind.blocks} block(s), not {len(n.blocks)}")
    ins, outs = len(n.inputs), len(n.outputs)
    if kind.inputs is not None and ins != kind.inputs:
        fail(f"{n.kind} has {ins} inputs, not {kind.inputs}")
    if ins < kind.min_inputs:
        fail(f"{n.kind} has {ins} inputs, not at least {kind.min_inputs}")
    if kind.outputs is not None and outs != kind.outputs:
        fail(f"{n.kind} has {outs} outputs, not {kind.outputs}")
    if n.kind in (prim.CallFunction, prim.CallMethod) and n.schema is not None:
        _check_schema(n, n.inputs[1:] if n.kind == prim.CallFunction else n.inputs, fail)
        return
    check = _KIND_CHECKS.get(n.kind)
    if check is not None:
        check(n, fail)


def _check_if(n: Node, fail: Fail) -> None:
    if n.input(0).type != T.BoolType:
        fail(f"the condition of prim::If is {n.input(0).type}, not bool")
    for b in n.blocks:
        if len(b.inputs) or len(b.outputs) != len(n.outputs):
            fail(f"a block of prim::If has {len(b.inputs)} inputs and {len(b.outputs)} "
                 f"outputs for {len(n.outputs)} outputs of the node")
        for v, o in zip(b.outputs, n.outputs):
            if not T.is_subtype(v.type, o.type):
                fail(f"a block of prim::If gives {v} for its output %{o.debug_name()} : {o.type}")


def _check_loop(n: Node, fail: Fail) -> None:
    body = n.blocks[0]
    carried = len(n.outputs)
    if len(n.inputs) != carried + 2 or len(body.inputs) != carried + 1 or \
            len(body.outputs) != carried + 1:
        fail(f"prim::Loop with {carried} outputs has {len(n.inputs)} inputs and a body of "
             f"{len(body.inputs)} inputs and {len(body.outputs)} outputs")
    if n.input(0).type != T.IntType or body.inputs[0].type != T.IntType:
        fail("the trip count of prim::Loop is not an int")
    for cond in (n.input(1), body.outputs[0]):
        if cond.type != T.BoolType:
            fail(f"the condition {cond} of prim::Loop is not a bool")
    for i, o in enumerate(n.outputs):
        for v in (n.input(i + 2), body.outputs[i + 1]):
            if not T.is_subtype(v.type, body.inputs[i + 1].type):
                fail(f"{v} is carried into %{body.inputs[i + 1].debug_name()} : "
                     f"{body.inputs[i + 1].type} of prim::Loop")
        if not T.is_subtype(body.inputs[i + 1].type, o.type):
            fail(f"carried value {body.inputs[i + 1]} leaves prim::Loop as {o}")


def _check_types(n: Node, fail: Fail, what: str, pairs: list[tuple[Value, T.Type]]) -> None:
    """Each value's type a subtype of the type paired with it."""
    for v, t in pairs:
        if not T.is_subtype(v.type, t):
            fail(f"{n.kind}: {what} {v} is not {t.annotation_str()}")


def _check_tuple(n: Node, fail: Fail) -> None:
    t = (n.output() if n.kind == prim.TupleConstruct else n.input(0)).type
    items = n.inputs if n.kind == prim.TupleConstruct else n.outputs
    if not isinstance(t, T.TupleType) or len(t.elems) != len(items):
        fail(f"{n.kind} of {len(items)} items has type {t}")
    if n.kind == prim.TupleConstruct:
        _check_types(n, fail, "item", list(zip(n.inputs, t.elems)))
    elif not all(T.is_subtype(e, o.type) for o, e in zip(n.outputs, t.elems)):
        fail(f"{n.kind} gives items of other types than its tuple's {t}")


def _check_tuple_index(n: Node, fail: Fail) -> None:
    if not isinstance(n.input(0).type, T.TupleType) or n.input(1).type != T.IntType:
        fail(f"{n.kind} needs a tuple and an int")


def _check_list(n: Node, fail: Fail) -> None:
    t = (n.output() if n.kind == prim.ListConstruct else n.input(0)).type
    if not isinstance(t, T.ListType):
        fail(f"{n.kind} has type {t}, not a list")
    if n.kind == prim.ListConstruct:
        _check_types(n, fail, "item", [(v, t.elem) for v in n.inputs])
    elif not all(T.is_subtype(t.elem, o.type) for o in n.outputs):
        fail(f"{n.kind} gives items of other types than its list's {t}")


def _check_dict(n: Node, fail: Fail) -> None:
    t = n.output().type
    if not isinstance(t, T.DictType) or len(n.inputs) % 2:
        fail(f"{n.kind} of {len(n.inputs)} inputs has type {t}")
    _check_types(n, fail, "key", [(k, t.key) for k in n.inputs[::2]])
    _check_types(n, fail, "value", [(v, t.value) for v in n.inputs[1::2]])


def _check_attribute(n: Node, fail: Fail) -> None:
    t = n.input(0).type
    if not isinstance(t, T.ClassType):
        return      # (module interfaces have attributes the class knows)
    attr = t.find_attribute(n.attrs.get("name", ""))
    if attr is None:
        fail(f"{n.kind}: {t} has no attribute '{n.attrs.get('name')}'")
    if n.kind == prim.GetAttr and not T.is_subtype(attr.type, n.output().type):
        fail(f"{n.kind} '{attr.name}' gives {n.output()}, the attribute is {attr.type}")
    if n.kind == prim.SetAttr:
        _check_types(n, fail, "value", [(n.input(1), attr.type)])


def _check_with_regions(b: Block, fail: Fail) -> None:
    """Each prim::Enter of `b` is closed by a prim::Exit of the same object later in `b`,
    and regions nest."""
    open_: list[Value] = []
    for n in b.nodes:
        if n.kind == prim.Enter:
            if not isinstance(n.input(0).type, T.ClassType):
                fail(f"prim::Enter of {n.input(0)}, which is not an object")
            open_.append(n.input(0))
        elif n.kind == prim.Exit:
            if not open_ or open_[-1] is not n.input(0):
                fail(f"prim::Exit of {n.input(0)} closes no prim::Enter of it")
            open_.pop()
    if open_:
        fail(f"prim::Enter of {open_[-1]} has no prim::Exit in its block")


def _check_raise(n: Node, fail: Fail) -> None:
    _check_types(n, fail, "message", [(n.input(0), T.StrType)])


_KIND_CHECKS: dict[str, Callable[[Node, Fail], None]] = {
    prim.If: _check_if, prim.Loop: _check_loop,
    prim.TupleConstruct: _check_tuple, prim.TupleUnpack: _check_tuple,
    prim.TupleIndex: _check_tuple_index,
    prim.ListConstruct: _check_list, prim.ListUnpack: _check_list,
    prim.DictConstruct: _check_dict,
    prim.GetAttr: _check_attribute, prim.SetAttr: _check_attribute,
    prim.RaiseException: _check_raise,
}


# Nodes of one schema with the same input and output types check alike, so passing
# signatures are kept: keyed by the schema's identity (the entry holds the schema, so
# the id cannot be reused while it is there).
_PASSED: dict[tuple, FunctionSchema] = {}
_MAX_PASSED = 8192


def _check_schema(n: Node, args: tuple[Value, ...], fail: Fail) -> None:
    """Arity and input types of `n` (its `args`) against `n.schema`."""
    s = n.schema
    key = (id(s), tuple([v.type for v in args]), tuple([o.type for o in n.outputs]))
    if _PASSED.get(key) is s:
        return
    formals = s.arguments
    if len(args) < len(formals) or len(args) > len(formals) and not s.is_vararg:
        fail(f"{n.kind} has {len(args)} arguments for {len(formals)} in its schema {s}")
    if len(n.outputs) != len(s.returns) and not s.is_varret:
        fail(f"{n.kind} has {len(n.outputs)} outputs for {len(s.returns)} in its schema {s}")
    env: dict[str, T.Type] = {}
    for a, v in zip(formals, args):
        if not T.match_type(a.type, v.type, env):
            fail(f"argument '{a.name}' of {n.kind} is {v}, not {a.type.annotation_str()} "
                 f"(schema {s})")
    for r, o in zip(s.returns, n.outputs):
        want = T.substitute(r.type, env)
        if not T.is_subtype(want, o.type):
            fail(f"output {o} of {n.kind} is not of the schema's return type "
                 f"{want.annotation_str()} (schema {s})")
    if len(_PASSED) >= _MAX_PASSED:
        _PASSED.clear()
    _PASSED[key] = s
