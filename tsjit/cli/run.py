"""`tsjit run`: call a method of an archive on inputs given on the command line."""
from __future__ import annotations

import argparse
import ast
from typing import Any

from ..ir.diagnostics import TsjitError
from .files import archive_only

HELP = "run a method on inputs: .npy/.npz files or Python literals"
EXAMPLE = "tsjit run model.pt -m forward x.npy 3"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The command's arguments."""
    p.add_argument("archive", help="a TorchScript archive")
    p.add_argument("inputs", nargs="*",
                   help=".npy file, .npz file (each array one input) or a Python literal")
    p.add_argument("-m", "--method", default="forward", help="method name (default: forward)")


def read_inputs(items: list[str]) -> list[Any]:
    """The method's arguments: arrays from .npy/.npz files, anything else a Python literal."""
    import numpy as np
    inputs: list[Any] = []
    for item in items:
        if not item.endswith((".npy", ".npz")):
            try:
                inputs.append(ast.literal_eval(item))
            except (ValueError, SyntaxError):
                raise TsjitError(f"input {item!r} is neither a .npy/.npz file nor a Python "
                                 "literal (5, 2.5, True, 'text', [1, 2])") from None
            continue
        try:
            loaded = np.load(item, allow_pickle=False)
        except ValueError as err:
            raise TsjitError(f"input {item}: not a readable numpy file ({err})") from None
        if isinstance(loaded, np.ndarray):
            inputs.append(loaded)
        else:
            inputs.extend(loaded[k] for k in loaded.files)
    return inputs


def run(args: argparse.Namespace) -> int:
    """Load, call the method, print the result."""
    from ..jit import load
    archive_only(args.archive, "run")
    inputs = read_inputs(args.inputs)
    m = load(args.archive)
    methods = m._c.type.methods
    if args.method not in methods:
        raise TsjitError(f"{args.archive} has no method {args.method!r} on its top module "
                         f"({m._c.type.qualified_name}); it has: {', '.join(sorted(methods))}")
    print(getattr(m, args.method)(*inputs))
    return 0
