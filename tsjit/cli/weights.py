"""`tsjit weights`: one line of statistics per tensor, one tensor in memory at a time."""
from __future__ import annotations

import argparse
import json
import math
from typing import Any, Iterator


HELP = "a table of every tensor: name, shape, dtype, bytes, min, max, mean, std"
EXAMPLE = "tsjit weights model.pt --json"
_CHUNK = 1 << 20          # elements per step: statistics never hold more than this in float64


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The command's arguments."""
    p.add_argument("file", help="a TorchScript archive or a torch.save checkpoint")
    p.add_argument("--json", action="store_true",
                   help="one JSON object per line: name, shape, dtype, bytes, min, max, mean, std")


def run(args: argparse.Namespace) -> int:
    """Print one row per tensor as it is measured."""
    from .contents import open_file
    view = open_file(args.file)
    if not args.json:
        print(f"{'name':<40} {'shape':<18} {'dtype':<9} {'bytes':>10} "
              f"{'min':>11} {'max':>11} {'mean':>11} {'std':>11}")
    for ref in view.tensors():
        row = measure(ref, view.chunks(ref))
        if args.json:
            print(json.dumps(row))
        else:
            nums = " ".join(f"{'-' if v is None else v if isinstance(v, str) else format(v, '.4g'):>11}"
                            for v in (row["min"], row["max"], row["mean"], row["std"]))
            print(f"{ref.name:<40} {str(tuple(row['shape'])):<18} {row['dtype']:<9} "
                  f"{row['bytes']:>10} {nums}")
    return 0


def measure(ref: Any, chunks: Iterator[Any]) -> dict[str, Any]:
    """The row of one tensor from its values, a chunk at a time; statistics in float64
    (None when empty or complex)."""
    import numpy as np
    row: dict[str, Any] = {"name": ref.name, "shape": list(ref.shape), "dtype": ref.dtype,
                           "bytes": ref.nbytes, "min": None, "max": None, "mean": None, "std": None}
    if ref.numel == 0 or ref.dtype.startswith("complex"):
        return row
    lo, hi, count, m2 = math.inf, -math.inf, 0, 0.0
    mean = 0.0
    for a in chunks:
        for start in range(0, a.size, _CHUNK):
            c = a[start:start + _CHUNK].astype(np.float64)
            lo, hi = min(lo, float(c.min())), max(hi, float(c.max()))
            # Chan's parallel update: mean and sum of squared deviations, chunk by chunk
            n, cm = c.size, float(c.mean())
            cm2 = float(((c - cm) ** 2).sum())
            delta, total = cm - mean, count + n
            mean += delta * n / total
            m2 += cm2 + delta * delta * count * n / total
            count = total
    # std as torch.std: Bessel's correction (n - 1)
    std = math.sqrt(m2 / (count - 1)) if count > 1 else None
    row.update(min=_json_number(lo), max=_json_number(hi), mean=_json_number(mean),
               std=None if std is None else _json_number(std))
    return row


def _json_number(v: float) -> Any:
    # JSON has no inf or nan: they are written as the strings "inf", "-inf", "nan"
    return v if math.isfinite(v) else str(v)
