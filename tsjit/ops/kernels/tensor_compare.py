"""Comparisons, logical and bitwise ops, where, clamp and the isnan family."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..._tensor import dtypes as D
from ..registry import op
from ..._tensor.kernel_util import (broadcast_shapes, fp_ignored, fp_region_open, not_implemented,
                                    quiet, to_np, wrap)
from ..._tensor.tensor import Tensor
from .tensor_arith import inplace, prep


# Operands compared without promotion: tensors of one real dtype, a float tensor and a Python
# number (numpy casts the number to the tensor's dtype, as PyTorch promotes a wrapped scalar),
# an int64 tensor and a Python int. Shapes that do not broadcast
# take the checked path for PyTorch's error.
_DIRECT_KINDS = frozenset("fiub")
_NATIVE_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_INT64 = np.dtype(np.int64)


def _direct(self: Any, other: Any, fn: Callable) -> Any:
    """fn(self, other) on the arrays when no promotion is needed, else None."""
    if self.__class__ is not Tensor:
        return None
    a = self._a
    c = other.__class__
    try:
        if c is Tensor:
            if a.dtype is other._a.dtype and a.dtype.kind in _DIRECT_KINDS:
                return fn(a, other._a)
        elif (c is float or c is int) and a.dtype in _NATIVE_FLOATS or \
                c is int and a.dtype == _INT64:
            return fn(a, other)
    except ValueError:
        pass
    return None


def _compare(name: str, fn: Callable, ordered: bool) -> Callable:
    @quiet
    def kernel(self: Any, other: Any) -> Tensor:
        r = _direct(self, other, fn)
        if r is not None:
            return wrap(r)
        dt, a, b = prep(self, other)
        if ordered and dt.kind == "c":
            raise not_implemented(name + "_cpu", dt)
        return wrap(fn(a, b))
    kernel.__name__ = name
    kernel.__doc__ = f"Elementwise {name} comparison (bool result)."
    return kernel


def _both(name: str) -> tuple[str, str]:
    return (f"aten::{name}.Tensor(Tensor self, Tensor other) -> Tensor",
            f"aten::{name}.Scalar(Tensor self, Scalar other) -> Tensor")


def _both_(name: str) -> tuple[str, str]:
    return (f"aten::{name}_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
            f"aten::{name}_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)")


eq = op(*_both("eq"))(_compare("eq", np.equal, False))
ne = op(*_both("ne"), *_both("not_equal"))(_compare("ne", np.not_equal, False))
lt = op(*_both("lt"), *_both("less"))(_compare("lt", np.less, True))
le = op(*_both("le"), *_both("less_equal"))(_compare("le", np.less_equal, True))
gt = op(*_both("gt"), *_both("greater"))(_compare("gt", np.greater, True))
ge = op(*_both("ge"), *_both("greater_equal"))(_compare("ge", np.greater_equal, True))
eq_ = op(*_both_("eq"))(inplace(eq))
ne_ = op(*_both_("ne"))(inplace(ne))
lt_ = op(*_both_("lt"))(inplace(lt))
le_ = op(*_both_("le"))(inplace(le))
gt_ = op(*_both_("gt"))(inplace(gt))
ge_ = op(*_both_("ge"))(inplace(ge))


# --- logical ----------------------------------------------------------------------------
def _logical(name: str, fn: Callable) -> Callable:
    def kernel(self: Tensor, other: Tensor) -> Tensor:
        # truth values are taken after converting both to the promoted dtype
        _, a, b = prep(self, other)
        return wrap(fn(a.astype(bool, copy=False), b.astype(bool, copy=False)))
    kernel.__name__ = name
    kernel.__doc__ = f"Elementwise {name} of truth values (bool result)."
    return kernel


logical_and = op("aten::logical_and(Tensor self, Tensor other) -> Tensor")(
    _logical("logical_and", np.logical_and))
logical_or = op("aten::logical_or(Tensor self, Tensor other) -> Tensor")(
    _logical("logical_or", np.logical_or))
logical_xor = op("aten::logical_xor(Tensor self, Tensor other) -> Tensor")(
    _logical("logical_xor", np.logical_xor))


@op("aten::logical_not(Tensor self) -> Tensor")
def logical_not(self: Tensor) -> Tensor:
    """Elementwise not of truth values (bool result)."""
    return wrap(np.logical_not(self._a))


logical_and_ = op("aten::logical_and_(Tensor(a!) self, Tensor other) -> Tensor(a!)")(
    inplace(logical_and))
logical_or_ = op("aten::logical_or_(Tensor(a!) self, Tensor other) -> Tensor(a!)")(
    inplace(logical_or))
logical_xor_ = op("aten::logical_xor_(Tensor(a!) self, Tensor other) -> Tensor(a!)")(
    inplace(logical_xor))
logical_not_ = op("aten::logical_not_(Tensor(a!) self) -> Tensor(a!)")(inplace(logical_not))


# --- bitwise ----------------------------------------------------------------------------
def _bitwise(name: str, fn: Callable) -> Callable:
    def kernel(self: Any, other: Any) -> Tensor:
        if self.__class__ is Tensor and other.__class__ is Tensor and \
                self._a.dtype is other._a.dtype and self._a.dtype.kind in "biu":
            r = _direct(self, other, fn)
            if r is not None:
                return wrap(r)
        dt, a, b = prep(self, other)
        if dt.kind in "fc":
            raise not_implemented(f"bitwise_{name}_cpu", dt)
        return wrap(fn(a, b))
    kernel.__name__ = "bitwise_" + name
    kernel.__doc__ = f"Elementwise bitwise {name} (logical for bools)."
    return kernel


def _bit3(name: str) -> tuple[str, ...]:
    return (f"aten::bitwise_{name}.Tensor(Tensor self, Tensor other) -> Tensor",
            f"aten::bitwise_{name}.Scalar(Tensor self, Scalar other) -> Tensor",
            f"aten::bitwise_{name}.Scalar_Tensor(Scalar self, Tensor other) -> Tensor",
            f"aten::__{name}__.Tensor(Tensor self, Tensor other) -> Tensor",
            f"aten::__{name}__.Scalar(Tensor self, Scalar other) -> Tensor")


def _bit3_(name: str) -> tuple[str, ...]:
    return (f"aten::bitwise_{name}_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
            f"aten::bitwise_{name}_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
            f"aten::__i{name}__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
            f"aten::__i{name}__.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)")


bitwise_and = op(*_bit3("and"))(_bitwise("and", np.bitwise_and))
bitwise_or = op(*_bit3("or"))(_bitwise("or", np.bitwise_or))
bitwise_xor = op(*_bit3("xor"))(_bitwise("xor", np.bitwise_xor))
bitwise_and_ = op(*_bit3_("and"))(inplace(bitwise_and))
bitwise_or_ = op(*_bit3_("or"))(inplace(bitwise_or))
bitwise_xor_ = op(*_bit3_("xor"))(inplace(bitwise_xor))


@op("aten::bitwise_not(Tensor self) -> Tensor")
def bitwise_not(self: Tensor) -> Tensor:
    """~self: bitwise not (logical for bools)."""
    if self.dtype.kind in "fc":
        raise not_implemented("bitwise_not_cpu", self.dtype)
    return wrap(np.invert(self._a))


bitwise_not_ = op("aten::bitwise_not_(Tensor(a!) self) -> Tensor(a!)")(inplace(bitwise_not))


def _shift(name: str, left: bool) -> Callable:
    @quiet
    def kernel(self: Any, other: Any) -> Tensor:
        dt, a, b = prep(self, other)
        if dt.kind != "i":
            raise not_implemented(name + "_cpu", dt)
        bits = dt.itemsize * 8
        out_of_range = (b < 0) | (b >= bits)
        safe = np.where(out_of_range, 0, b)
        if left:
            r = np.where(out_of_range, 0, np.left_shift(a, safe))
        else:
            # shifting a negative number by the width or more leaves the sign bits
            r = np.where(out_of_range, np.where(a < 0, -1, 0) if dt.is_signed else 0,
                         np.right_shift(a, safe))
        return wrap(r.astype(a.dtype, copy=False))
    kernel.__name__ = name
    kernel.__doc__ = f"Elementwise {'left' if left else 'right'} shift."
    return kernel


bitwise_left_shift = op(
    "aten::__lshift__.Tensor(Tensor self, Tensor other) -> Tensor",
    "aten::__lshift__.Scalar(Tensor self, Scalar other) -> Tensor",
    "aten::bitwise_left_shift.Tensor(Tensor self, Tensor other) -> Tensor",
    "aten::bitwise_left_shift.Tensor_Scalar(Tensor self, Scalar other) -> Tensor",
    "aten::bitwise_left_shift.Scalar_Tensor(Scalar self, Tensor other) -> Tensor")(
    _shift("lshift", True))
bitwise_right_shift = op(
    "aten::__rshift__.Tensor(Tensor self, Tensor other) -> Tensor",
    "aten::__rshift__.Scalar(Tensor self, Scalar other) -> Tensor",
    "aten::bitwise_right_shift.Tensor(Tensor self, Tensor other) -> Tensor",
    "aten::bitwise_right_shift.Tensor_Scalar(Tensor self, Scalar other) -> Tensor",
    "aten::bitwise_right_shift.Scalar_Tensor(Scalar self, Tensor other) -> Tensor")(
    _shift("rshift", False))
ilshift = op("aten::__ilshift__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
             "aten::__ilshift__.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)")(
    inplace(bitwise_left_shift))
irshift = op("aten::__irshift__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
             "aten::__irshift__.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)")(
    inplace(bitwise_right_shift))


# --- where / clamp ------------------------------------------------------------------------
@op("aten::where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
    "aten::where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor",
    "aten::where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor",
    "aten::where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor")
def where(condition: Tensor, self: Any, other: Any) -> Tensor:
    """Elements of self where condition holds, else of other (dtypes promote)."""
    c = condition._a
    if c.dtype != np.bool_ and c.dtype != np.uint8:
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {condition.dtype.cname}")
    if self.__class__ is Tensor and self._a.dtype in _NATIVE_FLOATS and \
            (other.__class__ is float or other.__class__ is int) and fp_region_open():
        # masking a float tensor with a number (attention masks): the number in its dtype
        # (a cast that may overflow: scripted code's path only, see fp_region_open)
        try:
            return wrap(np.where(c, self._a, np.asarray(other, self._a.dtype)))
        except ValueError:
            pass
    dt, a, b = prep(self, other)
    broadcast_shapes(c.shape, a.shape, b.shape)
    return wrap(np.where(c, a, b))


@op("aten::where(Tensor condition) -> Tensor[]")
def where_nonzero(condition: Tensor) -> list[Tensor]:
    """The indices of nonzero elements, one int64 tensor per dimension."""
    a = condition._a
    if a.ndim == 0:
        return [wrap(np.zeros(int(bool(a)), np.int64))]
    return [wrap(ix.astype(np.int64)) for ix in np.nonzero(a)]


def _clamp_impl(self: Tensor, lo: Any, hi: Any) -> Tensor:
    if lo is None and hi is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    dt = D.result_type(self, *(x for x in (lo, hi) if x is not None))
    if dt.kind == "c":
        raise RuntimeError("clamp is not supported for complex types")
    if dt.kind == "b":
        raise not_implemented("clamp_cpu", dt)
    r = to_np(self, dt)
    with fp_ignored():
        if lo is not None:
            r = np.maximum(r, to_np(lo, dt))
        if hi is not None:
            r = np.minimum(r, to_np(hi, dt))
    return wrap(r if r is not self._a else r.copy())


@op("aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
    "aten::clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor",
    "aten::clip(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
    "aten::clip.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor")
def clamp(self: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """Elements limited to [min, max] (max wins when min > max)."""
    return _clamp_impl(self, min, max)


@op("aten::clamp_min(Tensor self, Scalar min) -> Tensor",
    "aten::clamp_min.Tensor(Tensor self, Tensor min) -> Tensor")
def clamp_min(self: Tensor, min: Any) -> Tensor:
    """Elements limited from below."""
    return _clamp_impl(self, min, None)


@op("aten::clamp_max(Tensor self, Scalar max) -> Tensor",
    "aten::clamp_max.Tensor(Tensor self, Tensor max) -> Tensor")
def clamp_max(self: Tensor, max: Any) -> Tensor:
    """Elements limited from above."""
    return _clamp_impl(self, None, max)


clamp_ = op("aten::clamp_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)",
            "aten::clamp_.Tensor(Tensor(a!) self, Tensor? min=None, Tensor? max=None) -> "
            "Tensor(a!)",
            "aten::clip_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)",
            "aten::clip_.Tensor(Tensor(a!) self, Tensor? min=None, Tensor? max=None) -> "
            "Tensor(a!)")(inplace(clamp))
clamp_min_ = op("aten::clamp_min_(Tensor(a!) self, Scalar min) -> Tensor(a!)",
                "aten::clamp_min_.Tensor(Tensor(a!) self, Tensor min) -> Tensor(a!)")(
    inplace(clamp_min))
clamp_max_ = op("aten::clamp_max_(Tensor(a!) self, Scalar max) -> Tensor(a!)",
                "aten::clamp_max_.Tensor(Tensor(a!) self, Tensor max) -> Tensor(a!)")(
    inplace(clamp_max))


# --- classification ---------------------------------------------------------------------
def _classify(name: str, ffn: Callable, int_value: bool) -> Callable:
    def kernel(self: Tensor) -> Tensor:
        a = self._a
        if a.dtype.kind in "fc":
            return wrap(ffn(a))
        return wrap(np.full(a.shape, int_value, dtype=bool))
    kernel.__name__ = name
    kernel.__doc__ = f"Elementwise {name} (bool result)."
    return kernel


isnan = op("aten::isnan(Tensor self) -> Tensor")(_classify("isnan", np.isnan, False))
isinf = op("aten::isinf(Tensor self) -> Tensor")(_classify("isinf", np.isinf, False))
isfinite = op("aten::isfinite(Tensor self) -> Tensor")(_classify("isfinite", np.isfinite, True))
isposinf = op("aten::isposinf(Tensor self) -> Tensor")(
    _classify("isposinf", lambda a: np.isposinf(a), False))
isneginf = op("aten::isneginf(Tensor self) -> Tensor")(
    _classify("isneginf", lambda a: np.isneginf(a), False))


@op("aten::signbit(Tensor self) -> Tensor")
def signbit(self: Tensor) -> Tensor:
    """Whether the sign bit is set (true for -0.0)."""
    a = self._a
    if a.dtype.kind == "c":
        raise RuntimeError("signbit is not implemented for complex tensors.")
    if a.dtype.kind == "f":
        return wrap(np.signbit(a))
    return wrap(a < 0 if a.dtype != np.bool_ else np.zeros(a.shape, bool))


@op("aten::isreal(Tensor self) -> Tensor")
def isreal(self: Tensor) -> Tensor:
    """Whether each element has a zero imaginary part."""
    a = self._a
    return wrap(a.imag == 0 if a.dtype.kind == "c" else np.ones(a.shape, bool))


@op("aten::isclose(Tensor self, Tensor other, float rtol=1.0000000000000001e-05, "
    "float atol=1e-08, bool equal_nan=False) -> Tensor")
@quiet
def isclose(self: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    """|self - other| <= atol + rtol * |other|, elementwise."""
    if self.dtype != other.dtype:
        raise RuntimeError(f"{self.dtype.cname} did not match {other.dtype.cname}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    dt, a, b = prep(self, other)
    eq = a == b
    if equal_nan and dt.kind in "fc":
        eq = eq | (np.isnan(a) & np.isnan(b))
    if dt.kind in "bi":
        a = a.astype(np.float64)
        b = b.astype(np.float64)
    close = np.isfinite(a) & np.isfinite(b) & (np.abs(a - b) <= atol + rtol * np.abs(b)) \
        if dt.kind in "fc" else np.abs(a - b) <= atol + rtol * np.abs(b)
    return wrap(eq | close)


@op("aten::allclose(Tensor self, Tensor other, float rtol=1.0000000000000001e-05, "
    "float atol=1e-08, bool equal_nan=False) -> bool")
def allclose(self: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    """Whether every element pair is close (see isclose)."""
    return bool(np.all(isclose(self, other, rtol, atol, equal_nan)._a))


@op("aten::equal(Tensor self, Tensor other) -> bool")
def equal(self: Tensor, other: Tensor) -> bool:
    """Same shape and equal elements (NaN is not equal to itself)."""
    if self._a.shape != other._a.shape:
        return False
    dt = D.promote_types(self.dtype, other.dtype)
    return bool(np.array_equal(to_np(self, dt), to_np(other, dt)))
