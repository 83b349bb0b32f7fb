"""Running a corpus case's source.py with `torch` bound to tsjit."""
from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
import tempfile
from typing import Any, Iterator

import tsjit
import tsjit.jit
import tsjit.nn
import tsjit.nn.functional
from tests.helpers.corpus import case_path

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
        archive = tsjit.load(case_path(case))
        state = archive.state_dict()
        own = m.state_dict()
        m.load_state_dict({k: v for k, v in state.items() if k in own}, strict=False)
        scripted = tsjit.script(m)
        theirs = tensor_constants(archive)
        if theirs:
            # A frozen module's state is its code's tensor constants (CONSTANTS.cN).
            _copy_constants(tensor_constants(scripted), theirs)
        if any("__setstate__" in vars(type(sub)) for sub in m.modules()):
            # calls.json holds what the loaded archive gave: saving ran __getstate__ and
            # loading ran __setstate__ on what it returned. Scripting runs neither (in
            # PyTorch too), so the scripted module takes the same save -> load path.
            return _round_trip(scripted)
        return scripted


def tensor_constants(module: Any) -> list:
    """The prim::Constant nodes holding tensors in `module`'s methods, in the order the
    printed code numbers them (first use, method by method)."""
    nodes: list = []
    for fn in module._c.type.methods.values():
        for n in fn.graph.walk():
            for v in n.inputs:
                c = v.node
                if c.kind == "prim::Constant" and isinstance(c.attrs.get("value"), tsjit.Tensor) \
                        and c not in nodes:
                    nodes.append(c)
    return nodes


def _copy_constants(ours: list, theirs: list) -> None:
    shapes = [tuple(c.attrs["value"].shape) for c in ours]
    wanted = [tuple(c.attrs["value"].shape) for c in theirs]
    assert shapes == wanted, f"tensor constants differ from the archive's: {shapes} vs {wanted}"
    for mine, other in zip(ours, theirs):
        mine.attrs["value"] = other.attrs["value"]


def _round_trip(scripted: Any) -> Any:
    """`scripted` saved to an archive and loaded back."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.pt")
        tsjit.save(scripted, path)
        return tsjit.load(path)


class _FunctionModule:
    """What the corpus archives make of a scripted function: `forward` calls it."""

    def __init__(self, fn: Any) -> None:
        self.forward = fn
