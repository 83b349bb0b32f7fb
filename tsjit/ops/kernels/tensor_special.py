"""torch.special's operators (`aten::special_*`): entr, ndtr, sinc, xlog1py, i0, gammaln, and
the `special_` spellings of operators registered elsewhere (special_expit is sigmoid ...).

`tsjit.special.expit(x)` and `torch.special.expit(x)` in scripted code reach these through
the `special_` prefix (see `tsjit/special.py`).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._tensor import dtypes as D
from ..registry import op
from ..._tensor.kernel_util import float_result, not_implemented, quiet, to_np, wrap
from ..._tensor.tensor import Tensor
from .tensor_arith import x_times_log, xlogy
from .tensor_reduce import log_softmax, logsumexp, softmax
from .tensor_unary import erf_array, erfc_array, logit, round
from . import tensor_unary as U

# special_<name> that PyTorch computes with the operator aten::<kernel's name>
op("aten::special_expit(Tensor self) -> Tensor")(U.sigmoid)
op("aten::special_exp2(Tensor self) -> Tensor")(U.exp2)
op("aten::special_expm1(Tensor self) -> Tensor")(U.expm1)
op("aten::special_log1p(Tensor self) -> Tensor")(U.log1p)
op("aten::special_erf(Tensor self) -> Tensor")(U.erf)
op("aten::special_erfc(Tensor self) -> Tensor")(U.erfc)
op("aten::special_logit(Tensor self, float? eps=None) -> Tensor")(logit)
op("aten::special_round(Tensor self, *, int decimals=0) -> Tensor")(round)
op("aten::special_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor")(softmax)
op("aten::special_log_softmax(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor")(
    log_softmax)
op("aten::special_logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor")(logsumexp)
op("aten::special_xlogy(Tensor self, Tensor other) -> Tensor",
   "aten::special_xlogy.other_scalar(Tensor self, Scalar other) -> Tensor",
   "aten::special_xlogy.self_scalar(Scalar self, Tensor other) -> Tensor")(xlogy)


def _real_float(name: str, self: Tensor) -> np.ndarray:
    # the special functions are defined on real inputs; integers and bools become floats
    if self.dtype.kind == "c":
        raise not_implemented(name, self.dtype)
    return to_np(self, float_result(self.dtype))


@op("aten::special_entr(Tensor self) -> Tensor")
@quiet
def special_entr(self: Tensor) -> Tensor:
    """-x * log(x) for x > 0, 0 at 0, -inf below 0 (NaN stays NaN)."""
    a = _real_float("entr_cpu", self)
    r = np.where(a > 0, -a * np.log(np.where(a > 0, a, 1)), np.where(a == 0, 0, -np.inf))
    return wrap(np.where(np.isnan(a), a, r).astype(a.dtype, copy=False))


@op("aten::special_ndtr(Tensor self) -> Tensor")
@quiet
def special_ndtr(self: Tensor) -> Tensor:
    """The standard normal CDF, (1 + erf(x / sqrt 2)) / 2, via erfc in the tails."""
    a = _real_float("ndtr_cpu", self)
    z = a.astype(np.float64) * (1 / math.sqrt(2))
    # erfc keeps the relative precision of the small tail values that 1 + erf would lose
    r = np.where(np.abs(z) < 1 / math.sqrt(2), 0.5 + 0.5 * erf_array(z),
                 np.where(z > 0, 1 - 0.5 * erfc_array(z), 0.5 * erfc_array(-z)))
    return wrap(r.astype(a.dtype, copy=False))


@op("aten::special_sinc(Tensor self) -> Tensor", "aten::sinc(Tensor self) -> Tensor")
@quiet
def special_sinc(self: Tensor) -> Tensor:
    """sin(pi x) / (pi x), 1 at 0."""
    a = _real_float("sinc_cpu", self) if self.dtype.kind != "c" else self._a
    px = a * np.asarray(math.pi, a.dtype)
    r = np.sin(px) / np.where(a == 0, 1, px)
    return wrap(np.where(a == 0, 1, r).astype(a.dtype, copy=False))


@op("aten::special_xlog1py(Tensor self, Tensor other) -> Tensor",
    "aten::special_xlog1py.other_scalar(Tensor self, Scalar other) -> Tensor",
    "aten::special_xlog1py.self_scalar(Scalar self, Tensor other) -> Tensor")
@quiet
def special_xlog1py(self: Any, other: Any) -> Tensor:
    """self * log1p(other), 0 where self == 0 (NaN other stays NaN)."""
    if D.result_type(self, other).kind == "c":
        raise not_implemented("xlog1py_cpu", D.result_type(self, other))
    return x_times_log(self, other, np.log1p)


@op("aten::special_i0(Tensor self) -> Tensor", "aten::i0(Tensor self) -> Tensor")
@quiet
def special_i0(self: Tensor) -> Tensor:
    """The modified Bessel function of the first kind, order 0."""
    a = _real_float("i0_cpu", self)
    r = np.asarray(np.i0(a.astype(np.float64)))
    if a.dtype != np.float64:
        # PyTorch's single-precision i0 forms exp(|x|), which overflows past log(FLT_MAX)
        r = np.where((np.abs(a) > _LOG_FLT_MAX) & ~np.isinf(a), np.inf, r)
    return wrap(r.astype(a.dtype, copy=False))


_LOG_FLT_MAX = float(np.log(np.finfo(np.float32).max))


def _lgamma_scalar(v: float) -> float:
    if v != v or v in (-math.inf, math.inf):
        return abs(v)
    try:
        return math.lgamma(v)
    except OverflowError:   # C's lgamma returns +inf where the result overflows
        return math.inf


_lgamma_f64 = np.frompyfunc(_lgamma_scalar, 1, 1)


def _lgamma(a: np.ndarray) -> np.ndarray:
    # math.lgamma raises at the poles (0, -1, -2 ...) where the C function returns +inf
    d = a.astype(np.float64)
    poles = (d <= 0) & (d == np.floor(d))
    safe = np.where(poles, 1.0, d)
    r = np.asarray(_lgamma_f64(safe), np.float64) if d.size else d
    return np.where(poles, np.inf, r).astype(a.dtype, copy=False)


@op("aten::special_gammaln(Tensor self) -> Tensor", "aten::lgamma(Tensor self) -> Tensor")
@quiet
def special_gammaln(self: Tensor) -> Tensor:
    """log|Gamma(x)|, +inf at the poles."""
    return wrap(_lgamma(_real_float("lgamma_vml_cpu", self)))
