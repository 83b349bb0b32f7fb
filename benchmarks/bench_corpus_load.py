"""Warm loads of the corpus archives (tests/data/corpus): CPU time of loading all of them.

    python benchmarks/bench_corpus_load.py [--rounds N] [--runs N]

Each run is a fresh process that loads every archive once (imports, parser tables and
kernel modules warm), then loads them all `--rounds` times and prints the best round's
CPU time; the best over `--runs` processes is reported. CPU time, not wall time: on a
shared machine a round waits for a core, and the load-time checks being measured cost a
few per cent. Compare two trees with `PYTHONPATH=<tree> python benchmarks/bench_corpus_load.py`.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

_CHILD = r"""
import glob, os, sys, time
import tsjit
paths = sorted(glob.glob(os.path.join(sys.argv[1], "*", "model.pt")))
for p in paths:
    tsjit.load(p)
best = float("inf")
for _ in range(int(sys.argv[2])):
    t = time.process_time()
    for p in paths:
        tsjit.load(p)
    best = min(best, time.process_time() - t)
print(len(paths), best)
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=8, help="rounds per process (best of)")
    ap.add_argument("--runs", type=int, default=3, help="processes (best of)")
    args = ap.parse_args()
    sys.path.insert(0, ROOT)
    from tests.helpers.corpus import CORPUS
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (os.environ.get("PYTHONPATH"), ROOT) if p))
    env.pop("PYTHONDONTWRITEBYTECODE", None)   # (bytecode caches: a warm process's imports)
    results = []
    for _ in range(args.runs):
        r = subprocess.run([sys.executable, "-c", _CHILD, CORPUS, str(args.rounds)],
                           capture_output=True, text=True, env=env, check=True)
        n, took = r.stdout.split()
        results.append(float(took))
    print(f"warm load of {n} corpus archives: {min(results) * 1e3:.2f} ms CPU "
          f"(best round of {args.rounds}, best of {args.runs} processes)")


if __name__ == "__main__":
    main()
