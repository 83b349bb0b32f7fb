"""tsjit.nn.functional: functional forms of the layers, scriptable like torch.nn.functional.

Operators with a kernel (`linear`, `conv2d`, `gelu`, `pad`, ...) are the eager operators
themselves (resolved lazily by the module `__getattr__`, so importing tsjit does not load
the kernels) and compile to the operator. Functions with logic of their own (argument
checks, reshapes, `inplace` flags) are Python functions written in the TorchScript subset;
`tsjit.script` compiles them (archives name them `__torch__.torch.nn.functional.*`).
Attention, resampling and losses live in `_functional_attention.py`,
`_functional_resample.py` and `_functional_loss.py` (file size); they are re-exported here
under this module's name.
"""
from __future__ import annotations

import math
import warnings
from typing import Any, List, Optional, Tuple, Union

from .._tensor import Tensor
from ..ops import functions as torch
from ._jit_internal import (BroadcastingList1, BroadcastingList2, BroadcastingList3,
                             boolean_dispatch)

# torch.nn.functional names that are operators under another aten name
_ALIASES = {"logsigmoid": "log_sigmoid"}


def __getattr__(name: str) -> Any:
    # Every eager operator is also a functional (`F.linear`, `F.conv2d`, `F.gelu`, ...).
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(torch, _ALIASES.get(name, name))


# --- activations -----------------------------------------------------------------------
def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(input, 0), elementwise."""
    if inplace:
        result = torch.relu_(input)
    else:
        result = torch.relu(input)
    return result


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """min(max(input, 0), 6), elementwise."""
    if inplace:
        result = torch.relu6_(input)
    else:
        result = torch.relu6(input)
    return result


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,
             inplace: bool = False) -> Tensor:
    """input clamped to [min_val, max_val]."""
    if inplace:
        result = torch.hardtanh_(input, min_val, max_val)
    else:
        result = torch.hardtanh(input, min_val, max_val)
    return result


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """input where input > threshold, else value."""
    if inplace:
        result = torch.threshold_(input, threshold, value)
    else:
        result = torch.threshold(input, threshold, value)
    return result


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x if x > 0 else alpha * (exp(x) - 1)."""
    if inplace:
        result = torch.elu_(input, alpha)
    else:
        result = torch.elu(input, alpha)
    return result


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    if inplace:
        result = torch.celu_(input, alpha)
    else:
        result = torch.celu(input, alpha)
    return result


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """scale * elu(x, alpha) with the self-normalising constants."""
    if inplace:
        result = torch.selu_(input)
    else:
        result = torch.selu(input)
    return result


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x if x >= 0 else negative_slope * x."""
    if inplace:
        result = torch.leaky_relu_(input, negative_slope)
    else:
        result = torch.leaky_relu(input, negative_slope)
    return result


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
          training: bool = False, inplace: bool = False) -> Tensor:
    """Leaky ReLU with a random slope in training, the mean slope in eval."""
    if inplace:
        result = torch.rrelu_(input, lower, upper, training)
    else:
        result = torch.rrelu(input, lower, upper, training)
    return result


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x * sigmoid(x)."""
    if inplace:
        return torch.silu_(input)
    return torch.silu(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * tanh(softplus(x))."""
    if inplace:
        return torch.mish_(input)
    return torch.mish(input)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """relu6(x + 3) / 6."""
    if inplace:
        return torch.hardsigmoid_(input)
    return torch.hardsigmoid(input)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * relu6(x + 3) / 6."""
    if inplace:
        return torch.hardswish_(input)
    return torch.hardswish(input)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """a * sigmoid(b) for the two halves a, b of input along dim."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return torch.glu(input, dim)


def tanhshrink(input: Tensor) -> Tensor:
    """x - tanh(x)."""
    return input - input.tanh()


def softsign(input: Tensor) -> Tensor:
    """x / (1 + |x|)."""
    return input / (input.abs() + 1)


def _get_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn("Implicit dimension choice for " + name + " has been deprecated. "
                  "Change the call to include dim=X as an argument.", stacklevel=stacklevel)
    if ndim == 0 or ndim == 1 or ndim == 3:
        ret = 0
    else:
        ret = 1
    return ret


def softmax(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3,
            dtype: Optional[int] = None) -> Tensor:
    """exp(x) / sum(exp(x)) along dim."""
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    if dtype is None:
        ret = input.softmax(dim)
    else:
        ret = input.softmax(dim, dtype=dtype)
    return ret


def softmin(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3,
            dtype: Optional[int] = None) -> Tensor:
    """softmax(-x) along dim."""
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    if dtype is None:
        ret = (-input).softmax(dim)
    else:
        ret = (-input).softmax(dim, dtype=dtype)
    return ret


def log_softmax(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3,
                dtype: Optional[int] = None) -> Tensor:
    """log(softmax(x)) along dim, computed stably."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    if dtype is None:
        ret = input.log_softmax(dim)
    else:
        ret = input.log_softmax(dim, dtype=dtype)
    return ret


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12,
              out: Optional[Tensor] = None) -> Tensor:
    """input / max(||input||_p along dim, eps)."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    return torch.div(input, denom, out=out)


# --- dropout ------------------------------------------------------------------------
def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero elements with probability p and scale the rest by 1 / (1 - p) (training only)."""
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
    if inplace:
        result = torch.dropout_(input, p, training)
    else:
        result = torch.dropout(input, p, training)
    return result


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                  inplace: bool = False) -> Tensor:
    """Dropout keeping the mean and variance of SELU activations."""
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
    if inplace:
        result = torch.alpha_dropout_(input, p, training)
    else:
        result = torch.alpha_dropout(input, p, training)
    return result


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                          inplace: bool = False) -> Tensor:
    """Alpha dropout of whole channels."""
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
    if inplace:
        result = torch.feature_alpha_dropout_(input, p, training)
    else:
        result = torch.feature_alpha_dropout(input, p, training)
    return result


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, L) or (C, L) input."""
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
    inp_dim = input.dim()
    if inp_dim not in (2, 3):
        raise RuntimeError("dropout1d: Expected 2D or 3D input, but received a {}D input. "
                           "Note that dropout1d exists to provide channel-wise dropout on "
                           "inputs with 1 spatial dimension, a channel dimension, and an "
                           "optional batch dimension (i.e. 2D or 3D inputs).".format(inp_dim))
    is_batched = inp_dim == 3
    if not is_batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    if inplace:
        result = torch.feature_dropout_(input, p, training)
    else:
        result = torch.feature_dropout(input, p, training)
    if not is_batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, H, W) or (C, H, W) input."""
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
    inp_dim = input.dim()
    if inp_dim not in (3, 4):
        warnings.warn("dropout2d: Received a {}-D input to dropout2d, which is deprecated and "
                      "will result in an error in a future release.".format(inp_dim))
    if inp_dim == 3:
        # PyTorch keeps its historical behaviour here: the 3-D input is treated as
        # (N, C, L) and whole 1-D channels are dropped.
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-"
                      "wise 1D dropout behavior is desired - input is interpreted as shape "
                      "(N, C, L).")
    if inplace:
        result = torch.feature_dropout_(input, p, training)
    else:
        result = torch.feature_dropout(input, p, training)
    return result


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) input."""
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
    inp_dim = input.dim()
    is_batched = inp_dim == 5
    if not is_batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    if inplace:
        result = torch.feature_dropout_(input, p, training)
    else:
        result = torch.feature_dropout(input, p, training)
    if not is_batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


# --- normalisation ------------------------------------------------------------------
def _verify_batch_size(size: List[int]) -> None:
    size_prods = size[0]
    for i in range(len(size) - 2):
        size_prods *= size[i + 2]
    if size_prods == 1:
        raise ValueError("Expected more than 1 value per channel when training, got input "
                         "size {}".format(size))


def batch_norm(input: Tensor, running_mean: Optional[Tensor], running_var: Optional[Tensor],
               weight: Optional[Tensor] = None, bias: Optional[Tensor] = None,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel by batch (training) or running statistics (eval)."""
    if training:
        _verify_batch_size(input.size())
    return torch.batch_norm(input, weight, bias, running_mean, running_var, training,
                            momentum, eps, False)


def _verify_spatial_size(size: List[int]) -> None:
    size_prods = 1
    for i in range(2, len(size)):
        size_prods *= size[i]
    if size_prods == 1:
        raise ValueError("Expected more than 1 spatial element when training, got input size "
                         "{}".format(size))


def instance_norm(input: Tensor, running_mean: Optional[Tensor] = None,
                  running_var: Optional[Tensor] = None, weight: Optional[Tensor] = None,
                  bias: Optional[Tensor] = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel of each sample over its spatial dims."""
    if use_input_stats:
        _verify_spatial_size(input.size())
    return torch.instance_norm(input, weight, bias, running_mean, running_var,
                               use_input_stats, momentum, eps, False)


def layer_norm(input: Tensor, normalized_shape: List[int], weight: Optional[Tensor] = None,
               bias: Optional[Tensor] = None, eps: float = 1e-5) -> Tensor:
    """Normalise over the trailing `normalized_shape` dims."""
    return torch.layer_norm(input, normalized_shape, weight, bias, eps, False)


def group_norm(input: Tensor, num_groups: int, weight: Optional[Tensor] = None,
               bias: Optional[Tensor] = None, eps: float = 1e-5) -> Tensor:
    """Normalise over groups of channels."""
    if input.dim() < 2:
        raise RuntimeError("Expected at least 2 dimensions for input tensor but received "
                           "{}".format(input.dim()))
    _verify_batch_size([input.size(0) * input.size(1) // num_groups, num_groups]
                       + input.size()[2:])
    return torch.group_norm(input, num_groups, weight, bias, eps, False)


def rms_norm(input: Tensor, normalized_shape: List[int], weight: Optional[Tensor] = None,
             eps: Optional[float] = None) -> Tensor:
    """x / sqrt(mean(x^2) + eps) over the trailing `normalized_shape` dims."""
    return torch.rms_norm(input, normalized_shape, weight, eps)


# --- embedding ------------------------------------------------------------------------
def _no_grad_embedding_renorm_(weight: Tensor, input: Tensor, max_norm: float,
                               norm_type: float) -> None:
    # Rows that `input` looks up and whose norm exceeds max_norm are rescaled in place.
    rows, _ = torch._unique(input.flatten(), True, False)
    sel = weight.index_select(0, rows)
    norms = sel.norm(norm_type, 1, True)
    scale = torch.where(norms > max_norm, max_norm / (norms + 1e-7), torch.ones_like(norms))
    weight.index_copy_(0, rows, sel * scale)


def embedding(input: Tensor, weight: Tensor, padding_idx: Optional[int] = None,
              max_norm: Optional[float] = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of `weight` selected by the indices in `input`."""
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        # the renorm writes into weight, so the lookup must see the updated rows
        input = input.contiguous()
        _no_grad_embedding_renorm_(weight, input, max_norm, norm_type)
    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot encoding of class indices (a new trailing dim)."""
    return torch.one_hot(tensor, num_classes)


# --- pooling ------------------------------------------------------------------------
def _max_pool1d(input: Tensor, kernel_size: BroadcastingList1[int],
                stride: Optional[BroadcastingList1[int]] = None,
                padding: BroadcastingList1[int] = 0, dilation: BroadcastingList1[int] = 1,
                ceil_mode: bool = False, return_indices: bool = False) -> Tensor:
    if stride is None:
        stride = kernel_size
    return torch.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool1d_with_indices(input: Tensor, kernel_size: BroadcastingList1[int],
                            stride: Optional[BroadcastingList1[int]] = None,
                            padding: BroadcastingList1[int] = 0,
                            dilation: BroadcastingList1[int] = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> Tuple[Tensor, Tensor]:
    """1-D max pooling returning (values, flat indices of the maxima)."""
    if stride is None:
        stride = kernel_size
    return torch.max_pool1d_with_indices(input, kernel_size, stride, padding, dilation,
                                         ceil_mode)


def _max_pool2d(input: Tensor, kernel_size: BroadcastingList2[int],
                stride: Optional[BroadcastingList2[int]] = None,
                padding: BroadcastingList2[int] = 0, dilation: BroadcastingList2[int] = 1,
                ceil_mode: bool = False, return_indices: bool = False) -> Tensor:
    if stride is None:
        stride = kernel_size
    return torch.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d_with_indices(input: Tensor, kernel_size: BroadcastingList2[int],
                            stride: Optional[BroadcastingList2[int]] = None,
                            padding: BroadcastingList2[int] = 0,
                            dilation: BroadcastingList2[int] = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> Tuple[Tensor, Tensor]:
    """2-D max pooling returning (values, flat indices of the maxima)."""
    if stride is None:
        stride = kernel_size
    return torch.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation,
                                         ceil_mode)


def _max_pool3d(input: Tensor, kernel_size: BroadcastingList3[int],
                stride: Optional[BroadcastingList3[int]] = None,
                padding: BroadcastingList3[int] = 0, dilation: BroadcastingList3[int] = 1,
                ceil_mode: bool = False, return_indices: bool = False) -> Tensor:
    if stride is None:
        stride = kernel_size
    return torch.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d_with_indices(input: Tensor, kernel_size: BroadcastingList3[int],
                            stride: Optional[BroadcastingList3[int]] = None,
                            padding: BroadcastingList3[int] = 0,
                            dilation: BroadcastingList3[int] = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> Tuple[Tensor, Tensor]:
    """3-D max pooling returning (values, flat indices of the maxima)."""
    if stride is None:
        stride = kernel_size
    return torch.max_pool3d_with_indices(input, kernel_size, stride, padding, dilation,
                                         ceil_mode)


# `return_indices` changes the return type, so each value has its own function and the
# public name picks one (the compiler needs the flag to be a constant).
max_pool1d = boolean_dispatch("return_indices", 6, False, max_pool1d_with_indices,
                              _max_pool1d, __name__, "max_pool1d")
max_pool2d = boolean_dispatch("return_indices", 6, False, max_pool2d_with_indices,
                              _max_pool2d, __name__, "max_pool2d")
max_pool3d = boolean_dispatch("return_indices", 6, False, max_pool3d_with_indices,
                              _max_pool3d, __name__, "max_pool3d")


def _list_with_default(out_size: List[int], defaults: List[int]) -> List[int]:
    # None entries (eager only, as in PyTorch) keep the input's size for that dim.
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError("Input dimension should be at least {}".format(len(out_size) + 1))
    offset = len(defaults) - len(out_size)
    return [defaults[offset + i] if out_size[i] is None else out_size[i]
            for i in range(len(out_size))]


def adaptive_avg_pool2d(input: Tensor, output_size: BroadcastingList2[int]) -> Tensor:
    """Average pooling to a fixed output size."""
    _output_size = _list_with_default(output_size, input.size())
    return torch.adaptive_avg_pool2d(input, _output_size)


def adaptive_avg_pool3d(input: Tensor, output_size: BroadcastingList3[int]) -> Tensor:
    """3-D average pooling to a fixed output size."""
    _output_size = _list_with_default(output_size, input.size())
    return torch.adaptive_avg_pool3d(input, _output_size)


def _adaptive_max_pool1d(input: Tensor, output_size: BroadcastingList1[int],
                         return_indices: bool = False) -> Tensor:
    return torch.adaptive_max_pool1d(input, output_size)[0]


def adaptive_max_pool1d_with_indices(input: Tensor, output_size: BroadcastingList1[int],
                                     return_indices: bool = False) -> Tuple[Tensor, Tensor]:
    """1-D adaptive max pooling returning (values, indices)."""
    return torch.adaptive_max_pool1d(input, output_size)


def _adaptive_max_pool2d(input: Tensor, output_size: BroadcastingList2[int],
                         return_indices: bool = False) -> Tensor:
    output_size = _list_with_default(output_size, input.size())
    return torch.adaptive_max_pool2d(input, output_size)[0]


def adaptive_max_pool2d_with_indices(input: Tensor, output_size: BroadcastingList2[int],
                                     return_indices: bool = False) -> Tuple[Tensor, Tensor]:
    """2-D adaptive max pooling returning (values, indices)."""
    output_size = _list_with_default(output_size, input.size())
    return torch.adaptive_max_pool2d(input, output_size)


def _adaptive_max_pool3d(input: Tensor, output_size: BroadcastingList3[int],
                         return_indices: bool = False) -> Tensor:
    output_size = _list_with_default(output_size, input.size())
    return torch.adaptive_max_pool3d(input, output_size)[0]


def adaptive_max_pool3d_with_indices(input: Tensor, output_size: BroadcastingList3[int],
                                     return_indices: bool = False) -> Tuple[Tensor, Tensor]:
    """3-D adaptive max pooling returning (values, indices)."""
    output_size = _list_with_default(output_size, input.size())
    return torch.adaptive_max_pool3d(input, output_size)


adaptive_max_pool1d = boolean_dispatch("return_indices", 2, False,
                                       adaptive_max_pool1d_with_indices, _adaptive_max_pool1d,
                                       __name__, "adaptive_max_pool1d")
adaptive_max_pool2d = boolean_dispatch("return_indices", 2, False,
                                       adaptive_max_pool2d_with_indices, _adaptive_max_pool2d,
                                       __name__, "adaptive_max_pool2d")
adaptive_max_pool3d = boolean_dispatch("return_indices", 2, False,
                                       adaptive_max_pool3d_with_indices, _adaptive_max_pool3d,
                                       __name__, "adaptive_max_pool3d")


__all__ = [
    "relu", "relu6", "hardtanh", "threshold", "elu", "celu", "selu", "leaky_relu", "rrelu",
    "silu", "mish", "hardsigmoid", "hardswish", "glu", "tanhshrink", "softsign", "softmax",
    "softmin", "log_softmax", "normalize", "dropout", "alpha_dropout", "feature_alpha_dropout",
    "dropout1d", "dropout2d", "dropout3d", "batch_norm", "instance_norm", "layer_norm",
    "group_norm", "rms_norm", "embedding", "one_hot", "max_pool1d", "max_pool2d",
    "max_pool3d", "max_pool1d_with_indices", "max_pool2d_with_indices",
    "max_pool3d_with_indices", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
    "adaptive_max_pool1d", "adaptive_max_pool2d",
    "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "fractional_max_pool2d",
    "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices", "interpolate",
    "upsample", "cross_entropy", "nll_loss", "mse_loss", "l1_loss",
    "binary_cross_entropy_with_logits", "multi_head_attention_forward",
    # operators (resolved lazily)
    "linear", "bilinear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
    "conv_transpose2d", "conv_transpose3d", "gelu", "logsigmoid", "softplus", "softshrink",
    "hardshrink", "prelu", "pad", "avg_pool1d", "avg_pool2d", "avg_pool3d",
    "adaptive_avg_pool1d", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
    "scaled_dot_product_attention", "cosine_similarity", "pairwise_distance", "sigmoid",
    "tanh",
    "unfold", "fold", "grid_sample", "affine_grid", "max_unpool1d", "max_unpool2d",
    "max_unpool3d", "lp_pool1d", "lp_pool2d", "lp_pool3d", "local_response_norm",
    "gumbel_softmax", "embedding_bag", "upsample_nearest", "upsample_bilinear",
    "binary_cross_entropy", "kl_div", "smooth_l1_loss", "huber_loss", "margin_ranking_loss",
    "soft_margin_loss", "hinge_embedding_loss", "cosine_embedding_loss", "poisson_nll_loss",
    "gaussian_nll_loss", "triplet_margin_loss", "multi_margin_loss",
    "multilabel_margin_loss", "multilabel_soft_margin_loss", "ctc_loss",
]

# Defined in helper files for size; renamed so that scripted code and archives call them
# `torch.nn.functional.<name>`, as PyTorch does.
from ._functional_attention import (  # noqa: E402
    _canonical_mask, _in_projection, _in_projection_packed, _mha_shape_check, _none_or_dtype,
    multi_head_attention_forward)
from ._functional_resample import interpolate, upsample  # noqa: E402
from ._functional_loss import (_reduction_enum, binary_cross_entropy_with_logits,  # noqa: E402
                               cross_entropy, l1_loss, mse_loss, nll_loss)
from ._functional_loss import (  # noqa: E402
    binary_cross_entropy, kl_div, smooth_l1_loss, huber_loss, margin_ranking_loss,
    soft_margin_loss, hinge_embedding_loss, cosine_embedding_loss, poisson_nll_loss,
    gaussian_nll_loss, triplet_margin_loss, multi_margin_loss, multilabel_margin_loss,
    multilabel_soft_margin_loss, ctc_loss)
from ._functional_extra import (  # noqa: E402
    unfold, fold, grid_sample, affine_grid, _unpool_output_size, max_unpool1d, max_unpool2d,
    max_unpool3d, _lp_root, lp_pool1d, lp_pool2d, lp_pool3d, local_response_norm,
    gumbel_softmax, embedding_bag, upsample_nearest, upsample_bilinear)
from ._functional_fractional import (  # noqa: E402
    _fractional_max_pool2d, _fractional_max_pool3d, fractional_max_pool2d,
    fractional_max_pool2d_with_indices, fractional_max_pool3d, fractional_max_pool3d_with_indices)

for _f in (_canonical_mask, _in_projection, _in_projection_packed, _mha_shape_check,
           _none_or_dtype, multi_head_attention_forward, _reduction_enum,
           binary_cross_entropy_with_logits, cross_entropy, l1_loss, mse_loss, nll_loss,
           interpolate, upsample, _fractional_max_pool2d, _fractional_max_pool3d,
           fractional_max_pool2d_with_indices, fractional_max_pool3d_with_indices,
           binary_cross_entropy, kl_div, smooth_l1_loss, huber_loss,
           margin_ranking_loss, soft_margin_loss, hinge_embedding_loss,
           cosine_embedding_loss, poisson_nll_loss, gaussian_nll_loss,
           triplet_margin_loss, multi_margin_loss, multilabel_margin_loss,
           multilabel_soft_margin_loss, ctc_loss, unfold, fold, grid_sample,
           affine_grid, _unpool_output_size, max_unpool1d, max_unpool2d,
           max_unpool3d, _lp_root, lp_pool1d, lp_pool2d, lp_pool3d,
           local_response_norm, gumbel_softmax, embedding_bag, upsample_nearest,
           upsample_bilinear):
    _f.__module__ = __name__
del _f
