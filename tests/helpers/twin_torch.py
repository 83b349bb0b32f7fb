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


def check_archives(mine, theirs, x: list, expected: list, directory: Path) -> str:
    """Module instances `mine` (on tsjit) and `theirs` (on PyTorch, or None) made from one
    source: tsjit's archive loads in tsjit and re-saves byte for byte, and (with PyTorch)
    loads in PyTorch; PyTorch's archive loads in tsjit and tsjit's re-save of it in
    PyTorch; every load maps `x` to `expected`. Returns the loaded module's code."""
    ours = directory / "ours" / "m.pt"
    again = directory / "again" / "m.pt"
    ours.parent.mkdir()
    again.parent.mkdir()
    tsjit.jit.script(mine).save(str(ours))
    back = tsjit.load(str(ours))
    assert back(tsjit.tensor(x)).tolist() == expected
    tsjit.save(back, str(again))
    assert ours.read_bytes() == again.read_bytes()
    if theirs is not None:
        import torch
        assert torch.jit.load(str(ours))(torch.tensor(x)).tolist() == expected
        theirs_path, resaved = directory / "theirs.pt", directory / "resaved.pt"
        torch.jit.save(torch.jit.script(theirs), str(theirs_path))
        loaded = tsjit.load(str(theirs_path))
        assert loaded(tsjit.tensor(x)).tolist() == expected
        tsjit.save(loaded, str(resaved))
        assert torch.jit.load(str(resaved))(torch.tensor(x)).tolist() == expected
    return back.code
