"""interpolate / upsample (re-exported by tsjit.nn.functional, which they are named after)."""
from __future__ import annotations

import math
import warnings
from typing import List, Optional, Union

from .._tensor import Tensor
from ..ops import functions as torch


def interpolate(input: Tensor, size: Optional[Union[int, List[int]]] = None,
                scale_factor: Optional[Union[float, List[float]]] = None,
                mode: str = "nearest", align_corners: Optional[bool] = None,
                recompute_scale_factor: Optional[bool] = None,
                antialias: bool = False) -> Tensor:
    """Resize the spatial dims of (N, C, *spatial) input to `size` or by `scale_factor`."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    else:
        if align_corners is None:
            align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    output_size: Optional[List[int]] = None
    scale_factors: Optional[List[float]] = None
    if size is not None:
        if isinstance(size, int):
            output_size = [size] * dim
        else:
            if len(size) != dim:
                raise ValueError("Input and output must have the same number of spatial "
                                 "dimensions, but got input with spatial dimensions of {} and "
                                 "output size of {}. Please provide input tensor in (N, C, "
                                 "d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) "
                                 "format.".format(input.size()[2:], size))
            output_size = [s for s in size]
    elif scale_factor is not None:
        if isinstance(scale_factor, (float, int)):
            scale_factors = [float(scale_factor)] * dim
        else:
            if len(scale_factor) != dim:
                raise ValueError("Input and scale_factor must have the same number of spatial "
                                 "dimensions, but got input with spatial dimensions of {} and "
                                 "scale_factor of shape {}. Please provide input tensor in "
                                 "(N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, "
                                 "...,sK) format.".format(input.size()[2:], scale_factor))
            scale_factors = [float(s) for s in scale_factor]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor is not None and recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    # "area" is adaptive average pooling, which needs an output size
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor is not None and recompute_scale_factor:
        assert scale_factors is not None
        output_size = [int(math.floor(float(input.size(i + 2)) * scale_factors[i]))
                       for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear and bicubic modes and "
                         "requires a 4-D tensor as input")
    if input.dim() == 3 and mode == "nearest":
        return torch.upsample_nearest1d(input, output_size, scale_factors)
    if input.dim() == 4 and mode == "nearest":
        return torch.upsample_nearest2d(input, output_size, scale_factors)
    if input.dim() == 5 and mode == "nearest":
        return torch.upsample_nearest3d(input, output_size, scale_factors)
    if input.dim() == 3 and mode == "nearest-exact":
        return torch._upsample_nearest_exact1d(input, output_size, scale_factors)
    if input.dim() == 4 and mode == "nearest-exact":
        return torch._upsample_nearest_exact2d(input, output_size, scale_factors)
    if input.dim() == 5 and mode == "nearest-exact":
        return torch._upsample_nearest_exact3d(input, output_size, scale_factors)
    if input.dim() == 3 and mode == "area":
        assert output_size is not None
        return torch.adaptive_avg_pool1d(input, output_size)
    if input.dim() == 4 and mode == "area":
        assert output_size is not None
        return torch.adaptive_avg_pool2d(input, output_size)
    if input.dim() == 5 and mode == "area":
        assert output_size is not None
        return torch.adaptive_avg_pool3d(input, output_size)
    if input.dim() == 3 and mode == "linear":
        assert align_corners is not None
        return torch.upsample_linear1d(input, output_size, align_corners, scale_factors)
    if input.dim() == 4 and mode == "bilinear":
        assert align_corners is not None
        if antialias:
            return torch._upsample_bilinear2d_aa(input, output_size, align_corners,
                                                 scale_factors)
        return torch.upsample_bilinear2d(input, output_size, align_corners, scale_factors)
    if input.dim() == 5 and mode == "trilinear":
        assert align_corners is not None
        return torch.upsample_trilinear3d(input, output_size, align_corners, scale_factors)
    if input.dim() == 4 and mode == "bicubic":
        assert align_corners is not None
        if antialias:
            return torch._upsample_bicubic2d_aa(input, output_size, align_corners,
                                                scale_factors)
        return torch.upsample_bicubic2d(input, output_size, align_corners, scale_factors)
    if input.dim() == 3 and mode == "bilinear":
        raise NotImplementedError("Got 3D input, but bilinear mode needs 4D input")
    if input.dim() == 3 and mode == "trilinear":
        raise NotImplementedError("Got 3D input, but trilinear mode needs 5D input")
    if input.dim() == 4 and mode == "linear":
        raise NotImplementedError("Got 4D input, but linear mode needs 3D input")
    if input.dim() == 4 and mode == "trilinear":
        raise NotImplementedError("Got 4D input, but trilinear mode needs 5D input")
    if input.dim() == 5 and mode == "linear":
        raise NotImplementedError("Got 5D input, but linear mode needs 3D input")
    if input.dim() == 5 and mode == "bilinear":
        raise NotImplementedError("Got 5D input, but bilinear mode needs 4D input")
    raise NotImplementedError("Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                              "{}D) for the modes: nearest | linear | bilinear | bicubic | "
                              "trilinear | area | nearest-exact (got {})".format(input.dim(),
                                                                                 mode))


def upsample(input: Tensor, size: Optional[Union[int, List[int]]] = None,
             scale_factor: Optional[Union[float, List[float]]] = None, mode: str = "nearest",
             align_corners: Optional[bool] = None) -> Tensor:
    """Deprecated alias of interpolate."""
    warnings.warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate "
                  "instead.")
    return interpolate(input, size, scale_factor, mode, align_corners)
