"""im2col / col2im (what F.unfold / F.fold call) and max_unpool2d / max_unpool3d."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..registry import op
from ..._tensor.kernel_util import fmt_shape, not_implemented, wrap
from ..._tensor.tensor import Tensor


def _blocks(size: Sequence[int], kernel: Sequence[int], dilation: Sequence[int],
            padding: Sequence[int], stride: Sequence[int]) -> list[int]:
    """The number of sliding blocks along each spatial dim."""
    return [(s + 2 * p - d * (k - 1) - 1) // st + 1
            for s, k, d, p, st in zip(size, kernel, dilation, padding, stride)]


def _check_fold_args(self: Tensor, name: str, kernel: Sequence[int], dilation: Sequence[int],
                     padding: Sequence[int], stride: Sequence[int]) -> None:
    if self.dtype.kind not in "fc":
        raise not_implemented(name, self.dtype)
    if min(kernel) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: "
                           f"{kernel[0]} kernel_width: {kernel[1]}")
    if min(dilation) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: "
                           f"{dilation[0]} dilation_width: {dilation[1]}")
    if min(padding) < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {padding[0]} "
                           f"pad_width: {padding[1]}")
    if min(stride) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: "
                           f"{stride[0]} stride_width: {stride[1]}")


@op("aten::im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, "
    "int[2] stride) -> Tensor")
def im2col(self: Tensor, kernel_size: Sequence[int], dilation: Sequence[int],
           padding: Sequence[int], stride: Sequence[int]) -> Tensor:
    """Sliding (kh, kw) blocks of a (N, C, H, W) input as columns (N, C*kh*kw, L)."""
    a = self._a
    if a.ndim not in (3, 4) or 0 in a.shape[-3:]:
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size "
                           f"and other non-zero dimensions for input, but got: "
                           f"{fmt_shape(a.shape)}")
    _check_fold_args(self, "im2col_out_cpu", kernel_size, dilation, padding, stride)
    x = a if a.ndim == 4 else a[None]
    n, c, h, w = x.shape
    oh, ow = _blocks((h, w), kernel_size, dilation, padding, stride)
    if oh < 1 or ow < 1:
        raise RuntimeError(f"Given input with spatial size ({h}, {w}), kernel_size "
                           f"({kernel_size[0]}, {kernel_size[1]}), dilation ({dilation[0]}, "
                           f"{dilation[1]}), padding ({padding[0]}, {padding[1]}), calculated "
                           f"shape of the array of sliding blocks as ({oh}, {ow}), but its "
                           "components must be at least one.")
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel_size, dilation, padding, stride
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    cols = np.empty((n, c, kh, kw, oh, ow), a.dtype)
    for i in range(kh):          # one strided slice per kernel position
        for j in range(kw):
            cols[:, :, i, j] = xp[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                                  j * dw:j * dw + sw * (ow - 1) + 1:sw]
    out = cols.reshape(n, c * kh * kw, oh * ow)
    return wrap(out if a.ndim == 4 else out[0])


@op("aten::col2im(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation, "
    "int[2] padding, int[2] stride) -> Tensor")
def col2im(self: Tensor, output_size: Sequence[int], kernel_size: Sequence[int],
           dilation: Sequence[int], padding: Sequence[int], stride: Sequence[int]) -> Tensor:
    """Columns (N, C*kh*kw, L) summed back into a (N, C, H, W) image (im2col's adjoint)."""
    a = self._a
    if a.ndim not in (2, 3) or 0 in a.shape[-2:]:
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           f"batch size and non-zero dimensions for input, but got: "
                           f"{fmt_shape(a.shape)}")
    _check_fold_args(self, "col2im_out_cpu", kernel_size, dilation, padding, stride)
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel_size, dilation, padding, stride
    h, w = int(output_size[0]), int(output_size[1])
    x = a if a.ndim == 3 else a[None]
    n, ck, length = x.shape
    if ck % (kh * kw):
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product "
                           f"of kernel_size, but got input.size(1)={ck} and "
                           f"kernel_size=({kh}, {kw})")
    oh, ow = _blocks((h, w), kernel_size, dilation, padding, stride)
    if oh * ow != length:
        raise RuntimeError(f"Given output_size=({h}, {w}), kernel_size=({kh}, {kw}), "
                           f"dilation=({dh}, {dw}), padding=({ph}, {pw}), stride=({sh}, {sw}), "
                           f"expected size of input's dimension 2 to match the calculated "
                           f"number of sliding blocks {oh} * {ow} = {oh * ow}, but got "
                           f"input.size(2)={length}.")
    c = ck // (kh * kw)
    cols = x.reshape(n, c, kh, kw, oh, ow)
    out = np.zeros((n, c, h + 2 * ph, w + 2 * pw), a.dtype)
    for i in range(kh):
        for j in range(kw):
            out[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                j * dw:j * dw + sw * (ow - 1) + 1:sw] += cols[:, :, i, j]
    out = out[:, :, ph:ph + h, pw:pw + w]
    return wrap(np.ascontiguousarray(out if a.ndim == 3 else out[0]))


def _unpool(self: Tensor, indices: Tensor, out_size: Sequence[int], name: str) -> Tensor:
    a, idx = self._a, indices._a
    d = len(out_size)
    if idx.dtype != np.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: "
                           f"{indices.dtype.cname}")
    if a.shape != idx.shape:
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({fmt_shape(a.shape)}) but got indices tensor with shape: "
                           f"{fmt_shape(idx.shape)}")
    if a.ndim not in (d + 1, d + 2):
        raise RuntimeError(f"Input to {name} should be a {d + 1}d or {d + 2}d Tensor, but got "
                           f"a tensor with {a.ndim} dimensions.")
    lead = a.shape[:a.ndim - d]
    plane = 1
    for s in out_size:
        plane *= int(s)
    src = a.reshape(-1, int(np.prod(a.shape[a.ndim - d:], dtype=np.int64)))
    ix = idx.reshape(src.shape)
    out = np.zeros((src.shape[0], plane), a.dtype)
    if ix.size:
        bad = (ix < 0) | (ix >= plane)
        if bad.any():
            sizes = "x".join(str(int(s)) for s in out_size)
            raise RuntimeError(f"Found an invalid max index: {int(ix[bad][0])} (output volumes "
                               f"are of size {sizes}")
        out[np.arange(src.shape[0])[:, None], ix] = src
    return wrap(out.reshape(lead + tuple(int(s) for s in out_size)))


@op("aten::max_unpool2d(Tensor self, Tensor indices, SymInt[2] output_size) -> Tensor")
def max_unpool2d(self: Tensor, indices: Tensor, output_size: Sequence[int]) -> Tensor:
    """Each value placed at its index within an (H, W) plane of zeros (max_pool2d's inverse)."""
    return _unpool(self, indices, output_size, "max_unpooling2d")


@op("aten::max_unpool3d(Tensor self, Tensor indices, SymInt[3] output_size, int[3] stride, "
    "int[3] padding) -> Tensor")
def max_unpool3d(self: Tensor, indices: Tensor, output_size: Sequence[int],
                 stride: Sequence[int], padding: Sequence[int]) -> Tensor:
    """Each value placed at its index within a (D, H, W) volume of zeros."""
    return _unpool(self, indices, output_size, "max_unpooling3d")
