"""Packages whose names load on first use (PEP 562): a package lists where each public name
lives, and importing the package imports none of those modules."""
from __future__ import annotations

import sys
from types import ModuleType
from typing import Any, Callable


def lazy_getattr(package: str, where: dict[str, str],
                 submodule: Callable[[str], ModuleType]) -> Callable[[str], Any]:
    """A module `__getattr__` for `package`: name -> the attribute of that name of the
    submodule `where[name]` (the submodule itself when the name is the submodule's own),
    imported on first use by `submodule` and then kept in the package's namespace.
    (`submodule` is the package's own `importlib.import_module(f".{m}", __name__)`, so
    that tools/import_graph.py sees the package import its submodules.)"""
    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module '{package}' has no attribute '{name}'")
        found = submodule(module)
        value = found if name == module else getattr(found, name)
        setattr(sys.modules[package], name, value)
        return value
    return __getattr__
