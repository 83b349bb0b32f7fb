"""The node kinds that are not operator calls, as one table.

A node is either an operator call (`aten::add`, `prim::min`: it carries the
`FunctionSchema` it was matched against, which says its inputs, outputs and effects)
or one of the kinds below, which the compiler makes itself and every executor, printer
and pass knows by name. Code names them through `prim` (`n.kind == prim.If`), never by
a string literal, so a kind is spelled once; the table says what the verifier checks and
what dead-code elimination may remove:

- `inputs` / `outputs`: how many a node of the kind has; None when variadic (at least
  `min_inputs` inputs);
- `blocks`: how many blocks it owns (structured control flow);
- `side_effects`: whether it must stay when nothing reads its outputs. A kind with
  blocks has the effects of the nodes in its blocks.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


class prim:  # noqa: N801  (spelled as archive code spells them: `ops.prim.RaiseException`)
    """The names of the non-operator node kinds."""

    Param = "prim::Param"
    Return = "prim::Return"
    Constant = "prim::Constant"
    Uninitialized = "prim::Uninitialized"
    If = "prim::If"
    Loop = "prim::Loop"
    ReturnStmt = "prim::ReturnStmt"
    LoopContinuation = "prim::LoopContinuation"
    TupleConstruct = "prim::TupleConstruct"
    TupleUnpack = "prim::TupleUnpack"
    TupleIndex = "prim::TupleIndex"
    ListConstruct = "prim::ListConstruct"
    ListUnpack = "prim::ListUnpack"
    DictConstruct = "prim::DictConstruct"
    CreateObject = "prim::CreateObject"
    GetAttr = "prim::GetAttr"
    SetAttr = "prim::SetAttr"
    CallFunction = "prim::CallFunction"
    CallMethod = "prim::CallMethod"
    PythonOp = "prim::PythonOp"
    RaiseException = "prim::RaiseException"
    Print = "prim::Print"
    unchecked_cast = "prim::unchecked_cast"
    isinstance = "prim::isinstance"
    tolist = "prim::tolist"
    EnumName = "prim::EnumName"
    EnumValue = "prim::EnumValue"
    Enter = "prim::Enter"
    Exit = "prim::Exit"
    With = "prim::With"
    fork = "prim::fork"


@dataclass(frozen=True)
class NodeKind:
    name: str
    inputs: Optional[int]          # None: any number, at least min_inputs
    outputs: Optional[int]         # None: any number
    doc: str
    blocks: int = 0
    side_effects: bool = False
    min_inputs: int = 0


_TABLE = [
    NodeKind(prim.Param, 0, None, "a block's inputs are its outputs"),
    NodeKind(prim.Return, None, 0, "a block's outputs are its inputs"),
    NodeKind(prim.Constant, 0, 1, "attribute `value` (absent for None), or a function `name`"),
    NodeKind(prim.Uninitialized, 0, 1, "a placeholder of its type on paths that never read it"),
    NodeKind(prim.If, 1, None, "(cond) -> the outputs of the block taken", blocks=2),
    NodeKind(prim.Loop, None, None, "(max trips, cond, carried...) -> carried; body block "
             "(trip, carried...) -> (cond, carried...)", blocks=1, min_inputs=2),
    NodeKind(prim.ReturnStmt, 1, 0, "a return, until ir/passes/exit_transform lowers it",
             side_effects=True),
    NodeKind(prim.LoopContinuation, None, 0, "(cond, carried...): break/continue, until "
             "exit_transform lowers it", side_effects=True, min_inputs=1),
    NodeKind(prim.TupleConstruct, None, 1, "(items...) -> tuple"),
    NodeKind(prim.TupleUnpack, 1, None, "(tuple) -> items..."),
    NodeKind(prim.TupleIndex, 2, 1, "(tuple, index) -> item"),
    NodeKind(prim.ListConstruct, None, 1, "(items...) -> list"),
    NodeKind(prim.ListUnpack, 1, None, "(list) -> items...; raises on a length mismatch",
             side_effects=True),
    NodeKind(prim.DictConstruct, None, 1, "(key, value, ...) -> dict"),
    NodeKind(prim.CreateObject, 0, 1, "a new object of its output's class, fields unset"),
    NodeKind(prim.GetAttr, 1, 1, "(object) -> attribute `name`"),
    NodeKind(prim.SetAttr, 2, 0, "(object, value): set attribute `name`", side_effects=True),
    NodeKind(prim.CallFunction, None, None, "(function, args...) -> results",
             side_effects=True, min_inputs=1),
    NodeKind(prim.CallMethod, None, None, "(self, args...) -> results of method `name`",
             side_effects=True, min_inputs=1),
    NodeKind(prim.PythonOp, None, None, "(args...) -> results of the @ignore'd Python "
             "`function`", side_effects=True),
    NodeKind(prim.RaiseException, 2, 0, "(message, class name or None)", side_effects=True),
    NodeKind(prim.Print, None, 0, "(values...)", side_effects=True),
    NodeKind(prim.unchecked_cast, 1, 1, "its input, as its output's (refined) type"),
    NodeKind(prim.isinstance, 1, 1, "(value) -> whether it is one of `types`"),
    NodeKind(prim.tolist, 3, 1, "(tensor, dims, element kind) -> nested list"),
    NodeKind(prim.EnumName, 1, 1, "(enum value) -> its name"),
    NodeKind(prim.EnumValue, 1, 1, "(enum value) -> its value"),
    NodeKind(prim.Enter, 1, 1, "(object) -> object.__enter__(): a `with` region starts; it "
             "ends at the Exit of the same object later in the block", side_effects=True),
    NodeKind(prim.Exit, 1, 1, "(object) -> None: object.__exit__(None, None, None); also "
             "run when the region raises", side_effects=True),
    NodeKind(prim.fork, 0, 1, "-> Future of its block's one output: `torch.jit.fork(f, args)`; "
             "the block (the call) runs when the node does, so waiting finds it done",
             blocks=1),
    NodeKind(prim.With, 0, None, "a `with` region as a block, only inside "
             "ir/passes/exit_transform (between an Enter and its Exit)", blocks=1),
]

KINDS: dict[str, NodeKind] = {k.name: k for k in _TABLE}

# Operators with an effect their schema does not show (no argument written, no `_` suffix).
EFFECTFUL_OPERATORS = frozenset({"aten::warn"})


def node_kind(kind: str) -> Optional[NodeKind]:
    """The table entry of `kind`, or None for an operator call."""
    return KINDS.get(kind)


__all__ = ["EFFECTFUL_OPERATORS", "KINDS", "NodeKind", "node_kind", "prim"]
