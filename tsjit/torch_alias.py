"""Running source written against torch on tsjit, unchanged.

    with tsjit.as_torch():
        import torch, torch.nn as nn, torch.nn.functional as F   # tsjit, tsjit.nn, ...
        import model                                             # model.py uses torch

    python -m tsjit.run_as_torch model.py [args...]

While active, `import torch` gives the tsjit package and `import torch.X.Y` gives tsjit's
own module `tsjit.X.Y` (the same object `import tsjit.X.Y` gives — `_import_alias`'s
finder — so classes are not duplicated: a `torch.nn.Parameter` is a `tsjit.nn.Parameter`).
A `torch.X.Y` that tsjit does not have is a ModuleNotFoundError; a real torch is never
imported. Afterwards the previous `torch` modules, if any, are back.
"""
from __future__ import annotations

import contextlib
import sys
from typing import Any, Iterator

from . import _import_alias

# The package `torch` stands for: the one this module belongs to.
_PACKAGE = __name__.rpartition(".")[0]


def _torch_names() -> list[str]:
    return [n for n in sys.modules if n == "torch" or n.startswith("torch.")]


@contextlib.contextmanager
def as_torch() -> Iterator[Any]:
    """While active, `torch` and every `torch.X.Y` import as tsjit's modules (see above)."""
    package = sys.modules[_PACKAGE]
    _import_alias.install()
    saved = {name: sys.modules.pop(name) for name in _torch_names()}
    sys.modules["torch"] = package
    try:
        yield package
    finally:
        for name in _torch_names():
            del sys.modules[name]
        sys.modules.update(saved)


__all__ = ["as_torch"]
