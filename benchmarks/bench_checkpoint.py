"""torch.save checkpoints: tsjit.load against torch.load, at 10, 100 and 400 MiB.

    OMP_NUM_THREADS=1 python benchmarks/bench_checkpoint.py [SIZE_MB ...]

A state dict of 100 float32 tensors (50 layers' weights and biases, the weights making up
the size) is written by torch.save into a temporary folder; then, one thread, the best of
several runs of each reader:

* load(mmap=True): the tensors view a mapping of the file; goal tsjit/torch <= 1.0 and
  tsjit's time flat in size (nothing is read until touched);
* load(): every storage read into memory; goal tsjit/torch <= 1.0.

One line per size and mode: `MODE SIZE: tsjit X ms; torch Y ms; tsjit/torch R`. (Writers
are timed by the save benchmarks, which may add lines here in the same form.)
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from typing import Any, Callable  # noqa: E402

import tsjit  # noqa: E402

SIZES_MB = (10, 100, 400)
LAYERS = 50


def best_time(fn: Callable[[], Any], repeat: int) -> float:
    """The best wall time of `repeat` calls (after one warm-up): the machine is shared."""
    fn()
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def write_state_dict(torch: Any, size_mb: int, path: str) -> None:
    """A state dict of LAYERS square-ish layers whose weights total `size_mb` MiB."""
    per_layer = size_mb * 2**20 // 4 // LAYERS
    cols = 1024
    rows = max(1, per_layer // cols)
    state = {}
    for i in range(LAYERS):
        state[f"layers.{i}.weight"] = torch.randn(rows, cols)
        state[f"layers.{i}.bias"] = torch.randn(rows)
    torch.save(state, path)


def line(mode: str, size_mb: int, ts: float, tt: float) -> str:
    return (f"{mode:<10} {size_mb:>4} MiB: tsjit {ts * 1e3:8.2f} ms; torch {tt * 1e3:8.2f} ms; "
            f"tsjit/torch {ts / tt:.3f}")


def main(argv: list[str]) -> None:
    sizes = tuple(int(a) for a in argv) or SIZES_MB
    try:
        import torch
    except ImportError:
        print("PyTorch is not importable: it writes the checkpoints; nothing to time")
        return
    torch.set_num_threads(1)
    mapped: list[float] = []
    with tempfile.TemporaryDirectory(prefix="tsjit-bench-ckpt-") as folder:
        for size in sizes:
            path = os.path.join(folder, f"state_{size}.pt")
            write_state_dict(torch, size, path)
            repeat = 7 if size <= 100 else 4
            ts = best_time(lambda: tsjit.load(path, mmap=True), repeat)
            tt = best_time(lambda: torch.load(path, mmap=True), repeat)
            mapped.append(ts)
            print(line("mmap=True", size, ts, tt), flush=True)
            ts = best_time(lambda: tsjit.load(path), repeat)
            tt = best_time(lambda: torch.load(path), repeat)
            print(line("mmap=False", size, ts, tt), flush=True)
            os.unlink(path)
    if len(mapped) > 1:
        print(f"tsjit.load(mmap=True) growth: largest/smallest {max(mapped) / min(mapped):.2f}x "
              f"over {sizes[0]}..{sizes[-1]} MiB")


if __name__ == "__main__":
    main(sys.argv[1:])
