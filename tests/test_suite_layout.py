"""The test suite's own layout rules, so new test files follow them.

- tests/ is a package (every folder holding Python files has an `__init__.py`), imported
  from the project root: nothing edits `sys.path`;
- shared code lives in tests/helpers/ (`from tests.helpers import corpus`) or in fixtures
  (conftest.py); a test module never imports another test module or a conftest;
- the only other Python files are test modules (`test_*.py`) and conftest.py.
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

TESTS = Path(__file__).resolve().parent
DATA_DIRS = {"data", "golden"}        # fixtures and expected outputs, not code


def _python_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py")
                  if not DATA_DIRS & set(p.relative_to(TESTS).parts[:-1]))


def _rel(p: Path) -> str:
    return str(p.relative_to(TESTS.parent))


FILES = _python_files()


def test_every_folder_is_a_package() -> None:
    missing = sorted({_rel(p.parent) for p in FILES if not (p.parent / "__init__.py").exists()})
    assert not missing, f"add an empty __init__.py to: {missing}"


@functools.cache
def _trees() -> list[tuple[Path, ast.AST]]:
    return [(p, ast.parse(p.read_text(), str(p))) for p in FILES]


def test_no_sys_path_edits() -> None:
    uses = [f"{_rel(p)}:{n.lineno}" for p, tree in _trees() for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and n.attr == "path"
            and isinstance(n.value, ast.Name) and n.value.id == "sys"]
    assert not uses, (f"these lines use sys.path: {uses}; import shared code as "
                      "`from tests.helpers import X` instead (see tests/README.md)")


def _imported_modules(tree: ast.AST) -> list[tuple[int, str]]:
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            out += [(n.lineno, a.name) for a in n.names]
        elif isinstance(n, ast.ImportFrom) and n.module:
            out.append((n.lineno, n.module))
            out += [(n.lineno, f"{n.module}.{a.name}") for a in n.names]
    return out


def test_no_test_module_imports_another() -> None:
    bad = [f"{_rel(p)}:{line} imports {m}" for p, tree in _trees()
           for line, m in _imported_modules(tree)
           if m.split(".")[-1].startswith("test_") or m.split(".")[-1] == "conftest"]
    assert not bad, f"move what is shared into tests/helpers/ (or a conftest fixture): {bad}"


def test_shared_code_lives_in_helpers() -> None:
    stray = [_rel(p) for p in FILES
             if p.parent.name != "helpers" and p.name != "conftest.py" and p.name != "__init__.py"
             and not p.name.startswith("test_")]
    assert not stray, f"move helper modules into tests/helpers/: {stray}"
