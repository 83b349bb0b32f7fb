"""Pooling and padding: max / avg pooling (1-3 d, ceil_mode, dilation, indices), adaptive
average / max pooling, constant / reflect / replicate / circular padding."""
from __future__ import annotations

import math

from typing import Any, Optional, Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..registry import op
from ..._tensor.kernel_util import (checked_scalar, fmt_shape, native_float, not_implemented,
                                    quiet, wrap)
from ..._tensor.tensor import Tensor
from .tensor_conv import tup
from .tensor_reduce import acc, trailing_mean


def _batched(x: Tensor, nd: int, name: str) -> tuple[np.ndarray, bool]:
    a = x._a
    if a.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}: Expected {nd + 1}D or {nd + 2}D (batch mode) tensor for "
                           f"input with possibly 0 batch size and non-zero dimensions for input, "
                           f"but got: {fmt_shape(a.shape)}")
    return (a[None] if a.ndim == nd + 1 else a), a.ndim == nd + 1


def _out_size(size: int, k: int, s: int, p: int, d: int, ceil: bool) -> int:
    num = size + 2 * p - d * (k - 1) - 1
    out = (-(-num // s) if ceil else num // s) + 1
    if ceil and (out - 1) * s >= size + p:
        out -= 1       # the last window must start inside the input or the left padding
    return out


def _params(nd: int, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
            name: str) -> tuple[list[int], list[int], list[int], list[int]]:
    k = tup(kernel_size, nd)
    empty = stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0)
    s = k if empty else tup(stride, nd)
    p = tup(padding, nd)
    d = tup(dilation, nd)
    if any(x <= 0 for x in k):
        raise RuntimeError(f"{name}: kernel_size must be greater than zero, but got "
                           f"{fmt_shape(k)}")
    if any(x <= 0 for x in s):
        raise RuntimeError(f"{name}: stride must be greater than zero, but got {fmt_shape(s)}")
    for pi, ki, di in zip(p, k, d):
        if pi > (di * (ki - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={pi}, kernel_size={ki} and dilation={di}")
    return k, s, p, d


def _padded(a: np.ndarray, k: list[int], s: list[int], p: list[int], d: list[int],
            ceil: bool, fill: Any) -> tuple[np.ndarray, list[int]]:
    """`a` padded with `fill` so that every (ceil-mode) window is inside, and the output
    sizes."""
    sp = a.shape[2:]
    outs = [_out_size(n, ki, si, pi, di, ceil) for n, ki, si, pi, di in zip(sp, k, s, p, d)]
    if any(o <= 0 for o in outs):
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, a.shape[1:]))}). Calculated "
                           f"output size: ({'x'.join(map(str, [a.shape[1]] + outs))}). Output "
                           "size is too small")
    # right padding large enough for the last (ceil-mode) window
    pads = []
    for n, o, ki, si, pi, di in zip(sp, outs, k, s, p, d):
        need = (o - 1) * si + di * (ki - 1) + 1
        pads.append((pi, max(0, need - n - pi)))
    if any(pd != (0, 0) for pd in pads):
        # a filled array and one copy of the interior (np.pad's bookkeeping: ~19 us a call)
        r = np.full(a.shape[:2] + tuple(n + lo + hi for n, (lo, hi) in zip(sp, pads)), fill,
                    a.dtype)
        r[(slice(None), slice(None)) + tuple(slice(lo, lo + n) for n, (lo, _) in zip(sp, pads))] = a
        a = r
    return a, outs


def _windows(a: np.ndarray, k: list[int], s: list[int], p: list[int], d: list[int],
             ceil: bool, fill: Any) -> tuple[np.ndarray, list[int]]:
    """Strided windows (N, C, *out, *k) of `a` padded with `fill`."""
    nd = len(k)
    x, outs = _padded(a, k, s, p, d, ceil, fill)
    eff = [di * (ki - 1) + 1 for ki, di in zip(k, d)]
    w = sliding_window_view(x, eff, axis=tuple(range(2, 2 + nd)))
    sl = (slice(None), slice(None)) + tuple(slice(0, (o - 1) * si + 1, si)
                                            for o, si in zip(outs, s)) + \
        tuple(slice(None, None, di) for di in d)
    return w[sl], outs


def _window_reduce(ufunc: np.ufunc, a: np.ndarray, k: list[int], s: list[int], p: list[int],
                   d: list[int], ceil: bool, fill: Any) -> np.ndarray:
    """The maximum (or sum) of each window, one dimension at a time (a window's maximum is
    the maximum over its rows of each row's maximum): per dimension, `ufunc` of one strided
    view per kernel offset, so a 2x2 window costs two half-size passes instead of three
    quarter-size ones over four views. NaN propagates, as in PyTorch."""
    r, outs = _padded(a, k, s, p, d, ceil, fill)
    for dim, (ki, si, di, o) in enumerate(zip(k, s, d, outs)):
        before = (slice(None),) * (2 + dim)
        views = [r[before + (slice(q * di, q * di + (o - 1) * si + 1, si),)] for q in range(ki)]
        if ki == 1:
            r = views[0]
            continue
        r = ufunc(views[0], views[1])
        for v in views[2:]:
            ufunc(r, v, out=r)
    # a 1-sized kernel leaves a view of the input: the result must be a new tensor
    return r.copy() if r.base is not None else r


def _max_pool(self: Tensor, nd: int, kernel_size: Any, stride: Any, padding: Any,
              dilation: Any, ceil_mode: bool, name: str,
              indices: bool) -> tuple[Tensor, Optional[Tensor]]:
    a, unbatched = _batched(self, nd, name)
    if self.dtype.kind in "bc":
        raise not_implemented(name, self.dtype)
    if nd == 1 and not indices and self.dtype.kind in "iu":
        # PyTorch's 1-d pooling without indices has a float-only implementation
        raise not_implemented("max_pool1d_impl", self.dtype)
    k, s, p, d = _params(nd, kernel_size, stride, padding, dilation, name)
    lowest = -np.inf if a.dtype.kind == "f" else np.iinfo(a.dtype).min
    if not indices:
        return wrap(_window_reduce(np.maximum, a, k, s, p, d, ceil_mode, lowest)[0 if unbatched else ...]), None
    win, outs = _windows(a, k, s, p, d, ceil_mode, lowest)
    flat = win.reshape(win.shape[:2 + nd] + (-1,))
    vals = flat.max(axis=-1)
    idx_t = None
    if indices:
        # PyTorch returns the flat input position of each window's maximum (first NaN wins)
        arg = np.argmax(flat, axis=-1)
        kpos = np.unravel_index(arg, k)
        coords = []
        for dim in range(nd):
            o = np.arange(outs[dim]).reshape([-1 if j == dim else 1 for j in range(nd)])
            coords.append(o * s[dim] - p[dim] + kpos[dim] * d[dim])
        lin = np.zeros(vals.shape, np.int64)
        for dim in range(nd):
            lin = lin * a.shape[2 + dim] + coords[dim]
        if a.dtype.kind == "f":
            # a window without any value above -inf reports its first in-bounds position
            # (PyTorch's starting index), not a padding position
            first = np.zeros(vals.shape, np.int64)
            for dim in range(nd):
                st0 = np.arange(outs[dim]) * s[dim] - p[dim]
                st0 = np.where(st0 < 0, st0 + (-st0 + d[dim] - 1) // d[dim] * d[dim], st0)
                first = first * a.shape[2 + dim] + st0.reshape(
                    [-1 if j == dim else 1 for j in range(nd)])
            lin = np.where(vals == -np.inf, first, lin)
        idx_t = wrap(lin[0] if unbatched else lin)
    return wrap(vals[0] if unbatched else vals), idx_t


def _mp(nd: int) -> Any:
    def kernel(self: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False) -> Tensor:
        return _max_pool(self, nd, kernel_size, stride, padding, dilation, ceil_mode,
                         f"max_pool{nd}d", False)[0]

    def with_indices(self: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
                     dilation: Any = 1, ceil_mode: bool = False) -> tuple[Tensor, Tensor]:
        return _max_pool(self, nd, kernel_size, stride, padding, dilation, ceil_mode,
                         f"max_pool{nd}d", True)   # type: ignore[return-value]
    kernel.__name__, with_indices.__name__ = f"max_pool{nd}d", f"max_pool{nd}d_with_indices"
    kernel.__doc__ = f"{nd}-d max pooling."
    with_indices.__doc__ = f"{nd}-d max pooling with the flat indices of the maxima."
    return kernel, with_indices


_P1 = "int[1] kernel_size, int[1] stride=[], int[1] padding=[0], int[1] dilation=[1]"
_P2 = "int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1"
_P3 = "int[3] kernel_size, int[3] stride=[], int[3] padding=0, int[3] dilation=1"
for _nd, _p in ((1, _P1), (2, _P2), (3, _P3)):
    _k, _wi = _mp(_nd)
    globals()[f"max_pool{_nd}d"] = op(
        f"aten::max_pool{_nd}d(Tensor self, {_p}, bool ceil_mode=False) -> Tensor")(_k)
    globals()[f"max_pool{_nd}d_with_indices"] = op(
        f"aten::max_pool{_nd}d_with_indices(Tensor self, {_p}, bool ceil_mode=False) -> "
        "(Tensor, Tensor)")(_wi)
del _nd, _p, _k, _wi


@quiet
def _avg_pool(self: Tensor, nd: int, kernel_size: Any, stride: Any, padding: Any,
              ceil_mode: bool, count_include_pad: bool, divisor_override: Optional[int]) -> Tensor:
    name = f"avg_pool{nd}d"
    a, unbatched = _batched(self, nd, name)
    if self.dtype.kind in "bc":
        raise not_implemented(name, self.dtype)
    k, s, p, d = _params(nd, kernel_size, stride, padding, 1, name)
    if nd == 3 and any(n < ki for n, ki in zip(a.shape[2:], k)):
        raise RuntimeError(f"input image (T: {a.shape[2]} H: {a.shape[3]} W: {a.shape[4]}) "
                           f"smaller than kernel size (kT: {k[0]} kH: {k[1]} kW: {k[2]})")
    # floats sum in their own precision (as PyTorch's kernel), window by window separably
    total = _window_reduce(np.add, native_float(a) if a.dtype.kind == "f" else acc(a), k, s,
                           p, [1] * nd, ceil_mode, 0)
    outs = total.shape[2:]
    if divisor_override:
        div: Any = float(divisor_override)
    elif (count_include_pad and not ceil_mode) or (not any(p) and list(outs) == [
            (n - ki) // si + 1 for n, ki, si in zip(a.shape[2:], k, s)]):
        # every window is whole, or counts its padding and (without ceil mode) ends inside
        # the padded input: one divisor
        div = float(math.prod(k))
    else:
        div = np.ones(outs)
        for dim in range(nd):
            n = a.shape[2 + dim]
            start = np.arange(outs[dim]) * s[dim] - p[dim]
            end = np.minimum(start + k[dim], n + p[dim])
            size_pad = end - start
            size_real = np.minimum(end, n) - np.maximum(start, 0)
            sz = size_pad if count_include_pad else size_real
            div = div * sz.reshape([-1 if j == dim else 1 for j in range(nd)])
    if total.dtype.kind == "f" and isinstance(div, np.ndarray):
        div = div.astype(total.dtype)
    r = total / div
    if a.dtype.kind in "iu":
        r = np.trunc(r)
    r = r.astype(a.dtype, copy=False)
    return wrap(r[0] if unbatched else r)


@op("aten::avg_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0], "
    "bool ceil_mode=False, bool count_include_pad=True) -> Tensor")
def avg_pool1d(self: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """1-d average pooling."""
    return _avg_pool(self, 1, kernel_size, stride, padding, ceil_mode, count_include_pad, None)


@op("aten::avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
    "bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor")
def avg_pool2d(self: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: Optional[int] = None) -> Tensor:
    """2-d average pooling."""
    return _avg_pool(self, 2, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)


@op("aten::avg_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, "
    "bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor")
def avg_pool3d(self: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: Optional[int] = None) -> Tensor:
    """3-d average pooling."""
    return _avg_pool(self, 3, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)


def _adaptive_bounds(n: int, o: int) -> list[tuple[int, int]]:
    return [((i * n) // o, -(-((i + 1) * n) // o)) for i in range(o)]


@quiet
def _adaptive(self: Tensor, output_size: Any, nd: int, is_max: bool) -> tuple[Tensor, Any]:
    name = f"adaptive_{'max' if is_max else 'avg'}_pool{nd}d"
    a, unbatched = _batched(self, nd, name)
    outs = [a.shape[2 + i] if o is None else o for i, o in enumerate(tup(output_size, nd))]
    if any(o < 0 for o in outs):
        raise RuntimeError(f"{name}: elements of output_size must be greater than or equal to 0 "
                           f"but received {fmt_shape(outs)}")
    for i in range(nd):
        if a.shape[2 + i] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {fmt_shape(self._a.shape)} with "
                               f"dimension {i + 1 + (0 if unbatched else 1)} being empty")
    if not is_max:
        # in the input's precision (numpy's pairwise sums); windows that tile the input
        # exactly (global pooling above all) are one reshaped mean
        x = native_float(a)
        sizes = a.shape[2:]
        if all(o == 1 for o in outs):
            # global pooling (the SE blocks' and classifiers'): one matrix-vector product
            g = trailing_mean(np.ascontiguousarray(x), tuple(range(2, 2 + nd)), True)
            if g is not None:
                r = g.astype(a.dtype, copy=False)
                return wrap(r[0] if unbatched else r), None
        if all(o and s % o == 0 for s, o in zip(sizes, outs)):
            tiles = sum(((o, s // o) for s, o in zip(sizes, outs)), ())
            # a sum and one division (np.mean's own bookkeeping costs more at these sizes)
            x = np.add.reduce(x.reshape(a.shape[:2] + tiles),
                              axis=tuple(range(3, 3 + 2 * nd, 2)))
            x /= x.dtype.type(np.prod(tiles[1::2]))
        for dim in range(0 if x.shape[2:] == tuple(outs) else nd):
            ax = 2 + dim
            lead = (slice(None),) * ax
            parts = [x[lead + (slice(lo, hi),)].mean(axis=ax, keepdims=True)
                     for lo, hi in _adaptive_bounds(a.shape[ax], outs[dim])]
            x = np.concatenate(parts, axis=ax) if parts else \
                np.zeros(x.shape[:ax] + (0,) + x.shape[ax + 1:], x.dtype)
        r = x.astype(a.dtype, copy=False)
        return wrap(r[0] if unbatched else r), None
    bounds = [_adaptive_bounds(a.shape[2 + i], outs[i]) for i in range(nd)]
    vals = np.empty(a.shape[:2] + tuple(outs), a.dtype)
    idx = np.empty(a.shape[:2] + tuple(outs), np.int64)
    for cell in np.ndindex(*outs):
        box = (slice(None), slice(None)) + tuple(slice(*bounds[i][c]) for i, c in enumerate(cell))
        sub = a[box]
        flat = sub.reshape(sub.shape[:2] + (-1,))
        arg = np.argmax(flat, axis=-1)
        vals[(slice(None), slice(None)) + cell] = np.take_along_axis(flat, arg[..., None],
                                                                     -1)[..., 0]
        loc = np.unravel_index(arg, sub.shape[2:])
        lin = np.zeros(arg.shape, np.int64)
        for i in range(nd):
            lin = lin * a.shape[2 + i] + (loc[i] + bounds[i][cell[i]][0])
        idx[(slice(None), slice(None)) + cell] = lin
    return (wrap(vals[0] if unbatched else vals), wrap(idx[0] if unbatched else idx))


@op("aten::adaptive_avg_pool1d(Tensor self, int[1] output_size) -> Tensor")
def adaptive_avg_pool1d(self: Tensor, output_size: Any) -> Tensor:
    """Average pooling to a given output length."""
    return _adaptive(self, output_size, 1, False)[0]


@op("aten::adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor",
    "aten::_adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor")
def adaptive_avg_pool2d(self: Tensor, output_size: Any) -> Tensor:
    """Average pooling to a given output size."""
    return _adaptive(self, output_size, 2, False)[0]


@op("aten::adaptive_avg_pool3d(Tensor self, SymInt[3] output_size) -> Tensor")
def adaptive_avg_pool3d(self: Tensor, output_size: Any) -> Tensor:
    """Average pooling to a given output size."""
    return _adaptive(self, output_size, 3, False)[0]


@op("aten::adaptive_max_pool1d(Tensor self, int[1] output_size) -> (Tensor, Tensor)")
def adaptive_max_pool1d(self: Tensor, output_size: Any) -> tuple:
    """Max pooling to a given output length, with indices."""
    return _adaptive(self, output_size, 1, True)


@op("aten::adaptive_max_pool2d(Tensor self, int[2] output_size) -> (Tensor, Tensor)")
def adaptive_max_pool2d(self: Tensor, output_size: Any) -> tuple:
    """Max pooling to a given output size, with indices."""
    return _adaptive(self, output_size, 2, True)


@op("aten::adaptive_max_pool3d(Tensor self, int[3] output_size) -> (Tensor, Tensor)")
def adaptive_max_pool3d(self: Tensor, output_size: Any) -> tuple:
    """Max pooling to a given output size, with indices."""
    return _adaptive(self, output_size, 3, True)


# --- padding ----------------------------------------------------------------------------------
def _pad_pairs(a: np.ndarray, pad: Sequence[int], name: str) -> list[tuple[int, int]]:
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > a.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{a.ndim}")
    pairs = [(0, 0)] * a.ndim
    for i in range(len(pad) // 2):
        pairs[a.ndim - 1 - i] = (int(pad[2 * i]), int(pad[2 * i + 1]))
    return pairs


@op("aten::constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor")
def constant_pad_nd(self: Tensor, pad: Sequence[int], value: Any = 0) -> Tensor:
    """Pad (or crop, for negative amounts) the last dims with a constant."""
    a = self._a
    pairs = _pad_pairs(a, pad, "constant_pad_nd")
    # negative padding crops first
    crop = tuple(slice(max(0, -lo), a.shape[i] - max(0, -hi)) for i, (lo, hi) in
                 enumerate(pairs))
    x = a[crop]
    for i, s in enumerate(x.shape):
        if s < 0 or (a.shape[i] - max(0, -pairs[i][0]) - max(0, -pairs[i][1])) < 0:
            raise RuntimeError(f"The input size {a.shape[i]}, plus negative padding "
                               f"{pairs[i][0]} and {pairs[i][1]} resulted in a negative output "
                               f"size, which is invalid. Check dimension {i} of your input.")
    v = checked_scalar(value, self.dtype)
    widths = [(max(0, lo), max(0, hi)) for lo, hi in pairs]
    # np.pad's constant mode, without its general machinery (a no-op pad cost 50 us)
    r = np.empty(tuple(s + lo + hi for s, (lo, hi) in zip(x.shape, widths)), x.dtype)
    if r.size != x.size:
        r.fill(v)
    r[tuple(slice(lo, lo + s) for s, (lo, _) in zip(x.shape, widths))] = x
    return wrap(r)


_NP_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def _pad_mode(self: Tensor, pad: Sequence[int], mode: str) -> Tensor:
    a = self._a
    n = len(pad) // 2
    if len(pad) % 2 or not 1 <= n <= 3 or a.ndim not in (n + 1, n + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {a.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    pairs = _pad_pairs(a, pad, mode)
    for i, (lo, hi) in enumerate(pairs):
        size = a.shape[i]
        if mode == "reflect" and (lo >= size or hi >= size):
            raise RuntimeError(f"Argument #4: Padding size should be less than the "
                               f"corresponding input dimension, but got: padding ({lo}, {hi}) "
                               f"at dimension {i} of input {fmt_shape(a.shape)}")
        if mode == "circular" and (lo > size or hi > size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
    # map every output position back to an input position (negative padding crops, and
    # reflections are taken about the original edges, as in PyTorch)
    x = a
    for i, (lo, hi) in enumerate(pairs):
        if lo == 0 and hi == 0:
            continue
        size = a.shape[i]
        pos = np.arange(-lo, size + hi)
        if mode == "reflect":
            pos = np.abs(pos)
            pos = np.where(pos >= size, 2 * (size - 1) - pos, pos)
        elif mode == "replicate":
            pos = np.clip(pos, 0, size - 1)
        else:
            pos = pos % size
        x = np.take(x, pos, axis=i)
    return wrap(np.ascontiguousarray(x))


@op("aten::pad(Tensor self, SymInt[] pad, str mode=\"constant\", float? value=None) -> Tensor")
def pad(self: Tensor, pad: Sequence[int], mode: str = "constant",
        value: Optional[float] = None) -> Tensor:
    """Pad the last len(pad) / 2 dims: constant, reflect, replicate or circular."""
    if mode == "constant":
        if value is None and not any(pad) and len(pad) % 2 == 0 and \
                len(pad) // 2 <= self._a.ndim:
            return wrap(self._a.copy())     # padding by nothing (swin's windows): a copy
        return constant_pad_nd(self, pad, 0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    if mode not in _NP_MODES:
        raise RuntimeError(f"Unrecognised padding mode {mode}")
    return _pad_mode(self, pad, mode)


@op("aten::_pad_enum(Tensor self, SymInt[] pad, int mode, float? value=None) -> Tensor")
def _pad_enum(self: Tensor, pad_: Sequence[int], mode: int, value: Optional[float] = None) -> Tensor:
    """pad with the mode as an enum (0 reflect, 1 replicate, 2 circular, 3 constant)."""
    return pad(self, pad_, ["reflect", "replicate", "circular", "constant"][mode], value)


@op("aten::_pad_circular(Tensor self, SymInt[] pad) -> Tensor")
def _pad_circular(self: Tensor, pad_: Sequence[int]) -> Tensor:
    """Circular padding."""
    return _pad_mode(self, pad_, "circular")


def _pad_k(mode: str, n: int) -> Any:
    def kernel(self: Tensor, padding: Sequence[int]) -> Tensor:
        return _pad_mode(self, tup(padding, 2 * n), mode)
    kernel.__name__ = f"{mode}_pad{n}d"
    kernel.__doc__ = f"{mode} padding of the last {n} dims."
    return kernel


for _n in (1, 2, 3):
    op(f"aten::reflection_pad{_n}d(Tensor self, SymInt[{2 * _n}] padding) -> Tensor")(
        _pad_k("reflect", _n))
    op(f"aten::replication_pad{_n}d(Tensor self, SymInt[{2 * _n}] padding) -> Tensor")(
        _pad_k("replicate", _n))
del _n
