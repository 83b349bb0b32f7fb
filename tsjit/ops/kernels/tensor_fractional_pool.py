"""Fractional max pooling (2-d and 3-d): windows of a fixed size at pseudo-random,
increasing offsets drawn from one sample per plane and dimension (Graham, 2014)."""
from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ..registry import op
from ..._tensor.kernel_util import fmt_shape, wrap
from ..._tensor.tensor import Tensor
from .tensor_conv import tup


def _intervals(sample: np.floating, size: int, out: int, pool: int) -> np.ndarray:
    """Window starts along one dimension: `out` increasing offsets ending at size - pool.
    The arithmetic is in the samples' precision, as the offsets depend on its rounding."""
    starts = np.empty(out, np.int64)
    if out > 1:
        alpha = sample.dtype.type(size - pool) / sample.dtype.type(out - 1)
        base = int(sample * alpha)
        for i in range(out - 1):
            starts[i] = int((sample.dtype.type(i) + sample) * alpha) - base
    starts[out - 1] = size - pool
    return starts


def _fractional(x: Tensor, kernel_size: Any, output_size: Any, samples: Tensor,
                nd: int) -> tuple:
    name = f"fractional_max_pool{nd}d"
    a = x._a
    if a.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: "
                           f"{fmt_shape(a.shape)}")
    unbatched = a.ndim == nd + 1
    a = a[None] if unbatched else a
    k, out = tup(kernel_size, nd), tup(output_size, nd)
    sizes = a.shape[2:]
    for d in range(nd):
        # PyTorch's 3-d check is strict (a window may not end at the last element)
        if out[d] + k[d] - 1 > sizes[d] - (nd == 3):
            raise RuntimeError(f"{name}(): pool size {k[d]} too large relative to input size "
                               f"{sizes[d]} and output size {out[d]}")
    r = samples._a
    if r.shape[:2] != a.shape[:2] or r.shape[2] != nd:
        raise RuntimeError(f"{name}(): expected random samples of shape "
                           f"{fmt_shape(a.shape[:2] + (nd,))}, got {fmt_shape(r.shape)}")
    n, c = a.shape[:2]
    values = np.empty((n, c) + tuple(out), a.dtype)
    indices = np.empty((n, c) + tuple(out), np.int64)
    # The samples of a plane are stored last dimension first for 2-d (w, h), in order
    # for 3-d (t, h, w), as PyTorch stores them.
    order = [1, 0] if nd == 2 else [0, 1, 2]
    strides = [int(np.prod(sizes[d + 1:])) for d in range(nd)]
    for b, ch in itertools.product(range(n), range(c)):
        plane = a[b, ch]
        starts = [_intervals(r[b, ch, order[d]], sizes[d], out[d], k[d]) for d in range(nd)]
        for pos in itertools.product(*[range(o) for o in out]):
            corner = [starts[d][pos[d]] for d in range(nd)]
            window = plane[tuple(slice(s, s + kk) for s, kk in zip(corner, k))].reshape(-1)
            nan = np.isnan(window) if window.dtype.kind == "f" else np.zeros(window.shape, bool)
            # The first NaN wins, else the first maximum (row-major order).
            at = int(np.argmax(nan)) if nan.any() else int(np.argmax(window))
            offset = np.unravel_index(at, tuple(k))
            values[(b, ch) + pos] = window[at]
            indices[(b, ch) + pos] = sum((corner[d] + int(offset[d])) * strides[d]
                                         for d in range(nd))
    if unbatched:
        values, indices = values[0], indices[0]
    return wrap(values), wrap(indices)


@op("aten::fractional_max_pool2d(Tensor self, int[2] kernel_size, int[2] output_size, "
    "Tensor random_samples) -> (Tensor, Tensor)")
def fractional_max_pool2d(self: Tensor, kernel_size: Any, output_size: Any,
                          random_samples: Tensor) -> tuple:
    """2-d fractional max pooling, with the flat (h * W + w) indices of the maxima."""
    return _fractional(self, kernel_size, output_size, random_samples, 2)


@op("aten::fractional_max_pool3d(Tensor self, int[3] kernel_size, int[3] output_size, "
    "Tensor random_samples) -> (Tensor, Tensor)")
def fractional_max_pool3d(self: Tensor, kernel_size: Any, output_size: Any,
                          random_samples: Tensor) -> tuple:
    """3-d fractional max pooling, with the flat (t * H * W + h * W + w) indices."""
    return _fractional(self, kernel_size, output_size, random_samples, 3)
