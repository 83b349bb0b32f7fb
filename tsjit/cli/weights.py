"""`tsjit weights`: one line of statistics per tensor, one tensor in memory at a time."""
from __future__ import annotations

import argparse
import json
import math
from typing import Any, Iterator

from .files import checkpoint_kind

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
    if not args.json:
        print(f"{'name':<40} {'shape':<18} {'dtype':<9} {'bytes':>10} "
              f"{'min':>11} {'max':>11} {'mean':>11} {'std':>11}")
    for name, t in named_tensors(args.file):
        row = measure(name, t)
        if args.json:
            print(json.dumps(row))
        else:
            nums = " ".join(f"{'-' if v is None else v if isinstance(v, str) else format(v, '.4g'):>11}"
                            for v in (row["min"], row["max"], row["mean"], row["std"]))
            print(f"{name:<40} {str(tuple(row['shape'])):<18} {row['dtype']:<9} "
                  f"{row['bytes']:>10} {nums}")
    return 0


def named_tensors(path: str) -> Iterator[tuple[str, Any]]:
    """(name, tensor) of an archive's parameters and buffers or a checkpoint's tensors."""
    what = checkpoint_kind(path)
    if what is None:
        from ..jit import load
        m = load(path)
        yield from m.named_parameters()
        yield from m.named_buffers()
        return
    from ..serialization import load as load_checkpoint
    from .info import tensors_in
    # mmap: a tensor's bytes are read when it is measured, not all at once
    yield from tensors_in(load_checkpoint(path, weights_only=False, mmap="legacy" not in what))


def measure(name: str, t: Any) -> dict[str, Any]:
    """The row of one tensor; statistics in float64, a chunk at a time (None when empty or
    complex)."""
    import numpy as np
    a = t.numpy(force=True).reshape(-1)
    row: dict[str, Any] = {"name": name, "shape": list(t.shape),
                           "dtype": str(t.dtype).replace("torch.", ""),
                           "bytes": t.numel() * t.element_size(),
                           "min": None, "max": None, "mean": None, "std": None}
    if a.size == 0 or np.iscomplexobj(a):
        return row
    lo, hi, total, count, m2 = math.inf, -math.inf, 0.0, 0, 0.0
    mean = 0.0
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
