"""Interpreter cost per graph node and compile time, against PyTorch and CPython.

    OMP_NUM_THREADS=1 python benchmarks/bench_language.py

scalar_loop: Collatz step counts for n < 2300 (1,007,231 graph nodes executed, see
../shared/bench/README.md); list_dict_str: the tokenizer workload (5,000 words);
tiny_ops: 1,000 additions of 4-element tensors; compile_ctrl run: one call of the ~65-line
class-heavy module; each under both executors (the stack interpreter, and the codegen tier)
next to CPython and torch.jit, with issue 6's and 17's goals. compile_ctrl: tsjit.script of
that module vs torch.jit.script (warm, fresh classes).

`--cold [N]` measures instead what a fresh process pays (issue 17), tsjit's and torch's
processes taking turns, median of N (default 7) after one untimed process each: the
library's import, the first script of a small function and its first call, then the first
script of a small nn.Module and its first call (CPU time of the process's main thread;
`import+script+call` sums the import and the function's script and call). Goals: the first
script at most 2x torch.jit.script's, import+script+call at most 0.5x torch's. The children
may write bytecode caches, as an installed package has them; `--no-bytecode` runs tsjit from
a copy without caches, with PYTHONDONTWRITEBYTECODE=1.
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


# The fresh process of `--cold`: run as a file (scripting reads the functions' source);
# argv: the library ("tsjit" or "torch"). Prints one JSON line of CPU times.
COLD_CHILD = r"""
import json, sys, time
clock = time.process_time
t0 = clock()
if sys.argv[1] == "tsjit":
    import tsjit as torch
else:
    import torch
    torch.set_num_threads(1)
t1 = clock()


def f(x: torch.Tensor, n: int) -> torch.Tensor:
    for i in range(n):
        x = x * 2.0 + 1.0
    return x.relu()


class M(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.fc(x)).sum(dim=1)


x = torch.ones(2, 4)
t2 = clock()
sf = torch.jit.script(f)
t3 = clock()
sf(x, 3)
t4 = clock()
m = M()
t5 = clock()
sm = torch.jit.script(m)
t6 = clock()
sm(x)
t7 = clock()
print(json.dumps({"import": t1 - t0, "script fn": t3 - t2, "call fn": t4 - t3,
                  "script module": t6 - t5, "call module": t7 - t6,
                  "import+script+call": (t1 - t0) + (t4 - t2)}))
"""

COLD_KEYS = ("import", "script fn", "call fn", "script module", "call module",
             "import+script+call")


def bench_cold(runs: int, bytecode: bool) -> dict[str, dict[str, float]]:
    """Median CPU times of each cold step, per library, over `runs` fresh processes each."""
    import json
    import shutil
    import subprocess
    import tempfile
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as tmp:
        child = os.path.join(tmp, "cold_child.py")
        with open(child, "w") as fh:
            fh.write(COLD_CHILD)
        tree = root
        if not bytecode:
            tree = os.path.join(tmp, "src")
            shutil.copytree(os.path.join(root, "tsjit"), os.path.join(tree, "tsjit"),
                            ignore=shutil.ignore_patterns("__pycache__"))
        results: dict[str, list[dict]] = {"tsjit": [], "torch": []}
        for i in range(runs + 1):    # the first round warms the file cache
            for lib in results:
                env = dict(os.environ, PYTHONPATH=tree if lib == "tsjit" else root,
                           OMP_NUM_THREADS="1")
                if lib == "tsjit" and not bytecode:
                    env["PYTHONDONTWRITEBYTECODE"] = "1"
                else:
                    env.pop("PYTHONDONTWRITEBYTECODE", None)
                out = subprocess.run([sys.executable, child, lib], env=env, check=True,
                                     capture_output=True, text=True).stdout
                if i:
                    results[lib].append(json.loads(out.strip().splitlines()[-1]))
    return {lib: {k: statistics.median(r[k] for r in rs) for k in COLD_KEYS}
            for lib, rs in results.items()}


def report_cold(r: dict[str, dict[str, float]]) -> None:
    """One line per step: tsjit, torch, the ratio, and the goal where issue 17 sets one."""
    goals = {"script fn": 2.0, "script module": 2.0, "import+script+call": 0.5}
    for k in COLD_KEYS:
        a, b = r["tsjit"][k], r["torch"][k]
        line = f"cold {k}: tsjit {a * 1e3:.1f} ms; torch {b * 1e3:.1f} ms; ratio {a / b:.2f}x"
        if k in goals:
            line += f" (goal <= {goals[k]}x: {'met' if a / b <= goals[k] else 'missed'})"
        print(line)


def main() -> None:
    if "--cold" in sys.argv:
        rest = [a for a in sys.argv[1:] if a.isdigit()]
        report_cold(bench_cold(int(rest[0]) if rest else 7, "--no-bytecode" not in sys.argv))
        return
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
