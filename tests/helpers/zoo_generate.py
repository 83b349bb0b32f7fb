"""Builds the zoo's archives with PyTorch, once, into a cache shared between runs.

For each case of `zoo_models.CASES`: seed torch, build the model, script or trace it, save it
with `torch.jit.save`, load that archive back with `torch.jit.load` and record its inputs and
outputs (nested tuples / lists / dicts of numpy arrays and Python scalars, pickled). The cache
directory is `$TSJIT_ZOO_CACHE` or `~/.cache/tsjit-zoo`, then one folder per key: a hash of the
library versions and of this generator's sources, so a new torch, transformers or a changed case
regenerates everything, and nothing stale is ever read. A case's folder appears whole (built
under a temporary name, then renamed).

    python -m tests.helpers.zoo_generate [NAME ...]    # fill the cache (all cases by default)
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import pickle
import shutil
import sys
import tempfile
import warnings
from typing import Any, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
_SOURCES = ("zoo_models.py", "zoo_generate.py", "zoo_tv_shim.py")
LIBRARIES = ("torch", "torchvision", "transformers", "timm")
_SHIM = "tsjit_zoo_tv_shim"

# Generation must never reach the network: transformers models come from configs.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def _version(lib: str) -> Optional[str]:
    try:
        import importlib.metadata as md
        return md.version(lib)
    except Exception:
        return None


def cache_dir() -> str:
    """This generator's cache folder for the installed library versions."""
    h = hashlib.sha256()
    for lib in LIBRARIES:
        h.update(f"{lib}={_version(lib)}\n".encode())
    for name in _SOURCES:
        with open(os.path.join(HERE, name), "rb") as f:
            h.update(hashlib.sha256(f.read()).digest())
    root = os.environ.get("TSJIT_ZOO_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "tsjit-zoo")
    return os.path.join(root, h.hexdigest()[:16])


def missing_library(library: str) -> Optional[str]:
    """Why a case of `library` cannot be generated here, or None when it can."""
    for lib in ("torch", "torchvision" if library in ("torchvision", "timm") else None, library):
        if lib is None:
            continue
        try:
            import_torchvision() if lib == "torchvision" else importlib.import_module(lib)
        except Exception as e:  # an install that is present but broken is missing too
            return f"{lib} is not importable ({type(e).__name__}: {e})"[:300]
    return None


def import_torchvision() -> Any:
    """torchvision, with the shim for its C++ operators imported first (see zoo_tv_shim.py)."""
    if _SHIM not in sys.modules:
        spec = importlib.util.spec_from_file_location(_SHIM, os.path.join(HERE, "zoo_tv_shim.py"))
        mod = importlib.util.module_from_spec(spec)
        sys.modules[_SHIM] = mod
        spec.loader.exec_module(mod)
    return importlib.import_module("torchvision")


def to_numpy(v: Any) -> Any:
    """A PyTorch value with tensors replaced by numpy arrays, containers kept."""
    import torch
    if isinstance(v, torch.Tensor):
        return v.detach().numpy().copy()
    if isinstance(v, (list, tuple)):
        return (list if isinstance(v, list) else tuple)(to_numpy(x) for x in v)
    if isinstance(v, dict):
        return {k: to_numpy(x) for k, x in v.items()}
    return v


def to_torch(v: Any) -> Any:
    """A recorded value with numpy arrays turned back into PyTorch tensors."""
    import numpy as np
    import torch
    if isinstance(v, np.ndarray):
        return torch.from_numpy(v.copy())
    if isinstance(v, (list, tuple)):
        return type(v)(to_torch(x) for x in v)
    if isinstance(v, dict):
        return {k: to_torch(x) for k, x in v.items()}
    return v


def as_float64(v: Any) -> Any:
    """A PyTorch value with its floating-point tensors made float64, containers kept."""
    import torch
    if isinstance(v, torch.Tensor):
        return v.double() if v.is_floating_point() else v
    if isinstance(v, (list, tuple)):
        return type(v)(as_float64(x) for x in v)
    if isinstance(v, dict):
        return {k: as_float64(x) for k, x in v.items()}
    return v


def calibrate_batchnorm(model: Any, inputs: tuple) -> None:
    """Set every BatchNorm's running statistics to those of one run on `inputs` (on a batch
    of 8 random images when the input is one image).

    With random weights the activations of a deep net shrink or grow layer by layer (a
    detection backbone's features reach 1e-8 and every box then gets the same score, so the
    order of the kept boxes is decided by ties); BatchNorm with the input's own statistics
    keeps them near unit scale, so the outputs say something about the computation."""
    import torch
    model.eval()
    bns = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return
    momenta = [bn.momentum for bn in bns]
    for bn in bns:
        bn.reset_running_stats()
        bn.momentum = None        # a cumulative average: after one run, that run's statistics
        bn.train()
    calibration = inputs
    x = inputs[0] if len(inputs) == 1 else None
    if isinstance(x, torch.Tensor) and x.dim() >= 4 and x.shape[0] == 1:
        # a batch of 8 images: statistics of one small image make some late channels'
        # variances ~1e-7, which multiplies rounding differences by 1/sqrt(eps)
        g = torch.Generator().manual_seed(1)
        calibration = (torch.rand((8,) + tuple(x.shape[1:]), generator=g),)
    try:
        with torch.no_grad():
            model(*calibration)
    except (RuntimeError, ValueError):   # e.g. a 1x1 map: training BatchNorm needs > 1 value
        for bn in bns:
            bn.reset_running_stats()
    for bn, mo in zip(bns, momenta):
        bn.momentum = mo
    model.eval()


def _case(name: str):
    from tests.helpers.zoo_models import CASES
    for c in CASES:
        if c.name == name:
            return c
    raise KeyError(name)


def ensure(name: str) -> str:
    """The folder holding case `name`'s model.pt and io.pkl, generated now if not cached."""
    out = os.path.join(cache_dir(), name)
    if os.path.exists(os.path.join(out, "io.pkl")):
        return out
    case = _case(name)
    import torch
    try:  # transformers and timm import torchvision themselves, which needs the shim first
        import_torchvision()
    except Exception:
        if case.library in ("torchvision", "timm"):
            raise
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model, inputs = case.build()
        calibrate_batchnorm(model, inputs)
        if case.float64:
            model, inputs = model.double(), as_float64(inputs)
        with torch.no_grad():
            if case.how == "script":
                compiled = torch.jit.script(model)
            else:
                compiled = torch.jit.trace(model, inputs)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=f".{name}.", dir=os.path.dirname(out))
    try:
        path = os.path.join(tmp, "model.pt")
        torch.jit.save(compiled, path)
        loaded = torch.jit.load(path)
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outputs = loaded(*inputs)
        with open(os.path.join(tmp, "io.pkl"), "wb") as f:
            pickle.dump({"inputs": to_numpy(inputs), "outputs": to_numpy(outputs)}, f)
        try:
            os.rename(tmp, out)
        except OSError:  # another process generated it first
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


def load_io(folder: str) -> dict:
    """The recorded inputs and outputs of a generated case."""
    with open(os.path.join(folder, "io.pkl"), "rb") as f:
        return pickle.load(f)


if __name__ == "__main__":
    from tests.helpers.zoo_models import CASES
    names = sys.argv[1:] or [c.name for c in CASES]
    for n in names:
        print(n, ensure(n), flush=True)
