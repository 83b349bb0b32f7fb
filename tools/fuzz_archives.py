"""The long fuzz run of hostile archives: corpus archives mutated (see
tests/helpers/archive_fuzz.py), each loaded under limits and called; only tsjit errors
may come out, and no case may take over 5 s of CPU (wall-clock is reported too; on a shared
machine it stretches with the load, CPU time does not).

    PYTHONPATH=. python tools/fuzz_archives.py [--cases 100000] [--start 0]

Prints a progress line every 5,000 cases and at the end: cases, outcomes by class, the
cases that took the most CPU and every escaped exception with its seed (case N is reproduced by
`Corpus().case(N)`). Exit status 1 if anything escaped or a case took over 5 s of CPU.
"""
from __future__ import annotations

import argparse
import collections
import signal
import sys
import time

from tests.helpers.archive_fuzz import Corpus, Outcome, run_case

import tsjit

LIMIT_SECONDS = 5.0     # the most CPU one case may take
HANG_SECONDS = 30       # a case still running after this much CPU is stopped and reported


class _Hang(BaseException):
    """Raised by the CPU-time alarm in a case that runs for HANG_SECONDS."""


def _alarm(signum: int, frame: object) -> None:
    raise _Hang()


def main(argv: list[str]) -> int:
    """Run the cases; print the summary; 1 if anything escaped or was slow."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=100_000)
    ap.add_argument("--start", type=int, default=0)
    args = ap.parse_args(argv)
    limits = tsjit.Limits(load_seconds=LIMIT_SECONDS, call_seconds=LIMIT_SECONDS)
    corpus = Corpus()
    # a CPU-time alarm (SIGPROF): a loaded machine must not turn a slow case into a "hang"
    signal.signal(signal.SIGPROF, _alarm)
    outcomes: collections.Counter[str] = collections.Counter()
    by_kind: collections.Counter[str] = collections.Counter()
    slowest: list[tuple[float, int, str, str]] = []
    escaped: list[tuple[int, str, str, str]] = []
    most_wall = (0.0, -1)
    began = time.perf_counter()
    for seed in range(args.start, args.start + args.cases):
        name, kind, data, calls = corpus.case(seed)
        signal.setitimer(signal.ITIMER_PROF, HANG_SECONDS)
        try:
            out = run_case(data, calls, limits)
        except _Hang:
            out = Outcome("HANG", float(HANG_SECONDS), cpu=float(HANG_SECONDS))
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
        outcomes[out.result] += 1
        by_kind[kind] += 1
        slowest = sorted(slowest + [(out.cpu, seed, name, kind)], reverse=True)[:5]
        most_wall = max(most_wall, (out.seconds, seed))
        if out.result.startswith(("ESCAPED", "HANG")) or out.cpu > LIMIT_SECONDS:
            print(f"seed {seed} ({name}, {kind}): {out.result} in {out.cpu:.2f} s of CPU "
                  f"({out.seconds:.2f} s wall) {out.detail}", flush=True)
        if out.result.startswith(("ESCAPED", "HANG")):
            escaped.append((seed, name, kind, f"{out.result}: {out.detail}"))
        done = seed - args.start + 1
        if done % 5000 == 0:
            print(f"{done} cases, {time.perf_counter() - began:.0f} s, "
                  f"{sum(1 for e in escaped)} escaped, most CPU in a case {slowest[0][0]:.2f} s",
                  flush=True)
    print(f"cases: {args.cases} (seeds {args.start}..{args.start + args.cases - 1}), "
          f"{time.perf_counter() - began:.0f} s")
    print("mutations:", dict(sorted(by_kind.items())))
    for result, n in outcomes.most_common():
        print(f"  {n:7d}  {result}")
    print(f"longest wall-clock time of a case: {most_wall[0]:.2f} s (seed {most_wall[1]})")
    print("most CPU:", ", ".join(f"{s:.2f} s (seed {seed}, {name}, {kind})"
                                 for s, seed, name, kind in slowest))
    for seed, name, kind, what in escaped:
        print(f"ESCAPED seed {seed} ({name}, {kind}): {what}")
    slow = [s for s in slowest if s[0] > LIMIT_SECONDS]
    return 1 if escaped or slow else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
