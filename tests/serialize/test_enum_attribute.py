"""A module attribute holding an enum value (timm's `Format`): PyTorch pickles it as
`GLOBAL <enum class>; <value>; REDUCE`; tsjit loads it as the member, runs code comparing it,
and writes it back in the same form."""
from __future__ import annotations

import zipfile
from enum import Enum

import pytest

import tsjit

torch = pytest.importorskip("torch")


class Layout(Enum):
    NCHW = "NCHW"
    NHWC = "NHWC"


class Permuter(torch.nn.Module):
    def __init__(self, layout: Layout) -> None:
        super().__init__()
        self.layout = layout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.layout == Layout.NHWC:
            return x.permute(0, 2, 3, 1)
        return x


@pytest.mark.parametrize("layout", list(Layout))
def test_enum_attribute_loads_runs_and_resaves(tmp_path, layout):
    path = str(tmp_path / "m.pt")
    torch.jit.save(torch.jit.script(Permuter(layout)), path)
    data = zipfile.ZipFile(path).read("m/data.pkl")
    assert b"Layout" in data and layout.value.encode() in data
    m = tsjit.load(path)
    assert m.layout.name == layout.name and m.layout.value == layout.value
    x = torch.rand(1, 2, 3, 4)
    assert tuple(m(tsjit.from_numpy(x.numpy())).shape) == tuple(Permuter(layout)(x).shape)
    again = str(tmp_path / "again.pt")
    tsjit.save(m, again)
    assert zipfile.ZipFile(again).read("again/data.pkl") == data
    assert torch.jit.load(again)(x).shape == Permuter(layout)(x).shape
