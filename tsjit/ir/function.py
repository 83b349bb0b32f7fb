"""Function: a named graph with a schema; methods are Functions owned by a ClassType."""
from __future__ import annotations

import threading
from typing import Any, Callable, Optional

from .diagnostics import TsjitError
from .gc_pause import gc_paused
from .graph import Graph
from .schema import Argument, FunctionSchema
from .types import ClassType, TupleType, Type


# One lock for all lazy definitions: a definition compiles its callees' definitions, so a lock
# per function could deadlock two threads defining each other's callees. Compiling holds the
# GIL anyway, so serialising definitions costs no parallelism.
_DEFINING = threading.RLock()


class Function:
    """A compiled (or lazily compiled) function or method.

    `definer` compiles the body on first need, so mutually recursive definitions and
    lazily loaded archive classes work; `executor` is the run-time's cache slot (the
    interpreter's Code, the generated Python), owned by whoever runs functions.
    """

    def __init__(self, qualified_name: str, graph: Optional[Graph] = None,
                 schema: Optional[FunctionSchema] = None, owner: Optional[ClassType] = None,
                 definer: Optional[Callable[["Function"], None]] = None) -> None:
        self.qualified_name = qualified_name
        self._graph = graph
        self._schema = schema
        self.owner = owner
        self._definer = definer
        self._defining = False
        self.executor: Any = None
        self.call_plan: Any = None     # how a call from Python converts (jit's, made on first call)
        self.optimized_graph: Optional[Graph] = None
        self.source_def: Any = None   # the AST Def it was compiled from, if any

    @property
    def name(self) -> str:
        return self.qualified_name.rsplit(".", 1)[-1]

    def ensure_defined(self) -> None:
        """Compile the body now if it was declared lazily."""
        if self._graph is None and self._definer is not None:
            with _DEFINING:
                if self._definer is None:      # another thread defined it while we waited
                    return
                if self._defining:             # only this thread can be inside a definer
                    raise TsjitError(f"'{self.qualified_name}' is recursive, which TorchScript "
                                     "does not support")
                self._defining = True
                try:
                    with gc_paused():
                        self._definer(self)
                finally:
                    self._defining = False
                self._definer = None

    @property
    def graph(self) -> Graph:
        self.ensure_defined()
        assert self._graph is not None, f"{self.qualified_name} has no graph"
        return self._graph

    @graph.setter
    def graph(self, g: Graph) -> None:
        self._graph = g

    @property
    def schema(self) -> FunctionSchema:
        if self._schema is None:
            self.ensure_defined()
        if self._schema is None:
            self._schema = schema_from_graph(self.name, self.graph)
        return self._schema

    @schema.setter
    def schema(self, s: FunctionSchema) -> None:
        self._schema = s

    @property
    def is_defined(self) -> bool:
        return self._graph is not None

    def __repr__(self) -> str:
        return f"<Function {self.qualified_name}>"


def schema_from_graph(name: str, graph: Graph, arg_names: Optional[list[str]] = None) -> FunctionSchema:
    """A schema whose arguments are the graph inputs and whose return is its output."""
    args = []
    for i, v in enumerate(graph.inputs):
        n = arg_names[i] if arg_names else v.debug_name_base() or f"arg{i}"
        args.append(Argument(n, v.type))
    outs = graph.outputs
    ret: Type = outs[0].type if len(outs) == 1 else TupleType(tuple(o.type for o in outs))
    return FunctionSchema(name, "", tuple(args), (Argument("", ret),))
