"""Checking an archive's code at load: every method of every class, every function compiled.

Archive code compiles lazily, when first called, so code that does not compile (or calls
an operator tsjit has no kernel for) loads without a word and fails at its first call.
`tsjit.load(f, check="full")` compiles it all while loading and refuses the archive if
anything fails; `tsjit check ARCHIVE` lists every problem. Both use `check_code`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from ..ir import CompilationUnit, Function
from ..ir import types as T
from ..ir.diagnostics import TsjitError
from ..ir.node_kinds import node_kind
from ..ops import registry

CHECKS = (None, "full")     # the values of load's `check`


@dataclass
class CodeReport:
    """What checking an archive's code found: (where, problem) pairs, and how many
    methods and functions were compiled."""

    problems: list[tuple[str, str]] = field(default_factory=list)
    functions: int = 0


class CodeCheckError(TsjitError):
    """An archive loaded with check="full" holds code that tsjit cannot run."""

    def __init__(self, report: CodeReport) -> None:
        self.report = report
        first = "; ".join(f"{where}: {what}" for where, what in report.problems[:3])
        more = len(report.problems) - 3
        super().__init__(f"the archive's code does not check (check=\"full\"): {first}"
                         + (f" (and {more} more problems)" if more > 0 else ""))


def check_code(cu: CompilationUnit) -> CodeReport:
    """Compile every method of every class and every function of `cu` (an archive's, all
    its code files declared); list those that fail and the operators without a kernel."""
    report = CodeReport()
    functions: list[tuple[str, Function]] = []
    for t in list(cu.types.values()):
        if isinstance(t, T.ClassType):
            functions.extend((f"{t.qualified_name}.{name}", fn) for name, fn in t.methods.items())
    functions.extend(cu.functions.items())
    for where, fn in functions:
        report.functions += 1
        try:
            graph = fn.graph
        except Exception as err:          # noqa: BLE001 - each failure is a finding
            report.problems.append((where, _first_lines(err)))
            continue
        for node in graph.walk():
            if "::" in node.kind and node_kind(node.kind) is None and \
                    node.schema is not None and registry.kernel_for(node) is None:
                report.problems.append((_location(node, where), f"no kernel for {node.schema}"))
    return report


def check_archive(f: Any) -> CodeReport:
    """Load archive `f` (a path or bytes) and check all its code (`tsjit check`)."""
    from ..serialize import load_module
    from ..serialize.sources import source_of
    from .script_module import ScriptModule
    reports: list[CodeReport] = []
    load_module(source_of(f), ScriptModule, check=lambda cu: reports.append(check_code(cu)))
    return reports[0]


def refuse_problems(cu: CompilationUnit) -> None:
    """`check_code`, raising CodeCheckError if it found anything (load's check="full")."""
    report = check_code(cu)
    if report.problems:
        raise CodeCheckError(report)


def check_argument(check: Optional[str]) -> Optional[Any]:
    """load's `check` argument as the loader's code check (None: none)."""
    if check not in CHECKS:
        raise TsjitError(f"check={check!r}: expected None or \"full\"")
    return refuse_problems if check == "full" else None


def _first_lines(err: Any) -> str:
    lines = [ln for ln in str(err).splitlines() if ln.strip()]
    # a located error: the message, then the archive location on the next line
    return " at ".join(lines[:2]) if lines else type(err).__name__


def _location(node: Any, where: str) -> str:
    r = node.source_range
    return f"{where} ({r})" if r is not None else where
