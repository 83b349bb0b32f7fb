"""One source written against `torch`, imported twice from one file: with tsjit as `torch`
(`tsjit.as_torch()`) and with PyTorch, so tests compare what each makes of it (results,
printed code, refusals)."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Optional

import tsjit


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module    # scripting reads classes' source through their module
    spec.loader.exec_module(module)
    return module


def import_twice(source: str, directory: Path, name: str) -> tuple[ModuleType, Optional[ModuleType]]:
    """(the module on tsjit, the module on PyTorch or None without it), named `name` +
    `_tsjit` / `_torch`; `normalized` makes their printed code comparable."""
    path = directory / f"{name}.py"
    path.write_text(source)
    with tsjit.as_torch():
        mine = _load(path, f"{name}_tsjit")
    try:
        import torch  # noqa: F401
    except ImportError:
        return mine, None
    return mine, _load(path, f"{name}_torch")


def normalized(code: str, name: str) -> str:
    """Printed code with the twin modules' names made one."""
    return code.replace(f"{name}_tsjit", name).replace(f"{name}_torch", name)
