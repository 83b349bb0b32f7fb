"""Loading the shared benchmark workloads (../shared/bench) with `torch` bound to tsjit or
to PyTorch, side by side in one process."""
from __future__ import annotations

import contextlib
import importlib.util
import os
import statistics
import sys
import time
from typing import Any, Callable, Iterator

BENCH = os.environ.get("TSJIT_BENCH_DIR",
                       os.path.join(os.path.dirname(__file__), "..", "..", "shared", "bench"))


@contextlib.contextmanager
def torch_is(torch_like: Any) -> Iterator[None]:
    """`import torch` gives `torch_like` while the block runs."""
    import tsjit
    names = ["torch", "torch.nn", "torch.nn.functional", "torch.jit"]
    saved = {k: sys.modules.get(k) for k in names}
    if torch_like is tsjit:
        import tsjit.nn.functional
        sys.modules.update({"torch": tsjit, "torch.nn": tsjit.nn,
                            "torch.nn.functional": tsjit.nn.functional, "torch.jit": tsjit.jit})
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v


def load_workload(name: str, torch_like: Any, tag: str) -> Any:
    """../shared/bench/<name>.py imported as a fresh module (fresh classes) using torch_like."""
    path = os.path.join(BENCH, f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"{name}_{tag}", path)
    module = importlib.util.module_from_spec(spec)
    with torch_is(torch_like):
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return module


def median_time(fn: Callable[[], Any], repeat: int = 7, warmup: int = 1) -> float:
    """Median wall time of fn() in seconds."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def try_import_torch() -> Any:
    try:
        import torch
        torch.set_num_threads(1)
        return torch
    except ImportError:
        return None


# TSJIT_BENCH_CLOCK=cpu times the calling thread's CPU instead of the wall clock: on a
# shared, loaded machine the wall clock measures the other processes. With one thread
# (OMP_NUM_THREADS=1) both tsjit and PyTorch compute in the calling thread, so its CPU time
# is the work; on an idle machine the two clocks agree.
BENCH_CLOCK = time.thread_time if os.environ.get("TSJIT_BENCH_CLOCK") == "cpu" else time.perf_counter


def best_of_interleaved(fns: dict[str, Callable[[], Any]], repeat: int = 7) -> dict[str, float]:
    """Best time in ms of each function (BENCH_CLOCK), after one warm-up call each, the
    functions called in turn `repeat` times (so a burst of load hits every side alike)."""
    best = {k: float("inf") for k in fns}
    for fn in fns.values():
        fn()
    for _ in range(repeat):
        for k, fn in fns.items():
            t = BENCH_CLOCK()
            fn()
            best[k] = min(best[k], (BENCH_CLOCK() - t) * 1e3)
    return best
