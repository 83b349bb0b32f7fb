"""`tsjit info`: what a file is and what it holds, without compiling any method body."""
from __future__ import annotations

import argparse
import json
import os
import re
from typing import Any

from .contents import OffTheFastPath, qualified

HELP = "what a file is: format, module tree, methods, weights, operators"
EXAMPLE = "tsjit info model.pt --json"

# Operator calls as TorchScript's printer writes them: torch.add(...), ops.prim.X(...),
# torch.ops.ns.X(...). Tensor methods (x.add(...)) are only known once compiled: `tsjit check`.
_OPS = re.compile(r"\b(?:torch\.)?ops\.(\w+)\.(\w+)\s*\(|\btorch\.([a-z_]\w*)\s*\(")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The command's arguments."""
    p.add_argument("file", help="a TorchScript archive or a torch.save checkpoint")
    p.add_argument("--json", action="store_true", help="print the summary as JSON (docs/cli.md)")


def run(args: argparse.Namespace) -> int:
    """Print the summary as text or JSON."""
    summary = summarize(args.file)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(render(summary))
    return 0


def summarize(path: str) -> dict[str, Any]:
    """The summary of `path` as the JSON document docs/cli.md describes; reads the zip's
    directory, data.pkl and the code's text, never tensor data nor a compiled method."""
    from .contents import open_file
    view = open_file(path)
    out: dict[str, Any] = {"file": path, "kind": view.kind, "size": os.path.getsize(path),
                           "version": view.version, "byteorder": view.byteorder,
                           "modules": [], "methods": [], "tensors": {},
                           "extra_files": [{"name": n, "size": s} for n, s in view.extra_files()],
                           "operators": []}
    refs = view.tensors()
    if view.kind != "torchscript":
        out["tensors"] = {"tensors": _tally(refs)}
        return out
    out["operators"] = operators(view.code_files().values())
    try:
        modules = [(name, qualified(obj.cls)) for name, obj in view.modules()]
    except OffTheFastPath:              # a module with __getstate__: ask the loader
        from ..jit import load
        modules = [(name, sub._c.type.qualified_name) for name, sub in load(path).named_modules()]
    seen: set[str] = set()
    for name, type_name in modules:
        out["modules"].append({"name": name, "type": type_name})
        decl = view.classes.get(type_name)
        if type_name in seen or decl is None:
            continue
        seen.add(type_name)
        out["methods"] += [{"type": type_name, "name": m, "schema": schema}
                           for m, schema in decl.methods.items()]
    out["tensors"] = {g: _tally(r for r in refs if r.group == g) for g in ("parameters", "buffers")}
    return out


def operators(texts: Any) -> list[dict[str, Any]]:
    """The operators code texts call by name, and whether tsjit has each."""
    from ..ir.node_kinds import node_kind
    from ..ops import registry
    names: set[tuple[str, str]] = set()
    for text in texts:
        for ns, op, aten in _OPS.findall(text):
            names.add((ns, op) if ns else ("aten", aten))
    return [{"name": q, "available": bool(registry.overloads(q) or node_kind(q))}
            for q in sorted(f"{ns}::{op}" for ns, op in names)]


def _tally(refs: Any) -> dict[str, Any]:
    by: dict[str, dict[str, int]] = {}
    for r in refs:
        d = by.setdefault(r.dtype, {"count": 0, "bytes": 0})
        d["count"] += 1
        d["bytes"] += r.nbytes
    return {"count": sum(d["count"] for d in by.values()),
            "bytes": sum(d["bytes"] for d in by.values()), "by_dtype": by}


def render(s: dict[str, Any]) -> str:
    """The summary as text."""
    kinds = {"torchscript": "TorchScript archive", "checkpoint-zip": "torch.save checkpoint (zip)",
             "checkpoint-legacy": "torch.save checkpoint (legacy pickle)"}
    lines = [f"{s['file']}: {kinds[s['kind']]}, {s['size']} bytes",
             f"format version: {s['version']}, byteorder: {s['byteorder']}"]
    if s["modules"]:
        lines.append(f"modules ({len(s['modules'])}):")
        lines += [f"  {m['name'] or '<top>'}: {m['type']}" for m in s["modules"]]
    if s["methods"]:
        lines.append(f"methods ({len(s['methods'])}):")
        lines += [f"  {m['type']}: {m['schema']}" for m in s["methods"]]
    for group, t in s["tensors"].items():
        dtypes = ", ".join(f"{k} {v['count']} ({v['bytes']} bytes)"
                           for k, v in t["by_dtype"].items())
        lines.append(f"{group}: {t['count']}, {t['bytes']} bytes" + (f": {dtypes}" if dtypes else ""))
    if s["extra_files"]:
        lines.append(f"extra files ({len(s['extra_files'])}):")
        lines += [f"  {e['name']} ({e['size']} bytes)" for e in s["extra_files"]]
    if s["operators"]:
        missing = [o["name"] for o in s["operators"] if not o["available"]]
        lines.append(f"operators named in the code ({len(s['operators'])}, "
                     f"{len(missing)} missing in tsjit):")
        lines += [f"  {o['name']}" + ("" if o["available"] else "  (MISSING)")
                  for o in s["operators"]]
    return "\n".join(lines)
