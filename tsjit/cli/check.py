"""`tsjit check`: compile every method of every class; list what tsjit cannot run."""
from __future__ import annotations

import argparse
from typing import Any

from .files import archive_only

HELP = "compile every method; list unsupported operators and constructs (exit 1 if any)"
EXAMPLE = "tsjit check model.pt"
EXIT_NOTE = "; here 1 also: a method would not run"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The command's arguments."""
    p.add_argument("archive", help="a TorchScript archive")


def run(args: argparse.Namespace) -> int:
    """Print one line per problem and a summary; exit 0 only when every method compiled and
    every operator it calls has a kernel."""
    problems, methods = check(args.archive)
    # a failing function fails every method that calls it: one line per problem, and who met it
    by_problem: dict[str, list[str]] = {}
    for where, what in problems:
        by_problem.setdefault(what, []).append(where)
    for what, wheres in by_problem.items():
        more = f" (and {len(wheres) - 1} more method{'s' * (len(wheres) > 2)})" if len(wheres) > 1 else ""
        print(f"{wheres[0]}{more}: {what}")
    problems = list(by_problem)
    print(f"{methods} methods checked, {len(problems)} problem{'s' * (len(problems) != 1)}")
    return 1 if problems else 0


def check(path: str) -> tuple[list[tuple[str, str]], int]:
    """(location, problem) for each method that does not compile or calls an operator without
    a kernel, and the number of methods checked."""
    from ..ir.node_kinds import node_kind
    from ..jit import load
    from ..ops import registry
    archive_only(path, "check")
    m = load(path)
    problems: list[tuple[str, str]] = []
    seen: set[str] = set()
    count = 0
    for _, sub in m.named_modules():
        t = sub._c.type
        if t.qualified_name in seen:
            continue
        seen.add(t.qualified_name)
        for name, fn in t.methods.items():
            count += 1
            where = f"{t.qualified_name}.{name}"
            try:
                graph = fn.graph
            except Exception as err:          # noqa: BLE001 - each failure is a finding
                problems.append((where, _first_lines(err)))
                continue
            for node in graph.walk():
                if "::" in node.kind and node_kind(node.kind) is None and \
                        registry.kernel_for(node) is None and node.schema is not None:
                    problems.append((_location(node, where), f"no kernel for {node.schema}"))
    return problems, count


def _first_lines(err: Any) -> str:
    lines = [ln for ln in str(err).splitlines() if ln.strip()]
    # a located error: the message, then the archive location on the next line
    return " at ".join(lines[:2]) if lines else type(err).__name__


def _location(node: Any, where: str) -> str:
    r = node.source_range
    return f"{where} ({r})" if r is not None else where
