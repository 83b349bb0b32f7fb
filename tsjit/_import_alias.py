"""`import torch.nn` gives `tsjit.nn` itself when `torch` is bound to tsjit.

With `sys.modules["torch"] = tsjit`, Python finds `torch.nn` through tsjit's `__path__` and
would run tsjit/nn/ a second time as a new module "torch.nn" — new classes, a second
operator registry, and the attribute `tsjit.nn` replaced by the copy. This finder, first on
`sys.meta_path`, answers for a submodule of a module imported under a name that is not its
own (`torch` for `tsjit`) with tsjit's module of that submodule, imported under its own name.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType
from typing import Any, Optional, Sequence


class _AliasLoader(importlib.abc.Loader):
    """Loads an aliased name as the module it stands for (no second copy)."""

    def __init__(self, real: str) -> None:
        self.real = real
        self.spec: Any = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        """tsjit's own module, imported under its own name."""
        # the module the user's alias names: chosen at run time (see docs/design.md)
        module = importlib.import_module(self.real)
        self.spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run; undo the import system's rebinding of `__spec__`."""
        module.__spec__ = self.spec


class AliasFinder(importlib.abc.MetaPathFinder):
    """Finds `alias.x` as `tsjit.x` when module `alias` is a tsjit module."""

    def find_spec(self, fullname: str, path: Optional[Sequence[str]],
                  target: Optional[ModuleType] = None) -> Optional[importlib.machinery.ModuleSpec]:
        """A spec loading tsjit's module when `fullname`'s parent is tsjit under another name."""
        parent, _, child = fullname.rpartition(".")
        real = getattr(sys.modules.get(parent), "__name__", None) if parent else None
        if real is None or real == parent or real.split(".")[0] != "tsjit" or \
                importlib.util.find_spec(f"{real}.{child}") is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(f"{real}.{child}"))


def install() -> None:
    """Put the finder first on sys.meta_path (once)."""
    if not any(isinstance(f, AliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, AliasFinder())
