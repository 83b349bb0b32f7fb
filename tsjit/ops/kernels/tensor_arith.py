"""Elementwise arithmetic on tensors: add, sub, mul, div, remainder, fmod, pow, neg, abs ...

Binary kernels promote with `result_type` (dimensioned tensors > zero-dim tensors >
Python numbers within a category), compute in the promoted dtype and wrap integers like
C++; in-place variants compute the same and cast back to self's dtype, refusing to go
up a category.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from ..._tensor import dtypes as D
from ..registry import op
from ..._tensor.kernel_util import (NATIVE_FLOATS, broadcast_shapes, dtype_of, float_result,
                                    fp_region_open, inplace_check, not_implemented, quiet,
                                    scalar_to_np, to_np, wrap, write_into)
from ..._tensor.tensor import Tensor


def _shape(x: Any) -> tuple:
    return x._a.shape if isinstance(x, Tensor) else ()


def prep(self: Any, other: Any, dt: Optional[D.dtype] = None) -> tuple[D.dtype, np.ndarray,
                                                                      np.ndarray]:
    """Promoted dtype and both operands as arrays of it (checking broadcastability)."""
    if dt is None:
        dt = D.result_type(self, other)
    s1, s2 = _shape(self), _shape(other)
    if s1 != s2 and s1 and s2:
        broadcast_shapes(s1, s2)
    return dt, to_np(self, dt), to_np(other, dt)


# Tensors of one numeric dtype and one shape need no promotion and no broadcast check:
# the result has their dtype. numpy's floating-point warnings are filtered for tsjit's
# modules (kernel_util), so this path also skips the errstate context `quiet` enters.
_FAST_KINDS = frozenset("fiuc")
_NATIVE = (np.dtype(np.float32), np.dtype(np.float64))


def same_dtype_fast(ufunc: Callable, slow: Callable) -> Callable:
    """A kernel computing `ufunc` directly (alpha 1) for same-dtype, same-shape numeric
    tensors, and for a float32/float64 tensor of some dims with a Python number or a 0-d
    float or int tensor (the result has the tensor's dtype: the number is cast to it, as
    PyTorch casts a wrapped scalar; numpy takes a Python number so, a 0-d array is cast by
    `dtype=`), else `slow`; one Python call on the path every tiny tensor op takes. The
    number's cast may overflow: that path is taken inside a region of ignored floating-point
    errors only (scripted code), eager calls go through `slow`'s own."""
    new, ndarray, region = object.__new__, np.ndarray, fp_region_open

    def kernel(self: Any, other: Any, *rest: Any) -> Tensor:
        if self.__class__ is Tensor and (not rest or rest[0].__class__ is int and rest[0] == 1):
            a = self._a
            dt = a.dtype
            c = other.__class__
            if c is Tensor:
                b = other._a
                if dt is b.dtype and dt.kind in _FAST_KINDS and a.shape == b.shape:
                    r = ufunc(a, b)
                    t = new(Tensor)
                    t._a = r if r.__class__ is ndarray else np.asarray(r)   # 0-d: a numpy scalar
                    return t
                if b.ndim == 0 and a.ndim and dt in _NATIVE and b.dtype.kind in "fi" and \
                        region():
                    t = new(Tensor)
                    t._a = ufunc(a, b, dtype=dt)
                    return t
            elif (c is float or c is int) and a.ndim and dt in _NATIVE and region():
                t = new(Tensor)
                t._a = ufunc(a, other)
                return t
        return slow(self, other, *rest)
    kernel.__name__ = kernel.__qualname__ = slow.__name__.strip("_").removesuffix("_checked")
    kernel.__doc__ = slow.__doc__
    return kernel



def inplace(fn: Callable, into: Optional[Callable[..., Any]] = None) -> Callable:
    """The in-place variant of an out-of-place kernel: compute, check the dtype, write.

    `into(a, *args)`, when given, computes the same formula in place into a float32 or
    float64 array `a`; it is used when self's array is one, C-contiguous and writable (what
    models' in-place activations see), saving the result's allocation and copy. It may
    return NotImplemented for arguments it does not take (then the general path runs)."""
    def kernel(self: Tensor, *args: Any) -> Tensor:
        if into is not None:
            a = self._a
            if a.dtype in _NATIVE and a.flags.c_contiguous and a.flags.writeable and \
                    into(a, *args) is not NotImplemented:
                return self
        r = fn(self, *args)
        inplace_check(self, r.dtype)
        return write_into(self, r._a)
    kernel.__name__ = fn.__name__ + "_"
    kernel.__doc__ = f"In-place {fn.__name__}."
    kernel.__module__ = fn.__module__     # listed with the out-of-place kernel's module
    return kernel


def _check_alpha(dt: D.dtype, alpha: Any) -> None:
    if isinstance(alpha, bool):
        if dt.kind != "b":
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif isinstance(alpha, float) and dt.kind in "bi":
        raise RuntimeError("For integral input tensors, argument alpha must not be a "
                           "floating point number.")
    elif isinstance(alpha, complex) and dt.kind != "c":
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a "
                           "complex number.")


def _scaled(b: np.ndarray, alpha: Any, dt: D.dtype) -> np.ndarray:
    if alpha is True or (alpha == 1 and not isinstance(alpha, bool)):
        return b
    return b * scalar_to_np(alpha, dt)


@quiet
def _add_checked(self: Any, other: Any, alpha: Any = 1) -> Tensor:
    """self + alpha * other."""
    dt, a, b = prep(self, other)
    _check_alpha(dt, alpha)
    return wrap(np.add(a, _scaled(b, alpha, dt)))


add = op("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
         "aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor")(
    same_dtype_fast(np.add, _add_checked))


def _check_sub(self: Any, other: Any) -> None:
    if dtype_of(self) == D.bool_ and dtype_of(other) == D.bool_:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if dtype_of(self) == D.bool_ or dtype_of(other) == D.bool_:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not "
                           "supported. If you are trying to invert a mask, use the `~` or "
                           "`logical_not()` operator instead.")


@quiet
def _sub_checked(self: Any, other: Any, alpha: Any = 1) -> Tensor:
    """self - alpha * other."""
    _check_sub(self, other)
    dt, a, b = prep(self, other)
    _check_alpha(dt, alpha)
    return wrap(np.subtract(a, _scaled(b, alpha, dt)))


sub = op("aten::sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
         "aten::sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor")(
    same_dtype_fast(np.subtract, _sub_checked))


@op("aten::rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "aten::rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor")
def rsub(self: Any, other: Any, alpha: Any = 1) -> Tensor:
    """other - alpha * self."""
    return sub(other, self, alpha) if isinstance(other, Tensor) else \
        _rsub_scalar(self, other, alpha)


@quiet
def _rsub_scalar(self: Tensor, other: Any, alpha: Any) -> Tensor:
    _check_sub(self, other)
    dt, a, b = prep(self, other)
    _check_alpha(dt, alpha)
    return wrap(np.subtract(b, _scaled(a, alpha, dt)))


@quiet
def _mul_checked(self: Any, other: Any) -> Tensor:
    """self * other."""
    dt, a, b = prep(self, other)
    return wrap(np.multiply(a, b))


mul = op("aten::mul.Tensor(Tensor self, Tensor other) -> Tensor",
         "aten::mul.Scalar(Tensor self, Scalar other) -> Tensor")(
    same_dtype_fast(np.multiply, _mul_checked))


def _zero_check(a: np.ndarray, b: np.ndarray) -> None:
    # PyTorch only notices a zero divisor while computing, so empty results never raise
    if b.size and not np.all(b) and np.broadcast(a, b).size:
        raise RuntimeError("ZeroDivisionError")


def _int_div(a: np.ndarray, b: np.ndarray, mode: str) -> np.ndarray:
    _zero_check(a, b)
    q = np.floor_divide(a, b)
    if mode == "trunc":
        # floor and trunc differ when the division is inexact and the signs differ
        fix = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
        q = q + fix.astype(q.dtype)
    return q


def _float_floor_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    # Python's algorithm (which PyTorch follows): round the exact quotient, not a / b
    mod = np.fmod(a, b)
    div = (a - mod) / b
    div = np.where((mod != 0) & ((b < 0) != (mod < 0)), div - 1, div)
    fl = np.floor(div)
    fl = np.where(div - fl > 0.5, fl + 1, fl)
    fl = np.where(div == 0, np.copysign(np.zeros_like(div), a / b), fl)
    return np.where(b == 0, a / b, fl)


@op("aten::div.Tensor(Tensor self, Tensor other) -> Tensor",
    "aten::div.Scalar(Tensor self, Scalar other) -> Tensor",
    "aten::div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
    "aten::div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor")
@quiet
def div(self: Any, other: Any, rounding_mode: Optional[str] = None) -> Tensor:
    """self / other: true division, or rounded with rounding_mode 'trunc' / 'floor'."""
    if rounding_mode is None:
        dt = float_result(D.result_type(self, other))
        _, a, b = prep(self, other, dt)
        return wrap(np.true_divide(a, b))
    if rounding_mode not in ("trunc", "floor"):
        raise ValueError("div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                         f"but found '{rounding_mode}'")
    dt, a, b = prep(self, other)
    if dt.kind == "b":
        raise not_implemented("div_" + rounding_mode + "_cpu", dt)
    if dt.kind == "i":
        return wrap(_int_div(a, b, rounding_mode))
    if dt.kind == "c":
        raise not_implemented("div_" + rounding_mode + "_cpu", dt)
    if rounding_mode == "trunc":
        return wrap(np.trunc(np.true_divide(a, b)))
    return wrap(_float_floor_div(a, b).astype(a.dtype, copy=False))


@op("aten::true_divide.Tensor(Tensor self, Tensor other) -> Tensor",
    "aten::true_divide.Scalar(Tensor self, Scalar other) -> Tensor")
def true_divide(self: Any, other: Any) -> Tensor:
    """self / other (true division)."""
    return div(self, other, None)


@op("aten::floor_divide(Tensor self, Tensor other) -> Tensor",
    "aten::floor_divide.Scalar(Tensor self, Scalar other) -> Tensor")
def floor_divide(self: Any, other: Any) -> Tensor:
    """self // other, rounding toward negative infinity."""
    if dtype_of(self) == D.bool_ and dtype_of(other) == D.bool_:
        raise not_implemented("div_floor_cpu", D.bool_)
    return div(self, other, "floor")


@op("aten::remainder.Tensor(Tensor self, Tensor other) -> Tensor",
    "aten::remainder.Scalar(Tensor self, Scalar other) -> Tensor",
    "aten::remainder.Scalar_Tensor(Scalar self, Tensor other) -> Tensor")
@quiet
def remainder(self: Any, other: Any) -> Tensor:
    """Python-style modulus: the result has the sign of the divisor."""
    dt, a, b = prep(self, other)
    if dt.kind == "b" or dt.kind == "c":
        raise not_implemented("remainder_cpu", dt)
    if dt.kind == "i":
        _zero_check(a, b)
        return wrap(np.remainder(a, b))
    mod = np.fmod(a, b)
    return wrap(np.where((mod != 0) & ((b < 0) != (mod < 0)), mod + b, mod).astype(
        a.dtype, copy=False))


@op("aten::fmod.Tensor(Tensor self, Tensor other) -> Tensor",
    "aten::fmod.Scalar(Tensor self, Scalar other) -> Tensor")
@quiet
def fmod(self: Any, other: Any) -> Tensor:
    """C-style modulus: the result has the sign of the dividend."""
    dt, a, b = prep(self, other)
    if dt.kind == "b" or dt.kind == "c":
        raise not_implemented("fmod_cpu", dt)
    if dt.kind == "i":
        _zero_check(a, b)
    return wrap(np.fmod(a, b))


def _int_pow(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    # numpy refuses negative integer exponents; integer semantics give 1, +-1 or 0
    neg = b < 0
    if not np.any(neg):
        return np.power(a, b)
    r = np.power(a, np.where(neg, 0, b))
    one = np.ones_like(r)
    neg_r = np.where(a == 1, one, np.where(a == -1, np.where(b % 2 == 0, one, -one), 0))
    return np.where(neg, neg_r, r).astype(r.dtype, copy=False)


# PyTorch computes a float tensor to these powers as plain arithmetic in its dtype, not
# with pow (x * x * x for 3, 1 / sqrt(x) for -0.5 ...): these give its results bit for bit
# (pow in float64 then rounded differed in a quarter of the elements for 3) at a fraction
# of pow's cost (GELU's tanh form cubes its input).
_POW_FORMS: dict[float, Callable[[np.ndarray], np.ndarray]] = {
    2: lambda a: a * a, 3: lambda a: a * a * a, -1: np.reciprocal,
    -2: lambda a: np.reciprocal(a * a), -0.5: lambda a: np.reciprocal(np.sqrt(a))}


@op("aten::pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor",
    "aten::pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor",
    "aten::pow.Scalar(Scalar self, Tensor exponent) -> Tensor")
@quiet
def pow(self: Any, exponent: Any) -> Tensor:
    """self ** exponent."""
    if self.__class__ is Tensor and self._a.dtype in NATIVE_FLOATS and \
            exponent.__class__ in (int, float) and exponent in _POW_FORMS:
        return wrap(_POW_FORMS[exponent](self._a))
    dt, a, b = prep(self, exponent)
    if dt.kind in "bi":
        if isinstance(exponent, (int, float)) and not isinstance(exponent, bool) and \
                exponent < 0 and isinstance(self, Tensor):
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if dt.kind == "b":
            # PyTorch short-cuts x ** 0 and x ** 1 before dispatching on the dtype
            if isinstance(self, Tensor) and not isinstance(exponent, Tensor) and \
                    exponent in (0, 1):
                return wrap(np.ones_like(a) if exponent == 0 else a.copy())
            raise not_implemented("pow", dt)
        return wrap(_int_pow(a, b))
    if isinstance(exponent, float) and dt.kind == "f" and dt != D.float64:
        # a Python float exponent keeps double precision
        return wrap(np.power(a.astype(np.float64), exponent).astype(a.dtype))
    return wrap(np.power(a, b))


@op("aten::neg(Tensor self) -> Tensor", "aten::negative(Tensor self) -> Tensor")
@quiet
def neg(self: Tensor) -> Tensor:
    """-self."""
    if self.dtype == D.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or "
                           "`logical_not()` operator instead.")
    return wrap(np.negative(self._a))


@op("aten::abs(Tensor self) -> Tensor", "aten::absolute(Tensor self) -> Tensor",
    "prim::abs(Tensor x) -> Tensor")
@quiet
def abs(self: Tensor) -> Tensor:
    """|self| (complex -> real magnitude)."""
    if self.dtype == D.bool_:
        raise not_implemented("abs_cpu", D.bool_)
    return wrap(np.abs(self._a))


@op("aten::sign(Tensor self) -> Tensor", "aten::sgn(Tensor self) -> Tensor")
@quiet
def sign(self: Tensor) -> Tensor:
    """-1, 0 or 1 by sign (bools unchanged, NaN gives 0 like PyTorch)."""
    a = self._a
    if a.dtype == np.bool_:
        return wrap(a.copy())
    if a.dtype.kind == "c":
        m = np.abs(a)
        return wrap(np.where(m == 0, 0, a / np.where(m == 0, 1, m)).astype(a.dtype))
    r = np.sign(a)
    if a.dtype.kind == "f":
        r = np.where(np.isnan(a), 0, r).astype(a.dtype)
    return wrap(r)


@op("aten::square(Tensor self) -> Tensor")
def square(self: Tensor) -> Tensor:
    """self ** 2 (bools become int64)."""
    return pow(self, 2)


@op("aten::reciprocal(Tensor self) -> Tensor")
@quiet
def reciprocal(self: Tensor) -> Tensor:
    """1 / self (integers give floats)."""
    dt = float_result(self.dtype)
    return wrap(np.reciprocal(to_np(self, dt)))


def _float_binary(name: str, fn: Callable, int_ok: bool = True) -> Callable:
    @quiet
    def kernel(self: Any, other: Any) -> Tensor:
        dt = D.result_type(self, other)
        if not int_ok and dt.kind in "bi":
            raise not_implemented(name + "_cpu", dt)
        dt = float_result(dt)
        _, a, b = prep(self, other, dt)
        return wrap(fn(a, b))
    kernel.__name__ = name
    kernel.__doc__ = f"Elementwise {name} (integers give floats)."
    return kernel


atan2 = op("aten::atan2(Tensor self, Tensor other) -> Tensor",
           "aten::arctan2(Tensor self, Tensor other) -> Tensor")(_float_binary("atan2", np.arctan2))
hypot = op("aten::hypot(Tensor self, Tensor other) -> Tensor")(
    _float_binary("hypot", np.hypot, int_ok=False))
copysign = op("aten::copysign.Tensor(Tensor self, Tensor other) -> Tensor",
              "aten::copysign.Scalar(Tensor self, Scalar other) -> Tensor")(
    _float_binary("copysign", np.copysign))


@op("aten::gcd(Tensor self, Tensor other) -> Tensor")
def gcd(self: Tensor, other: Tensor) -> Tensor:
    """Greatest common divisor (integers only)."""
    dt, a, b = prep(self, other)
    if dt.kind != "i":
        raise not_implemented("gcd_cpu", dt)
    return wrap(np.gcd(a, b))


@op("aten::lcm(Tensor self, Tensor other) -> Tensor")
def lcm(self: Tensor, other: Tensor) -> Tensor:
    """Least common multiple (integers only)."""
    dt, a, b = prep(self, other)
    if dt.kind != "i":
        raise not_implemented("lcm_cpu", dt)
    return wrap(np.lcm(a, b))


@op("aten::lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor",
    "aten::lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor")
@quiet
def lerp(self: Tensor, end: Tensor, weight: Any) -> Tensor:
    """self + weight * (end - self), evaluated from the nearer end like PyTorch."""
    dt = self.dtype
    if dt.kind not in "fc":
        raise not_implemented("lerp_kernel_scalar" if not isinstance(weight, Tensor)
                              else "lerp_kernel_tensor", dt)
    if end.dtype != dt or (isinstance(weight, Tensor) and weight.dtype != dt):
        raise RuntimeError(f"expected dtype {dt.name} for `end` but got dtype "
                           f"{end.dtype.name}")
    a, b = self._a, end._a
    w = to_np(weight, dt)
    diff = b - a
    return wrap(np.where(np.abs(w) < 0.5, a + w * diff, b - diff * (1 - w)).astype(a.dtype))


def _minmax(name: str, fn: Callable) -> Callable:
    @quiet
    def kernel(self: Tensor, other: Tensor) -> Tensor:
        dt, a, b = prep(self, other)
        if dt.kind == "c":
            raise RuntimeError(f"{name} not implemented for complex tensors.")
        return wrap(fn(a, b))
    kernel.__name__ = name
    kernel.__doc__ = f"Elementwise {name}."
    return kernel


maximum = op("aten::maximum(Tensor self, Tensor other) -> Tensor",
             "aten::max.other(Tensor self, Tensor other) -> Tensor")(_minmax("maximum", np.maximum))
minimum = op("aten::minimum(Tensor self, Tensor other) -> Tensor",
             "aten::min.other(Tensor self, Tensor other) -> Tensor")(_minmax("minimum", np.minimum))
fmax = op("aten::fmax(Tensor self, Tensor other) -> Tensor")(_minmax("fmax", np.fmax))
fmin = op("aten::fmin(Tensor self, Tensor other) -> Tensor")(_minmax("fmin", np.fmin))


@op("aten::xlogy.Tensor(Tensor self, Tensor other) -> Tensor",
    "aten::xlogy.Scalar_Other(Tensor self, Scalar other) -> Tensor",
    "aten::xlogy.Scalar_Self(Scalar self, Tensor other) -> Tensor")
@quiet
def xlogy(self: Any, other: Any) -> Tensor:
    """self * log(other), 0 where self == 0 (NaN other stays NaN)."""
    return x_times_log(self, other, np.log)


def x_times_log(self: Any, other: Any, log: Callable) -> Tensor:
    """self * log(other) in the floating result type, 0 where self == 0 (NaN other stays NaN)."""
    dt = float_result(D.result_type(self, other))
    _, a, b = prep(self, other, dt)
    return wrap(np.where((a == 0) & ~np.isnan(b), 0, a * log(b)).astype(a.dtype))


# --- in-place variants -------------------------------------------------------------------
add_ = op("aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
          "aten::add_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)")(
    inplace(add))
sub_ = op("aten::sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
          "aten::sub_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)")(
    inplace(sub))
mul_ = op("aten::mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
          "aten::mul_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)")(inplace(mul))
div_ = op("aten::div_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
          "aten::div_.Tensor_mode(Tensor(a!) self, Tensor other, *, str? rounding_mode) -> "
          "Tensor(a!)",
          "aten::div_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
          "aten::div_.Scalar_mode(Tensor(a!) self, Scalar other, *, str? rounding_mode) -> "
          "Tensor(a!)")(inplace(div))
floor_divide_ = op("aten::floor_divide_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
                   "aten::floor_divide_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)")(
    inplace(floor_divide))
remainder_ = op("aten::remainder_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
                "aten::remainder_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)")(
    inplace(remainder))
fmod_ = op("aten::fmod_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
           "aten::fmod_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)")(inplace(fmod))
pow_ = op("aten::pow_.Scalar(Tensor(a!) self, Scalar exponent) -> Tensor(a!)",
          "aten::pow_.Tensor(Tensor(a!) self, Tensor exponent) -> Tensor(a!)")(inplace(pow))
neg_ = op("aten::neg_(Tensor(a!) self) -> Tensor(a!)")(inplace(neg))
abs_ = op("aten::abs_(Tensor(a!) self) -> Tensor(a!)")(inplace(abs))
sign_ = op("aten::sign_(Tensor(a!) self) -> Tensor(a!)")(inplace(sign))
square_ = op("aten::square_(Tensor(a!) self) -> Tensor(a!)")(inplace(square))
reciprocal_ = op("aten::reciprocal_(Tensor(a!) self) -> Tensor(a!)")(inplace(reciprocal))
atan2_ = op("aten::atan2_(Tensor(a!) self, Tensor other) -> Tensor(a!)")(inplace(atan2))
