"""`tsjit graph`: the IR graphs of the top module's methods."""
from __future__ import annotations

import argparse

from .files import archive_only

HELP = "print the graphs of the top module's methods"
EXAMPLE = "tsjit graph model.pt"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The command's arguments."""
    p.add_argument("archive", help="a TorchScript archive")


def run(args: argparse.Namespace) -> int:
    """Load the archive and print each method's graph."""
    from ..jit import load
    archive_only(args.archive, "graph")
    m = load(args.archive)
    for name, fn in m._c.type.methods.items():
        print(f"# {m._c.type.qualified_name}.{name}")
        print(fn.graph)
    return 0
