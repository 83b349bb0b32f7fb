"""Activation functions: relu, leaky_relu, elu / selu / celu, gelu, silu, mish, hardtanh,
hardsigmoid, hardswish, softplus, shrinks, threshold, log_sigmoid, glu, prelu.

Floating activations evaluate in the input's dtype (float32 or float64; half precision in
float32), as PyTorch's vectorised kernels do: float64 temporaries cost twice the memory
traffic and a conversion each way, for differences PyTorch's own float32 kernels have; the
hot ones run block by block (blocked_math.py). Integer and bool inputs are rejected like
PyTorch except for the clamping ones (relu, relu6, hardtanh, threshold).
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from ..._tensor import dtypes as D
from ..registry import op
from ..._tensor.kernel_util import native_float, not_implemented, quiet, scalar_to_np, wrap
from ..._tensor.tensor import Tensor, wrap_dim
from .tensor_arith import inplace
from . import blocked_math as B

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _floating(name: str, fn: Callable[..., np.ndarray]) -> Callable:
    """A float-only activation computed in the input's dtype (half precision in float32)."""
    @quiet
    def kernel(self: Tensor, *args: Any) -> Tensor:
        if self.dtype.kind != "f":
            raise not_implemented(name, self.dtype)
        x = native_float(self._a)
        # Scalar parameters are first converted to the tensor's dtype, like PyTorch
        args = tuple(float(np.asarray(v).astype(self._a.dtype))
                     if isinstance(v, (int, float)) and not isinstance(v, bool) else v
                     for v in args)
        return wrap(np.asarray(fn(x, *args)).astype(self._a.dtype, copy=False))
    kernel.__name__ = name
    kernel.__doc__ = f"The {name} activation."
    return kernel


@op("aten::relu(Tensor self) -> Tensor")
def relu(self: Tensor) -> Tensor:
    """max(x, 0) (NaN stays NaN; integers allowed)."""
    if self.dtype == D.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")
    return wrap(np.maximum(self._a, np.zeros((), self._a.dtype)))


@op("aten::relu6(Tensor self) -> Tensor")
def relu6(self: Tensor) -> Tensor:
    """min(max(x, 0), 6)."""
    return hardtanh(self, 0, 6)


@op("aten::hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor")
def hardtanh(self: Tensor, min_val: Any = -1, max_val: Any = 1) -> Tensor:
    """x clamped to [min_val, max_val]."""
    if self.dtype == D.bool_:
        raise not_implemented("hardtanh_cpu", self.dtype)
    if self.dtype.kind == "i" and not self.dtype.is_signed and (min_val < 0 or max_val < 0):
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    if self.dtype.kind == "i" and (isinstance(min_val, float) or isinstance(max_val, float)):
        raise RuntimeError("result type Float can't be cast to the desired output type " +
                           self.dtype.cname)
    a = self._a
    with np.errstate(all="ignore"):
        r = np.minimum(np.maximum(a, scalar_to_np(min_val, self.dtype)),
                       scalar_to_np(max_val, self.dtype))
    return wrap(r)


@op("aten::threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor")
def threshold(self: Tensor, threshold: Any, value: Any) -> Tensor:
    """x where x > threshold, else value."""
    a = self._a
    if self.dtype == D.bool_:
        raise not_implemented("threshold_cpu", self.dtype)
    t = scalar_to_np(threshold, self.dtype) if self.dtype.kind == "f" else np.asarray(threshold)
    return wrap(np.where(a <= t, scalar_to_np(value, self.dtype), a).astype(a.dtype))


leaky_relu = op("aten::leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor")(
    _floating("leaky_relu_cpu", lambda x, s=0.01: np.where(x > 0, x, x * s)))


def _elu(x: np.ndarray, alpha: Any = 1, scale: Any = 1, input_scale: Any = 1) -> np.ndarray:
    return np.where(x > 0, x * scale, alpha * scale * np.expm1(x * input_scale))


elu = op("aten::elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> "
         "Tensor")(_floating("elu_cpu", _elu))
selu = op("aten::selu(Tensor self) -> Tensor")(
    _floating("elu_cpu", lambda x: _elu(x, _SELU_ALPHA, _SELU_SCALE)))
celu = op("aten::celu(Tensor self, Scalar alpha=1.) -> Tensor")(
    _floating("elu_cpu", lambda x, alpha=1.0: _elu(x, alpha, 1, 1.0 / alpha)))


def _gelu(x: np.ndarray, approximate: str = "none") -> np.ndarray:
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    if approximate != "none":
        raise RuntimeError("approximate argument must be either none or tanh.")
    return B.gelu_erf(x)


_gelu_f = _floating("GeluKernelImpl", _gelu)


@op("aten::gelu(Tensor self, *, str approximate=\"none\") -> Tensor")
@quiet
def gelu(self: Tensor, approximate: str = "none") -> Tensor:
    """x * Phi(x) (exact erf form, or the tanh approximation)."""
    a = self._a
    if approximate == "none" and a.dtype in B.NATIVE and a.size > 1:
        # the models' case without the generic wrapper: PyTorch's vectorised float32 kernel
        # turns +inf into NaN, as the float32 formula does (|x| * 0 in its erfc term)
        return wrap(B.gelu_erf(a))
    r = _gelu_f(self, approximate)
    if approximate == "none" and self.dtype == D.float32 and a.size == 1:
        # its scalar path (one element) keeps +inf
        r._a[np.isposinf(a)] = np.inf
    return r


def _softplus(x: np.ndarray, beta: Any = 1, threshold: Any = 20) -> np.ndarray:
    return np.where(x * beta > threshold, x, np.log1p(np.exp(x * beta)) / beta)


silu = op("aten::silu(Tensor self) -> Tensor")(_floating("silu", B.silu))
mish = op("aten::mish(Tensor self) -> Tensor")(
    _floating("mish", lambda x: x * np.tanh(_softplus(x))))
hardsigmoid = op("aten::hardsigmoid(Tensor self) -> Tensor")(
    _floating("hardsigmoid", B.hardsigmoid))
hardswish = op("aten::hardswish(Tensor self) -> Tensor")(
    _floating("hardswish", B.hardswish))
softplus = op("aten::softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor")(
    _floating("softplus", _softplus))
softshrink = op("aten::softshrink(Tensor self, Scalar lambd=0.5) -> Tensor")(
    _floating("softshrink", lambda x, l=0.5: np.where(x > l, x - l, np.where(x < -l, x + l,
                                                                             x * 0))))
hardshrink = op("aten::hardshrink(Tensor self, Scalar lambd=0.5) -> Tensor")(
    _floating("hardshrink", lambda x, l=0.5: np.where((x >= -l) & (x <= l), 0.0, x)))
log_sigmoid = op("aten::log_sigmoid(Tensor self) -> Tensor")(
    _floating("log_sigmoid", lambda x: np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))))


@op("aten::rrelu(Tensor self, Scalar lower=0.125, Scalar upper=0.33333333333333331, "
    "bool training=False, Generator? generator=None) -> Tensor")
def rrelu(self: Tensor, lower: Any = 0.125, upper: Any = 1 / 3, training: bool = False,
          generator: Any = None) -> Tensor:
    """Leaky relu with slope (lower + upper) / 2 (eval) or random slopes (training)."""
    if training:
        from ..._tensor.creation import generator as gen
        slope = gen().uniform(lower, upper, self._a.shape)
        x = self._a.astype(np.float64)
        return wrap(np.where(x >= 0, x, x * slope).astype(self._a.dtype))
    return leaky_relu(self, (lower + upper) / 2)


@op("aten::glu(Tensor self, int dim=-1) -> Tensor")
def glu(self: Tensor, dim: int = -1) -> Tensor:
    """a * sigmoid(b) for the two halves a, b of dim."""
    a = self._a
    if a.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = wrap_dim(dim, a.ndim)
    n = a.shape[d]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {n}")
    if self.dtype.kind != "f":
        raise not_implemented("glu_cpu", self.dtype)
    # evaluated in the input dtype: the sigmoid under/overflows where PyTorch's does
    first, second = np.split(a, 2, axis=d)
    with np.errstate(all="ignore"):
        return wrap((first * (1 / (1 + np.exp(-second)))).astype(a.dtype))


@op("aten::prelu(Tensor self, Tensor weight) -> Tensor")
@quiet
def prelu(self: Tensor, weight: Tensor) -> Tensor:
    """x for x >= 0, weight * x otherwise (weight per channel = dim 1, or shared)."""
    a, w = self._a, weight._a
    if self.dtype.kind != "f":
        raise not_implemented("prelu_cpu", self.dtype)
    if self.dtype != weight.dtype:
        raise RuntimeError(f"expected scalar type {self.dtype.cname} but found "
                           f"{weight.dtype.cname}")
    n = w.size
    if n != 1:
        ch = a.shape[1] if a.ndim >= 2 else 1
        if ch != n:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {n} and channel size = {ch}.")
        shape = [1] * a.ndim
        shape[1] = n
        w = w.reshape(shape)
    else:
        w = w.reshape(())
    x = a.astype(np.float64)
    return wrap(np.where(x >= 0, x, x * w).astype(a.dtype))


def _exact_float(v: Any) -> bool:
    """Whether a Scalar is a float, or an int every float dtype holds exactly (so that
    numpy's conversion is PyTorch's)."""
    return v.__class__ is float or (v.__class__ is int and -(1 << 24) <= v <= 1 << 24)


def _clamp_into(a: np.ndarray, lo: Any, hi: Any) -> Any:
    if not (_exact_float(lo) and _exact_float(hi)):
        return NotImplemented
    np.maximum(a, lo, out=a)
    return np.minimum(a, hi, out=a)


relu_ = op("aten::relu_(Tensor(a!) self) -> Tensor(a!)")(
    inplace(relu, lambda a: np.maximum(a, 0, out=a)))
relu6_ = op("aten::relu6_(Tensor(a!) self) -> Tensor(a!)")(
    inplace(relu6, lambda a: _clamp_into(a, 0, 6)))
hardtanh_ = op("aten::hardtanh_(Tensor(a!) self, Scalar min_val=-1, Scalar max_val=1) -> "
               "Tensor(a!)")(inplace(hardtanh, _clamp_into))
threshold_ = op("aten::threshold_(Tensor(a!) self, Scalar threshold, Scalar value) -> "
                "Tensor(a!)")(inplace(threshold))
leaky_relu_ = op("aten::leaky_relu_(Tensor(a!) self, Scalar negative_slope=0.01) -> "
                 "Tensor(a!)")(inplace(leaky_relu))
elu_ = op("aten::elu_(Tensor(a!) self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) "
          "-> Tensor(a!)")(inplace(elu))
selu_ = op("aten::selu_(Tensor(a!) self) -> Tensor(a!)")(inplace(selu))
celu_ = op("aten::celu_(Tensor(a!) self, Scalar alpha=1.) -> Tensor(a!)")(inplace(celu))
gelu_ = op("aten::gelu_(Tensor(a!) self, *, str approximate=\"none\") -> Tensor(a!)")(
    inplace(gelu))
silu_ = op("aten::silu_(Tensor(a!) self) -> Tensor(a!)")(
    inplace(silu, lambda a: B.silu(a, out=a)))
mish_ = op("aten::mish_(Tensor(a!) self) -> Tensor(a!)")(inplace(mish))
hardsigmoid_ = op("aten::hardsigmoid_(Tensor(a!) self) -> Tensor(a!)")(
    inplace(hardsigmoid, lambda a: B.hardsigmoid(a, out=a)))
hardswish_ = op("aten::hardswish_(Tensor(a!) self) -> Tensor(a!)")(
    inplace(hardswish, lambda a: B.hardswish(a, out=a)))
rrelu_ = op("aten::rrelu_(Tensor(a!) self, Scalar lower=0.125, "
            "Scalar upper=0.33333333333333331, bool training=False, "
            "Generator? generator=None) -> Tensor(a!)")(inplace(rrelu))
