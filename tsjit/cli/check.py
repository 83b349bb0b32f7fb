"""`tsjit check`: compile every method of every class; list what tsjit cannot run."""
from __future__ import annotations

import argparse

from .files import archive_only

HELP = "compile every method and function; list unsupported operators and constructs (exit 1 if any)"
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
    """(location, problem) for each method or function that does not compile or calls an
    operator without a kernel, and the number checked (as `tsjit.load(check="full")`)."""
    from ..jit.code_check import check_archive
    archive_only(path, "check")
    report = check_archive(path)
    return report.problems, report.functions
