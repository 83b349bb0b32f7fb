"""`tsjit list`: the records of an archive or a checkpoint, with their sizes."""
from __future__ import annotations

import argparse

from .files import checkpoint_kind

HELP = "list the records of an archive or checkpoint"
EXAMPLE = "tsjit list model.pt"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The command's arguments."""
    p.add_argument("archive", help="a TorchScript archive or a torch.save checkpoint")


def run(args: argparse.Namespace) -> int:
    """Print each record's size and name, then the extra files."""
    from ..serialize import ArchiveReader, list_extra_files
    what = checkpoint_kind(args.archive)
    if what is not None:
        print(f"# {args.archive}: {what} (load it with tsjit.load)")
        if "legacy" in what:
            return 0
    reader = ArchiveReader(args.archive)
    for name in reader.names():
        print(f"{reader.info(name).size:>10}  {reader.top}/{name}")
    extra = list_extra_files(reader)
    if extra:
        print(f"extra files ({len(extra)}):")
        for name in extra:
            print(f"{reader.info('extra/' + name).size:>10}  {name}")
    return 0
