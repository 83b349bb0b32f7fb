"""The units of tsjit import each other as the table in docs/design.md says, one way only.

The table ("Layers as built") is the one statement of the layering: this test reads it and
compares it with the import graph `tools/import_graph.py` computes from the sources (every
import form: module level, function level, importlib / __import__ strings).
"""
from __future__ import annotations

import functools
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DESIGN = ROOT / "docs" / "design.md"


def _load_tool():
    spec = importlib.util.spec_from_file_location("tsjit_import_graph",
                                                  ROOT / "tools" / "import_graph.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module        # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


G = _load_tool()


@functools.cache
def _scanned() -> tuple:
    """(sources, imports, unresolved, graph) of the worktree, read when a test first needs them
    (not at collection, which every pytest-xdist worker repeats)."""
    sources = G.read_worktree(ROOT)
    imports, unresolved = G.scan(sources)
    return sources, imports, unresolved, G.graph(imports)


def _unit_of_cell(cell: str) -> str:
    name = cell.strip().strip("`")
    if name == "__init__.py":
        return "tsjit"
    return name[:-3] if name.endswith(".py") else name.rstrip("/")


def read_table(text: str) -> list[tuple[str, set[str]]]:
    """The rows (unit, what it imports) of the "Layers as built" table, in order."""
    section = text.split("## Layers as built", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not cells[0].startswith("`"):
            continue
        rows.append((_unit_of_cell(cells[0]), set(re.findall(r"`([^`]+)`", cells[1]))))
    return rows


TABLE = read_table(DESIGN.read_text(encoding="utf-8"))


def test_the_table_has_one_row_per_unit() -> None:
    names = [u for u, _ in TABLE]
    assert len(names) == len(set(names)), f"repeated rows: {names}"
    units = G.units(_scanned()[0])
    assert set(names) == units, (f"units without a row: {sorted(units - set(names))}; "
                                 f"rows without a unit: {sorted(set(names) - units)}")


def test_rows_are_in_layer_order() -> None:
    # a unit imports only units of earlier rows: the table is a one-way order, no cycle
    seen: set[str] = set()
    units = {u for u, _ in TABLE}
    for unit, deps in TABLE:
        later = sorted(d for d in deps & units if d not in seen)
        assert not later, f"{unit} imports {later}, which come later in the table (or itself)"
        seen.add(unit)


@pytest.mark.parametrize("unit,allowed", TABLE, ids=[u for u, _ in TABLE])
def test_unit_imports_exactly_its_row(unit: str, allowed: set[str]) -> None:
    _, IMPORTS, _, GRAPH = _scanned()
    actual = set(GRAPH.get(unit, {}))
    extra = {}
    for d in sorted(actual - allowed):
        sites = sorted({f"{i.source}:{i.line} ({i.form})" for i in IMPORTS
                        if G.unit_of(i.source) == unit and
                        (G.unit_of(i.target) or G.third_party(i.target)) == d})
        extra[d] = sites[:5] + ([f"... {len(sites) - 5} more"] if len(sites) > 5 else [])
    assert not extra, f"{unit} imports what docs/design.md does not list: {extra}"
    assert not allowed - actual, (f"docs/design.md lists {sorted(allowed - actual)} for {unit}, "
                                  "which it does not import: update the table")


# Dynamic imports whose module is chosen at run time, with the reason.
CHOSEN_AT_RUN_TIME = {
    "tsjit._import_alias": "`import torch.nn` with torch bound to tsjit imports tsjit.nn",
}


def test_every_dynamic_import_is_visible() -> None:
    # an import_module / __import__ whose module name is not in the source hides an edge
    UNRESOLVED = _scanned()[2]
    hidden = [f"{x.source} line {x.line}: {x.text}" for x in UNRESOLVED
              if x.source not in CHOSEN_AT_RUN_TIME]
    assert not hidden, "\n".join(hidden)
    assert {x.source for x in UNRESOLVED} == set(CHOSEN_AT_RUN_TIME)


def test_no_cycles() -> None:
    assert G.cycles(_scanned()[3]) == []


def test_only_the_parser_imports_lark_and_nothing_imports_torch() -> None:
    IMPORTS = _scanned()[1]
    lark = {i.source for i in IMPORTS if i.target.split(".")[0] == "lark"}
    assert lark and lark <= {"tsjit.frontend.parser", "tsjit.frontend._parser_cache"}, lark
    torch = [f"{i.source} line {i.line}" for i in IMPORTS if i.target.split(".")[0] == "torch"]
    assert not torch, torch


def test_the_scanner_sees_every_import_form() -> None:
    sources = {
        "a/__init__.py": "",
        "a/x.py": "",
        "b/__init__.py": "",
        "b/m.py": (
            "import tsjit.a.x\n"                                  # module level
            "from .. import a\n"                                   # relative, a package
            "def f():\n"
            "    from ..a import x\n"                              # function level
            "    import importlib\n"
            "    importlib.import_module('tsjit.a.x')\n"           # literal
            "    importlib.import_module(f'tsjit.a.{f}')\n"        # f-string prefix
            "    importlib.import_module(f'.{f}', __name__)\n"     # relative to __name__
            "    __import__('tsjit.a')\n"                          # __import__
            "    importlib.import_module(name)\n"                  # unresolvable
        ),
    }
    imports, unresolved = G.scan(sources)
    seen = sorted((i.target, i.form, i.line) for i in imports if i.target.startswith("tsjit"))
    assert seen == [("tsjit.a", "__import__", 9), ("tsjit.a", "importlib", 7),
                    ("tsjit.a", "module", 2), ("tsjit.a.x", "function", 4),
                    ("tsjit.a.x", "importlib", 6), ("tsjit.a.x", "module", 1),
                    ("tsjit.b.m", "importlib", 8)]
    assert [(x.source, x.line) for x in unresolved] == [("tsjit.b.m", 10)]
    assert G.graph(imports)["b"] == {"a": {"module": 2, "function": 1, "importlib": 2,
                                           "__import__": 1}}


@pytest.mark.slow   # a fresh process
def test_the_graph_command_runs() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "import_graph.py")],
                         capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert "cycles: none" in lines
    assert {line.split()[0] for line in lines[:lines.index("cycles: none")]} == G.units(_scanned()[0])


def test_import_never_imports_torch_or_lark():
    # Import time is measured by benchmarks/, not here: a timed test fails on a busy machine.
    code = "import sys; import tsjit; print('torch' in sys.modules, 'lark' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
