"""Collects the golden cases of tests/golden/*.test (format: tests/helpers/golden.py)."""
from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.helpers import golden


def pytest_collect_file(parent: pytest.Collector, file_path: Path) -> Any:
    if file_path.suffix == ".test":
        return GoldenFile.from_parent(parent, path=file_path)
    return None


class GoldenFile(pytest.File):
    """A .test file: one test per case."""

    def collect(self) -> Iterator["GoldenCase"]:
        for case in golden.parse(self.path.read_text(), str(self.path)):
            yield GoldenCase.from_parent(self, name=case.name, case=case)


class GoldenMismatch(Exception):
    """The output differs from the expected text."""


class GoldenCase(pytest.Item):
    """One `[case]`: every section's output must equal its expected text."""

    def __init__(self, *, case: golden.Case, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case

    def runtest(self) -> None:
        actual = golden.run(self.case)
        wrong = [(s, a) for s, a in zip(self.case.sections, actual) if s.expected != a]
        if not wrong:
            return
        if self.config.getoption("--update-golden"):
            golden.rewrite(str(self.path), self.case.name, actual)
            return
        raise GoldenMismatch("\n".join(
            f"[{s.kind} {s.expr}] at {self.path.name}:{s.start}:\n" + "".join(difflib.unified_diff(
                s.expected.splitlines(True), a.splitlines(True), "expected", "actual"))
            for s, a in wrong) + "\n(run pytest with --update-golden to accept the new output)")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, GoldenMismatch):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.case.line - 1, f"case {self.case.name}"
