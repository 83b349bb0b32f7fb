"""`aten::_weight_norm` (what `torch.nn.utils.weight_norm` / `parametrizations.weight_norm`
compute, e.g. wav2vec2's positional convolution): v * (g / ||v||), the 2-norm taken over every
dimension but `dim` (over all of them for dim=-1)."""
from __future__ import annotations

import numpy as np

from ..._tensor.kernel_util import wrap
from ..._tensor.tensor import Tensor
from ..registry import op


@op("aten::_weight_norm(Tensor v, Tensor g, int dim=0) -> Tensor")
def _weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """The weight of a weight-normalised layer from its direction v and magnitude g."""
    a = v._a
    if dim < -1 or dim >= max(a.ndim, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[-1, {max(a.ndim, 1) - 1}], but got {dim})")
    axes = tuple(range(a.ndim)) if dim == -1 else tuple(i for i in range(a.ndim) if i != dim)
    with np.errstate(all="ignore"):
        norm = np.sqrt(np.sum(np.square(a, dtype=np.float64), axis=axes, keepdims=True))
        out = a * (g._a / norm.astype(a.dtype))
    return wrap(np.ascontiguousarray(out.astype(np.result_type(a, g._a), copy=False)))
