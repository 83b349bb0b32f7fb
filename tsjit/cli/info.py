"""`tsjit info`: what a file is and what it holds, without compiling any method body."""
from __future__ import annotations

import argparse
import json
import os
import re
from typing import Any

from .files import checkpoint_kind

HELP = "what a file is: format, module tree, methods, weights, operators"
EXAMPLE = "tsjit info model.pt --json"

# Operator calls as TorchScript's printer writes them: torch.add(...), ops.prim.X(...),
# torch.ops.ns.X(...). Tensor methods (x.add(...)) are only known once compiled: `tsjit check`.
_OPS = re.compile(r"\b(?:torch\.)?ops\.(\w+)\.(\w+)\s*\(|\btorch\.([a-z_]\w*)\s*\(")
# A class's methods as the printer writes them: two spaces in, `def name(args) -> type:`.
_CLASS = re.compile(r"^class (\w+)\(", re.M)
_DEF = re.compile(r"^  def (\w+)\((.*?)\)\s*->\s*(.*?):[ \t]*$", re.M | re.S)


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
    """The summary of `path` as the JSON document docs/cli.md describes."""
    what = checkpoint_kind(path)
    out: dict[str, Any] = {"file": path, "size": os.path.getsize(path), "version": None,
                           "byteorder": None, "modules": [], "methods": [], "tensors": {},
                           "extra_files": [], "operators": []}
    if what is None:
        out["kind"] = "torchscript"
        _archive(path, out)
    else:
        out["kind"] = "checkpoint-legacy" if "legacy" in what else "checkpoint-zip"
        _checkpoint(path, out)
    return out


def _records(path: str, out: dict[str, Any]) -> Any:
    from ..serialize import ArchiveReader, list_extra_files
    reader = ArchiveReader(path)
    if reader.has("version"):
        out["version"] = int(reader.read("version").decode("ascii").strip() or 0)
    elif reader.has(".data/version"):
        out["version"] = int(reader.read(".data/version").decode("ascii").strip() or 0)
    out["byteorder"] = (reader.read("byteorder").decode("ascii").strip()
                        if reader.has("byteorder") else "little")
    out["extra_files"] = [{"name": n, "size": reader.info("extra/" + n).size}
                          for n in list_extra_files(reader)]
    return reader


def _archive(path: str, out: dict[str, Any]) -> None:
    from ..ir.node_kinds import node_kind
    from ..jit import load
    from ..ops import registry
    reader = _records(path, out)
    names: set[tuple[str, str]] = set()
    declared: dict[tuple[str, str], str] = {}
    for name in reader.names():
        if name.startswith("code/") and name.endswith(".py"):
            text = reader.read(name).decode("utf-8", "replace")
            for ns, op, aten in _OPS.findall(text):
                names.add((ns, op) if ns else ("aten", aten))
            declared.update(_declarations(name[len("code/"):-len(".py")].replace("/", "."), text))
    out["operators"] = [{"name": q, "available": bool(registry.overloads(q) or node_kind(q))}
                        for q in sorted(f"{ns}::{op}" for ns, op in names)]
    m = load(path)                      # method bodies compile on first call, not here
    seen: set[str] = set()
    for name, sub in m.named_modules():
        t = sub._c.type
        out["modules"].append({"name": name, "type": t.qualified_name})
        if t.qualified_name in seen:
            continue
        seen.add(t.qualified_name)
        for mname, fn in t.methods.items():
            # the declaration as written: fn.schema would compile the body
            schema = declared.get((t.qualified_name, mname))
            out["methods"].append({"type": t.qualified_name, "name": mname,
                                   "schema": schema or str(fn.schema)})
    out["tensors"] = {"parameters": _tally(t for _, t in m.named_parameters()),
                      "buffers": _tally(t for _, t in m.named_buffers())}


def _declarations(module: str, text: str) -> dict[tuple[str, str], str]:
    """(class qualified name, method) -> `name(args) -> type` as declared in one code file."""
    out = {}
    starts = list(_CLASS.finditer(text))
    for k, c in enumerate(starts):
        body = text[c.end():starts[k + 1].start() if k + 1 < len(starts) else len(text)]
        for d in _DEF.finditer(body):
            args = " ".join(d.group(2).split())
            out[(f"{module}.{c.group(1)}", d.group(1))] = f"{d.group(1)}({args}) -> {d.group(3)}"
    return out


def _checkpoint(path: str, out: dict[str, Any]) -> None:
    from ..serialization import load
    if out["kind"] == "checkpoint-zip":
        _records(path, out)
    value = load(path, weights_only=False, mmap=out["kind"] == "checkpoint-zip")
    out["tensors"] = {"tensors": _tally(t for _, t in tensors_in(value))}


def tensors_in(value: Any, prefix: str = "") -> Any:
    """(dotted name, tensor) for each tensor inside nested dicts, lists and tuples."""
    from .._tensor import Tensor
    if isinstance(value, Tensor):
        yield prefix or "<root>", value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from tensors_in(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from tensors_in(v, f"{prefix}.{i}" if prefix else str(i))


def _tally(tensors: Any) -> dict[str, Any]:
    by: dict[str, dict[str, int]] = {}
    for t in tensors:
        d = by.setdefault(str(t.dtype).replace("torch.", ""), {"count": 0, "bytes": 0})
        d["count"] += 1
        d["bytes"] += t.numel() * t.element_size()
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
