"""Formulas over the last dim of float arrays in their own dtype: softmax (plain, and the
attention form whose fully masked rows give 0).

numpy sums short contiguous rows one at a time (float32 rows of 49: 0.55 ns per element
against 0.11 for a matrix-vector product with a vector of ones), so row sums are BLAS
products; the row maximum stays `np.maximum.reduce` (a transposed copy or a tree of
pairwise maxima measured slower on the models' shapes)."""
from __future__ import annotations

import numpy as np

_ONES: dict[tuple[int, np.dtype], np.ndarray] = {}
# (lowest finite, smallest normal) of each native float dtype
_BOUNDS = {np.dtype(t): (np.finfo(t).min, np.finfo(t).tiny) for t in (np.float32, np.float64)}


def ones(n: int, dt: np.dtype) -> np.ndarray:
    """A read-only vector of n ones of dtype dt (a row sum is a product with it)."""
    v = _ONES.get((n, dt))
    if v is None:
        v = np.ones(n, dt)
        v.flags.writeable = False
        _ONES[(n, dt)] = v
    return v


def softmax_last(x: np.ndarray, safe: bool = False) -> np.ndarray:
    """Softmax over the last dim of float32/float64 `x`, computed in place in x (a fresh
    C-ordered array the caller owns). Rows of only -inf give NaN as in PyTorch's softmax, or
    0 when `safe` (its attention's `_safe_softmax`); NaN and +inf give NaN rows either way."""
    n = x.shape[-1] if x.ndim else 1
    if x.size == 0:
        return x
    lowest, tiny = _BOUNDS[x.dtype]
    m = np.maximum.reduce(x, axis=-1, keepdims=True) if x.ndim else x.copy()
    # a row of -inf keeps a finite shift: its entries become exp(-inf) = 0, not NaN
    np.maximum(m, lowest, out=m)
    x -= m
    np.exp(x, out=x)
    s = x.reshape(-1, n) @ ones(n, x.dtype)     # >= 1 unless the row was all -inf
    if safe:
        # all -inf: 0 * (1 / tiny) = 0; other rows are unchanged by the bound
        np.maximum(s, tiny, out=s)
    np.reciprocal(s, out=s)
    x *= s.reshape(x.shape[:-1] + (1,)) if x.ndim else s.reshape(())
    return x
