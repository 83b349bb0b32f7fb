"""Running source written against torch on tsjit, unchanged.

    with tsjit.as_torch():
        import torch, torch.nn as nn, torch.nn.functional as F   # tsjit, tsjit.nn, ...
        exec(open("model.py").read())

    python -m tsjit.run_as_torch model.py [args...]

While active, `import torch` gives the tsjit package and `import torch.X.Y` gives tsjit's
own module `tsjit.X.Y` (the same object `import tsjit.X.Y` gives, so classes are not
duplicated: a `torch.nn.Parameter` is a `tsjit.nn.Parameter`). A `torch.X.Y` that tsjit
does not have is a ModuleNotFoundError; a real torch is never imported.
"""
from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.util
import sys
from typing import Any, Iterator, Optional


# The package `torch` stands for: the one this module belongs to.
_PACKAGE = __name__.rpartition(".")[0]


def _target(fullname: str) -> str:
    return _PACKAGE + fullname[len("torch"):]


def _module(name: str) -> Any:
    """The module `name` of this package, imported now if it was not yet (the steps of
    importlib.import_module, for a name only known at run time)."""
    found = sys.modules.get(name)
    if found is not None:
        return found
    spec = importlib.util.find_spec(name)      # imports the parent packages first
    if spec is None:
        return None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)        # type: ignore[union-attr]
    except BaseException:
        sys.modules.pop(name, None)
        raise
    parent, _, child = name.rpartition(".")
    setattr(sys.modules[parent], child, module)
    return module


class _Alias(importlib.abc.Loader):
    """Loads `torch.X.Y` as the module `tsjit.X.Y` itself."""

    def __init__(self, module: Any) -> None:
        self.module = module

    def create_module(self, spec: Any) -> Any:
        return self.module

    def exec_module(self, module: Any) -> None:
        pass   # the module is tsjit's own, already executed: binding the torch name is all


class TorchAsTsjitFinder(importlib.abc.MetaPathFinder):
    """Finds `torch` and `torch.*` as the tsjit modules of the same path."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Optional[Any]:
        if fullname != "torch" and not fullname.startswith("torch."):
            return None
        real = _target(fullname)
        module = _module(real)
        if module is None:
            raise ModuleNotFoundError(f"No module named {fullname!r} (tsjit has no {real!r})",
                                      name=fullname)
        return importlib.util.spec_from_loader(fullname, _Alias(module),
                                               is_package=hasattr(module, "__path__"))


@contextlib.contextmanager
def as_torch() -> Iterator[Any]:
    """While active, `torch` and every `torch.X.Y` import as tsjit's modules (see above);
    the previous `torch` modules, if any, come back afterwards."""
    package = sys.modules[_PACKAGE]
    saved = {name: mod for name, mod in sys.modules.items()
             if name == "torch" or name.startswith("torch.")}
    for name in saved:
        del sys.modules[name]
    finder = TorchAsTsjitFinder()
    sys.meta_path.insert(0, finder)
    sys.modules["torch"] = package
    try:
        yield package
    finally:
        sys.meta_path.remove(finder)
        for name in [n for n in sys.modules if n == "torch" or n.startswith("torch.")]:
            del sys.modules[name]
        sys.modules.update(saved)


__all__ = ["as_torch", "TorchAsTsjitFinder"]
