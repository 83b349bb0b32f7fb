"""tsjit: a TorchScript-style compiler and archive runtime in Python over numpy.

    import tsjit
    m = tsjit.script(MyModule())      # compile
    tsjit.save(m, "m.pt")             # an archive PyTorch can load
    n = tsjit.load("m.pt")            # also archives written by torch.jit.save
    sd = tsjit.load("model.pth")      # torch.save files: containers of tensors, safely
    y = n(tsjit.randn(3, 4))

Names mirror PyTorch's, so model source written against `torch` runs with
`import tsjit as torch`, or unchanged (`import torch.nn as nn` too) inside
`with tsjit.as_torch():` or under `python -m tsjit.run_as_torch script.py`.
"""
from __future__ import annotations

from typing import Any

from . import _import_alias
from ._tensor import *  # noqa: F401,F403  (Tensor, dtypes, creation functions)
from ._tensor import Tensor, Size, dtype, device
from . import autograd
from .autograd import enable_grad, inference_mode, no_grad, set_grad_enabled
from .ir.diagnostics import CompileError, ParseError, TsjitError
from .ir.limits import LimitError, Limits
from .interpreter.errors import ScriptError
from .ops import functions as _functions
from . import jit, linalg, nn, random, serialization, special, utils
from .jit import _check, script
from .serialization import load, save
from .torch_alias import as_torch
from .functional import norm, tensordot, unique

__version__ = "0.1.0"
_import_alias.install()


def __getattr__(name: str) -> Any:
    # The eager operators (`tsjit.relu`, `tsjit.matmul`, ...), resolved on first use.
    if name.startswith("__"):
        raise AttributeError(name)
    if name in ("ScriptFunction", "ScriptModule"):
        return getattr(jit, name)
    return getattr(_functions, name)
