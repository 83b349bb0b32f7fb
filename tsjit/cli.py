"""The `tsjit` command: look into archives, run their methods, check round trips."""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from typing import Optional

from .ir.diagnostics import TsjitError


def _archive_only(path: str) -> None:
    """An error saying what the file is when it is a torch.save checkpoint, which has no
    code or methods."""
    from .serialize.checkpoint_load import describe
    what = describe(path) if os.path.isfile(path) else None
    if what is not None:
        raise TsjitError(f"{path} is {what}, not a TorchScript archive: it has no code or "
                         f"methods (`tsjit list {path}` shows what it holds; "
                         "tsjit.load loads its tensors)")


def _cmd_code(args: argparse.Namespace) -> int:
    from .serialize import ArchiveReader
    _archive_only(args.archive)
    reader = ArchiveReader(args.archive)
    for name in reader.names():
        if name.startswith("code/") and name.endswith(".py"):
            print(f"# {reader.top}/{name}")
            print(reader.read(name).decode("utf-8"), end="")
            print()
    return 0


def _cmd_list(args: argparse.Namespace) -> int:
    from .serialize import ArchiveReader, list_extra_files
    from .serialize.checkpoint_load import describe
    what = describe(args.archive) if os.path.isfile(args.archive) else None
    if what is not None:
        print(f"# {args.archive}: {what} (load it with tsjit.load)")
        if "legacy" in what:
            return 0
    reader = ArchiveReader(args.archive)
    for name in reader.names():
        e = reader.info(name)
        print(f"{e.size:>10}  {reader.top}/{name}")
    extra = list_extra_files(reader)
    if extra:
        print(f"extra files ({len(extra)}):")
        for name in extra:
            print(f"{reader.info('extra/' + name).size:>10}  {name}")
    return 0


def _cmd_graph(args: argparse.Namespace) -> int:
    from .jit import load
    _archive_only(args.archive)
    m = load(args.archive)
    for name, fn in m._c.type.methods.items():
        print(f"# {m._c.type.qualified_name}.{name}")
        print(fn.graph)
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    import numpy as np
    from .jit import load
    _archive_only(args.archive)
    m = load(args.archive)
    import ast as py_ast
    inputs = []
    for item in args.inputs:
        if not item.endswith((".npy", ".npz")):
            # Anything else is a Python literal: 5, 2.5, True, "text", [1, 2]
            try:
                inputs.append(py_ast.literal_eval(item))
            except (ValueError, SyntaxError):
                raise TsjitError(f"input {item!r} is neither a .npy/.npz file nor a Python "
                                 "literal") from None
            continue
        loaded = np.load(item)
        if isinstance(loaded, np.ndarray):
            inputs.append(loaded)
        else:
            inputs.extend(loaded[k] for k in loaded.files)
    result = getattr(m, args.method)(*inputs)
    print(result)
    return 0


def _cmd_roundtrip(args: argparse.Namespace) -> int:
    from .jit import load, save
    _archive_only(args.archive)
    with tempfile.TemporaryDirectory() as d:
        base = os.path.splitext(os.path.basename(args.archive))[0]
        first, second = os.path.join(d, "a", base + ".pt"), os.path.join(d, "b", base + ".pt")
        os.makedirs(os.path.dirname(first))
        os.makedirs(os.path.dirname(second))
        save(load(args.archive), first)
        save(load(first), second)
        a, b = open(first, "rb").read(), open(second, "rb").read()
    if a != b:
        print("round trip is NOT stable: save(load(x)) differs from save(load(save(load(x))))")
        return 1
    print(f"round trip is stable ({len(a)} bytes)")
    return 0


def main(argv: Optional[list[str]] = None) -> int:
    """Entry point of the `tsjit` command."""
    p = argparse.ArgumentParser(prog="tsjit", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    for name, fn, doc in (("code", _cmd_code, "print the archive's code files"),
                          ("list", _cmd_list, "list the archive's records"),
                          ("graph", _cmd_graph, "print the graphs of the top module's methods"),
                          ("roundtrip", _cmd_roundtrip, "check that save → load → save is stable")):
        s = sub.add_parser(name, help=doc)
        s.add_argument("archive")
        s.set_defaults(func=fn)
    s = sub.add_parser("run", help="run a method on inputs: .npy/.npz files or Python literals")
    s.add_argument("archive")
    s.add_argument("inputs", nargs="*")
    s.add_argument("-m", "--method", default="forward")
    s.set_defaults(func=_cmd_run)
    args = p.parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:
        # The reader went away (`tsjit code x.pt | head`): not an error of ours; stdout is
        # pointed at devnull so the interpreter's final flush does not complain either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except TsjitError as err:
        print(f"tsjit: error: {err}", file=sys.stderr)
        return 1
    except OSError as err:
        print(f"tsjit: error: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
