"""`tsjit diff`: what differs between two files: code (a unified diff per code file), structure
(module tree, attribute values, extra files) and weights (shape, dtype, largest difference)."""
from __future__ import annotations

import argparse
import difflib
import json
from typing import Any, Iterator, Optional

HELP = "compare two archives or checkpoints: code, structure, weights (exit 1 if they differ)"
EXAMPLE = "tsjit diff old.pt new.pt --atol 1e-6"
EXIT_NOTE = "; here 0: the files are the same, 1: they differ"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The command's arguments."""
    p.add_argument("a", help="a TorchScript archive or a torch.save checkpoint")
    p.add_argument("b", help="the file to compare it with")
    p.add_argument("--atol", type=float, default=0.0,
                   help="tensors whose values differ by at most this are the same (default 0)")
    p.add_argument("--json", action="store_true", help="print the differences as JSON (docs/cli.md)")


def run(args: argparse.Namespace) -> int:
    """Print the differences; exit 0 when there are none, 1 when there are."""
    d = compare(args.a, args.b, args.atol)
    print(json.dumps(d, indent=2) if args.json else render(d))
    return 0 if d["same"] else 1


def compare(path_a: str, path_b: str, atol: float = 0.0) -> dict[str, Any]:
    """The differences of two files as the JSON document docs/cli.md describes."""
    from .contents import open_file
    a, b = open_file(path_a), open_file(path_b)
    out: dict[str, Any] = {"a": path_a, "b": path_b, "kinds": [a.kind, b.kind],
                           "code": _code(a, b), "modules": [], "attributes": [],
                           "extra_files": _extra(a, b), "weights": _weights(a, b, atol)}
    if a.kind == b.kind == "torchscript":
        out["modules"], out["attributes"] = _structure(a, b)
    out["same"] = a.kind == b.kind and not any(
        out[k] for k in ("code", "modules", "attributes", "extra_files", "weights"))
    return out


def _code(a: Any, b: Any) -> list[dict[str, Any]]:
    ca, cb = a.code_files(), b.code_files()
    out = []
    for name in sorted(set(ca) | set(cb)):
        ta, tb = ca.get(name), cb.get(name)
        if ta == tb:
            continue
        lines = difflib.unified_diff((ta or "").splitlines(keepends=True),
                                     (tb or "").splitlines(keepends=True),
                                     f"a/{name}", f"b/{name}")
        out.append({"file": name, "change": _change(ta, tb), "diff": "".join(lines)})
    return out


def _change(x: Any, y: Any) -> str:
    return "added" if x is None else "removed" if y is None else "changed"


def _structure(a: Any, b: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    from .contents import qualified
    ma, mb = dict(a.modules()), dict(b.modules())
    modules, attributes = [], []
    for name in list(ma) + [n for n in mb if n not in ma]:
        ta = qualified(ma[name].cls) if name in ma else None
        tb = qualified(mb[name].cls) if name in mb else None
        if ta != tb:
            modules.append({"name": name, "change": "type" if ta and tb else _change(ta, tb),
                            "a": ta, "b": tb})
        if name not in ma or name not in mb:
            continue
        sa, sb = ma[name].state, mb[name].state
        for attr in list(sa) + [k for k in sb if k not in sa]:
            va = _plain(a, sa[attr]) if attr in sa else None
            vb = _plain(b, sb[attr]) if attr in sb else None
            if va != vb and "<module>" not in (va, vb) and "<tensor>" not in (va, vb):
                attributes.append({"module": name, "name": attr, "a": va, "b": vb})
    return modules, attributes


def _plain(view: Any, v: Any) -> str:
    # modules and tensors are compared by the module and weights sections
    from ..serialize.pickle_format import Object
    from .contents import is_tensor_record
    from .show import Renderer
    if is_tensor_record(v):
        return "<tensor>"
    if type(v) is Object and getattr(view.class_of(v), "is_module", False):
        return "<module>"
    return Renderer().render(v)


def _extra(a: Any, b: Any) -> list[dict[str, Any]]:
    ea, eb = dict(a.extra_files()), dict(b.extra_files())
    out = []
    for name in sorted(set(ea) | set(eb)):
        if name in ea and name in eb:
            if a.read("extra/" + name) != b.read("extra/" + name):
                out.append({"name": name, "change": "changed"})
        else:
            out.append({"name": name, "change": _change(ea.get(name), eb.get(name))})
    return out


def _weights(a: Any, b: Any, atol: float) -> list[dict[str, Any]]:
    ra, rb = {r.name: r for r in a.tensors()}, {r.name: r for r in b.tensors()}
    out = []
    for name in list(ra) + [n for n in rb if n not in ra]:
        x, y = ra.get(name), rb.get(name)
        row: dict[str, Any] = {"name": name, "change": None,
                               "a": x and {"shape": list(x.shape), "dtype": x.dtype},
                               "b": y and {"shape": list(y.shape), "dtype": y.dtype},
                               "max_abs_diff": None}
        if x is None or y is None:
            row["change"] = _change(x, y)
        elif x.shape != y.shape:
            row["change"] = "shape"
        else:
            row["max_abs_diff"] = _max_abs_diff(a, x, b, y)
            if x.dtype != y.dtype:
                row["change"] = "dtype"
            elif row["max_abs_diff"] == "nan" or row["max_abs_diff"] > atol:
                row["change"] = "values"
        if row["change"]:
            out.append(row)
    return out


def _max_abs_diff(a: Any, x: Any, b: Any, y: Any) -> Any:
    """max |x - y| in float64 over both tensors' chunks; "nan" when a nan meets a number
    (two nans at one place are equal)."""
    import numpy as np
    worst = 0.0
    for p, q in _paired(a.chunks(x), b.chunks(y)):
        p, q = _wide(p), _wide(q)
        both_nan = np.isnan(p) & np.isnan(q)
        d = np.abs(p - q)
        d[both_nan] = 0
        if np.isnan(d).any():
            return "nan"
        if d.size:
            worst = max(worst, float(d.max()))
    return worst


def _wide(c: Any) -> Any:
    import numpy as np
    return c.astype(np.complex128 if np.iscomplexobj(c) else np.float64)


def _paired(xs: Iterator[Any], ys: Iterator[Any]) -> Iterator[tuple[Any, Any]]:
    """Pieces of equal length from two streams of flat chunks of one length in all."""
    import numpy as np
    x = y = np.empty(0)
    while True:
        if x.size == 0:
            x = next(xs, None)
        if y.size == 0:
            y = next(ys, None)
        if x is None or y is None:
            return
        n = min(x.size, y.size)
        yield x[:n], y[:n]
        x, y = x[n:], y[n:]


def render(d: dict[str, Any]) -> str:
    """The differences as text."""
    lines: list[str] = []
    if d["kinds"][0] != d["kinds"][1]:
        lines.append(f"kind: {d['kinds'][0]} vs {d['kinds'][1]}")
    for c in d["code"]:
        lines.append(c["diff"].rstrip("\n"))
    lines += [f"module {m['name'] or '<top>'}: {m['change']} ({m['a']} -> {m['b']})"
              for m in d["modules"]]
    lines += [f"attribute {(a['module'] + '.') if a['module'] else ''}{a['name']}: "
              f"{a['a']} -> {a['b']}" for a in d["attributes"]]
    lines += [f"extra file {e['name']}: {e['change']}" for e in d["extra_files"]]
    for w in d["weights"]:
        lines.append(f"tensor {w['name']}: {w['change']} ({_describe(w['a'])} -> "
                     f"{_describe(w['b'])})" + _diff_text(w["max_abs_diff"]))
    n = sum(len(d[k]) for k in ("code", "modules", "attributes", "extra_files", "weights"))
    lines.append("the files are the same" if d["same"] else
                 f"{n} difference{'s' * (n != 1)}")
    return "\n".join(lines)


def _describe(t: Optional[dict[str, Any]]) -> str:
    return "none" if t is None else f"{t['dtype']} {tuple(t['shape'])}"


def _diff_text(v: Any) -> str:
    return "" if v is None else f", max abs difference {v if isinstance(v, str) else format(v, '.6g')}"
