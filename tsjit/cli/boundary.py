"""The one error boundary of the command line: one-line errors, exit codes, --debug."""
from __future__ import annotations

import os
import sys
import traceback
from typing import Callable

from ..ir.diagnostics import TsjitError

OK, ERROR, USAGE = 0, 1, 2


def run_guarded(fn: Callable[[], int], debug: bool) -> int:
    """Run one command; any failure becomes `tsjit: error: ...` on stderr and exit code 1
    (with --debug, the traceback first)."""
    try:
        return fn()
    except BrokenPipeError:
        # The reader went away (`tsjit code x.pt | head`): not an error of ours; stdout is
        # pointed at devnull so the interpreter's final flush does not complain either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return OK
    except KeyboardInterrupt:
        print("tsjit: interrupted", file=sys.stderr)
        return 130
    except Exception as err:                                    # noqa: BLE001 - the boundary
        if debug:
            traceback.print_exc()
        print(f"tsjit: error: {_one_line(err)}", file=sys.stderr)
        return ERROR


def _one_line(err: BaseException) -> str:
    if isinstance(err, (TsjitError, OSError)):
        text = str(err)
    elif isinstance(err, RecursionError):
        text = "the input nests too deeply (Python's recursion limit was reached)"
    else:
        # Not a tsjit error: a defect of ours or an unforeseen input; say what it was.
        text = f"internal error: {type(err).__name__}: {err} (run with --debug for the traceback)"
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        return type(err).__name__
    return lines[0] + (" (--debug shows the rest)" if len(lines) > 1 else "")
