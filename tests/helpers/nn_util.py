"""Helpers for the tsjit.nn differential tests: build a layer in torch and tsjit with the same
state, run both on the same numpy inputs, compare."""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np
import pytest

import tsjit
import tsjit.nn as jnn

try:
    import torch
    import torch.nn as tnn
except ImportError:  # pragma: no cover - depends on the machine
    torch = None
    tnn = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed (oracle)")


@dataclass
class Case:
    """One layer configuration: `build(nn)` works for torch.nn and tsjit.nn alike; `inputs(rng)`
    gives the forward arguments as numpy arrays (tuples nest, other values pass through)."""

    id: str
    build: Callable[[Any], Any]
    inputs: Callable[[np.random.Generator], tuple]
    kwargs: dict = field(default_factory=dict)
    train: bool = False          # also compare in training mode (deterministic layers only)
    rtol: float = 1e-5
    atol: float = 1e-5


def randn(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def to_torch(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        return torch.from_numpy(v.copy())
    if isinstance(v, tuple):
        return tuple(to_torch(x) for x in v)
    return v


def to_tsjit(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        return tsjit.from_numpy(v.copy())
    if isinstance(v, tuple):
        return tuple(to_tsjit(x) for x in v)
    return v


def to_numpy(v: Any) -> Any:
    if v is None:
        return None
    if isinstance(v, (tuple, list)):
        return tuple(to_numpy(x) for x in v)
    if torch is not None and isinstance(v, torch.Tensor):
        return v.detach().numpy()
    if isinstance(v, tsjit.Tensor):
        return v.numpy()
    return v


def copy_state(src: Any, dst: Any) -> None:
    """Load a torch module's state into a tsjit module (the recipe of the brief)."""
    dst.load_state_dict({k: tsjit.from_numpy(v.detach().numpy().copy())
                         for k, v in src.state_dict().items()})


def build_pair(case: Case, seed: int = 0) -> tuple:
    torch.manual_seed(seed)
    t = case.build(tnn)
    j = case.build(jnn)
    copy_state(t, j)
    return t, j


def assert_close(got: Any, want: Any, rtol: float, atol: float, path: str = "out") -> None:
    if want is None:
        assert got is None, f"{path}: expected None"
        return
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), f"{path}: structure differs"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_close(g, w, rtol, atol, f"{path}[{i}]")
        return
    if isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray), f"{path}: {type(got)}"
        assert got.shape == want.shape, f"{path}: shape {got.shape} != {want.shape}"
        assert got.dtype == want.dtype, f"{path}: dtype {got.dtype} != {want.dtype}"
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=path)
        return
    assert got == want, path


def run_both(case: Case, t: Any, j: Any, seed: int = 1) -> tuple:
    args = case.inputs(np.random.default_rng(seed))
    want = to_numpy(t(*to_torch(args), **{k: to_torch(v) for k, v in case.kwargs.items()}))
    got = to_numpy(j(*to_tsjit(args), **{k: to_tsjit(v) for k, v in case.kwargs.items()}))
    return got, want


def jnn_functional() -> Any:
    return importlib.import_module("tsjit.nn.functional")
