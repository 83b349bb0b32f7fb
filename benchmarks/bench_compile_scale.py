"""Compile time against method size (not a test):
`python benchmarks/bench_compile_scale.py [--shape SHAPE] [sizes]`.

For each size n (statements in one `forward`, default 4k 8k 16k 32k 64k), an archive whose
forward is n statements of the shape is loaded and its first call timed (the method is
parsed and compiled then), then the module is saved again (printing its code). Shapes
(tests/helpers/hostile_code.LONG): `straight` (each statement uses the one before),
`unused` (results nobody reads: dead-code removal), `folded` (an operation on constants
in each: constant folding), `nested_ifs` (n nested `if`s each binding a name; default
depths 100 200 400 800: the names merged grow as n^2, so 2.0 is the floor there).
Prints the times and the growth exponent between consecutive sizes (1.0: linear).
"""
from __future__ import annotations

import io
import math
import sys
import tempfile
import time
from pathlib import Path

import tsjit
from tests.helpers.hostile_code import LONG, archive_with_forward


def measure(n: int, folder: Path, shape: str = "straight") -> tuple[float, float]:
    """(first call, re-save) seconds for a forward of `n` statements of `shape`."""
    path = archive_with_forward(folder / f"m{n}.pt", LONG[shape](n))
    m = tsjit.jit.load(path)
    t0 = time.process_time()
    m(1)
    t1 = time.process_time()
    tsjit.jit.save(m, io.BytesIO())
    t2 = time.process_time()
    return t1 - t0, t2 - t1


def main(argv: list[str]) -> None:
    shape = "straight"
    if argv[:1] == ["--shape"]:
        shape, argv = argv[1], argv[2:]
    default = [100, 200, 400, 800] if shape == "nested_ifs" else [4000, 8000, 16000, 32000, 64000]
    sizes = [int(a) for a in argv] or default
    tsjit.jit.set_executor("interpreter")  # the compiler's time, not code generation's
    print(f"{'statements':>10} {'compile s':>10} {'exp':>5} {'save s':>8} {'exp':>5}")
    prev = None
    with tempfile.TemporaryDirectory() as d:
        for n in sizes:
            c, s = measure(n, Path(d), shape)
            if prev is None:
                print(f"{n:>10} {c:>10.2f} {'':>5} {s:>8.2f}")
            else:
                pn, pc, ps = prev
                k = math.log(n / pn)
                print(f"{n:>10} {c:>10.2f} {math.log(c / pc) / k:>5.2f} {s:>8.2f} "
                      f"{math.log(s / ps) / k:>5.2f}")
            prev = (n, c, s)
            sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
