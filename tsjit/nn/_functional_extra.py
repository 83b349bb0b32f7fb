"""Folding, sampling grids, unpooling, power-average pooling, local response normalisation,
gumbel softmax and embedding bags (re-exported by tsjit.nn.functional, which they are named
after)."""
from __future__ import annotations

import warnings
from typing import List, Optional, Union

from .._tensor import Tensor
from ..ops import functions as torch
from ._functional_resample import interpolate
from .functional import _no_grad_embedding_renorm_
from ._jit_internal import BroadcastingList1, BroadcastingList2, BroadcastingList3
from .modules.utils import _pair, _single, _triple


# --- fold / unfold ------------------------------------------------------------------------
def unfold(input: Tensor, kernel_size: BroadcastingList2[int],
           dilation: BroadcastingList2[int] = 1, padding: BroadcastingList2[int] = 0,
           stride: BroadcastingList2[int] = 1) -> Tensor:
    """Sliding local blocks of a batched image as columns (im2col)."""
    if input.dim() == 4 or input.dim() == 3:
        return torch.im2col(input, _pair(kernel_size), _pair(dilation), _pair(padding),
                            _pair(stride))
    raise NotImplementedError("Input Error: Only 3D or 4D input Tensors are supported "
                              "(got {}D)".format(input.dim()))


def fold(input: Tensor, output_size: BroadcastingList2[int], kernel_size: BroadcastingList2[int],
         dilation: BroadcastingList2[int] = 1, padding: BroadcastingList2[int] = 0,
         stride: BroadcastingList2[int] = 1) -> Tensor:
    """Columns of local blocks summed back into an image (col2im)."""
    if input.dim() == 3 or input.dim() == 2:
        return torch.col2im(input, _pair(output_size), _pair(kernel_size), _pair(dilation),
                            _pair(padding), _pair(stride))
    raise NotImplementedError("Input Error: Only unbatched (2D) or batched (3D) input Tensors "
                              "are supported (got {}D)".format(input.dim()))


# --- sampling grids -----------------------------------------------------------------------
def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear",
                padding_mode: str = "zeros", align_corners: Optional[bool] = None) -> Tensor:
    """input sampled at the grid's normalised (x, y[, z]) coordinates."""
    if mode != "bilinear" and mode != "nearest" and mode != "bicubic":
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         "'nearest' or 'bicubic', but got: '{}'".format(mode))
    if padding_mode != "zeros" and padding_mode != "border" and padding_mode != "reflection":
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         "'border', or 'reflection', but got: '{}'".format(padding_mode))
    if mode == "bilinear":
        mode_enum = 0
    elif mode == "nearest":
        mode_enum = 1
    else:
        mode_enum = 2
    if padding_mode == "zeros":
        padding_mode_enum = 0
    elif padding_mode == "border":
        padding_mode_enum = 1
    else:
        padding_mode_enum = 2
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to "
                      "align_corners=False since 1.3.0. Please specify align_corners=True if "
                      "the old behavior is desired. See the documentation of grid_sample for "
                      "details.")
        align_corners = False
    return torch.grid_sampler(input, grid, mode_enum, padding_mode_enum, align_corners)


def affine_grid(theta: Tensor, size: List[int], align_corners: Optional[bool] = None) -> Tensor:
    """The sampling grid of the affine maps theta (N, 2, 3) or (N, 3, 4) for an output size."""
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to "
                      "align_corners=False since 1.3.0. Please specify align_corners=True if "
                      "the old behavior is desired. See the documentation of grid_sample for "
                      "details.")
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError("Expected theta to have floating point type, but got {}".format(
            theta.dtype))
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError("Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             "{}. Got {}.".format(size, theta.shape))
        spatial_size = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError("Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             "{}. Got {}.".format(size, theta.shape))
        spatial_size = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  "affine transforms, respectively. Got size {}.".format(size))
    # a single pixel along a dimension has no extent to align corners with
    if align_corners and min(spatial_size) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size "
                      "grids when align_corners=True. This is not an intended use case of "
                      "affine_grid. See the documentation of affine_grid for details.")
    elif min(size) <= 0:
        raise ValueError("Expected non-zero, positive output size. Got {}".format(size))
    return torch.affine_grid_generator(theta, size, align_corners)


# --- unpooling ----------------------------------------------------------------------------
def _unpool_output_size(input: Tensor, kernel_size: List[int], stride: List[int],
                        padding: List[int], output_size: Optional[List[int]]) -> List[int]:
    input_size = input.size()
    n = len(kernel_size)
    default_size: List[int] = []
    for d in range(n):
        default_size.append((input_size[-n + d] - 1) * stride[d] + kernel_size[d]
                            - 2 * padding[d])
    if output_size is None:
        ret = default_size
    else:
        if len(output_size) == n + 2:
            output_size = output_size[2:]
        if len(output_size) != n:
            raise ValueError("output_size should be a sequence containing {} or {} elements, "
                             "but it has a length of '{}'".format(n, n + 2, len(output_size)))
        for d in range(n):
            min_size = default_size[d] - stride[d]
            max_size = default_size[d] + stride[d]
            if not (min_size < output_size[d] < max_size):
                raise ValueError("invalid output_size \"{}\" (dim {} must be between {} and "
                                 "{})".format(output_size, d, min_size, max_size))
        ret = output_size
    return ret


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: BroadcastingList1[int],
                 stride: Optional[BroadcastingList1[int]] = None,
                 padding: BroadcastingList1[int] = 0,
                 output_size: Optional[BroadcastingList1[int]] = None) -> Tensor:
    """The partial inverse of max_pool1d: values put back at their indices, zeros elsewhere."""
    kernel_size = _single(kernel_size)
    if stride is not None:
        _stride = _single(stride)
    else:
        _stride = kernel_size
    padding = _single(padding)
    size = _unpool_output_size(input, kernel_size, _stride, padding, output_size)
    # a 1-d unpooling is a 2-d one over a trailing unit dimension
    return torch.max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1),
                              size + [1]).squeeze(-1)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: BroadcastingList2[int],
                 stride: Optional[BroadcastingList2[int]] = None,
                 padding: BroadcastingList2[int] = 0,
                 output_size: Optional[BroadcastingList2[int]] = None) -> Tensor:
    """The partial inverse of max_pool2d: values put back at their indices, zeros elsewhere."""
    kernel_size = _pair(kernel_size)
    if stride is not None:
        _stride = _pair(stride)
    else:
        _stride = kernel_size
    padding = _pair(padding)
    size = _unpool_output_size(input, kernel_size, _stride, padding, output_size)
    return torch.max_unpool2d(input, indices, size)


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: BroadcastingList3[int],
                 stride: Optional[BroadcastingList3[int]] = None,
                 padding: BroadcastingList3[int] = 0,
                 output_size: Optional[BroadcastingList3[int]] = None) -> Tensor:
    """The partial inverse of max_pool3d: values put back at their indices, zeros elsewhere."""
    kernel_size = _triple(kernel_size)
    if stride is not None:
        _stride = _triple(stride)
    else:
        _stride = kernel_size
    padding = _triple(padding)
    size = _unpool_output_size(input, kernel_size, _stride, padding, output_size)
    return torch.max_unpool3d(input, indices, size, _stride, padding)


# --- power-average pooling ----------------------------------------------------------------
def _lp_root(out: Tensor, count: int, norm_type: float) -> Tensor:
    # (window sum of x ** p) ** (1 / p); the sign/relu pair keeps the mean's sign rounding
    # errors (tiny negatives) from becoming NaN
    return (torch.sign(out) * torch.relu(torch.abs(out))).mul(count).pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type: Union[int, float], kernel_size: int,
              stride: Optional[BroadcastingList1[int]] = None, ceil_mode: bool = False) -> Tensor:
    """1-d power-average pooling: (sum over the window of x ** p) ** (1 / p)."""
    if stride is not None:
        out = torch.avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = torch.avg_pool1d(input.pow(norm_type), kernel_size, padding=0,
                               ceil_mode=ceil_mode)
    return _lp_root(out, kernel_size, float(norm_type))


def lp_pool2d(input: Tensor, norm_type: Union[int, float], kernel_size: BroadcastingList2[int],
              stride: Optional[BroadcastingList2[int]] = None, ceil_mode: bool = False) -> Tensor:
    """2-d power-average pooling: (sum over the window of x ** p) ** (1 / p)."""
    kw, kh = _pair(kernel_size)
    if stride is not None:
        out = torch.avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = torch.avg_pool2d(input.pow(norm_type), kernel_size, padding=0,
                               ceil_mode=ceil_mode)
    return _lp_root(out, kw * kh, float(norm_type))


def lp_pool3d(input: Tensor, norm_type: Union[int, float], kernel_size: BroadcastingList3[int],
              stride: Optional[BroadcastingList3[int]] = None, ceil_mode: bool = False) -> Tensor:
    """3-d power-average pooling: (sum over the window of x ** p) ** (1 / p)."""
    kd, kw, kh = _triple(kernel_size)
    if stride is not None:
        out = torch.avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = torch.avg_pool3d(input.pow(norm_type), kernel_size, padding=0,
                               ceil_mode=ceil_mode)
    return _lp_root(out, kd * kw * kh, float(norm_type))


# --- local response normalisation ---------------------------------------------------------
def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0) -> Tensor:
    """input / (k + alpha * mean of squares over `size` neighbouring channels) ** beta."""
    dim = input.dim()
    if dim < 3:
        raise ValueError("Expected 3D or higher dimensionality input (got {} "
                         "dimensions)".format(dim))
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        # channels as the height of a one-plane image: average over a (size, 1) window
        div = div.unsqueeze(1)
        div = torch.pad(div, [0, 0, size // 2, (size - 1) // 2])
        div = torch.avg_pool2d(div, [size, 1], stride=1).squeeze(1)
    else:
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = torch.pad(div, [0, 0, 0, 0, size // 2, (size - 1) // 2])
        div = torch.avg_pool3d(div, [size, 1, 1], stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


# --- gumbel softmax -----------------------------------------------------------------------
def gumbel_softmax(logits: Tensor, tau: float = 1.0, hard: bool = False, eps: float = 1e-10,
                   dim: int = -1) -> Tensor:
    """A sample of the Gumbel-softmax distribution (one-hot when hard)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.")
    # Gumbel(0, 1) noise as -log of Exp(1) samples
    gumbels = -torch.empty_like(logits).exponential_().log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if hard:
        index = y_soft.max(dim, keepdim=True)[1]
        y_hard = torch.zeros_like(logits).scatter_(dim, index, 1.0)
        ret = y_hard - y_soft.detach() + y_soft
    else:
        ret = y_soft
    return ret


# --- embedding bags -----------------------------------------------------------------------
def embedding_bag(input: Tensor, weight: Tensor, offsets: Optional[Tensor] = None,
                  max_norm: Optional[float] = None, norm_type: float = 2.0,
                  scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Optional[Tensor] = None,
                  include_last_offset: bool = False,
                  padding_idx: Optional[int] = None) -> Tensor:
    """Sums, means or maxima of bags of embeddings (bags: rows of a 2-d input, or offsets)."""
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError("embedding_bag: If per_sample_weights ({}) is not None, then it must "
                         "have the same shape as the input ({})".format(
                             per_sample_weights.shape, input.shape))
    if not weight.dim() == 2:
        raise ValueError("weight has to be a 2D Tensor, but got Tensor of dimension "
                         "{}".format(weight.dim()))
    if input.dim() == 2:
        if offsets is not None:
            type_str = "<unknown>"
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets"
                             " of type {}".format(type_str))
        offsets_ = torch.arange(0, input.numel(), input.size(1), dtype=input.dtype,
                                device=input.device)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        offsets_ = offsets
        if offsets_.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError("input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         "{}".format(input.dim()))
    if mode == "sum":
        mode_enum = 0
    elif mode == "mean":
        mode_enum = 1
    elif mode == "max":
        mode_enum = 2
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    else:
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:
        _no_grad_embedding_renorm_(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. "
                                  "per_sample_weights is only supported for mode='sum' (got "
                                  "mode='{}'). Please open a feature request on "
                                  "GitHub.".format(mode))
    ret, _, _, _ = torch.embedding_bag(weight, input, offsets_, scale_grad_by_freq, mode_enum,
                                       sparse, per_sample_weights, include_last_offset,
                                       padding_idx)
    return ret


# --- deprecated resampling aliases --------------------------------------------------------
def upsample_nearest(input: Tensor, size: Optional[Union[int, List[int]]] = None,
                     scale_factor: Optional[Union[float, List[float]]] = None) -> Tensor:
    """Deprecated: interpolate(..., mode='nearest')."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: Optional[Union[int, List[int]]] = None,
                      scale_factor: Optional[Union[float, List[float]]] = None) -> Tensor:
    """Deprecated: interpolate(..., mode='bilinear', align_corners=True)."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
