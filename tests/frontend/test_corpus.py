"""Every TorchScript file of the conformance corpus parses.

* `tests/data/corpus/*/model.pt`: the `code/**.py` files PyTorch wrote into each archive,
  parsed whole with `parse`.
* `tests/data/corpus/*/source.py`: user files with imports (not TorchScript), so each
  top-level def/class is cut out with Python's `ast` (decorators included) and parsed
  with `parse_def` / `parse_class`, with its line number in the file.
"""
from __future__ import annotations

import ast
import zipfile
from pathlib import Path

import pytest

from tsjit.frontend import ast as A
from tsjit.frontend.parser import parse, parse_class, parse_def

pytestmark = pytest.mark.slow

CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus"
ARCHIVES = sorted(CORPUS.glob("*/model.pt"))
SOURCES = sorted(CORPUS.glob("*/source.py"))


def test_corpus_is_there() -> None:
    assert len(ARCHIVES) >= 50 and len(SOURCES) >= 50


@pytest.mark.parametrize("archive", ARCHIVES, ids=lambda p: p.parent.name)
def test_archive_code_parses(archive: Path) -> None:
    with zipfile.ZipFile(archive) as z:
        names = [n for n in z.namelist() if n.endswith(".py") and "/code/" in n]
        assert names
        for name in names:
            text = z.read(name).decode("utf-8")
            module = parse(text, name)
            assert module.body, name
            for stmt in module.body:
                assert stmt.range.source.text is text
                assert text[stmt.range.start:stmt.range.end] == stmt.range.text


def _top_level_definitions(path: Path) -> list[tuple[ast.AST, str, int]]:
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    out = []
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            first = min([d.lineno for d in node.decorator_list] + [node.lineno])
            segment = ast.get_source_segment(text, node, padded=True)
            assert segment is not None
            # get_source_segment starts at `def`/`class`: take whole lines from the first
            # decorator instead, exactly what inspect.getsource would hand us.
            source = "".join(lines[first - 1:node.end_lineno])
            assert source.rstrip().endswith(segment.rstrip().splitlines()[-1].strip())
            out.append((node, source, first))
    return out


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.parent.name)
def test_source_definitions_parse(path: Path) -> None:
    definitions = _top_level_definitions(path)
    assert definitions
    for node, source, first_line in definitions:
        if isinstance(node, ast.FunctionDef):
            result = parse_def(source, str(path), first_line)
            assert isinstance(result, A.Def)
        else:
            result = parse_class(source, str(path), first_line)
            assert isinstance(result, A.ClassDef)
        assert result.name == node.name
        assert len(result.decorators) == len(node.decorator_list)
        assert result.range.lineno() == node.lineno  # ranges point into the real file
        assert result.range.column() == node.col_offset + 1


def test_nested_methods_parse_with_parse_def() -> None:
    """Methods as inspect.getsource returns them: indented, maybe decorated."""
    count = 0
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines(keepends=True)
        for cls in ast.parse(text).body:
            if not isinstance(cls, ast.ClassDef):
                continue
            for node in cls.body:
                if isinstance(node, ast.FunctionDef):
                    first = min([d.lineno for d in node.decorator_list] + [node.lineno])
                    source = "".join(lines[first - 1:node.end_lineno])
                    d = parse_def(source, str(path), first)
                    assert d.name == node.name
                    assert (d.range.lineno(), d.range.column()) == (node.lineno,
                                                                   node.col_offset + 1)
                    count += 1
    assert count > 50
