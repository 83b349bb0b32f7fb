"""The torch.save conformance cases (tests/data/ckpt, copied from shared/ckpt) through their
own checker: `load` and `mmap` modes, one test per case and mode.

The checker (`check.py`) compares what tsjit.load gives with what PyTorch 2.13 recorded:
values, dtypes, strides, storage offsets and sizes, shared storages, object identity,
refusals and their messages, get_unsafe_globals_in_checkpoint, and (mmap) that every
tensor views the mapped file and resident memory stays flat.
"""
from __future__ import annotations

import gc
import importlib.util
import json
import os
from typing import Any

import numpy as np
import pytest

import tsjit

CKPT = os.path.join(os.path.dirname(__file__), "..", "data", "ckpt")
CASES = os.path.join(CKPT, "cases")


def _checker() -> Any:
    spec = importlib.util.spec_from_file_location("ckpt_check", os.path.join(CKPT, "check.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CHECK = _checker()


def _cases(mode: str) -> list[str]:
    out = []
    for name in sorted(os.listdir(CASES)):
        path = os.path.join(CASES, name, "case.json")
        if os.path.isfile(path):
            with open(path) as f:
                if CHECK.applies(mode, json.load(f)):
                    out.append(name)
    return out


@pytest.fixture(scope="module", autouse=True)
def young_heap() -> None:
    """The checker's gc.collect() calls (memory measured around mmap loads) walk only what this
    module makes: what earlier tests left is frozen out of the collector while it runs."""
    gc.collect()
    gc.freeze()
    yield
    gc.unfreeze()


@pytest.fixture(autouse=True)
def fixtures_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """`ckpt_fixtures` (classes the cases allow-list) ships with the cases."""
    monkeypatch.syspath_prepend(CASES)
    yield
    tsjit.serialization.clear_safe_globals()


def run_case(mode: str, name: str) -> None:
    d = os.path.join(CASES, name)
    with open(os.path.join(d, "case.json")) as f:
        case = json.load(f)
    with np.load(os.path.join(d, "tensors.npz")) as z:
        arrays = {k: z[k] for k in z.files}
    try:
        CHECK.MODES[mode](tsjit, case, d, arrays)
    except CHECK.Mismatch as ex:
        pytest.fail(f"{name} ({mode}): {ex}")
    finally:
        gc.collect()


@pytest.mark.parametrize("name", _cases("load"))
def test_load(name: str) -> None:
    run_case("load", name)


@pytest.mark.parametrize("name", _cases("mmap"))
def test_mmap(name: str) -> None:
    run_case("mmap", name)


def test_every_family_is_here() -> None:
    names = set(_cases("load"))
    for family in ("dtype_", "sd_", "optim_", "noncontig_", "legacy_", "zip_", "gadget_",
                   "namedtuple_", "sparse_", "views_", "torchscript_", "pickle_protocol4"):
        assert any(n.startswith(family) for n in names), family
