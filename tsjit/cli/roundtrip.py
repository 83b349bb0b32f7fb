"""`tsjit roundtrip`: is save(load(x)) a fixed point of save(load(...))?"""
from __future__ import annotations

import argparse
import os
import tempfile

from .files import archive_only

HELP = "check that save -> load -> save is stable"
EXAMPLE = "tsjit roundtrip model.pt"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The command's arguments."""
    p.add_argument("archive", help="a TorchScript archive")


def run(args: argparse.Namespace) -> int:
    """Save twice and compare the bytes; exit 1 when they differ."""
    from ..jit import load, save
    archive_only(args.archive, "roundtrip")
    with tempfile.TemporaryDirectory() as d:
        base = os.path.splitext(os.path.basename(args.archive))[0]
        first, second = os.path.join(d, "a", base + ".pt"), os.path.join(d, "b", base + ".pt")
        os.makedirs(os.path.dirname(first))
        os.makedirs(os.path.dirname(second))
        save(load(args.archive), first)
        save(load(first), second)
        with open(first, "rb") as f, open(second, "rb") as g:
            a, b = f.read(), g.read()
    if a != b:
        print("round trip is NOT stable: save(load(x)) differs from save(load(save(load(x))))")
        return 1
    print(f"round trip is stable ({len(a)} bytes)")
    return 0
