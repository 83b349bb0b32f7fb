"""`torch.finfo` / `torch.iinfo`: the numeric limits of a dtype."""
from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as D


class finfo:   # noqa: N801  (torch's spelling)
    """Limits of a floating dtype (float32 by default): eps, max, min, tiny, resolution."""

    __tsjit_op__ = "aten::finfo"   # scripted code refuses it, as PyTorch's does (no such op)

    def __init__(self, type: Any = None) -> None:
        dt = D.as_dtype(type) if type is not None else D.get_default_dtype()
        info = _info(self, dt, dt.kind in "fc", "a floating point", np.finfo)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.tiny)
        self.resolution = float(info.resolution)

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.tiny:g}, tiny={self.tiny:g}, "
                f"dtype={self.dtype})")


class iinfo:   # noqa: N801
    """Limits of an integral dtype: bits, min, max."""

    __tsjit_op__ = "aten::iinfo"

    def __init__(self, type: Any) -> None:
        dt = D.as_dtype(type)
        info = _info(self, dt, dt.kind in "iu" and dt.name != "bool", "an integer", np.iinfo)
        self.min = int(info.min)
        self.max = int(info.max)

    def __repr__(self) -> str:
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"


def _info(obj: Any, dt: Any, fits: bool, what: str, numpy_info: Any) -> Any:
    """numpy's limits of `dt`, with `dtype` and `bits` set on `obj`; a TypeError unless
    `dt` is `what` the class describes."""
    if not fits:
        raise TypeError(f"torch.{type(obj).__name__}() requires {what} input type, got {dt}")
    info = numpy_info(D.to_numpy_dtype(dt))
    obj.dtype, obj.bits = dt.name, int(info.bits)
    return info


__all__ = ["finfo", "iinfo"]
