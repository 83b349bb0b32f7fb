"""Constant propagation: operators on constants whose result is a plain value are computed
at compile time (then `if` on a constant condition keeps only the live branch)."""
from __future__ import annotations

from typing import Any, Callable, Optional

from ..graph import Graph, Node
from .. import types as T
from ..node_kinds import EFFECTFUL_OPERATORS, prim
from .pipeline import rerun_after

_PLAIN = (T.IntType, T.FloatType, T.BoolType, T.StrType, T.NoneType)
# Side effects or run-time state: never folded.
_NEVER = EFFECTFUL_OPERATORS | {
    "aten::manual_seed", "aten::rand", "aten::randn", "aten::randint", "aten::is_grad_enabled",
    "aten::is_autocast_enabled", "aten::__derive_index",
    # PyTorch leaves string formatting to run time: archives keep the call.
    "aten::format"}


def _plain(t: T.Type) -> bool:
    if t in _PLAIN:
        return True
    if isinstance(t, T.ListType):
        return False    # lists are mutable: folding would share one list between runs
    if isinstance(t, T.OptionalType):
        return _plain(t.elem)
    return False


def _foldable(n: Node) -> bool:
    # (the inputs first: most nodes have one that is not a constant)
    for v in n.inputs:
        if v.node.kind != prim.Constant or not _plain(v.type) and v.type != T.NoneType:
            return False
    s = n.schema
    in_place = s is not None and s.name.endswith("_") and not s.name.endswith("__")   # add_, not __is__
    if s is None or n.kind in _NEVER or s.is_mutable() or in_place or n.blocks:
        return False
    return len(n.outputs) == 1 and _plain(n.output().type)


# New constant inputs come from a simplified `if`/loop (its outputs replaced) or a
# peephole rewrite; folding a chain happens in one walk (uses come after definitions).
@rerun_after("simplify_control_flow", "peephole")
def run(graph: Graph, kernel_for: Optional[Callable[[Node], Any]] = None) -> bool:
    """Fold what can be folded; `kernel_for(node)` gives a node's kernel."""
    if kernel_for is None:
        return False
    changed = False
    for n in list(graph.walk()):
        if n.owning_block is None or not _foldable(n):
            continue
        kernel = kernel_for(n)
        if kernel is None:
            continue
        args = [v.node.attrs.get("value") for v in n.inputs]
        try:
            result = kernel(*args)
        except Exception:  # noqa: BLE001  (it fails at run time too; leave it to fail there)
            continue
        if isinstance(result, (list, dict, tuple)) or type(result).__name__ == "Tensor":
            continue
        c = graph.create(prim.Constant, [], 0, n.source_range)
        if result is not None:
            c.attrs["value"] = result
        out = c.add_output(n.output().type if result is not None else T.NoneType)
        c.insert_before(n)
        n.output().replace_all_uses_with(out)
        n.destroy()
        changed = True
    return changed
