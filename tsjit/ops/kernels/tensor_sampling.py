"""grid_sampler (bilinear / nearest / bicubic, zeros / border / reflection padding, 4-d and
5-d inputs) and affine_grid_generator: what F.grid_sample and F.affine_grid call."""
from __future__ import annotations

import itertools
from typing import Sequence

import numpy as np

from ..registry import op
from ..._tensor.kernel_util import fmt_shape, quiet, wrap
from ..._tensor.tensor import Tensor

_MODES = {0: "bilinear", 1: "nearest", 2: "bicubic"}


def _fused_mul_add(a: np.ndarray, b: float, c: float) -> np.ndarray:
    """a * b + c rounded once (as an FMA does), in a's dtype."""
    if a.dtype == np.float32:
        # a float32 product is exact in float64: one rounding to float32 remains
        return (a.astype(np.float64) * float(b) + float(c)).astype(np.float32)
    # float64: split a in two 26-bit halves (Veltkamp) so that each half times b (a short
    # number: half a size) is exact, giving the product's rounding error exactly (Dekker);
    # TwoSum then keeps the error of adding c, and only the final sum rounds (to nearest)
    with np.errstate(over="ignore", invalid="ignore"):
        split = a * 134217729.0                                # 2**27 + 1
        hi = split - (split - a)
    hi = np.where(np.isfinite(hi), hi, a)
    lo = a - hi
    p = a * b
    err = (hi * b - p) + lo * b
    s = p + c
    bb = s - p
    t = (p - (s - bb)) + (c - bb)
    return s + (t + err)


def _unnormalize(g: np.ndarray, size: int, align_corners: bool, vectorized: bool) -> np.ndarray:
    """Grid values in [-1, 1] to pixel coordinates (corner pixels' centres, or their edges),
    computed in g's dtype with the operations PyTorch's CPU kernels use: they decide which
    pixel a grid value half-way between two pixels rounds to."""
    f = g.dtype.type
    if align_corners:
        if vectorized:
            return (g + f(1)) * (f(size - 1) / f(2))
        return ((g + f(1)) / f(2)) * f(size - 1)
    if vectorized:
        # the 4-d kernel's (g + 1) * (size / 2) - 0.5 is contracted to a fused multiply-subtract
        # in PyTorch's (AVX2) build: observed on float64, where it changes the rounding
        return _fused_mul_add(g + f(1), f(size) / f(2), -0.5)
    return ((g + f(1)) * f(size) - f(1)) / f(2)


def _reflect(x: np.ndarray, twice_low: int, twice_high: int) -> np.ndarray:
    if twice_low == twice_high:
        return np.zeros_like(x)
    lo = twice_low / 2
    span = (twice_high - twice_low) / 2
    x = np.abs(x - lo)
    extra = np.fmod(x, span)
    flips = np.floor(x / span)
    return np.where(flips % 2 == 0, extra + lo, span - extra + lo)


def _reflect_vec(x: np.ndarray, low: float, twice_span: int) -> np.ndarray:
    # the 4-d kernel's reflection: whole double spans taken off, then folded once
    f = x.dtype.type
    ts = f(twice_span)
    a = np.abs(x - f(low))
    extra = a - np.trunc(a / ts) * ts
    return np.minimum(extra, ts - extra) + f(low)


def _pad(x: np.ndarray, size: int, padding: int, align_corners: bool,
         vectorized: bool = False) -> np.ndarray:
    """Coordinates after border (1) or reflection (2) padding; zeros (0) leaves them."""
    if padding == 2:
        if vectorized:
            x = (np.zeros_like(x) if size <= 1 else _reflect_vec(x, 0, 2 * (size - 1))) \
                if align_corners else _reflect_vec(x, -0.5, 2 * size)
        else:
            x = _reflect(x, 0, 2 * (size - 1)) if align_corners else \
                _reflect(x, -1, 2 * size - 1)
    if padding in (1, 2):
        # PyTorch's clamp sends NaN to 0
        return np.where(np.isnan(x), 0, np.clip(x, 0, size - 1))
    return x


def _gather(inp: np.ndarray, idx: Sequence[np.ndarray], sizes: Sequence[int]) -> np.ndarray:
    """inp[n, :, idx...] as (N, C, *out), zero where an index falls outside."""
    inside = np.ones(idx[0].shape, bool)
    safe = []
    for i, s in zip(idx, sizes):
        i = np.where(np.isnan(i), -1, i)      # a NaN coordinate samples nothing
        inside &= (i >= 0) & (i < s)
        safe.append(np.clip(i, 0, max(s - 1, 0)).astype(np.intp))
    n = np.arange(inp.shape[0]).reshape((-1,) + (1,) * (idx[0].ndim - 1))
    chan_last = np.moveaxis(inp, 1, -1)
    v = chan_last[(n, *safe)] * inside[..., None]
    return np.moveaxis(v, -1, 1)


def _cubic_weights(t: np.ndarray) -> list[np.ndarray]:
    # cubic convolution (A = -0.75) at distances 1 + t, t, 1 - t, 2 - t
    a = -0.75

    def near(x: np.ndarray) -> np.ndarray:
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x: np.ndarray) -> np.ndarray:
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


@op("aten::grid_sampler(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, "
    "bool align_corners) -> Tensor")
@quiet
def grid_sampler(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                 align_corners: bool) -> Tensor:
    """input sampled at the grid's normalised coordinates (x, y[, z]) in [-1, 1]."""
    inp, g = input._a, grid._a
    d = inp.ndim - 2
    if inp.ndim not in (4, 5) or g.ndim != inp.ndim or g.shape[-1] != d:
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number of "
                           f"dimensions, but got input with sizes {fmt_shape(inp.shape)} and "
                           f"grid with sizes {fmt_shape(g.shape)}")
    if inp.shape[0] != g.shape[0]:
        raise RuntimeError("grid_sampler(): expected grid and input to have same batch size, but "
                           f"got input with sizes {fmt_shape(inp.shape)} and grid with sizes "
                           f"{fmt_shape(g.shape)}")
    if input.dtype.kind != "f" or grid.dtype != input.dtype:
        raise RuntimeError("grid_sampler(): expected input and grid to have same dtype, but "
                           f"input has {input.dtype.cname} and grid has {grid.dtype.cname}")
    if interpolation_mode == 2 and d != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if interpolation_mode not in _MODES:
        raise RuntimeError(f"grid_sampler(): unknown interpolation mode {interpolation_mode}")
    sizes = inp.shape[2:]
    # coordinates are computed in the input's dtype, as PyTorch does: a float64 detour rounds
    # grid values half-way between two pixels differently. 4-d inputs go through PyTorch's
    # vectorized kernel, 5-d ones through its scalar kernel, which compute them differently
    gt = g if g.dtype in (np.float32, np.float64) else g.astype(np.float32)
    vec = d == 2
    # grid's last axis is (x, y[, z]): reversed against the spatial dims (..., H, W)
    coords = [_unnormalize(gt[..., d - 1 - k], sizes[k], align_corners, vec) for k in range(d)]
    if interpolation_mode == 2:
        return wrap(_bicubic(inp, coords, sizes, padding_mode, align_corners).astype(inp.dtype))
    coords = [_pad(c, s, padding_mode, align_corners, vec) for c, s in zip(coords, sizes)]
    if interpolation_mode == 1:
        # round half to even, like nearbyint
        return wrap(_gather(inp, [np.rint(c) for c in coords], sizes).astype(inp.dtype))
    if d == 2:
        return wrap(bilinear_2d(inp, coords[0], coords[1]).astype(inp.dtype, copy=False))
    lo = [np.floor(c) for c in coords]
    frac = [c - f for c, f in zip(coords, lo)]
    out = 0
    for corner in itertools.product((0, 1), repeat=d):      # 2**d corners, not elements
        w = 1
        for k, bit in enumerate(corner):
            w = w * (frac[k] if bit else 1 - frac[k])
        v = _gather(inp, [lo[k] + bit for k, bit in enumerate(corner)], sizes)
        out = out + v * w[:, None]
    # a NaN coordinate (left by zeros padding only) gives 0 in PyTorch's 5-d kernel (which
    # also sends NaN elsewhere under border / reflection padding: not reproduced)
    return wrap(np.asarray(out).astype(inp.dtype))


def bilinear_2d(inp: np.ndarray, y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """inp (N, C, H, W) sampled bilinearly at pixel coordinates y, x (N, Ho, Wo), zero
    outside: (N, C, Ho, Wo), with the weights and the order of PyTorch's 4-d kernel.

    The corners are read from a copy of the input with a border of two zeros: coordinates
    are clamped into [-2, size] (a NaN to size), so every corner lands in the copy, and one
    outside the input reads a zero (a gather and a mask per corner made this 20x PyTorch on
    RAFT's correlation lookups). Values and weights are (N, C, points): the products' inner
    loops run along the points whatever C is. A NaN or infinite coordinate gives a NaN
    weight, so NaN, as PyTorch's 4-d kernel gives."""
    n, c, h, w = inp.shape
    y0, x0 = np.floor(y), np.floor(x)
    fy, fx = y - y0, x - x0
    hp, wp = h + 4, w + 4
    xp = np.zeros((n, c, hp, wp), inp.dtype)
    xp[:, :, 2:h + 2, 2:w + 2] = inp
    flat = xp.reshape(-1)
    # (fmin / fmax pass NaN's other operand: a NaN coordinate clamps to size, outside)
    iy = np.fmax(np.fmin(y0, h), -2).astype(np.intp)
    ix = np.fmax(np.fmin(x0, w), -2).astype(np.intp)
    iy *= wp
    iy += ix
    iy += 2 * wp + 2
    base = iy.reshape(n, 1, -1) + (np.arange(n * c) * (hp * wp)).reshape(n, c, 1)
    one = fy.dtype.type(1)
    s, e = one - fy, one - fx
    fy, fx, s, e = (v.reshape(n, 1, -1) for v in (fy, fx, s, e))
    out = flat[base] * (s * e)
    base += 1
    out += flat[base] * (s * fx)
    base += wp - 1
    out += flat[base] * (fy * e)
    base += 1
    out += flat[base] * (fy * fx)
    return out.reshape((n, c) + y.shape[1:])


def _any_nan(coords: list) -> np.ndarray:
    nan = np.zeros(coords[0].shape, bool)
    for c in coords:
        nan |= np.isnan(c)
    return nan


def _bicubic(inp: np.ndarray, coords: list, sizes: Sequence[int], padding: int,
             align_corners: bool) -> np.ndarray:
    y, x = coords
    y0, x0 = np.floor(y), np.floor(x)
    wy, wx = _cubic_weights(y - y0), _cubic_weights(x - x0)
    out = 0
    for i in range(4):
        for j in range(4):
            # each tap is padded on its own (border clamps, reflection mirrors the tap)
            yi = _pad(y0 - 1 + i, sizes[0], padding, align_corners, True)
            xj = _pad(x0 - 1 + j, sizes[1], padding, align_corners, True)
            v = _gather(inp, [yi, xj], sizes)
            out = out + v * (wy[i] * wx[j])[:, None]
    return np.where(_any_nan(coords)[:, None], np.nan, out)


def _base_coords(n: int, align_corners: bool, dt: np.dtype) -> np.ndarray:
    if n <= 1:
        return np.zeros(max(n, 0), dt)
    r = np.linspace(-1, 1, n, dtype=dt)
    return r if align_corners else r * dt.type((n - 1) / n)


@op("aten::affine_grid_generator(Tensor theta, SymInt[] size, bool align_corners) -> Tensor")
@quiet
def affine_grid_generator(theta: Tensor, size: Sequence[int], align_corners: bool) -> Tensor:
    """The sampling grid of F.affine_grid: theta applied to the normalised output coordinates."""
    th = theta._a
    size = [int(s) for s in size]
    if len(size) not in (4, 5):
        raise RuntimeError("AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.")
    d = len(size) - 2
    if th.dtype.kind != "f":
        raise RuntimeError(f"expected theta to be floating point, got {theta.dtype.cname}")
    spatial = size[2:][::-1]     # x varies along the last dim
    axes = [_base_coords(s, align_corners, th.dtype) for s in spatial]
    mesh = list(np.meshgrid(*axes[::-1], indexing="ij"))[::-1]     # (W, H[, D]) coordinate arrays
    base = np.stack(mesh + [np.ones_like(mesh[0])], -1)      # (*spatial dims, d + 1)
    flat = base.reshape(-1, d + 1)
    grid = np.einsum("pk,njk->npj", flat, th)                # (N, points, d)
    return wrap(np.ascontiguousarray(grid.reshape((size[0],) + tuple(size[2:]) + (d,))
                                     .astype(th.dtype)))
