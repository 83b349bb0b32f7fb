"""Archive save and load times against PyTorch, at 10, 100 and 400 MiB of parameters.

    OMP_NUM_THREADS=1 python benchmarks/bench_saveload.py [SIZE_MB ...]

The saveload workload (../shared/bench/saveload.py, 8 Linear layers) is saved by
torch.jit.save (when PyTorch is importable) and by tsjit.save into a temporary folder;
tsjit.load and torch.jit.load then open the same files, one thread, medians of several
loads. Goal: tsjit/torch.jit at most 0.05x at 100 MiB, and tsjit's time flat in size
(storages are memory-mapped, classes compiled when first needed). A second line per
size times a load and one forward call, since tsjit defers work to the first call.
First, per size, tsjit.save against torch.jit.save of the same workload (scripted by each),
the two taking turns, best of several. Goal: tsjit.save at most 1.0x torch.jit.save.
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from typing import Any, Optional  # noqa: E402

import tsjit  # noqa: E402
from _workloads import load_workload, median_time, try_import_torch  # noqa: E402

SIZES_MB = (10, 100, 400)


def write_archives(size_mb: int, folder: str, torch: Any) -> dict[str, str]:
    """Save the workload at `size_mb` with each available saver; writer name -> path."""
    paths = {}
    ts = load_workload("saveload", tsjit, f"tsjit{size_mb}")
    paths["tsjit.save"] = os.path.join(folder, f"tsjit_{size_mb}.pt")
    tsjit.save(tsjit.script(ts.build(size_mb)), paths["tsjit.save"])
    if torch is not None:
        tw = load_workload("saveload", torch, f"torch{size_mb}")
        paths["torch.jit.save"] = os.path.join(folder, f"torch_{size_mb}.pt")
        torch.jit.save(torch.jit.script(tw.build(size_mb)), paths["torch.jit.save"])
    return paths


def time_saves(size_mb: int, folder: str, torch: Any, repeat: int) -> str:
    """Best save times of the workload by tsjit.save and torch.jit.save, taking turns."""
    savers = {"tsjit.save": (tsjit.save, tsjit.script(
        load_workload("saveload", tsjit, f"tsjit_save{size_mb}").build(size_mb)))}
    if torch is not None:
        savers["torch.jit.save"] = (torch.jit.save, torch.jit.script(
            load_workload("saveload", torch, f"torch_save{size_mb}").build(size_mb)))
    best = {k: float("inf") for k in savers}
    for _ in range(repeat):
        for k, (save, module) in savers.items():
            path = os.path.join(folder, f"save_{size_mb}.pt")
            t = time.perf_counter()
            save(module, path)
            best[k] = min(best[k], time.perf_counter() - t)
            os.unlink(path)
    line = f"{size_mb:>4} MiB, save: tsjit.save {best['tsjit.save'] * 1e3:7.2f} ms"
    if torch is not None:
        tt = best["torch.jit.save"]
        line += f"; torch.jit.save {tt * 1e3:7.2f} ms; tsjit/torch {best['tsjit.save'] / tt:.3f}x"
    return line


def time_loads(path: str, torch: Any, repeat: int) -> dict[str, float]:
    """Median load time of `path` by tsjit.load and (if available) torch.jit.load."""
    out = {"tsjit.load": median_time(lambda: tsjit.load(path), repeat)}
    if torch is not None:
        out["torch.jit.load"] = median_time(lambda: torch.jit.load(path), repeat)
    return out


def time_first_calls(path: str, size_mb: int, torch: Any, repeat: int) -> str:
    """Load then one forward call, medians: tsjit defers work to the first call (method
    compilation, the weights' pages read from the file), so this is shown beside the
    load times it is not part of."""
    x = load_workload("saveload", tsjit, f"tsjit{size_mb}").inputs(size_mb)
    ts = median_time(lambda: tsjit.load(path)(*x), repeat)
    line = f"{size_mb:>4} MiB, load + first call: tsjit {ts * 1e3:7.2f} ms"
    if torch is not None:
        xt = load_workload("saveload", torch, f"torch{size_mb}").inputs(size_mb)
        tt = median_time(lambda: torch.jit.load(path)(*xt), repeat)
        line += f"; torch.jit {tt * 1e3:7.2f} ms; tsjit/torch {ts / tt:.3f}x"
    return line


def report(size_mb: int, writer: str, times: dict[str, float]) -> str:
    """One line: both load times and their ratio."""
    ts = times["tsjit.load"]
    line = f"{size_mb:>4} MiB, written by {writer:<14}: tsjit.load {ts * 1e3:7.2f} ms"
    tt: Optional[float] = times.get("torch.jit.load")
    if tt is not None:
        line += f"; torch.jit.load {tt * 1e3:7.2f} ms; tsjit/torch {ts / tt:.3f}x"
    return line


def main(argv: list[str]) -> None:
    sizes = tuple(int(a) for a in argv) or SIZES_MB
    torch = try_import_torch()
    if torch is None:
        print("PyTorch is not importable: timing tsjit.load alone")
    flat: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="tsjit-bench-") as folder:
        for size in sizes:
            # (a 10 MiB save takes a few ms: more turns, for a busy machine's quiet moments)
            turns = 15 if size <= 10 else 5 if size <= 100 else 3
            print(time_saves(size, folder, torch, repeat=turns), flush=True)
            paths = write_archives(size, folder, torch)
            for writer, path in paths.items():
                times = time_loads(path, torch, repeat=7 if size <= 100 else 5)
                flat.setdefault(writer, []).append(times["tsjit.load"])
                print(report(size, writer, times), flush=True)
                if writer == "torch.jit.save" or torch is None:
                    print(time_first_calls(path, size, torch, repeat=5), flush=True)
                os.unlink(path)   # keep at most one size's archives on disk
    for writer, ts in flat.items():
        if len(ts) > 1:
            print(f"tsjit.load growth, {writer}: largest/smallest {max(ts) / min(ts):.2f}x "
                  f"over {sizes[0]}..{sizes[-1]} MiB")


if __name__ == "__main__":
    main(sys.argv[1:])
