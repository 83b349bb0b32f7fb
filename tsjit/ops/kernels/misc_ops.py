"""Language-support operators: for-range lowering, warnings, hash(), optional unwrapping.

`hash()` reproduces PyTorch's values: ints hash to themselves, strings and floats with
the GNU C++ library's `std::hash` (64-bit MurmurHash2 of the bytes, seed 0xc70f6907;
±0.0 hash to 0), tuples by folding `hash_combine` over the elements, None to 0.
"""
from __future__ import annotations

import struct
import warnings
from typing import Any

from ..registry import op
from .scalar_common import c_div, ts_error, wrap_int64
from .str_common import to_bytes

_M64 = (1 << 64) - 1


@op("aten::wait(Future(t) self) -> t")
def wait(fut: Any) -> Any:
    """The value of a forked call (`torch.jit.wait(fut)`)."""
    return fut.wait()


@op("aten::__range_length(int lo, int hi, int step) -> int")
def range_length(lo: int, hi: int, step: int) -> int:
    """The number of iterations of `range(lo, hi, step)` (int64 arithmetic, as C++)."""
    if step == 0:
        raise ts_error("range() arg 3 must not be zero")
    if step > 0 and lo < hi:
        return wrap_int64(1 + c_div(wrap_int64(wrap_int64(hi - 1) - lo), step))
    if step < 0 and lo > hi:
        return wrap_int64(1 + c_div(wrap_int64(wrap_int64(lo - 1) - hi), wrap_int64(-step)))
    return 0


@op("aten::__derive_index(int index, int start, int step) -> int")
def derive_index(index: int, start: int, step: int) -> int:
    """The loop variable of iteration `index` of a range: start + index * step."""
    return wrap_int64(start + index * step)


@op("prim::rangelist(int n) -> int[]")
def rangelist(n: int) -> list[int]:
    """[0, 1, ..., n - 1]."""
    return list(range(n))


@op("aten::warn(str message, int stacklevel=2) -> ()")
def warn(message: str, stacklevel: int = 2) -> None:
    """Issue a UserWarning, as `warnings.warn` in scripted code does."""
    warnings.warn(message, UserWarning, stacklevel=max(stacklevel, 1))


@op("aten::is_scripting() -> bool")
def is_scripting() -> bool:
    """True: this code is running as TorchScript."""
    return True


@op("aten::_get_tracing_state() -> bool",
    "aten::_use_cudnn_rnn_flatten_weight() -> bool",
    "aten::_nnpack_available() -> bool",
    "aten::is_vulkan_available() -> bool",
    "aten::is_autocast_cpu_enabled() -> bool")
def false_query() -> bool:
    """Environment queries scripted library code makes: never tracing, no cuDNN, NNPACK,
    Vulkan or CPU autocast in tsjit."""
    return False


@op("aten::has_torch_function(...) -> bool")
def has_torch_function(*args: Any) -> bool:
    """False: there are no `__torch_function__` overrides in compiled code."""
    return False


@op("aten::_unwrap_optional(t(a)? optional) -> t(a)")
def unwrap_optional(optional: Any) -> Any:
    """The value of a non-None optional."""
    if optional is None:
        raise ts_error("Unwrapping null optional")
    return optional


@op("prim::unchecked_unwrap_optional(t(a)? optional) -> t(a)")
def unchecked_unwrap_optional(optional: Any) -> Any:
    """The optional's value, unchecked."""
    return optional


@op("aten::_print(str s) -> ()")
def print_(s: str) -> None:
    """Print a line."""
    print(s)


# ---- hash ------------------------------------------------------------------------------

def _murmur64(data: bytes, seed: int = 0xC70F6907) -> int:
    # 64-bit MurmurHash2 (MurmurHash64A) as used by libstdc++'s std::_Hash_bytes.
    m, r = 0xC6A4A7935BD1E995, 47
    h = (seed ^ (len(data) * m)) & _M64
    end = len(data) // 8 * 8
    for i in range(0, end, 8):
        k = (int.from_bytes(data[i:i + 8], "little") * m) & _M64
        k = ((k ^ (k >> r)) * m) & _M64
        h = ((h ^ k) * m) & _M64
    if end != len(data):
        h = ((h ^ int.from_bytes(data[end:], "little")) * m) & _M64
    h = ((h ^ (h >> r)) * m) & _M64
    return h ^ (h >> r)


def _hash_combine(seed: int, value: int) -> int:
    return (seed ^ ((value + 0x9E3779B9 + (seed << 6) + (seed >> 2)) & _M64)) & _M64


def _hash(v: Any) -> int:
    """The unsigned 64-bit hash of a value."""
    if v is None:
        return 0
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return v & _M64
    if isinstance(v, float):
        return 0 if v == 0.0 else _murmur64(struct.pack("<d", v))
    if isinstance(v, str):
        return _murmur64(to_bytes(v))
    if isinstance(v, complex):
        return _hash_combine(_hash_combine(0, _hash(v.real)), _hash(v.imag))
    if isinstance(v, tuple):
        h = 0
        for e in v:
            h = _hash_combine(h, _hash(e))
        return h
    if isinstance(v, (list, dict)):
        raise ts_error(f"'{type(v).__name__}' is not hashable")
    return id(v) & _M64  # Tensors and objects hash by identity


@op("aten::hash.generic(t value) -> int")
def hash_generic(value: Any) -> int:
    """PyTorch's hash() of a value, as an int64."""
    return wrap_int64(_hash(value))
