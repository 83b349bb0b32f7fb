"""The graph text form, in PyTorch's format:

    graph(%x.1 : Tensor,
          %n.1 : int):
      %2 : int = prim::Constant[value=1]()
      %y : Tensor = prim::Loop(%n.1, %3, %x.1)
        block0(%i : int, %y.1 : Tensor):
          ...
          -> (%5, %y.3)
      return (%y)
"""
from __future__ import annotations

import math
from typing import Any

from .graph import Block, Graph, Node


def format_float_literal(x: float) -> str:
    """A float as PyTorch writes it in code and graphs: 17 significant digits, `1.` for 1.0."""
    if math.isnan(x):
        return "-nan" if math.copysign(1.0, x) < 0 else "nan"   # the sign bit, as C++ prints
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    s = "%.17g" % x
    if "." not in s and "e" not in s and "n" not in s:
        s += "."
    return s


def attr_str(v: Any) -> str:
    """An attribute value in graph text."""
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float):
        return format_float_literal(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(attr_str(x) for x in v) + "]"
    if v is None:
        return "None"
    if isinstance(v, int):
        return str(v)
    return f"<{type(v).__name__}>"


def _values(vs) -> str:
    return ", ".join("%" + v.debug_name() for v in vs)


def _node(out: list[str], n: Node, indent: int) -> None:
    pad = "  " * indent
    lhs = ", ".join(f"%{o.debug_name()} : {o.type}" for o in n.outputs)
    attrs = ""
    shown = {k: v for k, v in n.attrs.items() if not k.startswith("_")}   # "_x": internal
    if shown:
        attrs = "[" + ", ".join(f"{k}={attr_str(v)}" for k, v in shown.items()) + "]"
    out.append(f"{pad}{lhs} = {n.kind}{attrs}({_values(n.inputs)})")
    for i, b in enumerate(n.blocks):
        _block(out, b, indent + 1, f"block{i}")


def _block(out: list[str], b: Block, indent: int, label: str) -> None:
    pad = "  " * indent
    params = ", ".join(f"%{v.debug_name()} : {v.type}" for v in b.inputs)
    out.append(f"{pad}{label}({params}):")
    for n in b.nodes:
        _node(out, n, indent + 1)
    out.append(f"{pad}  -> ({_values(b.outputs)})")


def graph_str(g: Graph) -> str:
    """The text form of a graph."""
    params = (",\n      ").join(f"%{v.debug_name()} : {v.type}" for v in g.inputs)
    out = [f"graph({params}):"]
    for n in g.nodes:
        _node(out, n, 1)
    out.append(f"  return ({_values(g.outputs)})")
    return "\n".join(out) + "\n"
