"""The model zoo (tests/zoo) as a table: for each real model, whether tsjit loads it, the first
call's time, steady-state time of tsjit against torch.jit (both one thread, medians), whether the
outputs match PyTorch's, and whether tsjit's re-save runs in PyTorch with the same results.

    python benchmarks/bench_zoo.py [NAME ...] [--repeat N] [--markdown]

A failing step prints the first line of its error (the missing operator, usually).
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from typing import Any, Callable  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # tests.helpers

from tests.helpers import zoo_generate  # noqa: E402
from tests.helpers.zoo_compare import assert_match, from_tsjit, to_tsjit, tolerance  # noqa: E402
from tests.helpers.zoo_models import CASES  # noqa: E402

import tsjit  # noqa: E402


def _median_ms(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"[:160]


def measure(case, repeat: int) -> dict:
    """One row of the table for `case` (errors recorded, never raised)."""
    import torch
    row: dict = {"model": case.name}
    why = zoo_generate.missing_library(case.library)
    if why:
        row["error"] = why
        return row
    folder = zoo_generate.ensure(case.name)
    io = zoo_generate.load_io(folder)
    path = os.path.join(folder, "model.pt")
    try:
        t = time.perf_counter()
        m = tsjit.load(path)
        row["load_ms"] = (time.perf_counter() - t) * 1e3
        args = to_tsjit(io["inputs"])
        t = time.perf_counter()
        out = m(*args)
        row["first_ms"] = (time.perf_counter() - t) * 1e3
        try:
            assert_match(from_tsjit(out), io["outputs"], tolerance(case))
            row["match"] = "yes"
        except AssertionError as e:
            row["match"] = f"no ({e})"[:120]
        m(*args)
        row["tsjit_ms"] = _median_ms(lambda: m(*args), repeat)
    except Exception as e:
        row["error"] = _first_line(e)
        return row
    ref = torch.jit.load(path)
    targs = zoo_generate.to_torch(io["inputs"])
    with torch.no_grad():
        ref(*targs)
        ref(*targs)
        row["torch_ms"] = _median_ms(lambda: ref(*targs), repeat)
    try:
        with tempfile.TemporaryDirectory() as d:
            tsjit.save(m, os.path.join(d, "re.pt"))
            back = torch.jit.load(os.path.join(d, "re.pt"))
            with torch.no_grad():
                again = back(*zoo_generate.to_torch(io["inputs"]))
        assert_match(zoo_generate.to_numpy(again), io["outputs"], tolerance(case))
        row["resave"] = "yes"
    except Exception as e:
        row["resave"] = f"no ({_first_line(e)})"
    return row


def _fmt(row: dict) -> list[str]:
    def ms(k):
        return f"{row[k]:.0f}" if k in row else "-"
    ratio = (f"{row['tsjit_ms']:.1f} / {row['torch_ms']:.1f} = "
             f"{row['tsjit_ms'] / row['torch_ms']:.1f}x") if "torch_ms" in row else "-"
    load = "yes" if "load_ms" in row else "no"
    return [row["model"], f"{load} ({ms('load_ms')} ms)" if load == "yes" else load,
            ms("first_ms"), ratio, row.get("match", "-"), row.get("resave", "-"),
            row.get("error", "")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    import torch
    torch.set_num_threads(1)
    cases = [c for c in CASES if not args.names or c.name in args.names]
    head = ["model", "load", "first call ms", "steady ms tsjit / torch.jit", "match",
            "re-save runs in PyTorch", "error"]
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    for c in cases:
        print("| " + " | ".join(_fmt(measure(c, args.repeat))) + " |", flush=True)


if __name__ == "__main__":
    main()
