"""Graph, Block, Node and Value: the structured SSA IR.

A Graph owns one top Block. A Block is a list of Nodes between a `prim::Param` node
(whose outputs are the block's inputs) and a `prim::Return` node (whose inputs are the
block's outputs). Control flow is structured: `prim::If` owns two blocks and
`prim::Loop` one body block whose inputs are the trip count and the loop-carried values
and whose outputs are the continue condition and the new loop-carried values.

Use lists are owned here and change only through a few methods: `Node.add_input`,
`replace_input`, `remove_input`, `remove_all_inputs`, `Value.replace_all_uses_with`,
and nodes enter and leave only through `Block.append/insert_before/insert_after` and
`Node.destroy()` (which refuses a node whose outputs are still used).

Removing a node costs the same whatever the size of the graph, so passes that remove or
move nodes one at a time stay linear in the method's length: a block chains its nodes
(each knows the one before and after it, between the block's Param and Return nodes, as
in PyTorch) and `Block.nodes` is a list made from the chain when read after a change
(kept up to date by appends and by removing the last node, what compiling does); a
value's uses are an insertion-ordered dict keyed by `Use`, so dropping one is a lookup.
"""
from __future__ import annotations

import re
from typing import Any, Iterator, NamedTuple, Optional

from .diagnostics import SourceRange
from .types import AnyType, Type
from .node_kinds import prim

_NUMBERED = re.compile(r"^(.*)\.(\d+)$")


class Use(NamedTuple):
    """Input `offset` of node `user` (hashable: nodes hash by identity)."""

    user: "Node"
    offset: int


class Uses(dict):
    """A value's uses, in the order they were made: keys are `Use`s (values unused).

    Iterating gives the uses; `uses[i]` reads the i-th as a list would. Only graph.py
    changes it.
    """

    __slots__ = ()

    def __getitem__(self, i: int) -> Use:  # type: ignore[override]
        if i == 0:
            for u in self:
                return u
        return list(self)[i]


class Value:
    """An SSA value: an output of a node (or a block input), with a type and a name hint."""

    __slots__ = ("type", "node", "offset", "uses", "unique", "_name", "__weakref__")

    def __init__(self, node: "Node", offset: int, type: Type, unique: int) -> None:
        self.type = type
        self.node = node
        self.offset = offset
        self.uses = Uses()
        self.unique = unique
        self._name: Optional[str] = None

    @property
    def graph(self) -> "Graph":
        return self.node.graph

    def has_debug_name(self) -> bool:
        return self._name is not None

    def debug_name(self) -> str:
        """The printed name: the name hint if any, else the unique number."""
        return self._name if self._name is not None else str(self.unique)

    def debug_name_base(self) -> str:
        """The name hint without a trailing `.N` suffix."""
        name = self._name or ""
        m = _NUMBERED.match(name)
        return m.group(1) if m else name

    def set_debug_name(self, name: Optional[str]) -> "Value":
        """Give this value a name hint; the graph keeps hints unique.

        As in PyTorch, when another value holds `name` already, that other value is
        renamed to `name.N`, so the newest definition of a variable keeps the plain name.
        """
        names = self.graph._names
        if self._name is not None:
            names.pop(self._name, None)
        if not name:
            self._name = None
            return self
        if name[0].isdigit() and name.isdigit():
            raise ValueError(f"names may not be integers: {name}")
        other = names.get(name)
        if other is not None and other is not self:
            m = _NUMBERED.match(name)
            base, suffix = (m.group(1), int(m.group(2))) if m else (name, 1)
            suffix = max(suffix, self.graph._suffixes.get(base, 0) + 1)
            while f"{base}.{suffix}" in names:
                suffix += 1
            self.graph._suffixes[base] = suffix
            other.set_debug_name(f"{base}.{suffix}")
        names[name] = self
        self._name = name
        return self

    def replace_all_uses_with(self, other: "Value") -> None:
        """Point every use of this value at `other`."""
        if other is self:
            return
        # All at once: dropping uses one by one searches this value's use list each time,
        # quadratic in the number of uses.
        uses, self.uses = self.uses, Uses()
        for use in uses:
            use.user._inputs[use.offset] = other
        other.uses.update(uses)

    def replace_all_uses_after(self, other: "Value", node: "Node") -> None:
        """Replace uses by nodes that come after `node` (in program order, including nested)."""
        for use in list(self.uses):
            if node.is_before(use.user):
                use.user._set_input(use.offset, other)

    def __repr__(self) -> str:
        return f"%{self.debug_name()} : {self.type}"


class Node:
    """An operation: a kind such as `aten::add`, inputs, outputs, blocks and attributes."""

    def __init__(self, graph: "Graph", kind: str, source_range: Optional[SourceRange] = None) -> None:
        self.graph = graph
        self.kind = kind
        self._inputs: list[Value] = []
        self.outputs: list[Value] = []
        self.blocks: list[Block] = []
        self.attrs: dict[str, Any] = {}
        self.owning_block: Optional[Block] = None
        self.source_range = source_range
        self.schema: Any = None        # ir.schema.FunctionSchema for operator nodes
        self.callee: Any = None        # ir.function.Function for prim::CallFunction/Method
        # Frames of the calls this node was inlined through, innermost first: pairs of
        # (name of the function the node came from, range of the call it replaced).
        self.callstack: tuple[tuple[str, Optional[SourceRange]], ...] = ()
        # Neighbours in the owning block's chain (its Param and Return nodes at the ends).
        self._prev: Optional[Node] = None
        self._next: Optional[Node] = None

    # --- inputs -------------------------------------------------------------------
    @property
    def inputs(self) -> tuple[Value, ...]:
        return tuple(self._inputs)

    def input(self, i: int = 0) -> Value:
        return self._inputs[i]

    def add_input(self, v: Value) -> Value:
        v.uses[Use(self, len(self._inputs))] = None
        self._inputs.append(v)
        return v

    def insert_input(self, i: int, v: Value) -> Value:
        for j in range(i, len(self._inputs)):
            self._drop_use(j)
        self._inputs.insert(i, v)
        for j in range(i, len(self._inputs)):
            self._inputs[j].uses[Use(self, j)] = None
        return v

    def _drop_use(self, i: int) -> None:
        try:
            del self._inputs[i].uses[Use(self, i)]
        except KeyError:
            raise AssertionError("use list out of sync") from None

    def _set_input(self, i: int, v: Value) -> None:
        self._drop_use(i)
        self._inputs[i] = v
        v.uses[Use(self, i)] = None

    def replace_input(self, i: int, v: Value) -> Value:
        """Make input `i` be `v`; returns the old input."""
        old = self._inputs[i]
        self._set_input(i, v)
        return old

    def replace_input_with(self, old: Value, new: Value) -> None:
        for i, v in enumerate(self._inputs):
            if v is old:
                self._set_input(i, new)

    def remove_input(self, i: int) -> None:
        for j in range(i, len(self._inputs)):
            self._drop_use(j)
        del self._inputs[i]
        for j in range(i, len(self._inputs)):
            self._inputs[j].uses[Use(self, j)] = None

    def remove_all_inputs(self) -> None:
        for j in range(len(self._inputs)):
            self._drop_use(j)
        self._inputs.clear()

    # --- outputs and blocks -------------------------------------------------------
    def add_output(self, type: Type, name: Optional[str] = None) -> Value:
        v = Value(self, len(self.outputs), type, self.graph._new_unique())
        self.outputs.append(v)
        if name:
            v.set_debug_name(name)
        return v

    def output(self, i: int = 0) -> Value:
        return self.outputs[i]

    def erase_output(self, i: int) -> None:
        v = self.outputs[i]
        if v.uses:
            raise AssertionError(f"erasing output {v} that still has uses")
        if v._name is not None:
            v.set_debug_name(None)
        del self.outputs[i]
        for j in range(i, len(self.outputs)):
            self.outputs[j].offset = j

    def add_block(self) -> "Block":
        b = Block(self.graph, self)
        self.blocks.append(b)
        return b

    # --- position -----------------------------------------------------------------
    def insert_before(self, anchor: "Node") -> "Node":
        """Insert this (detached) node right before `anchor` (a Return node: at block end)."""
        anchor.owning_block._link(anchor._prev, self)
        return self

    def insert_after(self, anchor: "Node") -> "Node":
        """Insert this (detached) node right after `anchor` (a Param node: at block start)."""
        anchor.owning_block._link(anchor, self)
        return self

    def move_before(self, anchor: "Node") -> None:
        self._unlink()
        self.insert_before(anchor)

    def _unlink(self) -> None:
        """Take this node out of its block (it keeps its inputs and outputs)."""
        block = self.owning_block
        if block is None:
            return
        prev, nxt = self._prev, self._next
        prev._next, nxt._prev = nxt, prev
        self._prev = self._next = self.owning_block = None
        cached = block._list
        if cached is not None:
            if cached and cached[-1] is self:
                cached.pop()
            else:
                block._list = None

    def destroy(self) -> None:
        """Remove this node (and its blocks); its outputs must have no uses."""
        for v in self.outputs:
            if v.uses:
                raise AssertionError(f"destroying {self.kind} whose output {v} is still used")
        for b in self.blocks:
            b.destroy()
        self.remove_all_inputs()
        for v in self.outputs:
            if v._name is not None:
                v.set_debug_name(None)
        self._unlink()

    def is_before(self, other: "Node") -> bool:
        """Whether this node comes before `other` in program order."""
        mine, theirs = self._path(), other._path()
        return mine < theirs

    def _path(self) -> list[int]:
        path = []
        node: Optional[Node] = self
        while node is not None and node.owning_block is not None:
            block = node.owning_block
            nodes = block.nodes
            path.append(nodes.index(node) if node.kind != prim.Return else len(nodes))
            owner = block.owning_node
            if owner is not None:
                path.append(owner.blocks.index(block))
            node = owner
        path.reverse()
        return path

    # --- attributes ---------------------------------------------------------------
    def s(self, name: str) -> Any:
        return self.attrs[name]

    def has_attr(self, name: str) -> bool:
        return name in self.attrs

    def __repr__(self) -> str:
        return f"<Node {self.kind} {[o.debug_name() for o in self.outputs]}>"


class Block:
    """A list of nodes with inputs (outputs of its Param node) and outputs (Return inputs)."""

    def __init__(self, graph: "Graph", owning_node: Optional[Node]) -> None:
        self.graph = graph
        self.owning_node = owning_node
        self.param_node = Node(graph, prim.Param)
        self.param_node.owning_block = self
        self.return_node = Node(graph, prim.Return)
        self.return_node.owning_block = self
        self.param_node._next, self.return_node._prev = self.return_node, self.param_node
        self._list: Optional[list[Node]] = []   # the chain as a list; None: read it again

    @property
    def nodes(self) -> list[Node]:
        """The block's nodes in order (not its Param and Return nodes). Read-only: change
        the block through its methods and those of Node."""
        nodes = self._list
        if nodes is None:
            nodes = self._list = []
            n, end = self.param_node._next, self.return_node
            while n is not end:
                nodes.append(n)
                n = n._next
        return nodes

    @property
    def inputs(self) -> list[Value]:
        return self.param_node.outputs

    @property
    def outputs(self) -> tuple[Value, ...]:
        return self.return_node.inputs

    def add_input(self, type: Type, name: Optional[str] = None) -> Value:
        return self.param_node.add_output(type, name)

    def insert_input(self, i: int, type: Type, name: Optional[str] = None) -> Value:
        v = Value(self.param_node, i, type, self.graph._new_unique())
        self.param_node.outputs.insert(i, v)
        for j, o in enumerate(self.param_node.outputs):
            o.offset = j
        if name:
            v.set_debug_name(name)
        return v

    def erase_input(self, i: int) -> None:
        self.param_node.erase_output(i)

    def register_output(self, v: Value) -> int:
        self.return_node.add_input(v)
        return len(self.return_node.inputs) - 1

    def _link(self, prev: Node, node: Node) -> None:
        """Put detached `node` into this block's chain right after `prev`."""
        if node.owning_block is not None:
            raise AssertionError("node is already in a block")
        nxt = prev._next
        node._prev, node._next, node.owning_block = prev, nxt, self
        prev._next = nxt._prev = node
        cached = self._list
        if cached is not None:
            if nxt is self.return_node:
                cached.append(node)
            else:
                self._list = None

    def _insert_at(self, index: int, node: Node) -> None:
        nodes = self.nodes
        self._link(nodes[index - 1] if 0 < index <= len(nodes) else
                   self.return_node._prev if index > len(nodes) else self.param_node, node)

    def append(self, node: Node) -> Node:
        self._link(self.return_node._prev, node)
        return node

    def prepend(self, node: Node) -> Node:
        self._link(self.param_node, node)
        return node

    def destroy(self) -> None:
        self.return_node.remove_all_inputs()
        for n in reversed(list(self.nodes)):
            for o in n.outputs:
                for u in list(o.uses):
                    u.user.remove_all_inputs()
            n.destroy()

    def walk(self) -> Iterator[Node]:
        """Every node of this block and its nested blocks, in program order."""
        # A stack of iterators, not nested generators: `yield from` costs each node one
        # step per enclosing block, quadratic in the nesting depth.
        stack = [iter(self.nodes)]
        while stack:
            for n in stack[-1]:
                yield n
                if n.blocks:
                    stack.extend(iter(b.nodes) for b in reversed(n.blocks))
                    break
            else:
                stack.pop()


class Graph:
    """A function body: a top block, and the bookkeeping for unique names and numbers."""

    def __init__(self) -> None:
        self._next = 0
        self._names: dict[str, Value] = {}
        self._suffixes: dict[str, int] = {}
        self.block = Block(self, None)
        self._insert_block: Block = self.block
        self._insert_index: Optional[int] = None   # None: append at the end of the block

    def _new_unique(self) -> int:
        u = self._next
        self._next += 1
        return u

    @property
    def next_unique(self) -> int:
        """The number the next new value will get."""
        return self._next

    def skip_uniques(self, n: int) -> None:
        """Leave `n` value numbers unused (as work that was rolled back would have)."""
        self._next += n

    @property
    def inputs(self) -> list[Value]:
        return self.block.inputs

    @property
    def outputs(self) -> tuple[Value, ...]:
        return self.block.outputs

    @property
    def nodes(self) -> list[Node]:
        return self.block.nodes

    def add_input(self, type: Type, name: Optional[str] = None) -> Value:
        return self.block.add_input(type, name)

    def register_output(self, v: Value) -> int:
        return self.block.register_output(v)

    def create(self, kind: str, inputs: tuple[Value, ...] | list[Value] = (),
               n_outputs: int = 0, source_range: Optional[SourceRange] = None) -> Node:
        """A new detached node of `kind` with `inputs` and `n_outputs` untyped outputs."""
        n = Node(self, kind, source_range)
        for v in inputs:
            n.add_input(v)
        for _ in range(n_outputs):
            n.add_output(AnyType)
        return n

    # --- insertion point ----------------------------------------------------------
    def set_insert_point(self, block: Block, index: Optional[int] = None) -> None:
        self._insert_block, self._insert_index = block, index

    @property
    def insert_block(self) -> Block:
        return self._insert_block

    def insert(self, node: Node) -> Node:
        """Insert `node` at the insertion point."""
        if self._insert_index is None:
            block = self._insert_block
            block._link(block.return_node._prev, node)
        else:
            self._insert_block._insert_at(self._insert_index, node)
            self._insert_index += 1
        return node

    def walk(self) -> Iterator[Node]:
        return self.block.walk()

    def __str__(self) -> str:
        from .printer import graph_str
        return graph_str(self)
