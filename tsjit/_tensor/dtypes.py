"""Tensor element types (`tsjit.float32` ...) and PyTorch's type-promotion rules.

A `dtype` is an `int` whose value is PyTorch's ScalarType code, because TorchScript
passes dtypes around as plain ints (`torch.to(x, 6)`, `prim::dtype(x) == 6`); the
subclass only adds PyTorch's printing (`torch.float32`) and a few queries.
"""
from __future__ import annotations

import builtins
from typing import Any, Optional

import numpy as np


class dtype(int):
    """A tensor element type; an int equal to PyTorch's ScalarType code."""

    _by_code: dict[int, "dtype"] = {}

    def __new__(cls, code: Any) -> "dtype":
        d = cls._by_code.get(int(code))
        if d is None:
            raise TypeError(f"unknown ScalarType code {int(code)}")
        return d

    @classmethod
    def _define(cls, code: int, name: str, cname: str, np_dtype: Optional[str],
                itemsize: int, kind: str, signed: bool) -> "dtype":
        d = int.__new__(cls, code)
        d.name = name              # "float32"
        d.cname = cname            # "Float": the C++ spelling PyTorch's messages use
        d.np = np.dtype(np_dtype) if np_dtype else None
        d.itemsize = itemsize
        d.kind = kind              # "b" bool, "i" integral, "f" floating, "c" complex
        d.is_signed = signed
        cls._by_code[code] = d
        return d

    @property
    def is_floating_point(self) -> bool:
        return self.kind == "f"

    @property
    def is_complex(self) -> bool:
        return self.kind == "c"

    def to_real(self) -> "dtype":
        """The real counterpart of a complex dtype (itself otherwise)."""
        return {9: float32, 10: float64, 8: float16}.get(int(self), self)

    def to_complex(self) -> "dtype":
        """The complex counterpart of a floating dtype (itself otherwise)."""
        return {6: complex64, 7: complex128, 5: complex32, 15: complex64}.get(int(self), self)

    def __repr__(self) -> str:
        return "torch." + self.name

    __str__ = __repr__

    def __reduce__(self) -> Any:
        return (dtype, (int(self),))

    def __copy__(self) -> "dtype":
        return self

    def __deepcopy__(self, memo: Any) -> "dtype":
        return self


uint8 = dtype._define(0, "uint8", "Byte", "uint8", 1, "i", False)
int8 = dtype._define(1, "int8", "Char", "int8", 1, "i", True)
int16 = dtype._define(2, "int16", "Short", "int16", 2, "i", True)
int32 = dtype._define(3, "int32", "Int", "int32", 4, "i", True)
int64 = dtype._define(4, "int64", "Long", "int64", 8, "i", True)
float16 = dtype._define(5, "float16", "Half", "float16", 2, "f", True)
float32 = dtype._define(6, "float32", "Float", "float32", 4, "f", True)
float64 = dtype._define(7, "float64", "Double", "float64", 8, "f", True)
complex32 = dtype._define(8, "complex32", "ComplexHalf", None, 4, "c", True)
complex64 = dtype._define(9, "complex64", "ComplexFloat", "complex64", 8, "c", True)
complex128 = dtype._define(10, "complex128", "ComplexDouble", "complex128", 16, "c", True)
bool_ = dtype._define(11, "bool", "Bool", "bool", 1, "b", False)
# bfloat16 has no numpy counterpart: the dtype exists (archives may name it) but tensors
# of it cannot be created.
bfloat16 = dtype._define(15, "bfloat16", "BFloat16", None, 2, "f", True)
uint16 = dtype._define(27, "uint16", "UInt16", "uint16", 2, "i", False)
uint32 = dtype._define(28, "uint32", "UInt32", "uint32", 4, "i", False)
uint64 = dtype._define(29, "uint64", "UInt64", "uint64", 8, "i", False)

# Names and PyTorch's aliases (the facade exports `float`, `long` ... as module attributes;
# they are not bound here so that this module keeps the builtins).
_ALIASES: dict[str, dtype] = {d.name: d for d in dtype._by_code.values()}
_ALIASES.update(half=float16, float=float32, double=float64, short=int16, int=int32,
                long=int64, cfloat=complex64, cdouble=complex128, chalf=complex32)

_NP_TO_DTYPE: dict[np.dtype, dtype] = {
    d.np: d for d in dtype._by_code.values() if d.np is not None}

_default_dtype: dtype = float32


def get_default_dtype() -> dtype:
    """The dtype Python floats become (float32 unless changed)."""
    return _default_dtype


def set_default_dtype(d: Any) -> None:
    """Set the dtype Python floats become; only float32 and float64 are accepted."""
    global _default_dtype
    d = as_dtype(d)
    if d not in (float32, float64):
        raise TypeError("only floating-point types are supported as the default type")
    _default_dtype = d


def as_dtype(x: Any) -> dtype:
    """A dtype from a dtype, a ScalarType int code, a numpy dtype, a Python type or a name."""
    if isinstance(x, dtype):
        return x
    if x is builtins.float:
        return _default_dtype
    if x is builtins.int:
        return int64
    if x is builtins.bool:
        return bool_
    if x is builtins.complex:
        return _default_dtype.to_complex()
    if isinstance(x, builtins.int):
        return dtype(x)
    if isinstance(x, str):
        name = x[6:] if x.startswith("torch.") else x
        d = _ALIASES.get(name)
        if d is not None:
            return d
        raise TypeError(f"not a dtype: {x!r}")
    try:
        return from_numpy_dtype(np.dtype(x))
    except TypeError:
        raise TypeError(f"not a dtype: {x!r}") from None


def from_numpy_dtype(nd: np.dtype) -> dtype:
    """The dtype of numpy dtype `nd`; raises TypeError for types tensors cannot hold."""
    d = _NP_TO_DTYPE.get(np.dtype(nd).newbyteorder("=") if np.dtype(nd).byteorder not in "=|"
                         else np.dtype(nd))
    if d is None:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(nd).name}. The only supported "
            "types are: float64, float32, float16, complex64, complex128, int64, int32, "
            "int16, int8, uint64, uint32, uint16, uint8, and bool.")
    return d


def to_numpy_dtype(d: Any) -> np.dtype:
    """The numpy dtype that stores tensors of dtype `d`."""
    d = as_dtype(d)
    if d.np is None:
        raise TypeError(f"{d} is not supported by tsjit (numpy has no such type)")
    return d.np


# ---------------------------------------------------------------------------------
# Type promotion
# ---------------------------------------------------------------------------------

_CATEGORY = {"b": 0, "i": 1, "f": 2, "c": 3}


def category(d: dtype) -> int:
    """0 bool, 1 integral, 2 floating, 3 complex."""
    return _CATEGORY[d.kind]


_UNSIGNED_BIG = {27, 28, 29}


def promote_types(a: dtype, b: dtype) -> dtype:
    """PyTorch's promoteTypes: the smallest dtype both a and b convert to."""
    if a == b:
        return a
    if a.kind == "b":
        return b
    if b.kind == "b":
        return a
    ka, kb = _CATEGORY[a.kind], _CATEGORY[b.kind]
    if ka != kb:
        hi, lo = (a, b) if ka > kb else (b, a)
        if hi.kind == "c" and lo.kind == "f":
            # complex64 with float64 needs complex128 to keep the float's precision
            return complex128 if lo == float64 else hi
        return hi
    if a.kind == "f":
        if {int(a), int(b)} == {5, 15}:
            return float32    # half with bfloat16 meet at float
        return a if a.itemsize > b.itemsize else b
    if a.kind == "c":
        return a if a.itemsize > b.itemsize else b
    if int(a) in _UNSIGNED_BIG or int(b) in _UNSIGNED_BIG:
        if a.is_signed or b.is_signed:
            raise TypeError(f"Promotion for uint16, uint32, uint64 types is not supported, "
                            f"attempted to promote {a.cname} and {b.cname}")
        return a if a.itemsize > b.itemsize else b
    return from_numpy_dtype(np.promote_types(a.np, b.np))


def scalar_dtype(v: Any) -> dtype:
    """The dtype a Python number would have as a tensor (`tensor(v)`)."""
    if isinstance(v, (bool, np.bool_)):
        return bool_
    if isinstance(v, (builtins.int, np.integer)):
        return int64
    if isinstance(v, (builtins.float, np.floating)):
        return _default_dtype
    if isinstance(v, (complex, np.complexfloating)):
        return _default_dtype.to_complex()
    raise TypeError(f"not a number: {type(v).__name__}")


def _combine(higher: Optional[dtype], lower: Optional[dtype]) -> Optional[dtype]:
    # A lower-priority operand only matters when it is of a higher category.
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.kind == "c":
        return higher
    if lower.kind == "c":
        return higher.to_complex() if higher.kind == "f" else lower
    if higher.kind == "f":
        return higher
    if higher.kind == "b" or lower.kind == "f":
        return promote_types(higher, lower)
    return higher


def result_type(*operands: Any) -> dtype:
    """PyTorch's result_type over tensors and Python scalars.

    Three priorities: tensors with dimensions, zero-dim tensors, Python numbers. A lower
    priority operand only changes the result when its category (bool < integral <
    floating < complex) is higher; a Python float then contributes the default dtype.
    """
    from .tensor import Tensor
    dim_r: Optional[dtype] = None
    zero_r: Optional[dtype] = None
    wrap_r: Optional[dtype] = None
    for x in operands:
        if x is None:
            continue
        if isinstance(x, Tensor):
            d = x.dtype
            if x._a.ndim > 0:
                dim_r = d if dim_r is None else promote_types(dim_r, d)
            else:
                zero_r = d if zero_r is None else promote_types(zero_r, d)
        else:
            d = scalar_dtype(x)
            wrap_r = d if wrap_r is None else promote_types(wrap_r, d)
    r = _combine(dim_r, _combine(zero_r, wrap_r))
    if r is None:
        raise TypeError("result_type needs at least one operand")
    return r


def can_cast(src: dtype, dst: dtype) -> bool:
    """torch.can_cast: casting may not go up a category (float -> int, x -> bool ...)."""
    return _CATEGORY[src.kind] <= _CATEGORY[dst.kind] or src == dst


def check_inplace_cast(result: dtype, out: dtype) -> None:
    """Raise PyTorch's error when an in-place op would store `result` into `out`."""
    if not can_cast(result, out):
        raise RuntimeError(
            f"result type {result.cname} can't be cast to the desired output type {out.cname}")
