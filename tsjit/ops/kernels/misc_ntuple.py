"""TorchScript's builtins `_single`, `_pair`, `_triple`, `_quadruple` (torch.nn.modules.utils):
an int repeated n times, or a list passed through."""
from __future__ import annotations

from ..registry import op


def _ntuple(n: int):  # type: ignore[no-untyped-def]
    def from_int(x: int) -> list:
        return [x] * n

    def from_list(x: list) -> list:
        return list(x)
    return from_int, from_list


for _n, _name in ((1, "_single"), (2, "_pair"), (3, "_triple"), (4, "_quadruple")):
    _from_int, _from_list = _ntuple(_n)
    op(f"aten::{_name}.int(int x) -> int[]")(_from_int)
    op(f"aten::{_name}.list(int[] x) -> int[]")(_from_list)
