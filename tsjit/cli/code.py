"""`tsjit code`: an archive's code files, or chosen methods' code (optionally inlined)."""
from __future__ import annotations

import argparse

from . import methods
from .files import archive_only

HELP = "print the archive's code files, or the code of chosen methods (--module, --method, --all)"
EXAMPLE = "tsjit code model.pt --module layer1.0 --method forward --inlined"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The command's arguments."""
    p.add_argument("archive", help="a TorchScript archive (torch.jit.save / tsjit.jit.save)")
    methods.add_arguments(p)


def run(args: argparse.Namespace) -> int:
    """Print every code/*.py record, or each selected method printed from its graph."""
    archive_only(args.archive, "code")
    if args.module is None and args.method is None and not args.all and not args.inlined:
        from .contents import open_file
        view = open_file(args.archive)
        for name, text in view.code_files().items():
            print(f"# {view.reader.top}/{name}")
            print(text)
        return 0
    for s in methods.select(args.archive, args):
        print(f"# {s.title}")
        print(methods.code_of(s, args.inlined))
    return 0
