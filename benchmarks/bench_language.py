"""Interpreter cost per graph node and compile time, against PyTorch and CPython.

    OMP_NUM_THREADS=1 python benchmarks/bench_language.py

scalar_loop: Collatz step counts for n < 2300 (1,007,231 graph nodes executed, see
../shared/bench/README.md); list_dict_str: the tokenizer workload (5,000 words);
tiny_ops: 1,000 additions of 4-element tensors; compile_ctrl run: one call of the ~65-line
class-heavy module; each under both executors (the stack interpreter, and the codegen tier)
next to CPython and torch.jit, with issue 6's and 17's goals. compile_ctrl: tsjit.script of
that module vs torch.jit.script (warm, fresh classes).
"""
from __future__ import annotations

import inspect
import os
import statistics
import sys
import time
from typing import Any, Callable

os.environ.setdefault("OMP_NUM_THREADS", "1")

import tsjit  # noqa: E402
from _workloads import load_workload, median_time, try_import_torch  # noqa: E402

SCALAR_LOOP_NODES = 1_007_231


EXECUTORS = ("interpreter", "codegen")


def count_instructions(call: Callable[[], Any]) -> int:
    """Interpreter instructions `call()` executes (the stack interpreter forced).

    Counted by tracing the dispatch line of the run loop, so tsjit itself carries no
    counter. An instruction is one graph node, except that the fused forms (compare and
    branch, loop back edge) stand for two and register moves for none.
    """
    from tsjit.interpreter import run as run_module
    loop_code = run_module.run.__code__
    dispatch = next(i for i, text in enumerate(inspect.getsource(run_module.run).splitlines())
                    if text.strip() == "ins = instructions[pc]") + loop_code.co_firstlineno
    count = 0

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        if frame.f_code is not loop_code:
            return None

        def line(frame: Any, event: str, arg: Any) -> Any:
            nonlocal count
            if event == "line" and frame.f_lineno == dispatch:
                count += 1
            return line
        return line

    tsjit.jit.set_executor("interpreter")
    sys.settrace(tracer)
    try:
        call()
    finally:
        sys.settrace(None)
        tsjit.jit.set_executor("auto")
    return count


def bench_run(name: str, torch: object, repeat: int = 5) -> dict:
    """Median times of one workload: tsjit under each executor, CPython/numpy, torch.jit."""
    out = {}
    ts = load_workload(name, tsjit, "tsjit")
    module = ts.build()
    params = {k: v.numpy().copy() for k, v in module.state_dict().items()}
    m = tsjit.script(module)
    args = ts.inputs()
    out["instructions"] = count_instructions(lambda: m(*args))
    for mode in EXECUTORS:
        tsjit.jit.set_executor(mode)
        out[mode] = median_time(lambda: m(*args), repeat)
    tsjit.jit.set_executor("auto")
    plain = [a.numpy() if isinstance(a, tsjit.Tensor) else a for a in args]   # numpy's own arrays
    out["cpython"] = median_time(lambda: ts.numpy_reference(params, *plain), repeat)
    if torch is not None:
        tw = load_workload(name, torch, "torch")
        tm = torch.jit.script(tw.build())
        targs = tw.inputs()
        out["torch.jit"] = median_time(lambda: tm(*targs), repeat)
    return out


def report(name: str, r: dict, unit: str = "", count: int = 0, goal: float = 0.0) -> None:
    """One line per executor: time, cost per unit, and ratios to torch.jit and CPython."""
    for mode in EXECUTORS:
        line = f"{name} [{mode}]: {r[mode] * 1e3:.2f} ms"
        if count:
            line += f" = {r[mode] / count * 1e9:.0f} ns/{unit}"
        line += f"; tsjit/CPython {r[mode] / r['cpython']:.2f}x"
        if "torch.jit" in r:
            line += f"; tsjit/torch.jit {r[mode] / r['torch.jit']:.2f}x"
            if mode == "codegen" and goal:
                line += f" (goal <= {goal}x: {'met' if r[mode] / r['torch.jit'] <= goal else 'missed'})"
        print(line)
    n = r["instructions"]
    print(f"  {n:,} interpreter instructions executed: "
          f"{r['interpreter'] / n * 1e9:.0f} ns/instruction interpreted (budget 300 ns/node)")
    ref = f"  CPython {r['cpython'] * 1e3:.2f} ms"
    if "torch.jit" in r:
        ref += f"; torch.jit {r['torch.jit'] * 1e3:.2f} ms"
    print(ref)


def bench_compile(torch: object, repeat: int = 5) -> dict:
    """Median time of the script call alone: each run first loads the workload afresh
    (new classes, new functions) and builds the module, untimed, as issue 3 measures
    tsjit.script against torch.jit.script (loading and building are not scripting).
    tsjit and torch runs alternate, so a burst of load on the machine hits both."""
    counter = iter(range(10 ** 6))

    def time_script(lib: Any, script: Callable[[Any], Any]) -> float:
        module = load_workload("compile_ctrl", lib, f"{lib.__name__}{next(counter)}").build()
        t = time.perf_counter()
        script(module)
        return time.perf_counter() - t

    sides = {"tsjit": (tsjit, tsjit.script)}
    if torch is not None:
        sides["torch.jit"] = (torch, torch.jit.script)
    times: dict[str, list[float]] = {name: [] for name in sides}
    for i in range(repeat + 1):   # the first round warms up
        for name, (lib, script) in sides.items():
            t = time_script(lib, script)
            if i:
                times[name].append(t)
    return {name: statistics.median(ts) for name, ts in times.items()}


def main() -> None:
    torch = try_import_torch()
    if torch is not None:
        torch.set_num_threads(1)
    report("scalar_loop", bench_run("scalar_loop", torch, repeat=3), "node", SCALAR_LOOP_NODES, 1.0)
    report("list_dict_str", bench_run("list_dict_str", torch), "word", 5000, 0.5)
    report("tiny_ops", bench_run("tiny_ops", torch, repeat=15), "op", 1000, 1.0)
    # the class-heavy module's run time (issue 17: at most torch.jit's)
    report("compile_ctrl run", bench_run("compile_ctrl", torch, repeat=31), goal=1.0)
    r = bench_compile(torch, repeat=11)
    line = f"compile_ctrl: tsjit.script {r['tsjit'] * 1e3:.1f} ms"
    if "torch.jit" in r:
        line += f"; torch.jit.script {r['torch.jit'] * 1e3:.1f} ms (ratio {r['tsjit'] / r['torch.jit']:.2f}x)"
    print(line)


if __name__ == "__main__":
    main()
