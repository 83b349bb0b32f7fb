"""Print the import graph between tsjit's packages and top-level modules.

    python tools/import_graph.py                # the working tree's tsjit/
    python tools/import_graph.py --rev b5fdfee  # tsjit/ as committed in a revision (git show)
    python tools/import_graph.py --edges        # also each edge's import sites

Every import form counts: `import` and `from ... import` at module level or inside a
function, and the module names given to `importlib.import_module` / `__import__` (a literal,
or an f-string's literal prefix, or a name relative to `__name__` / `__package__`). An
import whose target cannot be read off the source is listed as unresolved.
`tests/test_layering.py` checks this graph against the table in docs/design.md.

A unit is a package directly under tsjit/ (`ir`, `ops`, ...), a top-level module (`cli`,
`linalg`, ...), or `tsjit` itself (tsjit/__init__.py, the facade).
"""
from __future__ import annotations

import argparse
import ast
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

ROOT = Path(__file__).resolve().parent.parent
FORMS = ("module", "function", "importlib", "__import__")


@dataclass(frozen=True)
class Import:
    """One import site: `source` (a module) imports `target` (a module name)."""
    source: str
    target: str
    line: int
    form: str          # one of FORMS


@dataclass(frozen=True)
class Unresolved:
    """A dynamic import whose module name is not in the source text."""
    source: str
    line: int
    text: str


def module_name(rel: str) -> str:
    """`ops/kernels/tensor_arith.py` -> `tsjit.ops.kernels.tensor_arith`."""
    parts = ["tsjit"] + rel[:-3].split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def unit_of(module: str) -> Optional[str]:
    """The unit a tsjit module belongs to (`tsjit.ops.eager` -> `ops`), None outside tsjit."""
    parts = module.split(".")
    if parts[0] != "tsjit":
        return None
    return parts[1] if len(parts) > 1 else "tsjit"


class _Visitor(ast.NodeVisitor):
    def __init__(self, module: str, is_package: bool, known: set[str]) -> None:
        self.module = module
        self.package = module if is_package else module.rpartition(".")[0]
        self.known = known
        self.depth = 0                      # enclosing functions
        self.found: list[Import] = []
        self.unresolved: list[Unresolved] = []

    def _add(self, target: str, line: int, form: Optional[str] = None) -> None:
        self.found.append(Import(self.module, target, line,
                                 form or ("function" if self.depth else "module")))

    def _function(self, node: ast.AST) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            self._add(a.name, node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            base_parts = self.package.split(".")
            base_parts = base_parts[:len(base_parts) - node.level + 1]
            base = ".".join(base_parts + ([node.module] if node.module else []))
        else:
            base = node.module or ""
        for a in node.names:
            sub = f"{base}.{a.name}"
            self._add(sub if sub in self.known else base, node.lineno)

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        if name in ("import_module", "__import__") and node.args:
            form = "importlib" if name == "import_module" else "__import__"
            target = self._dynamic_target(node)
            if target is None:
                self.unresolved.append(Unresolved(self.module, node.lineno,
                                                  ast.unparse(node)))
            else:
                self._add(target, node.lineno, form)
        self.generic_visit(node)

    def _dynamic_target(self, node: ast.Call) -> Optional[str]:
        arg = node.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            text = arg.value
        elif isinstance(arg, ast.JoinedStr):
            text = ""
            for v in arg.values:           # the literal prefix of an f-string
                if not isinstance(v, ast.Constant):
                    break
                text += v.value
        else:
            return None
        if text.startswith("."):
            pkg = node.args[1] if len(node.args) > 1 else next(
                (k.value for k in node.keywords if k.arg == "package"), None)
            if not (isinstance(pkg, ast.Name) and pkg.id in ("__name__", "__package__")):
                return None
            # `import_module(".x", __name__)`: relative to the package __name__ names
            base = self.module if pkg.id == "__name__" else self.package
            text = base + text
        text = text.rstrip(".")
        if not text:
            return None
        while text not in self.known and "." in text:   # the longest module the prefix names
            text = text.rpartition(".")[0]
        return text


def scan(sources: dict[str, str]) -> tuple[list[Import], list[Unresolved]]:
    """Every import site of the tsjit sources `sources` (path under tsjit/ -> text)."""
    known = {module_name(rel) for rel in sources}
    imports: list[Import] = []
    unresolved: list[Unresolved] = []
    for rel in sorted(sources):
        v = _Visitor(module_name(rel), rel.endswith("__init__.py"), known)
        v.visit(ast.parse(sources[rel], filename=rel))
        imports += v.found
        unresolved += v.unresolved
    return imports, unresolved


def third_party(target: str) -> Optional[str]:
    """The package outside the standard library and tsjit that `target` is in, if any."""
    top = target.split(".")[0]
    if top in sys.stdlib_module_names or top == "__future__" or top == "tsjit":
        return None
    return top


def graph(imports: Iterable[Import]) -> dict[str, dict[str, dict[str, int]]]:
    """unit -> imported unit or third-party package -> form -> number of import sites."""
    out: dict[str, dict[str, dict[str, int]]] = defaultdict(lambda: defaultdict(
        lambda: dict.fromkeys(FORMS, 0)))
    for i in imports:
        src = unit_of(i.source)
        dst = unit_of(i.target) or third_party(i.target)
        out[src]                            # every unit has a row, importing or not
        if dst is not None and dst != src:
            out[src][dst][i.form] += 1
    return {u: dict(d) for u, d in out.items()}


def units(sources: Iterable[str]) -> set[str]:
    """Every unit of a tree (path under tsjit/ -> unit)."""
    return {unit_of(module_name(rel)) for rel in sources}


def cycles(g: dict[str, dict[str, dict[str, int]]]) -> list[list[str]]:
    """The strongly connected components of more than one unit (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(u: str) -> None:
        index[u] = low[u] = len(index)
        stack.append(u)
        for w in g.get(u, {}):
            if w not in g:
                continue
            if w not in index:
                visit(w)
                low[u] = min(low[u], low[w])
            elif w in stack:
                low[u] = min(low[u], index[w])
        if low[u] == index[u]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == u:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for u in sorted(g):
        if u not in index:
            visit(u)
    return out


def layer_order(g: dict[str, dict[str, dict[str, int]]]) -> list[str]:
    """Units with those they import first (ties by name); units in a cycle come last."""
    done: list[str] = []
    left = set(g)
    while left:
        ready = sorted(u for u in left if not (set(g[u]) & left))
        if not ready:
            return done + sorted(left)
        done += ready
        left -= set(ready)
    return done


def read_worktree(root: Path = ROOT) -> dict[str, str]:
    """tsjit/'s Python sources in a directory tree (path under tsjit/ -> text)."""
    base = root / "tsjit"
    return {p.relative_to(base).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(base.rglob("*.py"))}


def read_revision(rev: str, root: Path = ROOT) -> dict[str, str]:
    """tsjit/'s Python sources as committed in git revision `rev`."""
    names = subprocess.run(["git", "-C", str(root), "ls-tree", "-r", "--name-only", rev, "tsjit"],
                           capture_output=True, text=True, check=True).stdout.split()
    return {n[len("tsjit/"):]: subprocess.run(
                ["git", "-C", str(root), "show", f"{rev}:{n}"], capture_output=True, text=True,
                check=True).stdout
            for n in names if n.endswith(".py")}


def render(sources: dict[str, str], edges: bool = False) -> str:
    """The graph as text: one line per unit (what it imports), then cycles and unresolved."""
    imports, unresolved = scan(sources)
    g = graph(imports)
    lines = []
    for u in layer_order(g):
        deps = g[u]
        inside = [d for d in layer_order(g) if d in deps]
        outside = sorted(d for d in deps if d not in g)
        lines.append(f"{u:12} -> {', '.join(inside + outside) or '(nothing)'}")
        if edges:
            for d in inside + outside:
                counts = ", ".join(f"{n} {f}" for f, n in deps[d].items() if n)
                lines.append(f"{'':16}{d}: {counts}")
    found = cycles(g)
    lines.append("cycles: " + ("; ".join(" <-> ".join(c) for c in found) if found else "none"))
    for x in unresolved:
        lines.append(f"unresolved: {x.source} line {x.line}: {x.text}")
    return "\n".join(lines)


def main() -> int:
    """Print the graph of the working tree or of a revision."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rev", help="a git revision to read instead of the working tree")
    ap.add_argument("--edges", action="store_true", help="list each edge's import forms")
    args = ap.parse_args()
    sources = read_revision(args.rev) if args.rev else read_worktree()
    print(render(sources, args.edges))
    return 0


if __name__ == "__main__":
    sys.exit(main())
