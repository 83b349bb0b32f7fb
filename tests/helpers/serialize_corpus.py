"""Shared helpers for the serialize tests: the corpus archives and strict value comparison."""
from __future__ import annotations

import math
import zipfile
from pathlib import Path
from typing import Any, Iterator

from tests.helpers import corpus

CORPUS = Path(corpus.CORPUS)
ARCHIVES = sorted(CORPUS.glob("*/model.pt"))


def case_name(path: Path) -> str:
    """`model_mlp` for `.../model_mlp/model.pt`."""
    return path.parent.name


def pickle_records() -> Iterator[tuple[str, str, bytes]]:
    """(case, record name, bytes) for every pickle record of every corpus archive."""
    for path in ARCHIVES:
        with zipfile.ZipFile(path) as z:
            for name in z.namelist():
                if name.endswith(".pkl") or name.endswith(".debug_pkl"):
                    yield case_name(path), name, z.read(name)


def same(a: Any, b: Any) -> bool:
    """Strict equality: same kinds (bool is not int, list is not tuple), NaN equals NaN,
    -0.0 differs from 0.0; tuple subclasses count as tuples."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return len(a) == len(b) and all(
            same(ka, kb) and same(va, vb) for (ka, va), (kb, vb) in zip(a.items(), b.items()))
    return a == b


def code_files(path: Any) -> dict[str, str]:
    """code/*.py record name (below the top folder) -> text, of one archive."""
    with zipfile.ZipFile(path) as z:
        return {n.split("/", 1)[1]: z.read(n).decode("utf-8") for n in z.namelist()
                if n.split("/", 1)[1].startswith("code/") and n.endswith(".py")}


def code_after_round_trip(case: str, folder: Any) -> list[tuple[str, str, str]]:
    """(file, PyTorch's text, tsjit's text or "") for every code file of corpus `case`,
    tsjit's being what tsjit.save writes for tsjit.load of the case's archive."""
    import tsjit
    archive = CORPUS / case / "model.pt"
    out = Path(folder) / f"{case}.pt"
    tsjit.save(tsjit.load(str(archive)), str(out))
    ours = code_files(out)
    return [(name, text, ours.get(name, "")) for name, text in sorted(code_files(archive).items())]
