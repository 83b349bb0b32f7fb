"""Tensor element types (`tsjit.float32` ...), PyTorch's type-promotion rules, and the
names checkpoints give their storages.

A `dtype` is an `int` whose value is PyTorch's ScalarType code, because TorchScript
passes dtypes around as plain ints (`torch.to(x, 6)`, `prim::dtype(x) == 6`); the
subclass only adds PyTorch's printing (`torch.float32`) and a few queries.

Every dtype `torch.save` writes has a numpy element type: numpy's own, or one of
`ml_dtypes` (bfloat16, the float8 formats, complex32 as two float16). PyTorch's
float4_e2m1fn_x2 packs two 4-bit floats in a byte and has no arithmetic or conversion
in PyTorch either; it is kept as raw bytes of a one-field numpy record type of its own,
so that its tensors still have a distinct dtype, view, copy, index and save.
"""
from __future__ import annotations

import builtins
from typing import Any, Optional

import numpy as np


_ML = "ml_dtypes"     # the numpy type of a dtype comes from ml_dtypes
_FLOAT4_X2 = 45       # float4_e2m1fn_x2's code


class dtype(int):
    """A tensor element type; an int equal to PyTorch's ScalarType code."""

    _by_code: dict[int, "dtype"] = {}

    def __new__(cls, code: Any) -> "dtype":
        d = cls._by_code.get(int(code))
        if d is None:
            raise TypeError(f"unknown ScalarType code {int(code)}")
        return d

    @classmethod
    def _define(cls, code: int, name: str, cname: str, np_dtype: Any, itemsize: int,
                kind: str, signed: bool, storage: Optional[str] = None) -> "dtype":
        d = int.__new__(cls, code)
        d.name = name              # "float32"
        d.cname = cname            # "Float": the C++ spelling PyTorch's messages use
        # the numpy element type; _ML: ml_dtypes' type of the same name, looked up when
        # first needed (importing ml_dtypes costs as much as the rest of tsjit's import)
        d._np = None if np_dtype is _ML else np.dtype(np_dtype)
        d.itemsize = itemsize
        d.kind = kind              # "b" bool, "i" integral, "f" floating, "c" complex
        d.is_signed = signed
        # `torch.<storage>` names this dtype's storages in checkpoints; dtypes without
        # one are saved as `torch.storage.UntypedStorage` plus the dtype itself
        d.storage = storage
        cls._by_code[code] = d
        return d

    @property
    def np(self) -> np.dtype:
        """The numpy dtype that stores tensors of this dtype."""
        nd = self._np
        if nd is None:
            _load_ml_dtypes()
            nd = self._np
        return nd

    @property
    def is_floating_point(self) -> bool:
        return self.kind == "f"

    @property
    def is_complex(self) -> bool:
        return self.kind == "c"

    @property
    def is_float8(self) -> bool:
        """Whether it is one of the 8-bit floating types, which PyTorch promotes with no
        other dtype."""
        return self.kind == "f" and self.itemsize == 1 and int(self) != _FLOAT4_X2

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


uint8 = dtype._define(0, "uint8", "Byte", "uint8", 1, "i", False, "ByteStorage")
int8 = dtype._define(1, "int8", "Char", "int8", 1, "i", True, "CharStorage")
int16 = dtype._define(2, "int16", "Short", "int16", 2, "i", True, "ShortStorage")
int32 = dtype._define(3, "int32", "Int", "int32", 4, "i", True, "IntStorage")
int64 = dtype._define(4, "int64", "Long", "int64", 8, "i", True, "LongStorage")
float16 = dtype._define(5, "float16", "Half", "float16", 2, "f", True, "HalfStorage")
float32 = dtype._define(6, "float32", "Float", "float32", 4, "f", True, "FloatStorage")
float64 = dtype._define(7, "float64", "Double", "float64", 8, "f", True, "DoubleStorage")
complex32 = dtype._define(8, "complex32", "ComplexHalf", _ML, 4, "c", True)
complex64 = dtype._define(9, "complex64", "ComplexFloat", "complex64", 8, "c", True,
                          "ComplexFloatStorage")
complex128 = dtype._define(10, "complex128", "ComplexDouble", "complex128", 16, "c", True,
                           "ComplexDoubleStorage")
bool_ = dtype._define(11, "bool", "Bool", "bool", 1, "b", False, "BoolStorage")
bfloat16 = dtype._define(15, "bfloat16", "BFloat16", _ML, 2, "f", True,
                         "BFloat16Storage")
float8_e5m2 = dtype._define(23, "float8_e5m2", "Float8_e5m2", _ML, 1, "f",
                            True)
float8_e4m3fn = dtype._define(24, "float8_e4m3fn", "Float8_e4m3fn", _ML,
                              1, "f", True)
float8_e5m2fnuz = dtype._define(25, "float8_e5m2fnuz", "Float8_e5m2fnuz",
                                _ML, 1, "f", True)
float8_e4m3fnuz = dtype._define(26, "float8_e4m3fnuz", "Float8_e4m3fnuz",
                                _ML, 1, "f", True)
uint16 = dtype._define(27, "uint16", "UInt16", "uint16", 2, "i", False)
uint32 = dtype._define(28, "uint32", "UInt32", "uint32", 4, "i", False)
uint64 = dtype._define(29, "uint64", "UInt64", "uint64", 8, "i", False)
float8_e8m0fnu = dtype._define(44, "float8_e8m0fnu", "Float8_e8m0fnu",
                               _ML, 1, "f", False)
# Two float4_e2m1fn in a byte: no numpy type, so a record type of one uint8 field whose
# name says what it holds (distinct from uint8, and refused by numpy's arithmetic).
float4_e2m1fn_x2 = dtype._define(45, "float4_e2m1fn_x2", "Float4_e2m1fn_x2",
                                 [("float4_e2m1fn_x2", "u1")], 1, "f", True)

# Dtypes whose numpy type is a byte container, not a number: they convert to nothing and
# compute nothing (as in PyTorch), but view, copy and index.
RAW_DTYPES = frozenset({float4_e2m1fn_x2})

# Checkpoint storage classes: `torch.FloatStorage` ... -> dtype (one table for the writer
# and the reader). Other dtypes' storages are `torch.storage.UntypedStorage`, rebuilt with
# `torch._utils._rebuild_tensor_v3`, which names the dtype.
STORAGE_TYPES: dict[str, dtype] = {
    d.storage: d for d in dtype._by_code.values() if d.storage is not None}
UNTYPED_STORAGE = ("torch.storage", "UntypedStorage")

# Names and PyTorch's aliases (the facade exports `float`, `long` ... as module attributes;
# they are not bound here so that this module keeps the builtins).
_ALIASES: dict[str, dtype] = {d.name: d for d in dtype._by_code.values()}
_ALIASES.update(half=float16, float=float32, double=float64, short=int16, int=int32,
                long=int64, cfloat=complex64, cdouble=complex128, chalf=complex32)
ALL_DTYPES: tuple[dtype, ...] = tuple(dtype._by_code.values())

_NP_TO_DTYPE: dict[np.dtype, dtype] = {
    d._np: d for d in dtype._by_code.values() if d._np is not None}

# numpy types numpy computes with, for the element types of ml_dtypes (which convert
# exactly) and for the raw float4 pairs (their bytes)
_NATIVE: dict[np.dtype, np.dtype] = {float4_e2m1fn_x2.np: np.dtype(np.uint8)}


def _load_ml_dtypes() -> None:
    """Give the dtypes numpy lacks their ml_dtypes types."""
    import ml_dtypes
    for d in dtype._by_code.values():
        if d._np is None:
            d._np = np.dtype(getattr(ml_dtypes, d.name))
            _NP_TO_DTYPE[d._np] = d
            _NATIVE[d._np] = np.dtype(np.complex64 if d.kind == "c" else np.float32)


_PLAIN_REAL = frozenset(np.dtype(t) for t in (
    np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32, np.float64))


def convert(a: np.ndarray, dt: "dtype") -> np.ndarray:
    """`a`'s values as a new array of dtype `dt`, rounded as PyTorch rounds: ml_dtypes
    agrees with it except where PyTorch writes NaN as 0xFFFF in bfloat16 and with the low
    bit set in float8_e5m2, and saturates float8_e4m3fn at +-448 (infinities included)."""
    nd = dt._np
    if nd in _PLAIN_REAL and a.dtype in _PLAIN_REAL:
        return a.astype(nd)     # numpy's own real types: its cast is PyTorch's
    check_conversion(a.dtype, dt)
    if dt.kind != "c" and _NATIVE.get(a.dtype, a.dtype).kind == "c":
        a = native_values(a).real        # complex to real keeps the real part, silently
    r = a.astype(dt.np)
    fix = _NAN_SATURATE.get(int(dt))
    if fix is not None and a.dtype.kind not in "biuc" and a.dtype.fields is None and r.size:
        nan_bits, saturate = fix
        nan = np.isnan(a)
        bits = r.view(np.uint16 if dt.itemsize == 2 else np.uint8)
        neg = np.signbit(a)
        if nan_bits is not None and nan.any():
            bits[nan] = nan_bits if dt.itemsize == 2 else nan_bits | (neg[nan] * 0x80)
        if saturate is not None:
            over = ~nan & (np.abs(a.astype(np.float64)) > saturate[0])
            if over.any():
                bits[over] = saturate[1] | (neg[over] * 0x80)
    return r


# ScalarType code -> (NaN bit pattern, (largest finite value, its bits)) where PyTorch's
# rounding differs from ml_dtypes'.
_NAN_SATURATE: dict[int, tuple[Optional[int], Optional[tuple[float, int]]]] = {
    15: (0xFFFF, None), 23: (0x7F, None), 24: (None, (448.0, 0x7E))}


def check_conversion(src: np.dtype, dst: "dtype", kernel: str = "copy_") -> None:
    """Raise PyTorch's error for a value conversion to or from float4_e2m1fn_x2 (whose
    pairs PyTorch neither reads nor writes as numbers)."""
    if src != dst.np and (dst in RAW_DTYPES or src.fields is not None):
        raw = dst if dst in RAW_DTYPES else float4_e2m1fn_x2
        raise NotImplementedError(f'"{kernel}" not implemented for \'{raw.cname}\'')


def native_values(a: np.ndarray) -> np.ndarray:
    """`a` in a numpy type numpy itself computes with: bfloat16 and float8 as float32,
    complex32 as complex64, float4_e2m1fn_x2 as its bytes (uint8); others as they are."""
    nd = _NATIVE.get(a.dtype)
    if nd is None:
        return a
    if nd.itemsize == a.itemsize and a.dtype.fields is not None:
        return a.view(nd)
    return a.astype(nd)

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
    d = _NP_TO_DTYPE.get(nd)
    if d is not None:
        return d
    nd = np.dtype(nd)
    if nd.byteorder not in "=|":
        nd = nd.newbyteorder("=")
    d = _NP_TO_DTYPE.get(nd)
    if d is None and nd.isbuiltin == 2 and bfloat16._np is None:   # (2: a user-defined type)
        _load_ml_dtypes()       # an ml_dtypes array met before tsjit needed ml_dtypes
        d = _NP_TO_DTYPE.get(nd)
    if d is None:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(nd).name}. The only supported "
            "types are: float64, float32, float16, complex64, complex128, int64, int32, "
            "int16, int8, uint64, uint32, uint16, uint8, and bool.")
    return d


def to_numpy_dtype(d: Any) -> np.dtype:
    """The numpy dtype that stores tensors of dtype `d`."""
    return as_dtype(d).np


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
    if a.is_float8 or b.is_float8:
        raise RuntimeError("Promotion for Float8 Types is not supported, attempted to "
                           f"promote {a.cname} and {b.cname}")
    if int(a) in _UNSIGNED_BIG or int(b) in _UNSIGNED_BIG:
        # only a real floating type absorbs them (even float4_e2m1fn_x2, as in PyTorch)
        other = b if int(a) in _UNSIGNED_BIG else a
        if other.kind == "f":
            return other
        raise RuntimeError(f"Promotion for uint16, uint32, uint64 types is not supported, "
                           f"attempted to promote {a.cname} and {b.cname}")
    if a in RAW_DTYPES or b in RAW_DTYPES:
        raise RuntimeError(f"Promotion for {float4_e2m1fn_x2.cname} is not supported, "
                           f"attempted to promote {a.cname} and {b.cname}")
    if a.kind == "b":
        return b
    if b.kind == "b":
        return a
    ka, kb = _CATEGORY[a.kind], _CATEGORY[b.kind]
    if ka != kb:
        hi, lo = (a, b) if ka > kb else (b, a)
        if hi.kind == "c" and lo.kind == "f":
            # the complex type whose parts hold both reals (complex32 + float32 -> complex64)
            return promote_types(hi.to_real(), lo).to_complex()
        return hi
    if a.kind == "f":
        if {int(a), int(b)} == {5, 15}:
            return float32    # half with bfloat16 meet at float
        return a if a.itemsize > b.itemsize else b
    if a.kind == "c":
        return a if a.itemsize > b.itemsize else b
    return from_numpy_dtype(np.promote_types(a.np, b.np))


def scalar_dtype(v: Any) -> dtype:
    """The dtype a Python number would have as a tensor (`tensor(v)`)."""
    c = v.__class__     # the usual classes first: this runs for every scalar operand
    if c is builtins.float:
        return _default_dtype
    if c is builtins.int:
        return int64
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
    dim_r: Optional[dtype] = None
    zero_r: Optional[dtype] = None
    wrap_r: Optional[dtype] = None
    for x in operands:
        if x is None:
            continue
        a = getattr(x, "_a", None)      # a Tensor's array (Tensor is a layer above)
        if a is None:
            d = scalar_dtype(x)
            wrap_r = d if wrap_r is None or wrap_r is d else promote_types(wrap_r, d)
            continue
        d = _NP_TO_DTYPE.get(a.dtype) or from_numpy_dtype(a.dtype)
        if a.ndim:
            dim_r = d if dim_r is None or dim_r is d else promote_types(dim_r, d)
        else:
            zero_r = d if zero_r is None or zero_r is d else promote_types(zero_r, d)
    r = _combine(dim_r, _combine(zero_r, wrap_r))
    if r is None:
        raise TypeError("result_type needs at least one operand")
    if r in RAW_DTYPES:
        # packed float4 pairs have no arithmetic (nor a promotion with anything else)
        raise NotImplementedError(f'"arithmetic" not implemented for \'{r.cname}\'')
    return r


def can_cast(src: dtype, dst: dtype) -> bool:
    """torch.can_cast: casting may not go up a category (float -> int, x -> bool ...)."""
    return _CATEGORY[src.kind] <= _CATEGORY[dst.kind] or src == dst


def check_inplace_cast(result: dtype, out: dtype) -> None:
    """Raise PyTorch's error when an in-place op would store `result` into `out`."""
    if not can_cast(result, out):
        raise RuntimeError(
            f"result type {result.cname} can't be cast to the desired output type {out.cname}")
