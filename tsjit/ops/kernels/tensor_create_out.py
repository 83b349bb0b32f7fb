"""The `out=` forms of the creation operators old archives call through their upgraders
(`aten::full.out`, `aten::linspace.out`, `aten::logspace.out`): the values are made in out's
dtype, then out is resized to them and filled."""
from __future__ import annotations

from typing import Any, Sequence

from ..._tensor.tensor import Tensor
from ..registry import op
from .tensor_create import full, linspace, logspace
from .tensor_out import store_out


@op("aten::full.out(SymInt[] size, Scalar fill_value, *, Tensor(a!) out) -> Tensor(a!)")
def full_out(size: Sequence[int], fill_value: Any, out: Tensor) -> Tensor:
    """out resized to size and filled with fill_value (converted to out's dtype)."""
    return store_out(full(size, fill_value, out.dtype), out)


@op("aten::linspace.out(Scalar start, Scalar end, int steps, *, Tensor(a!) out) -> Tensor(a!)")
def linspace_out(start: Any, end: Any, steps: int, out: Tensor) -> Tensor:
    """linspace computed in out's dtype, stored into out."""
    return store_out(linspace(start, end, steps, out.dtype), out)


@op("aten::logspace.out(Scalar start, Scalar end, int steps, float base=10., *, "
    "Tensor(a!) out) -> Tensor(a!)")
def logspace_out(start: Any, end: Any, steps: int, base: float, out: Tensor) -> Tensor:
    """logspace computed in out's dtype, stored into out."""
    return store_out(logspace(start, end, steps, base, out.dtype), out)

