"""Elementwise math functions: exp, log, sqrt, trigonometry, sigmoid, erf, rounding ...

Floating functions turn integer and bool inputs into the default dtype (float32), like
PyTorch; rounding functions keep integer dtypes and reject bools.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from ..._tensor import dtypes as D
from ..registry import op
from ..._tensor.kernel_util import float_result, fp_ignored, native_float, not_implemented, quiet, to_np, wrap
from ..._tensor.tensor import Tensor
from .tensor_arith import inplace
from . import blocked_math

def _special() -> Any:
    # scipy.special costs ~0.1 s to import: only models that use erf pay it, at their first call
    import scipy.special
    return scipy.special


def erf_array(a: np.ndarray) -> np.ndarray:
    """erf of a float array in its own precision (numpy has no erf; scipy's is vectorised)."""
    return _special().erf(a).astype(a.dtype, copy=False)


def erfc_array(a: np.ndarray) -> np.ndarray:
    """erfc of a float array in its own precision."""
    return _special().erfc(a).astype(a.dtype, copy=False)


def _sigmoid(a: np.ndarray) -> np.ndarray:
    if a.dtype.kind == "c":
        return 1 / (1 + np.exp(-a))
    return blocked_math.sigmoid(native_float(a)).astype(a.dtype, copy=False)


def _rsqrt(a: np.ndarray) -> np.ndarray:
    return (1 / np.sqrt(a)).astype(a.dtype, copy=False)


def _float_unary(name: str, fn: Callable) -> Callable:
    @quiet
    def kernel(self: Tensor) -> Tensor:
        dt = float_result(self.dtype)
        return wrap(fn(to_np(self, dt)))
    kernel.__name__ = name
    kernel.__doc__ = f"Elementwise {name} (integers and bools give floats)."
    return kernel


_FLOAT_UNARY: dict[str, tuple[Callable, tuple[str, ...]]] = {
    "exp": (np.exp, ()), "exp2": (np.exp2, ()), "expm1": (np.expm1, ()),
    "log": (np.log, ()), "log2": (np.log2, ()), "log10": (np.log10, ()),
    "log1p": (np.log1p, ()), "sqrt": (np.sqrt, ()), "rsqrt": (_rsqrt, ()),
    "sin": (np.sin, ()), "cos": (np.cos, ()), "tan": (np.tan, ()),
    "asin": (np.arcsin, ("arcsin",)), "acos": (np.arccos, ("arccos",)),
    "atan": (np.arctan, ("arctan",)), "sinh": (np.sinh, ()), "cosh": (np.cosh, ()),
    "tanh": (np.tanh, ()), "asinh": (np.arcsinh, ("arcsinh",)),
    "acosh": (np.arccosh, ("arccosh",)), "atanh": (np.arctanh, ("arctanh",)),
    "sigmoid": (_sigmoid, ()), "erf": (erf_array, ()), "erfc": (erfc_array, ()),
    "deg2rad": (np.deg2rad, ()), "rad2deg": (np.rad2deg, ()),
}

# Module attributes `exp`, `exp_`, ... for each function; in-place ones exist where PyTorch
# has them (all of the above except the aliases and deg2rad / rad2deg).
for _name, (_fn, _aliases) in _FLOAT_UNARY.items():
    _k = _float_unary(_name, _fn)
    op(f"aten::{_name}(Tensor self) -> Tensor",
       *(f"aten::{a}(Tensor self) -> Tensor" for a in _aliases))(_k)
    globals()[_name] = _k
    if _name not in ("deg2rad", "rad2deg"):
        globals()[_name + "_"] = op(f"aten::{_name}_(Tensor(a!) self) -> Tensor(a!)")(
            inplace(_k))
del _k, _fn, _aliases, _name


def _rounding(name: str, fn: Callable) -> Callable:
    def kernel(self: Tensor) -> Tensor:
        a = self._a
        if a.dtype == np.bool_:
            raise not_implemented(name + "_vml_cpu", self.dtype)
        if a.dtype.kind in "iu":
            return wrap(a.copy())
        if a.dtype.kind == "c":
            raise RuntimeError(f"{name} is not supported for complex inputs")
        return wrap(fn(a))
    kernel.__name__ = name
    kernel.__doc__ = f"Elementwise {name} (integers unchanged)."
    return kernel


floor = op("aten::floor(Tensor self) -> Tensor")(_rounding("floor", np.floor))
ceil = op("aten::ceil(Tensor self) -> Tensor")(_rounding("ceil", np.ceil))
trunc = op("aten::trunc(Tensor self) -> Tensor", "aten::fix(Tensor self) -> Tensor")(
    _rounding("trunc", np.trunc))
floor_ = op("aten::floor_(Tensor(a!) self) -> Tensor(a!)")(inplace(floor))
ceil_ = op("aten::ceil_(Tensor(a!) self) -> Tensor(a!)")(inplace(ceil))
trunc_ = op("aten::trunc_(Tensor(a!) self) -> Tensor(a!)")(inplace(trunc))


@op("aten::round(Tensor self) -> Tensor",
    "aten::round.decimals(Tensor self, *, int decimals) -> Tensor")
@quiet
def round(self: Tensor, decimals: int = 0) -> Tensor:
    """Round half to even, optionally to `decimals` decimal places."""
    a = self._a
    if a.dtype == np.bool_ or (decimals != 0 and a.dtype.kind in "iu"):
        raise not_implemented("round_cpu", self.dtype)
    if a.dtype.kind in "iu":
        return wrap(a.copy())
    if decimals == 0:
        return wrap(np.rint(a))
    # scale in the tensor's own dtype, like PyTorch
    p = np.asarray(10.0 ** abs(decimals), dtype=a.dtype)
    if decimals > 0:
        return wrap((np.rint(a * p) / p).astype(a.dtype, copy=False))
    return wrap((np.rint(a / p) * p).astype(a.dtype, copy=False))


round_ = op("aten::round_(Tensor(a!) self) -> Tensor(a!)",
            "aten::round_.decimals(Tensor(a!) self, *, int decimals) -> Tensor(a!)")(
    inplace(round))


@op("aten::frac(Tensor self) -> Tensor")
def frac(self: Tensor) -> Tensor:
    """self - trunc(self) (floating types only)."""
    if self.dtype.kind not in "f":
        raise not_implemented("frac_cpu", self.dtype)
    a = self._a
    return wrap(a - np.trunc(a))


frac_ = op("aten::frac_(Tensor(a!) self) -> Tensor(a!)")(inplace(frac))


@op("aten::nan_to_num(Tensor self, float? nan=None, float? posinf=None, "
    "float? neginf=None) -> Tensor")
def nan_to_num(self: Tensor, nan: Optional[float] = None, posinf: Optional[float] = None,
               neginf: Optional[float] = None) -> Tensor:
    """NaN -> nan (0), +inf -> posinf (largest finite), -inf -> neginf (lowest finite)."""
    a = self._a
    if a.dtype.kind not in "fc":
        return wrap(a.copy())
    info = np.finfo(a.dtype)
    with fp_ignored():
        r = np.nan_to_num(a, copy=True, nan=0.0 if nan is None else nan,
                          posinf=info.max if posinf is None else posinf,
                          neginf=info.min if neginf is None else neginf)
    return wrap(r.astype(a.dtype, copy=False))


nan_to_num_ = op("aten::nan_to_num_(Tensor(a!) self, float? nan=None, float? posinf=None, "
                 "float? neginf=None) -> Tensor(a!)")(inplace(nan_to_num))


@op("aten::logit(Tensor self, float? eps=None) -> Tensor")
@quiet
def logit(self: Tensor, eps: Optional[float] = None) -> Tensor:
    """log(p / (1 - p)), with p clamped to [eps, 1 - eps] when eps is given."""
    a = to_np(self, float_result(self.dtype))
    if eps is not None:
        a = np.clip(a, eps, 1 - eps)
    return wrap(np.log(a / (1 - a)).astype(a.dtype, copy=False))


@op("aten::positive(Tensor(a) self) -> Tensor(a)")
def positive(self: Tensor) -> Tensor:
    """Self (bools are rejected like PyTorch)."""
    if self.dtype == D.bool_:
        raise TypeError("The `+` operator, on a bool tensor is not supported.")
    return self
