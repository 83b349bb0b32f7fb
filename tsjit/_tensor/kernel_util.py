"""Helpers shared by the tensor kernels (`tsjit/ops/kernels/tensor_*.py`).

Kernels receive Tensors and Python values (see the calling convention in
`tsjit.ops.registry`) and must return Tensors over ndarrays, never numpy scalars.
"""
from __future__ import annotations

import functools
import warnings
from contextvars import ContextVar
from typing import Any, Callable, Iterable, Optional, Sequence

import numpy as np

from . import dtypes as D
from .tensor import Tensor, wrap_dim

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1

# PyTorch computes inf / nan silently, so kernels compute with numpy's floating-point
# errors ignored. Entering np.errstate costs about a microsecond, as much as a small
# kernel's whole arithmetic, so it is entered once per region: a call of scripted code
# from Python (`interpreter.call_function`) or an eager call of a `quiet` kernel opens one
# (`fp_ignored`), and the kernels and helpers inside it see `_FP_IGNORED` set and enter
# nothing. The flag is a context variable, as numpy's error state is. Kernels that skip
# `quiet` on their fast paths rely, when called eagerly, on the warning filter below:
# numpy's floating-point warnings are ignored when they come from tsjit's own modules;
# the user's own numpy code still warns as configured.
warnings.filterwarnings("ignore", message=r"(overflow|invalid value|divide by zero|underflow) encountered",
                        category=RuntimeWarning, module=r"tsjit\.")
_FP_IGNORED: ContextVar[bool] = ContextVar("tsjit_fp_ignored", default=False)
# Whether the caller runs inside such a region (fast paths that may overflow take it as
# their condition, leaving eager calls to the quiet kernels).
fp_region_open: Callable[[], bool] = _FP_IGNORED.get


class fp_ignored:
    """A block run with numpy's floating-point errors ignored (see `_FP_IGNORED`): enters
    np.errstate only when no enclosing region has."""

    __slots__ = ("_state", "_token")

    def __enter__(self) -> None:
        if _FP_IGNORED.get():
            self._state = None
            return
        self._state = np.errstate(all="ignore")
        self._state.__enter__()
        self._token = _FP_IGNORED.set(True)

    def __exit__(self, *exc: Any) -> None:
        if self._state is not None:
            _FP_IGNORED.reset(self._token)
            self._state.__exit__(*exc)


# A Tensor over ndarray `a` (numpy scalars become 0-d arrays): Tensor._wrap itself, since
# every kernel result passes through it (a function around it cost a call per result).
wrap: Callable[[Any], Tensor] = Tensor._wrap


# Floating kernels compute in the input's own precision when numpy has it natively (as
# PyTorch's vectorised kernels do); half precision is computed in float32.
NATIVE_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def native_float(a: np.ndarray) -> np.ndarray:
    """`a` itself when float32 or float64, else converted to float32."""
    return a if a.dtype in NATIVE_FLOATS else a.astype(np.float32)


def quiet(fn: Callable) -> Callable:
    """Run a kernel with numpy's floating-point errors ignored (PyTorch does not warn): in
    the enclosing `fp_ignored` region, or in its own."""
    get = _FP_IGNORED.get

    @functools.wraps(fn)
    def wrapper(*args: Any) -> Any:
        if get():
            return fn(*args)
        with fp_ignored():
            return fn(*args)
    wrapper._tsjit_bare = fn        # type: ignore[attr-defined]   (see in_region)
    return wrapper


def in_region(kernel: Callable) -> Callable:
    """What runs `kernel` inside an open `fp_ignored` region: a `quiet` kernel's own function
    (its wrapper would only test the flag, a call per kernel), else `kernel` itself. Scripted
    code always runs in a region (`interpreter.call_function`), so it binds these."""
    while True:
        bare = getattr(kernel, "_tsjit_bare", None)
        if bare is None:
            return kernel
        kernel = bare


def dtype_of(x: Any) -> D.dtype:
    """The dtype of a Tensor, or of a Python number as a tensor."""
    return x.dtype if isinstance(x, Tensor) else D.scalar_dtype(x)


# numpy's own element types, whose casts are C++'s (ml_dtypes' and the raw float4 pairs take
# the general path)
_NUMPY_FLOATS = frozenset(np.dtype(t) for t in (np.float16, np.float32, np.float64))
_NUMPY_INTS = frozenset(np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64, np.uint8,
                                              np.uint16, np.uint32, np.uint64))


def scalar_to_np(v: Any, dt: D.dtype) -> np.ndarray:
    """A Python number as a 0-d array of dtype `dt`, converting like a C++ cast."""
    c = v.__class__
    if c is float or c is int:
        # the operands of most scalar arithmetic (x * 0.5, x + 1): one cast, through a
        # double for a floating dtype as below
        nd = dt._np
        if nd in _NUMPY_FLOATS:
            if c is int or _FP_IGNORED.get():
                return np.asarray(float(v), nd)
            with fp_ignored():
                return np.asarray(v, nd)
        if nd in _NUMPY_INTS and c is int and _INT64_MIN <= v <= _INT64_MAX:
            return np.asarray(v, np.int64).astype(nd)   # wraps like a C++ cast
    nd = D.to_numpy_dtype(dt)
    if dt in D.RAW_DTYPES:
        D.check_conversion(np.dtype(np.float64), dt)
    if isinstance(v, Tensor):
        return v._a.astype(nd, copy=False)
    if isinstance(v, (bool, np.bool_)):
        return np.asarray(bool(v)).astype(nd)
    if isinstance(v, (int, np.integer)):
        v = int(v)
        if dt.kind == "b":
            return np.asarray(v != 0)
        if dt.kind == "i":
            if v > _INT64_MAX or v < _INT64_MIN:
                if dt == D.uint64 and 0 <= v < (1 << 64):
                    return np.asarray(v, np.uint64)
                raise RuntimeError(
                    f"value cannot be converted to type {_ctype(dt)} without overflow")
            return np.asarray(v, np.int64).astype(nd)   # wraps like a C++ cast
        return np.asarray(float(v) if dt.kind == "f" else v).astype(nd)
    if isinstance(v, (float, np.floating)):
        if dt.kind == "b":
            return np.asarray(v != 0)
        with fp_ignored():
            return np.asarray(float(v)).astype(nd)
    if isinstance(v, (complex, np.complexfloating)):
        if dt.kind == "c":
            return np.asarray(v, nd)
        if dt.kind == "b":
            return np.asarray(v != 0)
        with fp_ignored():
            return np.asarray(v.real).astype(nd)
    raise TypeError(f"expected a number but got {type(v).__name__}")


_CTYPES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int",
           "int64": "int64_t", "float16": "c10::Half", "float32": "float", "float64": "double",
           "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
           "bool": "bool", "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t"}


def _ctype(dt: D.dtype) -> str:
    return _CTYPES.get(dt.name, dt.name)


def checked_scalar(v: Any, dt: D.dtype) -> np.ndarray:
    """A Python number as a 0-d array of `dt`, raising PyTorch's overflow error where a
    checked conversion (fill_, full, masked_fill ...) would."""
    if isinstance(v, (np.generic,)):
        v = v.item()
    if not isinstance(v, bool) and dt.kind != "b":
        bad = False
        if isinstance(v, complex) and dt.kind != "c":
            bad = v.imag != 0
            v = v.real
        if dt.kind in "iu" or dt.kind == "i":
            info = np.iinfo(dt.np)
            if isinstance(v, float):
                bad = bad or v != v or v < info.min or v > info.max
            elif isinstance(v, int):
                if not dt.is_signed and v < 0:
                    bad = bad or -v > info.max     # unsigned targets accept wrapped negatives
                else:
                    bad = bad or v < info.min or v > info.max
        elif dt.kind == "f" and isinstance(v, (int, float)):
            fv = float(v)
            info = np.finfo(dt.np)
            bad = bad or (fv == fv and abs(fv) != float("inf") and abs(fv) > float(info.max))
        if bad:
            raise RuntimeError(f"value cannot be converted to type {_ctype(dt)} without overflow")
    return scalar_to_np(v, dt)


def to_np(x: Any, dt: D.dtype) -> np.ndarray:
    """The values of a Tensor or Python number as an ndarray of dtype `dt`."""
    if isinstance(x, Tensor):
        a = x._a
        nd = dt.np
        if a.dtype == nd:
            return a
        with fp_ignored():
            return D.convert(a, dt)
    return scalar_to_np(x, dt)


def cast(a: np.ndarray, dt: D.dtype) -> np.ndarray:
    """`a` converted to dtype `dt` (no copy when it already is)."""
    nd = D.to_numpy_dtype(dt)
    if a.dtype == nd:
        return a
    with fp_ignored():
        return D.convert(a, dt)


def float_result(dt: D.dtype) -> D.dtype:
    """The dtype of a floating op on `dt`: integers and bools become the default dtype."""
    return dt if dt.kind in "fc" else D.get_default_dtype()


def not_implemented(name: str, dt: D.dtype) -> NotImplementedError:
    """PyTorch's dispatch error for a dtype a kernel does not support."""
    return NotImplementedError(f'"{name}" not implemented for \'{dt.cname}\'')


def wrap_dims(dims: Optional[Iterable[int]], ndim: int) -> tuple[int, ...]:
    """Normalised dims, rejecting repeats like PyTorch."""
    out: list[int] = []
    for d in dims or ():
        w = wrap_dim(d, ndim)
        if w in out:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        out.append(w)
    return tuple(out)


def reduce_axes(dim: Any, ndim: int) -> Optional[tuple[int, ...]]:
    """Axes for a reduction: None or [] means all; a 0-dim tensor has only dim 0 / -1."""
    if dim is None:
        return None
    if isinstance(dim, int):
        dim = [dim]
    if len(dim) == 0:
        return None
    axes = wrap_dims(dim, ndim)
    return axes if ndim > 0 else ()


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """The broadcast shape, with PyTorch's error message."""
    out: tuple[int, ...] = ()
    for i, shape in enumerate(shapes):
        out = tuple(shape) if i == 0 else _broadcast2(out, tuple(shape))
    return out


def _broadcast2(a: tuple, b: tuple) -> tuple[int, ...]:
    n = max(len(a), len(b))
    out = []
    for i in range(n):
        sa = a[i - n + len(a)] if i - n + len(a) >= 0 else 1
        sb = b[i - n + len(b)] if i - n + len(b) >= 0 else 1
        if sa != sb and sa != 1 and sb != 1:
            raise RuntimeError(f"The size of tensor a ({sa}) must match the size of tensor b "
                               f"({sb}) at non-singleton dimension {i}")
        out.append(sb if sa == 1 else sa)
    return tuple(out)


def check_no_overlap(a: np.ndarray) -> None:
    """PyTorch's refusal to write in place into an expanded (self-overlapping) tensor."""
    if a.size > 1 and any(st == 0 and n > 1 for st, n in zip(a.strides, a.shape)):
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")


def write_into(self: Tensor, r: np.ndarray) -> Tensor:
    """Store result `r` into `self` in place (casting), as an in-place kernel does."""
    a = self._a
    if r.dtype is a.dtype and a.flags.writeable and (
            r.shape == a.shape and a.flags.c_contiguous or r.ndim == 0 and 0 not in a.strides):
        # the common cases, one value or a whole array of the dtype: no cast, no broadcast
        # to check, no overlap (no zero stride)
        np.copyto(a, r)
        return self
    a = self._writable()
    check_no_overlap(a)
    if r.shape != a.shape:
        b = _broadcast2(a.shape, r.shape)
        if b != a.shape:
            raise RuntimeError(f"output with shape {fmt_shape(a.shape)} doesn't match the "
                               f"broadcast shape {fmt_shape(b)}")
    with fp_ignored():
        np.copyto(a, r, casting="unsafe")
    return self


def inplace_check(self: Tensor, result_dtype: D.dtype) -> None:
    """Raise PyTorch's error when an in-place result cannot be stored in self's dtype."""
    D.check_inplace_cast(result_dtype, self.dtype)


def numel(shape: Sequence[int]) -> int:
    """Product of a shape."""
    n = 1
    for s in shape:
        n *= int(s)
    return n


def fmt_shape(shape: Sequence[int]) -> str:
    """A shape as PyTorch prints it in messages: [2, 3]."""
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"
