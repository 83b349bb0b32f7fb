"""Resampling kernels behind F.interpolate: nearest, nearest-exact, (bi/tri)linear,
bicubic and the antialiased bilinear / bicubic / lanczos variants.

Every mode is separable, so the spatial dims are resampled one after another. Nearest
source indices are computed in float32 like PyTorch, so they pick the same pixels.
"""
from __future__ import annotations

import math
from typing import Any, Optional, Sequence

import numpy as np

from ..registry import op
from ..._tensor.kernel_util import fmt_shape, not_implemented, quiet, wrap
from ..._tensor.tensor import Tensor
from .tensor_reduce import acc


def _sizes(a: np.ndarray, nd: int, output_size: Optional[Sequence[int]],
           scales: Sequence[Optional[float]], name: str) -> list[int]:
    if a.ndim != nd + 2:
        raise RuntimeError(f"Expected {nd + 2}D input for {name}, but got "
                           f"{a.ndim}D input of size {fmt_shape(a.shape)}")
    if output_size is None:
        raise RuntimeError("Must specify exactly one of output_size and scale_factors")
    out = [int(s) for s in output_size]
    if len(out) != nd:
        raise RuntimeError(f"It is expected output_size equals to {nd}, but got size {len(out)}")
    if any(s <= 0 for s in out) or any(s <= 0 for s in a.shape[2:]):
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({', '.join(map(str, a.shape[2:]))}) output "
                           f"({', '.join(map(str, out))})")
    return out


def _vec(input: Tensor, output_size: Optional[Sequence[int]],
         scale_factors: Optional[Sequence[float]], nd: int) -> tuple[list[int], list]:
    """Output sizes and per-dim scales for the .vec overloads."""
    if (output_size is None) == (scale_factors is None):
        raise RuntimeError("Must specify exactly one of output_size and scale_factors")
    sp = input._a.shape[2:]
    if output_size is not None:
        return list(output_size), [None] * nd
    sf = list(scale_factors)   # type: ignore[arg-type]
    if len(sf) != nd:
        raise RuntimeError(f"It is expected scale_factors equals to {nd}, but got size "
                           f"{len(sf)}")
    return [int(math.floor(float(n) * s)) for n, s in zip(sp, sf)], sf


def _scale(n_in: int, n_out: int, scale: Optional[float], align_corners: bool) -> float:
    if align_corners:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    if scale is not None and scale > 0:
        return 1.0 / scale
    return n_in / n_out


def _nearest_index(n_in: int, n_out: int, scale: Optional[float], exact: bool,
                   shortcuts: bool) -> np.ndarray:
    # PyTorch's 2-d nearest kernel short-cuts these two size ratios whatever the scale;
    # its 1-d and 3-d kernels always use the scale
    if shortcuts and n_out == n_in:
        return np.arange(n_out)
    if shortcuts and n_out == 2 * n_in:
        return np.arange(n_out) >> 1
    s = np.float32(1.0 / scale) if scale is not None and scale > 0 else \
        np.float32(n_in) / np.float32(n_out)
    dst = np.arange(n_out, dtype=np.float64)
    src = (dst + 0.5) * np.float64(s) if exact else (dst.astype(np.float32) * s)
    return np.minimum(np.floor(np.asarray(src, np.float32)).astype(np.int64), n_in - 1)


def _nearest(self: Tensor, nd: int, output_size: Any, scales: Sequence[Optional[float]],
             exact: bool) -> Tensor:
    a = self._a
    name = ("_upsample_nearest_exact" if exact else "upsample_nearest") + f"{nd}d"
    out = _sizes(a, nd, output_size, scales, name)
    for k in range(nd):
        idx = _nearest_index(a.shape[2 + k], out[k], scales[k], exact, nd == 2 and not exact)
        a = np.take(a, idx, axis=2 + k)
    return wrap(np.ascontiguousarray(a))


def _linear_weights(n_in: int, n_out: int, scale: Optional[float],
                    align_corners: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    s = _scale(n_in, n_out, scale, align_corners)
    dst = np.arange(n_out, dtype=np.float64)
    src = dst * s if align_corners else np.maximum((dst + 0.5) * s - 0.5, 0.0)
    i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    i1 = np.minimum(i0 + 1, n_in - 1)
    lam = np.clip(src - i0, 0.0, 1.0)
    return i0, i1, lam


def _cubic_coeffs(t: np.ndarray, A: float = -0.75) -> list[np.ndarray]:
    def c1(x: np.ndarray) -> np.ndarray:
        return ((A + 2) * x - (A + 3)) * x * x + 1

    def c2(x: np.ndarray) -> np.ndarray:
        return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A
    return [c2(t + 1), c1(t), c1(1 - t), c2(2 - t)]


def _resample_axis(x: np.ndarray, axis: int, idx: list[np.ndarray],
                   w: list[np.ndarray]) -> np.ndarray:
    shape = [1] * x.ndim
    shape[axis] = -1
    r = 0
    for i, wi in zip(idx, w):
        r = r + np.take(x, i, axis=axis) * wi.reshape(shape)
    return r


@quiet
def _interp(self: Tensor, nd: int, output_size: Any, align_corners: bool,
            scales: Sequence[Optional[float]], cubic: bool, name: str) -> Tensor:
    a = self._a
    if self.dtype.kind != "f":
        raise not_implemented(name, self.dtype)
    out = _sizes(a, nd, output_size, scales, name)
    if list(a.shape[2:]) == out and not cubic:
        return wrap(a.copy())          # equal sizes copy the input, ignoring any scale
    x = acc(a)
    for k in range(nd):
        n_in, n_out = x.shape[2 + k], out[k]
        if cubic:
            s = _scale(n_in, n_out, scales[k], align_corners)
            dst = np.arange(n_out, dtype=np.float64)
            src = dst * s if align_corners else (dst + 0.5) * s - 0.5
            i0 = np.floor(src).astype(np.int64)
            t = src - i0
            idx = [np.clip(i0 + j, 0, n_in - 1) for j in (-1, 0, 1, 2)]
            x = _resample_axis(x, 2 + k, idx, _cubic_coeffs(t))
        else:
            i0, i1, lam = _linear_weights(n_in, n_out, scales[k], align_corners)
            x = _resample_axis(x, 2 + k, [i0, i1], [1 - lam, lam])
    return wrap(np.asarray(x).astype(a.dtype))


# --- antialiased (PIL-style separable filters) -----------------------------------------------
def _aa_bilinear(x: np.ndarray) -> np.ndarray:
    return np.maximum(0.0, 1.0 - np.abs(x))


def _aa_bicubic(x: np.ndarray) -> np.ndarray:
    a = -0.5
    x = np.abs(x)
    return np.where(x < 1, ((a + 2) * x - (a + 3)) * x * x + 1,
                    np.where(x < 2, (((x - 5) * x + 8) * x - 4) * a, 0.0))


def _aa_lanczos(x: np.ndarray) -> np.ndarray:
    return np.where(np.abs(x) < 3, np.sinc(x) * np.sinc(x / 3), 0.0)


_AA = {"bilinear": (_aa_bilinear, 1.0), "bicubic": (_aa_bicubic, 2.0),
       "lanczos": (_aa_lanczos, 3.0)}


def _aa_matrix(n_in: int, n_out: int, scale: Optional[float], align_corners: bool,
               kind: str) -> np.ndarray:
    filt, half = _AA[kind]
    s = _scale(n_in, n_out, scale, align_corners)
    support = half * s if s >= 1.0 else half
    inv = 1.0 / s if s >= 1.0 else 1.0
    m = np.zeros((n_out, n_in))
    for i in range(n_out):
        # align_corners only changes the scale here (PyTorch's float antialias path)
        center = s * (i + 0.5)
        lo = max(int(center - support + 0.5), 0)
        hi = min(int(center + support + 0.5), n_in)
        j = np.arange(lo, hi)
        w = filt((j - center + 0.5) * inv)
        tot = w.sum()
        m[i, lo:hi] = w / tot if tot != 0 else w
    return m


@quiet
def _aa(self: Tensor, output_size: Any, align_corners: bool, scales: Sequence[Optional[float]],
        kind: str) -> Tensor:
    a = self._a
    name = f"_upsample_{kind}2d_aa"
    if self.dtype.kind != "f":
        raise not_implemented(name, self.dtype)
    out = _sizes(a, 2, output_size, scales, name)
    if list(a.shape[2:]) == out:
        return wrap(a.copy())
    x = acc(a)
    for k in range(2):
        m = _aa_matrix(x.shape[2 + k], out[k], scales[k], align_corners, kind)
        x = np.moveaxis(np.tensordot(x, m, axes=([2 + k], [1])), -1, 2 + k)
    return wrap(np.asarray(x).astype(a.dtype))


# --- registrations ----------------------------------------------------------------------------
def _register_nearest(nd: int, exact: bool) -> None:
    base = ("_upsample_nearest_exact" if exact else "upsample_nearest") + f"{nd}d"
    scale_args = ", ".join(f"float? scales{s}=None" for s in
                           ([""] if nd == 1 else ["_d", "_h", "_w"][3 - nd:]))

    def kernel(self: Tensor, output_size: Any, *scales: Optional[float]) -> Tensor:
        sc = list(scales) + [None] * (nd - len(scales))
        return _nearest(self, nd, output_size, sc, exact)

    def vec(input: Tensor, output_size: Any, scale_factors: Any) -> Tensor:
        out, sc = _vec(input, output_size, scale_factors, nd)
        return _nearest(input, nd, out, sc, exact)
    kernel.__name__, vec.__name__ = base, base + "_vec"
    kernel.__doc__ = vec.__doc__ = f"{nd}-d {'nearest-exact' if exact else 'nearest'} resampling."
    op(f"aten::{base}(Tensor self, SymInt[{nd}] output_size, {scale_args}) -> Tensor")(kernel)
    op(f"aten::{base}.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> "
       "Tensor")(vec)


def _register_interp(base: str, nd: int, cubic: bool) -> None:
    scale_args = ", ".join(f"float? scales{s}=None" for s in
                           ([""] if nd == 1 else ["_d", "_h", "_w"][3 - nd:]))

    def kernel(self: Tensor, output_size: Any, align_corners: bool,
               *scales: Optional[float]) -> Tensor:
        sc = list(scales) + [None] * (nd - len(scales))
        return _interp(self, nd, output_size, align_corners, sc, cubic, base)

    def vec(input: Tensor, output_size: Any, align_corners: bool, scale_factors: Any) -> Tensor:
        out, sc = _vec(input, output_size, scale_factors, nd)
        return _interp(input, nd, out, align_corners, sc, cubic, base)
    kernel.__name__, vec.__name__ = base, base + "_vec"
    kernel.__doc__ = vec.__doc__ = f"{base} resampling."
    op(f"aten::{base}(Tensor self, SymInt[{nd}] output_size, bool align_corners, "
       f"{scale_args}) -> Tensor")(kernel)
    op(f"aten::{base}.vec(Tensor input, SymInt[]? output_size, bool align_corners, "
       "float[]? scale_factors) -> Tensor")(vec)


def _register_aa(kind: str) -> None:
    base = f"_upsample_{kind}2d_aa"

    def kernel(self: Tensor, output_size: Any, align_corners: bool,
               scales_h: Optional[float] = None, scales_w: Optional[float] = None) -> Tensor:
        return _aa(self, output_size, align_corners, [scales_h, scales_w], kind)

    def vec(input: Tensor, output_size: Any, align_corners: bool, scale_factors: Any) -> Tensor:
        out, sc = _vec(input, output_size, scale_factors, 2)
        return _aa(input, out, align_corners, sc, kind)
    kernel.__name__, vec.__name__ = base, base + "_vec"
    kernel.__doc__ = vec.__doc__ = f"Antialiased {kind} resampling."
    op(f"aten::{base}(Tensor self, SymInt[2] output_size, bool align_corners, "
       "float? scales_h=None, float? scales_w=None) -> Tensor")(kernel)
    op(f"aten::{base}.vec(Tensor input, SymInt[]? output_size, bool align_corners, "
       "float[]? scale_factors) -> Tensor")(vec)


for _nd in (1, 2, 3):
    _register_nearest(_nd, False)
    _register_nearest(_nd, True)
_register_interp("upsample_linear1d", 1, False)
_register_interp("upsample_bilinear2d", 2, False)
_register_interp("upsample_trilinear3d", 3, False)
_register_interp("upsample_bicubic2d", 2, True)
for _kind in ("bilinear", "bicubic", "lanczos"):
    _register_aa(_kind)
del _nd, _kind
