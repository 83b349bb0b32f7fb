"""Checkpoint save time against PyTorch's torch.save, at 10 and 100 MiB of state dict.

    OMP_NUM_THREADS=1 python benchmarks/bench_checkpoint_save.py [SIZE_MB ...]

The same state dict (an OrderedDict with `_metadata`, of float32 weights and biases of a
stack of Linear-like layers, plus a bfloat16 copy of one layer and an int64 step count)
is built once with tsjit tensors and once with PyTorch's over equal bytes; tsjit.save and
torch.save each write it to a file in one temporary folder, medians of several saves, one
thread, the two taking turns. Goal: tsjit.save at most 1.0x torch.save at 100 MiB. Prints one line per size
and saver, and the ratio.
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import collections  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

import tsjit  # noqa: E402
from _workloads import try_import_torch  # noqa: E402

SIZES_MB = (10, 100)
WIDTH = 1024                   # each weight is WIDTH x WIDTH float32: 4 MiB


def state_dict_arrays(size_mb: int) -> dict[str, np.ndarray]:
    """name -> array of a state dict of about `size_mb` MiB."""
    rng = np.random.default_rng(0)
    out: dict[str, np.ndarray] = {}
    layers = max(1, size_mb * (1 << 20) // (WIDTH * WIDTH * 4))
    for i in range(layers):
        out[f"layers.{i}.weight"] = rng.standard_normal((WIDTH, WIDTH), np.float32)
        out[f"layers.{i}.bias"] = rng.standard_normal(WIDTH, np.float32)
    out["step"] = np.array(1000, np.int64)
    return out


def as_state_dict(arrays: dict[str, np.ndarray], lib: Any) -> Any:
    """An OrderedDict of `lib` tensors over the arrays, as Module.state_dict() makes it."""
    sd = collections.OrderedDict((k, lib.from_numpy(a)) for k, a in arrays.items())
    sd["head.weight"] = sd["layers.0.weight"].to(lib.bfloat16)
    sd._metadata = collections.OrderedDict(
        (f"layers.{i}", {"version": 1}) for i in range(len(arrays) // 2))
    return sd


def interleaved_medians(savers: dict[str, tuple[Any, Any]], folder: str, size_mb: int,
                        repeat: int = 9) -> dict[str, float]:
    """Median save time per saver, the savers taking turns (the page cache and the disk's
    write-back on a shared machine then weigh on both alike)."""
    runs: dict[str, list[float]] = {name: [] for name in savers}
    for i in range(repeat + 1):
        for name, (lib, sd) in savers.items():
            path = os.path.join(folder, f"{name}_{size_mb}.pt")
            t = time.perf_counter()
            lib.save(sd, path)
            if i:       # (the first round warms up)
                runs[name].append(time.perf_counter() - t)
    return {name: statistics.median(ts) for name, ts in runs.items()}


def main(argv: list[str]) -> None:
    torch = try_import_torch()
    sizes = [int(a) for a in argv[1:]] or list(SIZES_MB)
    with tempfile.TemporaryDirectory() as folder:
        for size_mb in sizes:
            arrays = state_dict_arrays(size_mb)
            savers = {"tsjit.save": (tsjit, as_state_dict(arrays, tsjit))}
            if torch is not None:
                savers["torch.save"] = (torch, as_state_dict(arrays, torch))
            times = interleaved_medians(savers, folder, size_mb)
            for name, seconds in times.items():
                path = os.path.join(folder, f"{name}_{size_mb}.pt")
                print(f"{size_mb:4d} MiB  {name:11s} {seconds * 1e3:8.1f} ms  "
                      f"({os.path.getsize(path) / (1 << 20):.1f} MiB file)")
            if "torch.save" in times:
                print(f"{size_mb:4d} MiB  tsjit.save / torch.save = "
                      f"{times['tsjit.save'] / times['torch.save']:.2f}x")


if __name__ == "__main__":
    main(sys.argv)
