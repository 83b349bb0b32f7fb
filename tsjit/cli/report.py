"""`tsjit report`: one self-contained HTML page about a file: summary, module tree, methods,
code with syntax highlighting and links to the original source lines, the graph as inline
SVG, the weights table. No script, no external URL: the page is the one file."""
from __future__ import annotations

import argparse
import bisect
import html
from typing import Any, Optional

from .files import write_text

HELP = "write one self-contained HTML page: summary, modules, code, graph, weights"
EXAMPLE = "tsjit report model.pt -o report.html"

_STYLE = """
body{font-family:system-ui,sans-serif;margin:0 2em 3em;color:#1d1d1f;background:#fff}
header{border-bottom:2px solid #ddd;margin-bottom:1em}h1{font-size:1.5em;margin:.6em 0 .2em}
nav a{margin-right:1em}h2{font-size:1.2em;border-bottom:1px solid #eee;margin-top:1.6em}
table{border-collapse:collapse;font-size:.9em}td,th{padding:2px 8px;text-align:left;vertical-align:top}
table.grid td,table.grid th{border:1px solid #ddd}th{background:#f4f4f6}td.num{text-align:right;font-variant-numeric:tabular-nums}
ul.tree{list-style:none;padding-left:1.2em;font-family:monospace;font-size:.9em}ul.tree ul{list-style:none;padding-left:1.4em;border-left:1px dotted #bbb}
.type{color:#666}.missing{color:#b00020;font-weight:bold}.note{color:#666;font-style:italic}
table.code{font-family:monospace;font-size:.85em;white-space:pre;width:100%}
table.code td{padding:0 6px}td.ln{color:#999;text-align:right;user-select:none;width:3em}
td.src a{color:#888;font-size:.85em}tr:target{background:#fff3b0}
details{margin:.4em 0}summary{cursor:pointer;font-family:monospace}
.k{color:#0033b3;font-weight:bold}.b{color:#00627a}.s{color:#067d17}.n{color:#1750eb}
.c{color:#8c8c8c;font-style:italic}.o{color:#555}.f{color:#a626a4;font-weight:bold}
.graph{overflow:auto;max-height:80vh;border:1px solid #ddd}
"""

_SECTIONS = [("summary", "Summary"), ("modules", "Module tree"), ("methods", "Methods"),
             ("code", "Code"), ("sources", "Original source"), ("graph", "Graph"),
             ("weights", "Weights")]


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The command's arguments."""
    p.add_argument("file", help="a TorchScript archive or a torch.save checkpoint")
    p.add_argument("-o", "--output", metavar="OUT.html", required=True, help="the page to write")
    p.add_argument("--method", default="forward",
                   help="the top module's method whose graph is drawn (default forward)")


def run(args: argparse.Namespace) -> int:
    """Write the page."""
    write_text(args.output, page(args.file, args.method))
    print(f"wrote {args.output}")
    return 0


def page(path: str, method: str = "forward") -> str:
    """The whole HTML page for `path`."""
    from .contents import open_file
    from .info import summarize
    view = open_file(path)
    summary = summarize(path)
    code = _code(view)
    body = {"summary": _summary(summary), "modules": _tree(summary["modules"]),
            "methods": _methods(view, summary["methods"]), "code": code[0],
            "sources": code[1], "graph": _graph(view, method), "weights": _weights(view)}
    nav = " ".join(f'<a href="#{k}">{t}</a>' for k, t in _SECTIONS)
    sections = "\n".join(f'<section id="{k}"><h2>{t}</h2>\n{body[k]}\n</section>'
                         for k, t in _SECTIONS)
    title = html.escape(f"tsjit report: {path}")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{title}</title><style>{_STYLE}</style></head>\n<body>\n"
            f"<header><h1>{title}</h1><nav>{nav}</nav></header>\n{sections}\n</body></html>\n")


def _e(v: Any) -> str:
    return html.escape(str(v))


def _table(head: list[str], rows: list[list[Any]], numeric: frozenset = frozenset()) -> str:
    h = "".join(f"<th>{_e(c)}</th>" for c in head)
    h = f"<thead><tr>{h}</tr></thead>" if head else ""
    body = "".join("<tr>" + "".join(
        f'<td class="num">{_e(c)}</td>' if i in numeric else f"<td>{c}</td>"
        for i, c in enumerate(r)) + "</tr>\n" for r in rows)
    return f'<table class="grid">{h}<tbody>\n{body}</tbody></table>'


def _summary(s: dict[str, Any]) -> str:
    rows = [["file", _e(s["file"])], ["kind", _e(s["kind"])], ["size", _e(f"{s['size']} bytes")],
            ["format version", _e(s["version"])], ["byteorder", _e(s["byteorder"])],
            ["modules", _e(len(s["modules"]))], ["methods", _e(len(s["methods"]))]]
    rows += [[_e(g), _e(f"{t['count']} tensors, {t['bytes']} bytes")] for g, t in s["tensors"].items()]
    rows += [["extra file", _e(f"{x['name']} ({x['size']} bytes)")] for x in s["extra_files"]]
    missing = [o["name"] for o in s["operators"] if not o["available"]]
    rows.append(["operators named in the code",
                 _e(f"{len(s['operators'])}, {len(missing)} missing in tsjit") +
                 "".join(f' <span class="missing">{_e(m)}</span>' for m in missing)])
    return _table([], rows)


def _tree(modules: list[dict[str, Any]]) -> str:
    if not modules:
        return '<p class="note">A checkpoint has no modules: its tensors are listed under Weights.</p>'
    out, depth = ['<ul class="tree">'], 0
    for m in modules:
        level = 0 if not m["name"] else m["name"].count(".") + 1
        while depth < level:
            out.append("<ul>")
            depth += 1
        while depth > level:
            out.append("</ul>")
            depth -= 1
        name = m["name"].rsplit(".", 1)[-1] or "&lt;top&gt;"
        out.append(f'<li>{_e(name) if m["name"] else name} <span class="type">{_e(m["type"])}</span></li>')
    out.append("</ul>" * depth + "</ul>")
    return "\n".join(out)


def _anchor(record: str, line: int) -> str:
    return "L-" + "".join(c if c.isalnum() else "-" for c in record) + f"-{line}"


def _methods(view: Any, methods: list[dict[str, Any]]) -> str:
    if not methods:
        return '<p class="note">No methods.</p>'
    rows = []
    for m in methods:
        decl = view.classes.get(m["type"])
        link = _e(m["name"])
        if decl is not None:
            line = _def_line(view, decl, m["name"])
            if line:
                link = f'<a href="#{_anchor(decl.code_file, line)}">{_e(m["name"])}</a>'
        rows.append([_e(m["type"]), link, f"<code>{_e(m['schema'])}</code>"])
    return _table(["class", "method", "declaration"], rows)


def _def_line(view: Any, decl: Any, name: str) -> Optional[int]:
    text = view.code_files()[decl.code_file]
    at = text.find(decl.source)
    if at < 0:
        return None
    at = text.find(f"  def {name}(", at)
    return text.count("\n", 0, at) + 1 if at >= 0 else None


def _code(view: Any) -> tuple[str, str]:
    """The code files, highlighted, each line linked to the original source line it came
    from; and the original sources, each line an anchor."""
    from .highlight import highlight_lines
    files = view.code_files()
    if not files:
        none = '<p class="note">No code: this file holds tensors only.</p>'
        return none, none
    sources: dict[int, Any] = {}
    parts = []
    for record, text in files.items():
        origins = _origins(view, record, text)
        offsets = [at for at, _ in origins]
        rows = []
        start = 0
        for i, (line, line_html) in enumerate(zip(text.split("\n"), highlight_lines(text)), 1):
            # the range in force at the line's first character, or the first one set inside it
            k = max(0, bisect.bisect_right(offsets, start + len(line) - len(line.lstrip())) - 1)
            r = None
            while k < len(origins) and r is None and (k == 0 or offsets[k] < start + len(line)):
                r, k = origins[k][1], k + 1
            start += len(line) + 1
            link = ""
            if r is not None:
                n = sources.setdefault(id(r.source), (len(sources), r.source))[0]
                where = f"{r.source.filename}:{r.lineno()}"
                link = f'<a href="#S{n}-{r.lineno()}" title="original source">{_e(where)}</a>'
            rows.append(f'<tr id="{_anchor(record, i)}"><td class="ln">{i}</td>'
                        f'<td>{line_html}</td><td class="src">{link}</td></tr>')
        parts.append(f"<details open><summary>{_e(view.reader.top)}/{_e(record)}</summary>"
                     f'<table class="code">{"".join(rows)}</table></details>')
    return "\n".join(parts), _sources(sources)


def _origins(view: Any, record: str, text: str) -> list:
    from ..serialize.debug_info import decode_debug_info
    from ..serialize.loader import origin_map
    if not view.reader.has(record + ".debug_pkl"):
        return []
    try:
        return origin_map(text, decode_debug_info(view.read(record + ".debug_pkl"), record))
    except Exception:       # noqa: BLE001 - the links are a convenience; the code still shows
        return []


def _sources(sources: dict[int, Any]) -> str:
    from .highlight import highlight_lines
    if not sources:
        return '<p class="note">The archive records no original source (no .debug_pkl records).</p>'
    parts = []
    for k, src in sources.values():
        rows = "".join(f'<tr id="S{k}-{src.starting_line + i}"><td class="ln">{src.starting_line + i}'
                       f"</td><td>{h}</td></tr>"
                       for i, h in enumerate(highlight_lines(src.text)))
        parts.append(f"<details open><summary>{_e(src.filename)}</summary>"
                     f'<table class="code">{rows}</table></details>')
    return "\n".join(parts)


def _graph(view: Any, method: str) -> str:
    from .dot import has_dot, to_dot, to_svg
    if view.kind != "torchscript":
        return '<p class="note">A checkpoint has no code, so no graph.</p>'
    if not has_dot():
        return ('<p class="note">The graph is drawn by Graphviz, which is not installed here '
                "(pip install graphviz, and Graphviz's dot program: apt-get install graphviz).</p>")
    from ..jit import load
    m = load(view.path)
    fn = m._c.type.methods.get(method)
    if fn is None:
        return f'<p class="note">The top module has no method {_e(method)}.</p>'
    try:
        svg = to_svg(to_dot([(f"{m._c.type.qualified_name}.{method}", fn.graph)]))
    except Exception as err:       # noqa: BLE001 - shown on the page, the rest stays useful
        return f'<p class="note">The graph could not be drawn: {_e(str(err).splitlines()[0])}</p>'
    # the SVG element alone: its XML prolog and DOCTYPE (which names a URL) stay out
    return f'<div class="graph">{svg[svg.find("<svg"):]}</div>'


def _weights(view: Any) -> str:
    from .weights import measure
    rows = []
    for ref in view.tensors():
        r = measure(ref, view.chunks(ref))
        rows.append([_e(r["name"]), _e(tuple(r["shape"])), _e(r["dtype"]), r["bytes"]] +
                    ["-" if r[k] is None else r[k] if isinstance(r[k], str) else format(r[k], ".4g")
                     for k in ("min", "max", "mean", "std")])
    if not rows:
        return '<p class="note">No tensors.</p>'
    return _table(["name", "shape", "dtype", "bytes", "min", "max", "mean", "std"], rows,
                  numeric=frozenset({3, 4, 5, 6, 7}))
