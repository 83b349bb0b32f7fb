"""tsjit's modules exist once: `tsjit.X` attributes are the modules `tsjit.X`, and with
`torch` bound to tsjit, `import torch.nn` gives tsjit.nn itself (no second copy)."""
from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
import types

import pytest

import tsjit


# Inside the private tensor package, its facade's `tensor` and `device` (exported to tsjit as
# torch exports them) hide the modules of the same names: `from tsjit._tensor.tensor import
# Tensor` works, `import tsjit._tensor.tensor as m` gives the function. Renaming the modules
# would touch every kernel module; the list may only shrink.
SHADOWED = {"tsjit._tensor.tensor", "tsjit._tensor.device"}


@pytest.mark.slow   # imports every module of tsjit
def test_every_submodule_attribute_is_its_module() -> None:
    names = [m.name for m in pkgutil.walk_packages(tsjit.__path__, "tsjit.")]
    assert "tsjit._tensor.dtypes" in names and "tsjit.ops.eager" in names
    wrong = set()
    for name in names:
        module = importlib.import_module(name)
        parent, _, child = name.rpartition(".")
        if getattr(sys.modules[parent], child) is not module:
            wrong.add(name)
    assert wrong == SHADOWED, f"attributes that are not their submodule: {sorted(wrong)}"
    assert isinstance(tsjit.tensor, types.FunctionType)   # torch.tensor is a function too


def test_dotted_imports() -> None:
    import tsjit._tensor.dtypes as D
    import tsjit.nn
    assert D.float32 is tsjit.float32 and tsjit.nn.Linear.__module__ == "tsjit.nn.modules.linear"


_ALIASED = """
import sys, tsjit
before = dict(sys.modules)
sys.modules["torch"] = tsjit
import torch.nn, torch.nn.functional as F, torch.jit, torch.linalg, torch.cli
from torch.nn.modules.linear import Linear
assert torch.nn is before["tsjit.nn"] and tsjit.nn is before["tsjit.nn"]
assert F is before["tsjit.nn.functional"] and torch.jit is before["tsjit.jit"]
assert Linear is before["tsjit.nn"].Linear and torch.cli is sys.modules["tsjit.cli"]
assert tsjit.nn.__spec__.name == "tsjit.nn"
copies = [k for k, m in sys.modules.items() if k.startswith("torch.")
          and not getattr(m, "__name__", "").startswith("tsjit.")]
assert not copies, copies
try:
    import torch.nope
except ModuleNotFoundError as e:
    assert str(e) == "No module named 'torch.nope'", e
print("ok")
"""


@pytest.mark.slow   # a fresh process
def test_aliased_imports_give_the_same_modules() -> None:
    # in a fresh process: this one may hold the real torch (the oracle of other tests)
    out = subprocess.run([sys.executable, "-c", _ALIASED], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr
