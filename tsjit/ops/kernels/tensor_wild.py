"""Small operators met in archives from the wild (torchvision, transformers, timm, whisper,
optimize_for_inference): `_shape_as_tensor`, `_unsafe_view`, `tril_indices` / `triu_indices`,
`lerp_`, the conjugate and negative views (`conj`, `resolve_conj`, `resolve_neg`, `is_conj`,
`is_neg`), `grid_sampler_2d`, and `to_mkldnn` / `to_dense` (tsjit has one layout: MKL-DNN
tensors of `torch.jit.optimize_for_inference` are plain tensors here).
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from ..._tensor import dtypes as D
from ..._tensor.kernel_util import wrap, write_into
from ..._tensor.tensor import Tensor
from ..registry import find, op

_OPTS = "Layout? layout=None, Device? device=None, bool? pin_memory=None"


@op("aten::_shape_as_tensor(Tensor self) -> Tensor")
def _shape_as_tensor(self: Tensor) -> Tensor:
    """The shape as a 1-d int64 tensor (what tracing records for `x.shape` in ONNX mode)."""
    return wrap(np.array(self._a.shape, np.int64))


@op("aten::_unsafe_view(Tensor self, SymInt[] size) -> Tensor")
def _unsafe_view(self: Tensor, size: Sequence[int]) -> Tensor:
    """view without the aliasing bookkeeping: the same values in `size`."""
    return find("aten::view").kernel(self, size)


def _tri_indices(row: int, col: int, offset: int, dtype: Any, lower: bool) -> Tensor:
    if row < 0 or col < 0:
        raise RuntimeError(f"row must be non-negative, got {row}" if row < 0 else
                           f"col must be non-negative, got {col}")
    r, c = (np.tril_indices if lower else np.triu_indices)(row, offset, col)
    dt = D.to_numpy_dtype(D.as_dtype(4 if dtype is None else dtype))
    if dt.kind not in "iu":
        raise RuntimeError(f"tril_indices / triu_indices: dtype {D.as_dtype(dtype)} is not an "
                           "integer type")
    return wrap(np.stack([r, c]).astype(dt).reshape(2, -1))


@op(f"aten::tril_indices(int row, int col, int offset=0, *, ScalarType? dtype=long, {_OPTS}) "
    "-> Tensor")
def tril_indices(row: int, col: int, offset: int = 0, dtype: Any = 4, layout: Any = None,
                 device: Any = None, pin_memory: Any = None) -> Tensor:
    """The [2, N] coordinates of the lower triangle of a row x col matrix, row by row."""
    return _tri_indices(row, col, offset, dtype, True)


@op(f"aten::triu_indices(int row, int col, int offset=0, *, ScalarType? dtype=long, {_OPTS}) "
    "-> Tensor")
def triu_indices(row: int, col: int, offset: int = 0, dtype: Any = 4, layout: Any = None,
                 device: Any = None, pin_memory: Any = None) -> Tensor:
    """The [2, N] coordinates of the upper triangle of a row x col matrix, row by row."""
    return _tri_indices(row, col, offset, dtype, False)


@op("aten::lerp_.Scalar(Tensor(a!) self, Tensor end, Scalar weight) -> Tensor(a!)",
    "aten::lerp_.Tensor(Tensor(a!) self, Tensor end, Tensor weight) -> Tensor(a!)")
def lerp_(self: Tensor, end: Tensor, weight: Any) -> Tensor:
    """self += weight * (end - self), in place."""
    r = find("aten::lerp.Tensor" if isinstance(weight, Tensor) else "aten::lerp.Scalar").kernel(
        self, end, weight)
    if r._a.shape != self._a.shape:
        raise RuntimeError(f"output with shape {list(self._a.shape)} doesn't match the "
                           f"broadcast shape {list(r._a.shape)}")
    return write_into(self, r._a)


@op("aten::conj(Tensor(a) self) -> Tensor(a)")
def conj(self: Tensor) -> Tensor:
    """The complex conjugate (the tensor itself when it is real)."""
    if self._a.dtype.kind != "c":
        return self
    return wrap(np.conj(self._a))


@op("aten::resolve_conj(Tensor(a) self) -> Tensor(a)",
    "aten::resolve_neg(Tensor(a) self) -> Tensor(a)")
def resolve_conj(self: Tensor) -> Tensor:
    """The tensor itself: tsjit's conjugates and negations are never lazy views."""
    return self


@op("aten::is_conj(Tensor self) -> bool", "aten::is_neg(Tensor self) -> bool")
def is_conj(self: Tensor) -> bool:
    """False: tsjit has no lazily conjugated or negated views."""
    return False


@op("aten::grid_sampler_2d(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, "
    "bool align_corners) -> Tensor")
def grid_sampler_2d(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                    align_corners: bool) -> Tensor:
    """grid_sampler on a 4-d input (what F.grid_sample calls for images)."""
    if input._a.ndim != 4 or grid._a.ndim != 4:
        raise RuntimeError("grid_sampler(): expected 4D input and grid with same number of "
                           f"dimensions, but got input with sizes {list(input._a.shape)} and "
                           f"grid with sizes {list(grid._a.shape)}")
    return find("aten::grid_sampler").kernel(input, grid, interpolation_mode, padding_mode,
                                             align_corners)


@op("aten::to_mkldnn(Tensor self, ScalarType? dtype=None) -> Tensor")
def to_mkldnn(self: Tensor, dtype: Optional[int] = None) -> Tensor:
    """A copy (in `dtype`, float32 or bfloat16 only, as PyTorch's MKL-DNN layout allows)."""
    if dtype is not None and int(dtype) not in (6, 15):
        raise RuntimeError("to_mkldnn expects float or bfloat16 tensor")
    if self._a.dtype != np.float32 and dtype is None:
        raise RuntimeError("to_mkldnn expects float or bfloat16 tensor")
    return wrap(self._a.copy())


@op("aten::to_dense(Tensor self, ScalarType? dtype=None, *, bool? masked_grad=None) -> Tensor")
def to_dense(self: Tensor, dtype: Optional[int] = None,
             masked_grad: Optional[bool] = None) -> Tensor:
    """The tensor in the strided layout: itself, or a copy in `dtype`."""
    if dtype is None or D.as_dtype(dtype) == self.dtype:
        return self
    return wrap(self._a.astype(D.to_numpy_dtype(D.as_dtype(dtype))))
