"""The source of a Python function, parsed with ranges that point into its file."""
from __future__ import annotations

import inspect
from typing import Any

from ..ir.diagnostics import CompileError
from . import ast
from .parser import parse_def


class SourceUnavailableError(CompileError, OSError):
    """A Python function has no source to compile (an OSError too, as PyTorch's)."""


def parse_python_def(pyfn: Any) -> ast.Def:
    """The AST of a Python function, with ranges pointing into its file."""
    try:
        lines, start = inspect.getsourcelines(pyfn)
        filename = inspect.getsourcefile(pyfn) or "<unknown>"
    except (OSError, TypeError) as err:
        raise SourceUnavailableError(f"cannot get the source of {getattr(pyfn, '__qualname__', pyfn)}: {err}. "
                           "Scripted functions must be defined in a file") from None
    return parse_def("".join(lines), filename, start)


__all__ = ["parse_python_def", "SourceUnavailableError"]
