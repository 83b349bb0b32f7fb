"""The records an archive holds are the ones the layout in `serialize/export.py`'s docstring
lists, and saving writes each of them (the "add an archive record" recipe in docs/design.md:
a new record is written, documented and read, or this fails)."""
from __future__ import annotations

import re
import zipfile
from pathlib import Path

import tsjit
from tsjit.serialize import export


def _layout() -> dict[str, re.Pattern]:
    """Documented record name (`data/0`) -> the names it stands for."""
    out = {}
    for line in export.__doc__.splitlines():
        m = re.match(r"\s+<top>/(\S+)", line)
        if m:
            doc = m.group(1)
            pattern = re.escape(doc).replace(re.escape("<name>"), ".+").replace(
                re.escape("<path>"), ".+")
            pattern = re.sub(r"(?<=/)0$", r"\\d+", pattern)    # numbered: data/0, data/1 ...
            out[doc] = re.compile(pattern)
    return out


class _Plain(tsjit.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = tsjit.nn.Linear(2, 2)

    def forward(self, x: tsjit.Tensor) -> tsjit.Tensor:
        return self.linear(x)


class _Versioned(tsjit.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.scale = tsjit.ones(2)

    def forward(self, x: tsjit.Tensor) -> tsjit.Tensor:
        return x * self.scale + tsjit.linspace(0.0, 1.0, 2)


def _records(tmp_path: Path) -> list[str]:
    names = []
    frozen = tsjit.jit.freeze(tsjit.script(_Versioned()).eval())   # tensor constants in code
    for i, m in enumerate([tsjit.script(_Plain()), frozen]):
        path = tmp_path / f"m{i}.pt"
        tsjit.save(m, str(path), _extra_files={"notes.txt": "n"})
        with zipfile.ZipFile(path) as z:
            names += [n.split("/", 1)[1] for n in z.namelist()]
    return names


def test_every_record_is_documented_and_every_documented_record_is_written(tmp_path: Path) -> None:
    layout = _layout()
    assert {"data.pkl", "constants.pkl", "byteorder"} <= set(layout)
    names = _records(tmp_path)
    undocumented = [n for n in names if not any(p.fullmatch(n) for p in layout.values())]
    assert not undocumented, f"records missing from export.py's layout: {undocumented}"
    unwritten = [d for d, p in layout.items() if not any(p.fullmatch(n) for n in names)]
    assert not unwritten, f"documented records no save wrote: {unwritten}"


def test_saved_records_load_back(tmp_path: Path) -> None:
    _records(tmp_path)
    x = tsjit.ones(2)
    for i in range(2):
        extra = {"notes.txt": ""}
        m = tsjit.load(str(tmp_path / f"m{i}.pt"), _extra_files=extra)
        assert extra["notes.txt"] == b"n" and tuple(m(x).shape) == (2,)
