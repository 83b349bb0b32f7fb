"""Running a corpus case's source.py with `torch` bound to tsjit."""
from __future__ import annotations

import contextlib
import importlib.util
import sys
from typing import Any, Iterator

import tsjit
import tsjit.jit
import tsjit.nn
import tsjit.nn.functional
from corpus import case_path

_ALIASES = {"torch": tsjit, "torch.nn": tsjit.nn, "torch.nn.functional": tsjit.nn.functional,
            "torch.jit": tsjit.jit}


@contextlib.contextmanager
def torch_is_tsjit() -> Iterator[None]:
    """`import torch` gives tsjit while the block runs (sys.modules is restored after)."""
    saved = {k: sys.modules.get(k) for k in _ALIASES}
    sys.modules.update(_ALIASES)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v


def load_source(case: str) -> Any:
    """The case's source.py imported as module `case`, written against torch, run on tsjit."""
    spec = importlib.util.spec_from_file_location(case, case_path(case, "source.py"))
    module = importlib.util.module_from_spec(spec)
    with torch_is_tsjit():
        sys.modules[case] = module
        spec.loader.exec_module(module)
    return module


def scripted_from_source(case: str) -> Any:
    """build() the case's module with tsjit, copy the archive's state into it, script it."""
    module = load_source(case)
    with torch_is_tsjit():
        m = module.build()
        if not hasattr(m, "state_dict"):
            # A plain function: the archive wraps it in a module whose forward calls it.
            return _FunctionModule(tsjit.script(m))
        state = tsjit.load(case_path(case)).state_dict()
        own = m.state_dict()
        m.load_state_dict({k: v for k, v in state.items() if k in own}, strict=False)
        return tsjit.script(m)


class _FunctionModule:
    """What the corpus archives make of a scripted function: `forward` calls it."""

    def __init__(self, fn: Any) -> None:
        self.forward = fn
