"""Model workloads (mlp, cnn, lstm from ../shared/bench): tsjit eager and scripted against
the workload's hand-written numpy reference and torch.jit, one thread, medians.

    python benchmarks/bench_models.py [mlp cnn lstm] [--repeat N]

The goal is tsjit / numpy <= 1.2x for eager and scripted. The machines are shared and noisy:
absolute times move between runs; the ratios, measured side by side in one process, are
steadier. Each line also checks that tsjit's output matches the numpy reference.
"""
from __future__ import annotations

import os

# one thread for every BLAS numpy may use; must precede the first numpy import
for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import random  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from typing import Any, Callable, Optional  # noqa: E402

import numpy as np  # noqa: E402

import tsjit  # noqa: E402
from _workloads import load_workload, try_import_torch  # noqa: E402

WORKLOADS = ("mlp", "cnn", "lstm")


def interleaved_medians(fns: dict[str, Callable[[], Any]], repeat: int,
                        warmup: int = 3) -> dict[str, float]:
    """Median seconds per call of each fn, timed in rounds (one call of each per round, in a
    shuffled order) so that the machine's load drifts and the cache state a predecessor
    leaves affect all of them alike."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    times: dict[str, list[float]] = {k: [] for k in fns}
    order = list(fns)
    shuffle = random.Random(0).shuffle
    for _ in range(repeat):
        shuffle(order)
        for k in order:
            fn = fns[k]
            t = time.perf_counter()
            fn()
            times[k].append(time.perf_counter() - t)
    return {k: statistics.median(v) for k, v in times.items()}


def bench(name: str, torch: Optional[Any], repeat: int) -> dict[str, float]:
    """Median seconds per call for each executor, plus the output's max deviation."""
    ts = load_workload(name, tsjit, "tsjit")
    model = ts.build()
    args = ts.inputs()
    # the reference gets its own copies: sharing tsjit's arrays would let it find them in
    # the cache whenever it runs right after tsjit
    params = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    np_args = [a.numpy().copy() for a in args]
    scripted = tsjit.script(model)
    fns: dict[str, Callable[[], Any]] = {
        "eager": lambda: model(*args), "scripted": lambda: scripted(*args),
        "numpy": lambda: ts.numpy_reference(params, *np_args)}
    if torch is not None:
        tw = load_workload(name, torch, "torch")
        tm = torch.jit.script(tw.build())
        targs = tw.inputs()
        fns["torch.jit"] = lambda: tm(*targs)
        torch.set_grad_enabled(False)      # inference, as tsjit (which keeps no autograd)
    out = interleaved_medians(fns, repeat)
    # Each executor forced in turn (switching starts every function over, so the two
    # cannot be interleaved call by call); issue 6 asks that codegen be no slower.
    for mode in ("interpreter", "codegen"):
        tsjit.jit.set_executor(mode)
        out[mode] = interleaved_medians({"scripted": fns["scripted"]}, repeat)["scripted"]
    tsjit.jit.set_executor("auto")
    got = scripted(*args).numpy()
    out["max_abs_diff"] = float(np.max(np.abs(got - ts.numpy_reference(params, *np_args))))
    return out


def report(name: str, r: dict[str, float]) -> str:
    """One line: times in ms and the ratios that matter."""
    ms = lambda k: f"{r[k] * 1e3:.2f} ms"  # noqa: E731
    line = (f"{name:5s} eager {ms('eager')}, scripted {ms('scripted')}, numpy {ms('numpy')}"
            f" | tsjit/numpy eager {r['eager'] / r['numpy']:.2f}x, scripted "
            f"{r['scripted'] / r['numpy']:.2f}x")
    if "torch.jit" in r:
        line += (f" | torch.jit {ms('torch.jit')}, tsjit/torch.jit eager "
                 f"{r['eager'] / r['torch.jit']:.2f}x, scripted "
                 f"{r['scripted'] / r['torch.jit']:.2f}x")
    line += (f" | scripted [interpreter] {ms('interpreter')}, [codegen] {ms('codegen')}"
             f" (codegen/interpreter {r['codegen'] / r['interpreter']:.2f}x)")
    return line + f" | max |tsjit - numpy| {r['max_abs_diff']:.1e}"


def main() -> None:
    """Run the chosen workloads and print one line each."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("workloads", nargs="*", default=list(WORKLOADS))
    p.add_argument("--repeat", type=int, default=31)
    a = p.parse_args()
    torch = try_import_torch()
    if torch is None:
        print("(PyTorch not importable: no torch.jit column)")
    for name in a.workloads:
        print(report(name, bench(name, torch, a.repeat)), flush=True)


if __name__ == "__main__":
    main()
