"""tsjit.special: torch.special's functions, the aten::special_* operators by their short names.

    tsjit.special.expit(x)         # aten::special_expit, eagerly
    torch.special.ndtr(x)          # in scripted code, compiles to aten::special_ndtr
"""
from __future__ import annotations

from .ops.eager import Namespace

__getattr__ = Namespace(__name__, "special_")


def __dir__() -> list[str]:
    """The operator names, for completion."""
    return __getattr__.names()
