"""`python -m tsjit.run_as_torch script.py [args...]`: run a script written against torch
with `torch` (and every `torch.X.Y`) bound to tsjit's modules (see tsjit.torch_alias)."""
from __future__ import annotations

import runpy
import sys

from .torch_alias import as_torch


def main(argv: list[str]) -> int:
    """Run the script `argv[0]` as __main__, with `argv` as its sys.argv."""
    if not argv:
        print("usage: python -m tsjit.run_as_torch script.py [args...]", file=sys.stderr)
        return 2
    saved = sys.argv
    sys.argv = list(argv)
    try:
        with as_torch():
            runpy.run_path(argv[0], run_name="__main__")
    finally:
        sys.argv = saved
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
