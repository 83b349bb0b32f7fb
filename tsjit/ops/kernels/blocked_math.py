"""Elementwise formulas of activations with in-place ufuncs, in the input's own floating dtype:
GELU (erf form, block by block), SiLU, sigmoid, hardswish and hardsigmoid.

A formula of k numpy passes over a large array streams it through memory k times and
allocates k temporaries; run over blocks of `BLOCK` elements with two reused scratch buffers,
every pass after the first reads from the L2 cache (measured on a 1.2M-element float32 array:
a pass costs ~0.35 ms over the whole array, ~0.22 ms summed over L2-sized blocks). That pays
for GELU's twenty passes; the four-pass formulas measured no faster blocked, so they are not.

GELU's erf uses Abramowitz & Stegun 7.1.26 (|error| <= 1.5e-7, the float32 precision
PyTorch's vectorised kernel also has): erfc(a) ~ t*(a1 + t*(a2 + ... a5*t)) * exp(-a*a) with
t = 1 / (1 + p*a). Written as gelu(x) = relu(x) - |x|/2 * erfc(|x|/sqrt(2)) it needs no
select and no cancellation for negative x. float64 keeps scipy's exact erfc (this
approximation is float32-accurate only).
"""
from __future__ import annotations

import math
from typing import Callable, Optional

import numpy as np

# 256 KiB per buffer, four buffers within a core's 2 MiB L2; measured on convnext's GELU shapes
# (1.2M, 600K, 100K elements): 16 K blocks 5.3 / 2.4 / 0.37 ms, 64 K 4.5 / 2.0 / 0.30 ms,
# 256 K 5.0 / 2.4 / 0.31 ms, unblocked 6.6 / 3.2 / 0.31 ms (the numpy calls' own cost is
# what small blocks pay)
BLOCK = 65536
NATIVE = (np.dtype(np.float32), np.dtype(np.float64))

_P = 0.3275911 / math.sqrt(2)       # A&S p, folded with the 1/sqrt(2) of GELU's argument
# A&S a1..a5, times -1/2 (the factor of |x| * erfc in the GELU form above)
_A = tuple(-0.5 * a for a in (0.254829592, -0.284496736, 1.421413741, -1.453152027,
                              1.061405429))


def blocked(formula: Callable[..., None], x: np.ndarray, scratch: int) -> np.ndarray:
    """A new array of x's shape and dtype: `formula(x_block, out_block, *scratch_blocks)` run
    over contiguous blocks of x (the formula writes out_block and may overwrite scratch)."""
    x = np.asarray(x, order="C")        # (ascontiguousarray would make a 0-d array 1-d)
    out = np.empty_like(x)
    xf, of = x.reshape(-1), out.reshape(-1)
    n = xf.size
    if n <= BLOCK:      # one block: no slicing (the models' small activations)
        formula(xf, of, *(np.empty(n, x.dtype) for _ in range(scratch)))
        return out
    step = BLOCK
    tmps = [np.empty(step, x.dtype) for _ in range(scratch)]
    for s in range(0, n, step):
        e = min(s + step, n)
        formula(xf[s:e], of[s:e], *(t[:e - s] for t in tmps))
    return out


def _gelu32(x: np.ndarray, out: np.ndarray, a: np.ndarray, t: np.ndarray) -> None:
    np.abs(x, out=a)
    np.add(a, 1 / _P, out=t)          # t = 1 / (1 + p|x|) = (1/p) / (1/p + |x|): two passes
    np.divide(1 / _P, t, out=t)
    np.multiply(t, _A[4], out=out)
    for c in (_A[3], _A[2], _A[1]):
        out += c
        out *= t
    out += _A[0]
    out *= t                          # -erfc(|x|/sqrt2) / 2 without its exp factor
    np.multiply(x, x, out=t)
    t *= -0.5
    np.exp(t, out=t)
    out *= t
    out *= a
    np.maximum(x, 0, out=t)
    out += t


def gelu_erf(x: np.ndarray) -> np.ndarray:
    """Exact GELU, x * Phi(x), of a float array in its own dtype."""
    if x.dtype == np.float64:
        import scipy.special  # ~0.1 s to import: only float64 GELU pays it
        return 0.5 * x * scipy.special.erfc(x * -math.sqrt(0.5))
    return blocked(_gelu32, x, 2)


def sigmoid(x: np.ndarray, out: Optional[np.ndarray] = None) -> np.ndarray:
    """1 / (1 + exp(-x)) of a float array in its own dtype (exp overflows to inf for very
    negative x, giving the right 0), into `out` (which may be x) or a new array."""
    y = np.negative(x, out=np.empty_like(x) if out is None else out)   # (0-d: no scalar)
    np.exp(y, out=y)
    y += 1
    return np.reciprocal(y, out=y)


def silu(x: np.ndarray, out: Optional[np.ndarray] = None) -> np.ndarray:
    """x * sigmoid(x) in x's dtype, into `out` (which may be x) or a new array."""
    y = np.negative(x, out=np.empty_like(x))
    np.exp(y, out=y)
    y += 1
    return np.divide(x, y, out=y if out is None else out)


def hardsigmoid(x: np.ndarray, out: Optional[np.ndarray] = None) -> np.ndarray:
    """clamp(x + 3, 0, 6) / 6 in x's dtype, into `out` (which may be x) or a new array."""
    y = np.add(x, 3, out=np.empty_like(x) if out is None else out)
    np.clip(y, 0, 6, out=y)
    y /= 6
    return y


def hardswish(x: np.ndarray, out: Optional[np.ndarray] = None) -> np.ndarray:
    """x * clamp(x + 3, 0, 6) / 6 in x's dtype, into `out` (which may be x) or a new
    array."""
    y = hardsigmoid(x)
    return np.multiply(y, x, out=y if out is None else out)
