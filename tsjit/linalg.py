"""tsjit.linalg: torch.linalg's functions, the aten::linalg_* operators by their short names.

    tsjit.linalg.solve(a, b)       # aten::linalg_solve, eagerly
    torch.linalg.det(m)            # in scripted code, compiles to aten::linalg_det
"""
from __future__ import annotations

from .ops.eager import Namespace

__getattr__ = Namespace(__name__, "linalg_")


def __dir__() -> list[str]:
    """The operator names, for completion."""
    return __getattr__.names()
