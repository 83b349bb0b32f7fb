"""Convolutions: conv1d/2d/3d (numeric or 'same'/'valid' padding, stride, dilation, groups),
transposed convolutions and the generic aten::convolution entry points.

Depthwise convolutions (groups == channels) with few output positions per channel are one
einsum over the windows of a channels-last copy, others with kernels 5 wide or more one
matrix product per channel against a band matrix of its kernel; a 1x1 convolution
without stride or padding is one matrix product of the input itself; any other gathers the
sliding windows of the padded input as a strided view and contracts them with the weight in
one batched matrix product (im2col). Kernel positions that read only padding are dropped
first. These choices are made once per shapes and parameters (conv_plan, kept in _PLANS).
All compute in float32 for float16/32 inputs as PyTorch does; transposed convolutions
scatter per kernel position.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Optional, Sequence

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..registry import op
from ..._tensor.kernel_util import fmt_shape, not_implemented, quiet, wrap
from ..._tensor.tensor import Tensor
from .tensor_reduce import acc


def tup(v: Any, n: int) -> list[int]:
    """An int or a list of ints as n ints (a 1-element list is repeated)."""
    if type(v) is list and len(v) == n and all(type(x) is int for x in v):
        return v            # what the dispatcher and the interpreter pass: no copy
    if isinstance(v, (int, np.integer)):
        return [int(v)] * n
    v = [int(x) for x in v]
    return v * n if len(v) == 1 else v


def _check_inputs(x: Tensor, w: Tensor, bias: Optional[Tensor], nd: int,
                  name: str) -> tuple[np.ndarray, np.ndarray, bool]:
    a, k = x._a, w._a
    if a.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to "
                           f"{name}, but got input of size: {fmt_shape(a.shape)}")
    if x.dtype != w.dtype:
        raise RuntimeError(f"Input type ({x.dtype.cname}Type) and weight type "
                           f"({w.dtype.cname}Type) should be the same")
    if bias is not None and bias.dtype != x.dtype:
        raise RuntimeError(f"Input type ({x.dtype.cname}Type) and bias type "
                           f"({bias.dtype.cname}Type) should be the same")
    if x.dtype.kind not in "fc":
        raise not_implemented("slow_conv2d_cpu", x.dtype)
    unbatched = a.ndim == nd + 1
    return (a[None] if unbatched else a), k, unbatched


def compute_dtype(dt: np.dtype) -> np.dtype:
    """The dtype a convolution computes in: float32 for float16/32 (as PyTorch does on
    CPU), otherwise the input's own."""
    return np.dtype(np.float32) if dt in (np.float16, np.float32) else dt


def _valid(k: int, size: int, lo: int, stride: int, dilation: int, out: int) -> tuple[int, int, int]:
    """Along one dimension, for kernel offset k: the first output position that reads
    inside the unpadded input, how many consecutive ones do, and the input index of the
    first."""
    off = k * dilation - lo
    first = max(0, -(off // stride))
    count = max(0, min(out, (size - 1 - off) // stride + 1) - first)
    return first, count, first * stride + off


def strided(a: np.ndarray, shape: tuple[int, ...], strides: tuple[int, ...]) -> np.ndarray:
    """A view of `a` with the given shape and strides (in bytes, from a's first element).
    A C-contiguous array's is an ndarray over its buffer, which checks the bounds and costs
    an eighth of numpy's as_strided (8 us a call: a few per convolution); as_strided for
    others, only read from."""
    if a.flags.c_contiguous:
        return np.ndarray(shape, a.dtype, a, 0, strides)
    return as_strided(a, shape, strides, writeable=False)


def im2col(x: np.ndarray, cols: np.ndarray, ks: Sequence[int], stride: Sequence[int],
           pads: Sequence[tuple[int, int]], dilation: Sequence[int]) -> None:
    """Fill cols (*B, *ks, *outs) with the windows of x (*B, *sizes) zero padded by pads:
    cols[..., k, o] = x[..., o * stride + k * dilation - pad] (0 outside x).

    One zero-padded copy of x (none without padding), then one copy of all its windows as
    a strided view: two numpy calls whatever the kernel (measured faster than a copy per
    kernel position at every zoo shape, 1.1-1.9x). Writing into cols casts (float16 into a
    float32 buffer) on the way."""
    nd = len(ks)
    nb = x.ndim - nd
    outs = cols.shape[nb + nd:]
    if any(lo or hi for lo, hi in pads):
        xp = np.zeros(x.shape[:nb] + tuple(s + lo + hi for s, (lo, hi) in
                                           zip(x.shape[nb:], pads)), cols.dtype)
        xp[(Ellipsis,) + tuple(slice(lo, lo + s) for s, (lo, _) in
                               zip(x.shape[nb:], pads))] = x
    else:
        xp = x
    st = xp.strides[nb:]
    cols[...] = strided(xp, xp.shape[:nb] + tuple(ks) + tuple(outs),
                        xp.strides[:nb] + tuple(s * d for s, d in zip(st, dilation)) +
                        tuple(s * t for s, t in zip(st, stride)))


def conv_nd(a: np.ndarray, k: np.ndarray, bias: Optional[np.ndarray], stride: Sequence[int],
            pads: Sequence[tuple[int, int]], dilation: Sequence[int], groups: int) -> np.ndarray:
    """Cross-correlation of a (N, C, *S) with k (O, C/groups, *K), in compute_dtype."""
    return conv_plan(a.shape, k.shape, stride, pads, dilation, groups)(a, k, bias)


Plan = Callable[[np.ndarray, np.ndarray, Optional[np.ndarray]], np.ndarray]


def conv_plan(shape: tuple[int, ...], kshape: tuple[int, ...], stride: Sequence[int],
              pads: Sequence[tuple[int, int]], dilation: Sequence[int], groups: int) -> Plan:
    """conv_nd for inputs of `shape` and weights of `kshape`: the checks, the output size,
    the kernel positions to drop and the path (conv_depthwise or conv_band when groups ==
    channels, conv_flat, conv_pointwise or conv_im2col) decided once, as a function of
    (input, weight, bias)."""
    n, c = shape[:2]
    o = kshape[0]
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if c != kshape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {fmt_shape(kshape)}, "
                           f"expected input{fmt_shape(shape)} to have {kshape[1] * groups} "
                           f"channels, but got {c} channels instead")
    if o % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size {fmt_shape(kshape)} instead")
    ks = kshape[2:]
    padded = tuple(s + lo + hi for s, (lo, hi) in zip(shape[2:], pads))
    eff = [d * (kk - 1) + 1 for d, kk in zip(dilation, ks)]
    if any(e > p for e, p in zip(eff, padded)):
        raise RuntimeError(
            "Calculated padded input size per channel: (" + " x ".join(map(str, padded)) +
            "). Kernel size: (" + " x ".join(map(str, eff)) + "). Kernel size can't be greater "
            "than actual input size")
    outs = tuple((p - e) // s + 1 for p, e, s in zip(padded, eff, stride))
    stride, dilation = list(stride), list(dilation)
    crop, cut, pads = _drop_padding_positions(shape, kshape, stride, pads, dilation, outs)
    kw = ks[-1] if cut is None else cut[-1].stop - cut[-1].start
    path: Plan
    if c == groups and o == c and 2 * c >= math.prod(outs):
        # measured (docs/design.md): the channels-last einsum wins while its inner loop
        # (the channels) is long against the output positions; past that, im2col's one
        # small matrix product per channel, or the band product for wide kernels
        def path(a, k, b):
            return conv_depthwise(a, k, b, stride, pads, dilation, outs)
    elif c == groups and kw >= 5:
        def path(a, k, b):
            # the band matrix multiplies every input of a span, zeros included: an inf or
            # NaN input would reach outputs whose windows do not hold it, so those go
            # through im2col (a sum is one cheap pass, and is finite exactly when no
            # element is inf or NaN, unless it overflows, which only costs the faster path)
            if math.isfinite(a.sum()):
                return conv_band(a, k, b, stride, pads, dilation, outs)
            return conv_im2col(a, k, b, stride, pads, dilation, groups, outs)
    elif groups == 1 and all(x == 1 for x in stride) and o * 32 <= c * math.prod(ks):
        # measured (docs/design.md): the flat columns' cheaper copy outweighs the work at
        # the padding's positions when the outputs are few against the columns
        # (densenet's 3x3 convolutions of 128 channels into 32)
        def path(a, k, b):
            return conv_flat(a, k, b, pads, dilation, outs)
    elif math.prod(ks) == 1 and all(x == 1 for x in stride) and \
            not any(lo or hi for lo, hi in pads):
        def path(a, k, b):
            return conv_pointwise(a, k, b, groups)
    else:
        def path(a, k, b):
            return conv_im2col(a, k, b, stride, pads, dilation, groups, outs)
    if crop is None:
        return path

    def cropped(a: np.ndarray, k: np.ndarray, b: Optional[np.ndarray]) -> np.ndarray:
        return path(a[crop], k[cut], b)
    return cropped


def _drop_padding_positions(shape: tuple[int, ...], kshape: tuple[int, ...],
                            stride: Sequence[int], pads: Sequence[tuple[int, int]],
                            dilation: Sequence[int], outs: tuple[int, ...]
                            ) -> tuple[Optional[tuple], Optional[tuple], list]:
    """The same convolution without the kernel positions whose windows read only padding
    (their products are all zero: a 7x7 kernel over a 2x2 image keeps 3x3): per dimension
    the kernel is cut to the range from the first position that reads the input to the
    last, and the padding (or, under dilation, the input's first elements) shifted to
    match. Returns the index of the input to read, that of the kernel (both None when
    nothing is dropped) and the new padding."""
    if not any(lo or hi for lo, hi in pads):
        return None, None, list(pads)     # without padding every position reads the input
    cut, crop, new_pads = [], [], []
    for kk, size, (lo, _), st, dl, o in zip(kshape[2:], shape[2:], pads, stride, dilation,
                                            outs):
        if (o - 1) * st >= lo and (kk - 1) * dl - lo < size:
            # the first position's last window and the last position's first one read
            # inside: nothing to drop at either end (the common case, checked cheaply)
            p0, p1 = 0, kk
        else:
            alive = [p for p in range(kk) if _valid(p, size, lo, st, dl, o)[1]] or [0]
            p0, p1 = alive[0], alive[-1] + 1
        lo2 = lo - p0 * dl
        skip = max(0, -lo2)          # input elements before the first one read
        lo2 = max(0, lo2)
        hi2 = max(0, (o - 1) * st + (p1 - p0 - 1) * dl + 1 - (size - skip) - lo2)
        cut.append(slice(p0, p1))
        crop.append(slice(skip, None))
        new_pads.append((lo2, hi2))
    if all(c.start == 0 and c.stop == kk for c, kk in zip(cut, kshape[2:])) and \
            all(c.start == 0 for c in crop):
        return None, None, list(pads)
    return (slice(None),) * 2 + tuple(crop), (slice(None),) * 2 + tuple(cut), new_pads


def conv_im2col(a: np.ndarray, k: np.ndarray, bias: Optional[np.ndarray],
                stride: Sequence[int], pads: Sequence[tuple[int, int]],
                dilation: Sequence[int], groups: int, outs: tuple[int, ...]) -> np.ndarray:
    """conv_nd's general path on checked arguments: im2col and one batched matrix product.

    im2col: the (strided, dilated, zero padded) windows of the input as columns
    (N, groups, C/groups * K, out positions), then one batched matrix product. The bias
    rides in the product as one more column row of ones (a weight column of biases), which
    is cheaper than adding it to the output afterwards while the weights, copied to add
    their column, are no longer than the output (past that, as resnet-sized 3x3 weights
    over a 2x2 map are, the copy cost up to twice the convolution: the bias is added to
    the output). (A 1x1 convolution without stride or padding has its columns already:
    conv_pointwise.)"""
    n, c = a.shape[:2]
    o = k.shape[0]
    cd = compute_dtype(a.dtype)
    ks = k.shape[2:]
    cg, og = c // groups, o // groups
    kk, ln = math.prod(ks), math.prod(outs)
    w = k.astype(cd, copy=False).reshape(groups, og, cg * kk)
    fold = bias is not None and cg * kk <= n * ln
    cols = np.empty((n, groups, cg * kk + fold, ln), cd)
    im2col(a.reshape((n, groups, cg) + a.shape[2:]),
           cols[:, :, :cg * kk].reshape((n, groups, cg) + ks + outs), ks, stride, pads,
           dilation)
    if fold:
        cols[:, :, -1] = 1
        w = np.concatenate([w, bias.astype(cd, copy=False).reshape(groups, og, 1)], axis=2)
    if groups == 1:     # (O, C*K) @ (N, C*K, L): numpy's batched matmul is slower with 4-D
        y = np.matmul(w[0], cols[:, 0])
    else:
        y = np.matmul(w, cols).reshape(n, o, ln)
    if bias is not None and not fold:
        y += bias.astype(cd, copy=False)[:, None]
    return y.reshape((n, o) + outs)


def conv_flat(a: np.ndarray, k: np.ndarray, bias: Optional[np.ndarray],
              pads: Sequence[tuple[int, int]], dilation: Sequence[int],
              outs: tuple[int, ...]) -> np.ndarray:
    """conv_nd with stride 1 and one group over the flattened padded input: a kernel
    position's windows, for the outputs at every padded position past the first dimension,
    are one contiguous run of it (output q reads flat index q + offset(position)), so the
    columns are one copy of long runs instead of im2col's short ones. The product also
    computes outputs at the padding's positions (padded / output sizes past the first
    dimension times the work), which the copy to the result, with the bias added on the
    way, drops."""
    n, c = a.shape[:2]
    o, ks, nd = k.shape[0], k.shape[2:], len(outs)
    cd = compute_dtype(a.dtype)
    padded = tuple(s + lo + hi for s, (lo, hi) in zip(a.shape[2:], pads))
    length = outs[0] * math.prod(padded[1:])      # outputs computed per image
    size = math.prod(padded)
    pitch = [math.prod(padded[d + 1:]) for d in range(nd)]
    # the last kernel position's run ends past the padded input by at most this much
    slack = max(0, sum((kk - 1) * d * p for kk, d, p in zip(ks, dilation, pitch)) +
                length - size)
    buf = np.zeros((n, c, size + slack), cd)
    buf[:, :, :size].reshape((n, c) + padded)[
        (slice(None),) * 2 + tuple(slice(lo, lo + s) for (lo, _), s in zip(pads, a.shape[2:]))
    ] = a
    sb = buf.strides
    cols = strided(buf, (n, c) + ks + (length,),
                   sb[:2] + tuple(sb[2] * d * p for d, p in zip(dilation, pitch)) + (sb[2],))
    w = k.astype(cd, copy=False).reshape(o, c * math.prod(ks))
    y = np.matmul(w, cols.reshape(n, c * math.prod(ks), length))
    y = y.reshape((n, o, outs[0]) + padded[1:])[(Ellipsis,) +
                                                tuple(slice(0, x) for x in outs[1:])]
    if bias is None:
        return np.ascontiguousarray(y)
    return np.add(y, bias.astype(cd, copy=False).reshape((o,) + (1,) * nd))


def conv_pointwise(a: np.ndarray, k: np.ndarray, bias: Optional[np.ndarray],
                   groups: int) -> np.ndarray:
    """conv_nd with a kernel of one position, stride 1 and no padding: the input already is
    its columns, one matrix product (per image and group) and the bias added."""
    n, c = a.shape[:2]
    o, ln = k.shape[0], math.prod(a.shape[2:])
    cd = compute_dtype(a.dtype)
    if groups == 1:     # (O, C) @ (C, L): numpy's stacked matmul costs more per call
        w = k.astype(cd, copy=False).reshape(o, c)
        x = a.astype(cd, copy=False).reshape(n, c, ln)
        y = np.matmul(w, x[0])[None] if n == 1 else np.matmul(w, x)
    else:
        w = k.astype(cd, copy=False).reshape(groups, o // groups, c // groups)
        y = np.matmul(w, a.astype(cd, copy=False).reshape(n, groups, c // groups, ln))
    if bias is not None:
        y = y.reshape(n, o, ln)
        y += bias.astype(cd, copy=False)[:, None]
    return y.reshape((n, o) + a.shape[2:])


def conv_depthwise(a: np.ndarray, k: np.ndarray, bias: Optional[np.ndarray],
                   stride: Sequence[int], pads: Sequence[tuple[int, int]],
                   dilation: Sequence[int], outs: tuple[int, ...]) -> np.ndarray:
    """conv_nd with groups == channels (each output channel reads one input channel): one
    einsum over the windows of a channels-last copy of the padded input.

    Channels last, the einsum's innermost loop runs along the channels, contiguous in the
    windows and in the weights, for every output position and kernel position: one numpy
    call whatever the kernel, where a multiply-accumulate per kernel position made two per
    position over short runs (docs/design.md)."""
    n, c = a.shape[:2]
    m = k.shape[0] // c         # output channels per input channel
    ks, sizes, nd = k.shape[2:], a.shape[2:], len(outs)
    cd = compute_dtype(a.dtype)
    padded = tuple(s + lo + hi for s, (lo, hi) in zip(sizes, pads))
    xp = (np.zeros if any(lo or hi for lo, hi in pads) else np.empty)((n,) + padded + (c,), cd)
    # (transpose with the axes spelled out: np.moveaxis costs 4 us a call, three per call
    # here against a 20-100 us convolution)
    spatial = tuple(range(2, 2 + nd))
    xp[(slice(None),) + tuple(slice(lo, lo + s) for (lo, _), s in zip(pads, sizes))] = \
        a.transpose((0,) + spatial + (1,))
    sx = xp.strides
    windows = strided(xp, (n,) + outs + ks + (c,),
                      (sx[0],) + tuple(x * s for x, s in zip(sx[1:-1], stride)) +
                      tuple(x * d for x, d in zip(sx[1:-1], dilation)) + (sx[-1],))
    # (*K, m, c), contiguous along c as the windows are: output channel i * m + j reads
    # input channel i
    w = np.ascontiguousarray(k.astype(cd, copy=False).reshape((c, m) + ks).transpose(
        spatial + (1, 0)))
    o_ax, k_ax = list(range(1, 1 + nd)), list(range(1 + nd, 1 + 2 * nd))
    m_ax, c_ax = 1 + 2 * nd, 2 + 2 * nd
    y = np.einsum(windows, [0] + o_ax + k_ax + [c_ax], w, k_ax + [m_ax, c_ax],
                  [0] + o_ax + [m_ax, c_ax])
    if bias is not None:
        y += bias.astype(cd, copy=False).reshape(c, m).T
    y = y.transpose((0, nd + 2, nd + 1) + tuple(range(1, nd + 1)))
    return np.ascontiguousarray(y).reshape((n, c * m) + outs)


# outputs of the last dimension per band (divided by the stride): the band matrix's waste
# (span / kernel width) stays small while each product keeps a useful size
BAND_TILE = 16


def conv_band(a: np.ndarray, k: np.ndarray, bias: Optional[np.ndarray],
                   stride: Sequence[int], pads: Sequence[tuple[int, int]],
                   dilation: Sequence[int], outs: tuple[int, ...]) -> np.ndarray:
    """conv_nd with groups == channels (each output channel reads one input channel) and
    a kernel at least 5 wide: one matrix product per channel against a band matrix of its
    kernel.

    Along the last dimension a correlation is a product with a band (Toeplitz) matrix:
    out[w] = sum_q row[q] * band[q, w], band[w * stride + j * dilation, w] = kernel[j]. The
    outputs of that dimension go in tiles of BAND_TILE / stride, each reading a `span` of
    the padded input; the rows of the product are the output positions of the other
    dimensions (and the tiles), its columns those dimensions' kernel positions times the
    span (one strided copy of the padded input). The band does span / kernel width times
    the direct products, but in BLAS: 1.3-2x faster than conv_depthwise or im2col for 5x5
    and 7x7 kernels (docs/design.md); narrower kernels waste too much of it."""
    n, c = a.shape[:2]
    m = k.shape[0] // c         # output channels per input channel
    ks, nd = k.shape[2:], len(outs)
    cd = compute_dtype(a.dtype)
    ow, st, dl, kw = outs[-1], stride[-1], dilation[-1], ks[-1]
    tw = min(ow, max(1, BAND_TILE // st))
    tiles = -(-ow // tw)
    span = (tw - 1) * st + (kw - 1) * dl + 1
    width = max((tiles * tw - 1) * st + (kw - 1) * dl + 1, a.shape[-1] + pads[-1][0])
    xp = np.zeros((n, c) + tuple(sz + lo + hi for sz, (lo, hi) in
                                 zip(a.shape[2:-1], pads[:-1])) + (width,), cd)
    xp[(slice(None),) * 2 + tuple(slice(lo, lo + sz) for sz, (lo, _) in
                                  zip(a.shape[2:], pads))] = a
    sx = xp.strides
    windows = strided(
        xp, (n, c) + outs[:-1] + (tiles,) + ks[:-1] + (span,),
        sx[:2] + tuple(x * t for x, t in zip(sx[2:-1], stride[:-1])) + (sx[-1] * tw * st,) +
        tuple(x * d for x, d in zip(sx[2:-1], dilation[:-1])) + (sx[-1],))
    rows, kr = math.prod(outs[:-1]) * tiles, math.prod(ks[:-1])
    band = np.zeros((c, kr, span, m, tw), cd)
    sb = band.strides
    # output channel i * m + j reads input channel i
    strided(band, (c, m, kr, kw, tw),
            (sb[0], sb[3], sb[1], sb[2] * dl, sb[2] * st + sb[4]))[...] = \
        k.reshape(c, m, kr, kw)[..., None]
    y = np.matmul(windows.reshape(n, c, rows, kr * span), band.reshape(c, kr * span, m * tw))
    y = y.reshape((n, c) + outs[:-1] + (tiles, m, tw))
    y = y.transpose((0, 1, nd + 2) + tuple(range(2, nd + 2)) + (nd + 3,))   # m after c
    y = y.reshape((n, c, m) + outs[:-1] + (tiles * tw,))[..., :ow]
    y = np.ascontiguousarray(y).reshape((n, c * m) + outs)
    if bias is not None:
        y += bias.astype(cd, copy=False).reshape((c * m,) + (1,) * nd)
    return y


# a convolution's plan (conv_plan, with the unbatched and dtype handling around it) by all
# it depends on: the shapes and dtypes of the input, weight and bias and the parameters. A
# model calls each of its convolutions with the same ones every time: from the second call
# on, the checks and choices cost one dictionary look-up (docs/design.md)
_PLANS: dict[tuple, Plan] = {}
PLANS_KEPT = 4096          # then the cache starts again (shapes that vary without end)


def _hashable(v: Any) -> Any:
    return tuple(v) if type(v) is list else v


def _conv(input: Tensor, weight: Tensor, bias: Optional[Tensor], stride: Any, padding: Any,
          dilation: Any, groups: int, nd: int) -> Tensor:
    a, k = input._a, weight._a
    b = None if bias is None else bias._a
    key = (a.shape, a.dtype, k.shape, k.dtype, None if b is None else b.dtype, nd,
           _hashable(stride), _hashable(padding), _hashable(dilation), groups)
    plan = _PLANS.get(key)
    if plan is None:
        plan = _conv_plan(input, weight, bias, stride, padding, dilation, groups, nd)
        if len(_PLANS) >= PLANS_KEPT:
            _PLANS.clear()
        _PLANS[key] = plan
    return wrap(plan(a, k, b))


def _conv_plan(input: Tensor, weight: Tensor, bias: Optional[Tensor], stride: Any,
               padding: Any, dilation: Any, groups: int, nd: int) -> Plan:
    """The checks of conv{nd}d on these arguments' shapes, dtypes and parameters (raising
    PyTorch's errors), and the rest as a function of (input, weight, bias) arrays."""
    a, k, unbatched = _check_inputs(input, weight, bias, nd, f"conv{nd}d")
    if k.ndim != nd + 2:
        raise RuntimeError(f"Expected {nd + 2}-dimensional weight for {nd + 2}-dimensional input")
    st, dl = tup(stride, nd), tup(dilation, nd)
    if any(s <= 0 for s in st):
        raise RuntimeError("non-positive stride is not supported")
    if isinstance(padding, str):
        if padding == "valid":
            pads = [(0, 0)] * nd
        elif padding == "same":
            if any(s != 1 for s in st):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            pads = []
            for d, ks in zip(dl, k.shape[2:]):
                total = d * (ks - 1)
                pads.append((total // 2, total - total // 2))
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        p = tup(padding, nd)
        if any(x < 0 for x in p):
            raise RuntimeError("negative padding is not supported")
        pads = [(x, x) for x in p]
    run = conv_plan(a.shape, k.shape, st, pads, dl, groups)
    dt = input._a.dtype
    if unbatched:
        def plan(a: np.ndarray, k: np.ndarray, b: Optional[np.ndarray]) -> np.ndarray:
            return run(a[None], k, b).astype(dt, copy=False)[0]
    elif compute_dtype(dt) != dt:
        def plan(a: np.ndarray, k: np.ndarray, b: Optional[np.ndarray]) -> np.ndarray:
            return run(a, k, b).astype(dt)
    else:
        plan = run
    return plan


@op("aten::conv1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=[1], "
    "SymInt[1] padding=[0], SymInt[1] dilation=[1], SymInt groups=1) -> Tensor",
    "aten::conv1d.padding(Tensor input, Tensor weight, Tensor? bias=None, "
    "SymInt[1] stride=[1], str padding=\"valid\", SymInt[1] dilation=[1], SymInt groups=1) -> "
    "Tensor")
@quiet
def conv1d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """1-D convolution (cross-correlation) over (N, C, L) or (C, L)."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1)


@op("aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=[1, 1], "
    "SymInt[2] padding=[0, 0], SymInt[2] dilation=[1, 1], SymInt groups=1) -> Tensor",
    "aten::conv2d.padding(Tensor input, Tensor weight, Tensor? bias=None, "
    "SymInt[2] stride=[1, 1], str padding=\"valid\", SymInt[2] dilation=[1, 1], "
    "SymInt groups=1) -> Tensor")
@quiet
def conv2d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """2-D convolution (cross-correlation) over (N, C, H, W) or (C, H, W)."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2)


@op("aten::conv3d(Tensor input, Tensor weight, Tensor? bias=None, "
    "SymInt[3] stride=[1, 1, 1], SymInt[3] padding=[0, 0, 0], SymInt[3] dilation=[1, 1, 1], "
    "SymInt groups=1) -> Tensor",
    "aten::conv3d.padding(Tensor input, Tensor weight, Tensor? bias=None, "
    "SymInt[3] stride=[1, 1, 1], str padding=\"valid\", SymInt[3] dilation=[1, 1, 1], "
    "SymInt groups=1) -> Tensor")
@quiet
def conv3d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """3-D convolution (cross-correlation) over (N, C, D, H, W) or (C, D, H, W)."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3)


def conv_transpose_nd(a: np.ndarray, k: np.ndarray, bias: Optional[np.ndarray],
                      stride: Sequence[int], padding: Sequence[int],
                      output_padding: Sequence[int], groups: int,
                      dilation: Sequence[int]) -> np.ndarray:
    """Transposed convolution of a (N, Cin, *S) with k (Cin, Cout/groups, *K), float64."""
    nd = k.ndim - 2
    n, cin = a.shape[:2]
    if cin != k.shape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {fmt_shape(k.shape)}, expected "
                           f"input{fmt_shape(a.shape)} to have {k.shape[0]} channels, but got "
                           f"{cin} channels instead")
    for op_, s, d in zip(output_padding, stride, dilation):
        if op_ >= s and op_ >= d:
            raise RuntimeError("output padding must be smaller than either stride or dilation, "
                               f"but got output_padding={op_}, stride={s}, dilation={d}")
    cg = cin // groups
    og = k.shape[1]
    sp = a.shape[2:]
    ks = k.shape[2:]
    full = [(i - 1) * s + d * (kk - 1) + 1 + op_ for i, s, d, kk, op_ in
            zip(sp, stride, dilation, ks, output_padding)]
    out = np.zeros((n, og * groups) + tuple(full), np.float64)
    x = acc(a)
    w = acc(k)
    for pos in np.ndindex(*ks):
        # every input position i contributes to output i * stride + pos * dilation
        dst = tuple(slice(p * d, p * d + (i - 1) * s + 1, s) for p, d, i, s in
                    zip(pos, dilation, sp, stride))
        for g in range(groups):
            xg = x[:, g * cg:(g + 1) * cg]
            wg = w[(slice(g * cg, (g + 1) * cg), slice(None)) + pos]     # (cg, og)
            contrib = np.tensordot(xg, wg, axes=([1], [0]))      # (N, *S, og)
            out[(slice(None), slice(g * og, (g + 1) * og)) + dst] += np.moveaxis(contrib, -1, 1)
    crop = tuple(slice(p, max(f - p, p)) for p, f in zip(padding, full))
    y = out[(slice(None), slice(None)) + crop]
    outs = [f - 2 * p for p, f in zip(padding, full)]
    # PyTorch's grouped and batched paths return an empty result where its single-sample
    # path complains
    if any(o < 0 for o in outs) or (any(o == 0 for o in outs) and groups == 1 and n == 1):
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, sp))}). "
                           f"Calculated output size per channel: "
                           f"({' x '.join(map(str, outs))}). Output size is too small")
    if bias is not None:
        y = y + acc(bias).reshape((1, -1) + (1,) * nd)
    return y


def _conv_t(input: Tensor, weight: Tensor, bias: Optional[Tensor], stride: Any, padding: Any,
            output_padding: Any, groups: int, dilation: Any, nd: int) -> Tensor:
    a, k, unbatched = _check_inputs(input, weight, bias, nd, f"conv_transpose{nd}d")
    y = conv_transpose_nd(a, k, None if bias is None else bias._a, tup(stride, nd),
                          tup(padding, nd), tup(output_padding, nd), groups, tup(dilation, nd))
    y = y.astype(input._a.dtype)
    return wrap(y[0] if unbatched else y)


@op("aten::conv_transpose1d(Tensor input, Tensor weight, Tensor? bias=None, "
    "SymInt[1] stride=[1], SymInt[1] padding=[0], SymInt[1] output_padding=[0], "
    "SymInt groups=1, SymInt[1] dilation=[1]) -> Tensor")
@quiet
def conv_transpose1d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
                     stride: Any = 1, padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:
    """1-D transposed convolution."""
    return _conv_t(input, weight, bias, stride, padding, output_padding, groups, dilation, 1)


@op("aten::conv_transpose2d.input(Tensor input, Tensor weight, Tensor? bias=None, "
    "SymInt[2] stride=[1, 1], SymInt[2] padding=[0, 0], SymInt[2] output_padding=[0, 0], "
    "SymInt groups=1, SymInt[2] dilation=[1, 1]) -> Tensor")
@quiet
def conv_transpose2d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
                     stride: Any = 1, padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:
    """2-D transposed convolution."""
    return _conv_t(input, weight, bias, stride, padding, output_padding, groups, dilation, 2)


@op("aten::conv_transpose3d.input(Tensor input, Tensor weight, Tensor? bias=None, "
    "SymInt[3] stride=[1, 1, 1], SymInt[3] padding=[0, 0, 0], "
    "SymInt[3] output_padding=[0, 0, 0], SymInt groups=1, SymInt[3] dilation=[1, 1, 1]) -> "
    "Tensor")
@quiet
def conv_transpose3d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
                     stride: Any = 1, padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:
    """3-D transposed convolution."""
    return _conv_t(input, weight, bias, stride, padding, output_padding, groups, dilation, 3)


@op("aten::convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, "
    "SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, "
    "SymInt groups) -> Tensor")
@quiet
def convolution(input: Tensor, weight: Tensor, bias: Optional[Tensor], stride: Any,
                padding: Any, dilation: Any, transposed: bool, output_padding: Any,
                groups: int) -> Tensor:
    """Any convolution, by the weight's number of dimensions (batched input only)."""
    nd = weight._a.ndim - 2
    if input._a.ndim != weight._a.ndim:
        raise RuntimeError(f"Expected {weight._a.ndim}-dimensional input for "
                           f"{weight._a.ndim}-dimensional weight {fmt_shape(weight._a.shape)}, "
                           f"but got {input._a.ndim}-dimensional input of size "
                           f"{fmt_shape(input._a.shape)} instead")
    if transposed:
        return _conv_t(input, weight, bias, stride, padding, output_padding, groups, dilation,
                       nd)
    return _conv(input, weight, bias, stride, padding, dilation, groups, nd)


@op("aten::_convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, "
    "SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, "
    "SymInt groups, bool benchmark, bool deterministic, bool cudnn_enabled, bool allow_tf32) "
    "-> Tensor")
def _convolution(input: Tensor, weight: Tensor, bias: Optional[Tensor], stride: Any,
                 padding: Any, dilation: Any, transposed: bool, output_padding: Any,
                 groups: int, *flags: Any) -> Tensor:
    """aten::convolution with backend flags (ignored)."""
    return convolution(input, weight, bias, stride, padding, dilation, transposed,
                       output_padding, groups)
