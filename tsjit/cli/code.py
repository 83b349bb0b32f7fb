"""`tsjit code`: print an archive's code files."""
from __future__ import annotations

import argparse

from .files import archive_only

HELP = "print the archive's code files"
EXAMPLE = "tsjit code model.pt | less"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The command's arguments."""
    p.add_argument("archive", help="a TorchScript archive (torch.jit.save / tsjit.jit.save)")


def run(args: argparse.Namespace) -> int:
    """Print every code/*.py record."""
    from ..serialize import ArchiveReader
    archive_only(args.archive, "code")
    reader = ArchiveReader(args.archive)
    for name in reader.names():
        if name.startswith("code/") and name.endswith(".py"):
            print(f"# {reader.top}/{name}")
            print(reader.read(name).decode("utf-8"), end="")
            print()
    return 0
