"""Parse the command line and dispatch to the command's module, inside the error boundary."""
from __future__ import annotations

import argparse
import sys
from typing import Optional

from . import check, code, convert, diff, graph, info, list_records, report, roundtrip, run, show, weights
from .boundary import OK, USAGE, run_guarded

# Each command module has HELP, EXAMPLE, add_arguments(parser) and run(args) -> exit code
# (optionally EXIT_NOTE, what its exit code 1 also means, and rewrite_argv); they import
# what they need inside run(), so this list costs nothing to import.
COMMANDS = {"info": info, "check": check, "list": list_records, "show": show, "code": code,
            "graph": graph, "run": run, "weights": weights, "diff": diff, "convert": convert,
            "report": report, "roundtrip": roundtrip}

EPILOG = """exit codes: 0 ok, 1 error (one line `tsjit: error: ...`), 2 usage error.
--debug (anywhere) shows the Python traceback of an error.
example: tsjit info model.pt"""


def _version() -> str:
    # the parent package is always imported before this module; no import edge back to it
    return sys.modules[__package__.rpartition(".")[0]].__version__


def _top_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tsjit", description=sys.modules[__package__].__doc__.splitlines()[0],
                                epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"tsjit {_version()}")
    p.add_argument("--debug", action="store_true", help="show tracebacks of errors")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, module in COMMANDS.items():
        sub.add_parser(name, help=module.HELP)
    return p


def command_parser(name: str) -> tuple[argparse.ArgumentParser, object]:
    """The parser of one command and its module."""
    module = COMMANDS[name]
    p = argparse.ArgumentParser(prog=f"tsjit {name}", description=module.HELP,
                                epilog=f"example:\n  {module.EXAMPLE}\n\n"
                                       "exit codes: 0 ok, 1 error, 2 usage error"
                                       + getattr(module, "EXIT_NOTE", ""),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--debug", action="store_true", help="show tracebacks of errors")
    module.add_arguments(p)
    return p, module


def main(argv: Optional[list[str]] = None) -> int:
    """Entry point of the `tsjit` command; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return _main(argv)
    except SystemExit as done:          # argparse: --help, --version (0) and usage errors (2)
        return done.code if isinstance(done.code, int) else (OK if done.code is None else USAGE)


def _main(argv: list[str]) -> int:
    at = next((i for i, a in enumerate(argv) if not a.startswith("-")), len(argv))
    top = _top_parser()
    top.parse_args(argv[:at + 1])       # --version, --help, a known command name
    parser, module = command_parser(argv[at])
    rest = argv[:at] + argv[at + 1:]
    # a command may rewrite its arguments first (`run` keeps --random inputs in their place)
    rest = getattr(module, "rewrite_argv", lambda a: a)(rest)
    # intermixed: `tsjit run ARCHIVE -m METHOD INPUT` as well as `tsjit run -m METHOD ARCHIVE INPUT`
    args = parser.parse_intermixed_args(rest)
    return run_guarded(lambda: module.run(args), debug=args.debug)
