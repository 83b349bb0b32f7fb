"""The model zoo (tests/zoo) as a markdown table of tsjit against torch.jit, one thread.

    python benchmarks/bench_zoo.py [--models NAME,NAME ...] [--repeat N] [--fresh N] [--resave]

Per model, in one process: `tsjit.load` time, the first call's time (tsjit compiles lazily, so
the first call pays the parse and compilation), whether the outputs match PyTorch's recorded
ones, and the steady-state time of tsjit and of torch.jit — the two called in turn, best of
`--repeat`, after warm-up calls. Then, in fresh processes (tsjit's never imports torch),
`import` + load + first call, and the peak RSS of that process (torch's imports torchvision too
where the archive needs its operators); tsjit's and torch's processes
take turns, best of `--fresh`, after one untimed process each. The children may write Python's
bytecode caches (PYTHONDONTWRITEBYTECODE is dropped): an installed tsjit has them, as an
installed torch does, and without them every process would compile tsjit's ~140 modules. `--resave` adds whether tsjit's re-save runs in PyTorch with the
same results. The archives are the zoo's cache (tests/helpers/zoo_generate.py), built on demand.

The machine is shared: every ratio is taken from measurements made side by side in one run.
A failing step prints the first line of its error (the missing operator, usually).
`TSJIT_BENCH_CLOCK=cpu` times the steady calls in the calling thread's CPU time (for a loaded
machine; see _workloads.BENCH_CLOCK).
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

from _workloads import best_of_interleaved  # noqa: E402
from typing import Any, Callable  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

# The fresh process: its clock starts before the library's import; reading the recorded
# inputs is not timed. Prints one JSON line. argv: library ("tsjit" or "torch"), model folder,
# "tv" when torch must import torchvision (its C++ operators, through the zoo's shim) to load.
_CHILD = r"""
import os, sys, time, pickle, json
t0 = time.perf_counter()
lib, folder = sys.argv[1], sys.argv[2]
if lib == "tsjit":
    import tsjit as L
    load, from_numpy = L.load, L.from_numpy
else:
    import torch as L
    L.set_num_threads(1)
    if sys.argv[3:] == ["tv"]:
        from tests.helpers.zoo_generate import import_torchvision
        import_torchvision()
    L.set_grad_enabled(False)
    load, from_numpy = L.jit.load, L.from_numpy
t1 = time.perf_counter()
m = load(os.path.join(folder, "model.pt"))
t2 = time.perf_counter()
with open(os.path.join(folder, "io.pkl"), "rb") as f:
    inputs = pickle.load(f)["inputs"]
def conv(v):
    if type(v).__name__ == "ndarray":
        return from_numpy(v.copy())
    if isinstance(v, (list, tuple)):
        return type(v)(conv(x) for x in v)
    if isinstance(v, dict):
        return {k: conv(x) for k, x in v.items()}
    return v
args = conv(inputs)
def peak_rss_mb():
    # VmHWM belongs to this process's memory map; ru_maxrss would carry the parent's over exec
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmHWM:")) / 1024
t3 = time.perf_counter()
m(*args)
t4 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "load": t2 - t1, "first": t4 - t3,
                  "total": (t1 - t0) + (t2 - t1) + (t4 - t3),
                  "rss_mb": peak_rss_mb()}))
"""


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"[:160]



def fresh_process(lib: str, folder: str, timeout: float = 600, tv: bool = False) -> dict:
    """Import + load + first call of `folder`'s model by `lib` in a new Python process
    (`tv`: torch imports torchvision too, which archives of detection models need)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [ROOT] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    r = subprocess.run([sys.executable, "-c", _CHILD, lib, folder] + (["tv"] if tv else []),
                       capture_output=True, text=True, env=env, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError((r.stderr.strip().splitlines() or ["?"])[-1])
    return json.loads(r.stdout.strip().splitlines()[-1])


def measure(case, repeat: int, fresh: int, resave: bool) -> dict:
    """One row of the table for `case` (errors recorded, never raised)."""
    import torch
    import tsjit
    from tests.helpers import zoo_generate
    from tests.helpers.zoo_compare import assert_match, from_tsjit, to_tsjit, tolerance
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
    except Exception as e:
        row["error"] = _first_line(e)
        return row
    t = time.perf_counter()
    ref = torch.jit.load(path)
    row["torch_load_ms"] = (time.perf_counter() - t) * 1e3
    targs = zoo_generate.to_torch(io["inputs"])
    with torch.no_grad():
        t = time.perf_counter()
        ref(*targs)
        row["torch_first_ms"] = (time.perf_counter() - t) * 1e3
        ref(*targs)
        best = best_of_interleaved({"tsjit": lambda: m(*args), "torch": lambda: ref(*targs)},
                                   repeat)
    row["tsjit_ms"], row["torch_ms"] = best["tsjit"], best["torch"]
    if fresh:
        try:
            runs: dict[str, list[dict]] = {"tsjit": [], "torch": []}
            # the first processes write bytecode caches and bring the files into memory
            fresh_process("tsjit", folder)
            try:
                fresh_process("torch", folder)
                tv = False
            except RuntimeError:        # torchvision's operators are needed
                fresh_process("torch", folder, tv=True)
                tv = True
            for _ in range(fresh):
                for lib in runs:
                    runs[lib].append(fresh_process(lib, folder, tv=tv and lib == "torch"))
            for lib, rs in runs.items():
                row[f"{lib}_cold_ms"] = min(r["total"] for r in rs) * 1e3
                row[f"{lib}_rss_mb"] = min(r["rss_mb"] for r in rs)
        except Exception as e:
            row["error"] = f"fresh process: {_first_line(e)}"
    if resave:
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


def _pair(row: dict, a: str, b: str, digits: int = 0) -> str:
    if a not in row or b not in row:
        return "-"
    return f"{row[a]:.{digits}f} / {row[b]:.{digits}f} = {row[a] / row[b]:.2f}x"


def columns(resave: bool) -> list[tuple[str, Callable[[dict], str]]]:
    """The table's columns: header and how a row is shown."""
    def ms(k):
        return lambda r: f"{r[k]:.0f}" if k in r else "-"
    cols = [
        ("model", lambda r: r["model"]),
        ("load ms tsjit / torch", lambda r: _pair(r, "load_ms", "torch_load_ms")),
        ("first call ms tsjit / torch", lambda r: _pair(r, "first_ms", "torch_first_ms")),
        ("steady ms tsjit / torch.jit", lambda r: _pair(r, "tsjit_ms", "torch_ms", 1)),
        ("fresh process import+load+first ms", lambda r: _pair(r, "tsjit_cold_ms",
                                                                "torch_cold_ms")),
        ("peak RSS MiB", lambda r: _pair(r, "tsjit_rss_mb", "torch_rss_mb")),
        ("match", lambda r: r.get("match", "-")),
    ]
    if resave:
        cols.append(("re-save runs in PyTorch", lambda r: r.get("resave", "-")))
    cols.append(("error", lambda r: r.get("error", "")))
    return cols


def summary(rows: list[dict]) -> list[str]:
    """Geometric means and worst cases of the ratios over the models that ran."""
    lines = []
    for label, a, b in (("steady", "tsjit_ms", "torch_ms"),
                        ("fresh process", "tsjit_cold_ms", "torch_cold_ms"),
                        ("peak RSS", "tsjit_rss_mb", "torch_rss_mb"),
                        ("first call", "first_ms", "torch_first_ms")):
        ratios = [(r[a] / r[b], r["model"]) for r in rows if a in r and b in r]
        if ratios:
            geo = math.exp(sum(math.log(x) for x, _ in ratios) / len(ratios))
            worst = max(ratios)
            lines.append(f"- {label}: geometric mean {geo:.2f}x over {len(ratios)} models, "
                         f"worst {worst[0]:.2f}x ({worst[1]})")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="", help="comma-separated case names (default: all)")
    ap.add_argument("--repeat", type=int, default=5, help="steady calls per side (best of)")
    ap.add_argument("--fresh", type=int, default=1, help="fresh processes per side (best of); "
                    "0 skips them")
    ap.add_argument("--resave", action="store_true", help="check tsjit's re-save in PyTorch")
    args = ap.parse_args()
    sys.path.insert(0, ROOT)
    import torch
    torch.set_num_threads(1)
    from tests.helpers.zoo_models import CASES
    wanted = [n for n in args.models.split(",") if n]
    unknown = set(wanted) - {c.name for c in CASES}
    if unknown:
        ap.error(f"unknown models: {', '.join(sorted(unknown))}")
    cases = [c for c in CASES if not wanted or c.name in wanted]
    cols = columns(args.resave)
    print(f"one thread; steady: best of {args.repeat} interleaved calls; fresh processes: "
          f"best of {args.fresh} per side\n")
    print("| " + " | ".join(h for h, _ in cols) + " |")
    print("|" + " --- |" * len(cols))
    rows = []
    for c in cases:
        row = measure(c, args.repeat, args.fresh, args.resave)
        rows.append(row)
        print("| " + " | ".join(show(row) for _, show in cols) + " |", flush=True)
    print()
    print("\n".join(summary(rows)))


if __name__ == "__main__":
    main()
