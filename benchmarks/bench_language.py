"""Interpreter cost per graph node and compile time, against PyTorch and CPython.

    OMP_NUM_THREADS=1 python benchmarks/bench_language.py

scalar_loop: Collatz step counts for n < 2300 (1,007,231 graph nodes executed, see
../shared/bench/README.md); list_dict_str: the tokenizer workload; compile_ctrl:
tsjit.script of a ~65-line module vs torch.jit.script (warm, fresh classes).
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import tsjit  # noqa: E402
from _workloads import load_workload, median_time, try_import_torch  # noqa: E402

SCALAR_LOOP_NODES = 1_007_231


def bench_run(name: str, torch: object, repeat: int = 5) -> dict:
    out = {}
    ts = load_workload(name, tsjit, "tsjit")
    m = tsjit.script(ts.build())
    args = ts.inputs()
    out["tsjit"] = median_time(lambda: m(*args), repeat)
    out["cpython"] = median_time(lambda: ts.numpy_reference(None, *args), repeat)
    if torch is not None:
        tw = load_workload(name, torch, "torch")
        tm = torch.jit.script(tw.build())
        targs = tw.inputs()
        out["torch.jit"] = median_time(lambda: tm(*targs), repeat)
    return out


def bench_compile(torch: object, repeat: int = 5) -> dict:
    out = {}
    counter = iter(range(10 ** 6))

    def script_tsjit() -> None:
        w = load_workload("compile_ctrl", tsjit, f"tsjit{next(counter)}")
        tsjit.script(w.build())
    out["tsjit"] = median_time(script_tsjit, repeat)
    if torch is not None:
        def script_torch() -> None:
            w = load_workload("compile_ctrl", torch, f"torch{next(counter)}")
            torch.jit.script(w.build())
        out["torch.jit"] = median_time(script_torch, repeat)
    return out


def main() -> None:
    torch = try_import_torch()
    r = bench_run("scalar_loop", torch, repeat=3)
    line = f"scalar_loop: tsjit {r['tsjit'] * 1e3:.1f} ms = {r['tsjit'] / SCALAR_LOOP_NODES * 1e9:.0f} ns/node"
    line += f"; CPython {r['cpython'] * 1e3:.1f} ms (tsjit/CPython {r['tsjit'] / r['cpython']:.1f}x)"
    if "torch.jit" in r:
        line += f"; torch.jit {r['torch.jit'] * 1e3:.1f} ms (tsjit/torch.jit {r['tsjit'] / r['torch.jit']:.2f}x)"
    print(line)
    try:
        r = bench_run("list_dict_str", torch)
        line = f"list_dict_str: tsjit {r['tsjit'] * 1e3:.2f} ms; CPython {r['cpython'] * 1e3:.2f} ms"
        if "torch.jit" in r:
            line += f"; torch.jit {r['torch.jit'] * 1e3:.2f} ms (tsjit/torch.jit {r['tsjit'] / r['torch.jit']:.2f}x)"
        print(line)
    except Exception as err:  # noqa: BLE001  (report and go on)
        print(f"list_dict_str: not runnable yet: {type(err).__name__}: {str(err).splitlines()[0]}")
    try:
        r = bench_compile(torch)
        line = f"compile_ctrl: tsjit.script {r['tsjit'] * 1e3:.1f} ms"
        if "torch.jit" in r:
            line += f"; torch.jit.script {r['torch.jit'] * 1e3:.1f} ms (ratio {r['tsjit'] / r['torch.jit']:.2f}x)"
        print(line)
    except Exception as err:  # noqa: BLE001
        print(f"compile_ctrl: not compilable yet: {type(err).__name__}: {str(err).splitlines()[0]}")


if __name__ == "__main__":
    main()
