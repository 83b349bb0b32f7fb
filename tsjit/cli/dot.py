"""Graphs as Graphviz DOT text (one digraph; each method a cluster, each block a nested
cluster), and as SVG through the `graphviz` package and Graphviz's `dot` program."""
from __future__ import annotations

from typing import Any

from ..ir.diagnostics import TsjitError


def to_dot(graphs: list[tuple[str, Any]]) -> str:
    """One digraph of (title, Graph) pairs: nodes are operations, edges are values."""
    lines = ["digraph tsjit {", '  rankdir=TB; node [shape=box, fontname="monospace", fontsize=10];',
             '  edge [fontname="monospace", fontsize=9];']
    ids: dict[int, str] = {}

    def node_id(n: Any) -> str:
        return ids.setdefault(id(n), f"n{len(ids)}")

    def block(b: Any, indent: str, title: str, params: str) -> None:
        lines.append(f"{indent}subgraph cluster_{len(ids)}_{len(lines)} {{ label={_q(title)};")
        inner = indent + "  "
        lines.append(f"{inner}{node_id(b.param_node)} [label={_q(params)}, shape=oval];")
        for n in b.nodes:
            lines.append(f"{inner}{node_id(n)} [label={_q(_label(n))}];")
            for k, sub in enumerate(n.blocks):
                block(sub, inner, f"{n.kind} block {k}", "block inputs")
        lines.append(f"{inner}{node_id(b.return_node)} [label={_q('return' if b.owning_node is None else '-> block outputs')}, shape=oval];")
        lines.append(f"{indent}}}")

    for title, g in graphs:
        block(g.block, "  ", title, "inputs")
    for title, g in graphs:
        for n in _all_nodes(g.block):
            for v in n.inputs:
                src = ids.get(id(v.node))
                if src is not None:
                    lines.append(f"  {src} -> {ids[id(n)]} [label={_q('%' + v.debug_name())}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _all_nodes(b: Any) -> Any:
    for n in b.nodes:
        yield n
        for sub in n.blocks:
            yield from _all_nodes(sub)
    yield b.return_node


def _label(n: Any) -> str:
    attrs = ", ".join(f"{k}={_short(v)}" for k, v in n.attrs.items())
    outs = ", ".join(f"%{v.debug_name()} : {v.type}" for v in n.outputs)
    return f"{n.kind}" + (f"[{attrs}]" if attrs else "") + (f"\n{outs}" if outs else "")


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def _q(text: str) -> str:
    """A DOT string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_svg(dot: str) -> str:
    """The SVG Graphviz draws for `dot`; an error saying what to install when it cannot."""
    try:
        import graphviz
    except ImportError:
        raise TsjitError("SVG output needs the graphviz package: pip install 'tsjit[cli]' "
                         "(or pip install graphviz), and Graphviz's dot program") from None
    try:
        return graphviz.Source(dot).pipe(format="svg", encoding="utf-8")
    except graphviz.ExecutableNotFound:
        raise TsjitError("SVG output needs Graphviz's dot program: install Graphviz "
                         "(apt-get install graphviz, brew install graphviz, ...)") from None
    except graphviz.CalledProcessError as err:
        raise TsjitError(f"Graphviz's dot failed: {err}") from None


def has_dot() -> bool:
    """Whether SVG output is possible here (the package and the dot program)."""
    import shutil
    try:
        import graphviz  # noqa: F401
    except ImportError:
        return False
    return shutil.which("dot") is not None
