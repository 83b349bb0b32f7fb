"""Tensor creation: `tensor`, `from_numpy`, `zeros`, `arange`, random tensors ...

Random numbers come from a numpy `Generator` (PCG64) seeded by `manual_seed`; the
streams do not match PyTorch's (programs may only rely on shapes, dtypes and ranges).
"""
from __future__ import annotations

import json

import math
from typing import Any, Optional, Sequence

import numpy as np

from . import dtypes as D
from .device import as_device
from .kernel_util import fp_ignored, scalar_to_np
from .tensor import Tensor

# ---------------------------------------------------------------------------------
# tensor(data)
# ---------------------------------------------------------------------------------



def _infer(data: Any, shape: list, flat: list, depth: int, kinds: set) -> None:
    if isinstance(data, Tensor):
        if data.dim() == 0:
            flat.append(data.item())
            kinds.add(("t", data.dtype))
            return
        data = data.tolist()
    if isinstance(data, np.ndarray):
        if data.ndim == 0:
            data = data[()]
        else:
            data = data.tolist()
    if isinstance(data, (list, tuple)):
        n = len(data)
        if depth == len(shape):
            shape.append(n)
        elif shape[depth] != n:
            raise ValueError(f"expected sequence of length {shape[depth]} at dim {depth} "
                             f"(got {n})")
        for x in data:
            _infer(x, shape, flat, depth + 1, kinds)
        return
    if depth != len(shape):
        raise TypeError("new(): invalid data type: scalar where a sequence was expected")
    if isinstance(data, np.generic) and not isinstance(data, np.bool_):
        kinds.add(("t", D.from_numpy_dtype(data.dtype)))   # numpy scalars keep their dtype
        flat.append(data.item())
        return
    if isinstance(data, (bool, np.bool_)):
        kinds.add("b")
    elif isinstance(data, (int, np.integer)):
        if not -(1 << 63) <= int(data) < (1 << 63):
            raise RuntimeError("Overflow when unpacking long")
        kinds.add("i")
    elif isinstance(data, (float, np.floating)):
        kinds.add("f")
    elif isinstance(data, (complex, np.complexfloating)):
        kinds.add("c")
    else:
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    flat.append(data)


def _np_scalar_dtype(x: Any) -> Optional[D.dtype]:
    # numpy scalars carry their own dtype: torch.tensor(np.float64(1)) is float64
    if isinstance(x, np.generic):
        return D.from_numpy_dtype(x.dtype)
    return None


def tensor(data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:
    """A new tensor copying `data` (nested lists of numbers, a Tensor or an ndarray)."""
    as_device(device)
    dt = D.as_dtype(dtype) if dtype is not None else None
    if isinstance(data, Tensor):
        a = data._a.astype(D.to_numpy_dtype(dt or data.dtype), copy=True)
    elif isinstance(data, np.ndarray):
        a = np.array(data, dtype=D.to_numpy_dtype(dt) if dt else
                     D.to_numpy_dtype(D.from_numpy_dtype(data.dtype)), copy=True)
    elif dt is None and data.__class__ in _NUMBER_DTYPES:
        a = _number_array(data)     # (what the general case gives, without the walk)
    else:
        shape: list[int] = []
        flat: list[Any] = []
        kinds: set = set()
        _infer(data, shape, flat, 0, kinds)
        checked = dt is not None
        if dt is None:
            npdt = _np_scalar_dtype(data)
            if npdt is not None:
                dt = npdt
            elif not flat:
                dt = D.get_default_dtype()
            else:
                dt = _dtype_from_kinds(kinds)
        a = _values_array(flat, dt, checked).reshape(shape)
    t = Tensor._wrap(a)
    if requires_grad:
        t.requires_grad_(True)
    return t


_NUMBER_DTYPES = {bool: D.bool_, int: D.int64, float: None}    # None: the default float


def _number_array(v: Any) -> np.ndarray:
    """The 0-d array `tensor(v)` holds for a Python bool, int or float `v`."""
    dt = _NUMBER_DTYPES[v.__class__]
    if dt is D.int64 and not -(1 << 63) <= v < (1 << 63):
        raise RuntimeError("Overflow when unpacking long")
    if dt is None:
        with fp_ignored():
            return np.asarray(v, D.get_default_dtype().np)
    return np.asarray(v, dt.np)


def _dtype_from_kinds(kinds: set) -> D.dtype:
    # PyTorch promotes the element types: Python numbers give bool / int64 / the default
    # float / complex, numpy scalars and 0-dim tensors their own dtype
    plain = {"b": D.bool_, "i": D.int64, "f": D.get_default_dtype(),
             "c": D.get_default_dtype().to_complex()}
    dt: Optional[D.dtype] = None
    for k in kinds:
        d = k[1] if isinstance(k, tuple) else plain[k]
        dt = d if dt is None else D.promote_types(dt, d)
    return dt if dt is not None else D.get_default_dtype()


def _check_range(flat: list, dt: D.dtype) -> None:
    # torch.tensor(data, dtype=<integer>) refuses values the dtype cannot hold (integers may
    # wrap into unsigned types, like a C cast of a negative number)
    info = np.iinfo(dt.np)
    for v in flat:
        if isinstance(v, (bool, np.bool_)):
            continue
        if isinstance(v, (int, np.integer)):
            lo = -int(info.max) if not dt.is_signed else int(info.min)
            bad = not lo <= int(v) <= int(info.max)
        else:
            f = complex(v).real if isinstance(v, (complex, np.complexfloating)) else float(v)
            bad = not (info.min <= f <= info.max)
        if bad:
            raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow")


def _values_array(flat: list, dt: D.dtype, checked: bool = False) -> np.ndarray:
    nd = D.to_numpy_dtype(dt)
    if not flat:
        return np.zeros(0, nd)
    if checked and dt.kind == "i":
        _check_range(flat, dt)
    if dt.kind == "b":
        return np.array([bool(v) for v in flat], dtype=bool)
    if dt.kind == "i":
        # go through int64 / float64 so that out-of-range values wrap or truncate like C casts
        if all(isinstance(v, (int, bool, np.integer, np.bool_)) for v in flat):
            src = np.array([int(v) for v in flat], dtype=np.int64)
        else:
            src = np.array([complex(v).real if isinstance(v, complex) else float(v)
                            for v in flat], dtype=np.float64)
        with fp_ignored():
            return src.astype(nd)
    if dt.kind == "c":
        return np.array([complex(v) for v in flat], dtype=nd)
    with fp_ignored():
        return np.array([v.real if isinstance(v, complex) else float(v) for v in flat],
                        dtype=np.float64).astype(nd)


def from_numpy(a: np.ndarray) -> Tensor:
    """A tensor sharing `a`'s memory (no copy)."""
    if not isinstance(a, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(a).__name__})")
    D.from_numpy_dtype(a.dtype)
    if a.dtype.byteorder == ">":
        raise ValueError("given numpy array has byte order different from the native byte "
                         "order. Conversion between byte orders is currently not supported.")
    return Tensor._wrap(a)


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """`data` as a tensor, sharing memory when it already is a Tensor/ndarray of that dtype."""
    as_device(device)
    if isinstance(data, Tensor):
        if dtype is None or D.as_dtype(dtype) == data.dtype:
            return data
        return Tensor._wrap(data._a.astype(D.to_numpy_dtype(dtype)))
    if isinstance(data, np.ndarray) and (dtype is None or
                                         D.to_numpy_dtype(dtype) == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype)


# ---------------------------------------------------------------------------------
# factories
# ---------------------------------------------------------------------------------

def _size(size: Sequence[Any]) -> tuple[int, ...]:
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = tuple(size[0])
    out = []
    for s in size:
        if isinstance(s, Tensor):
            s = s.__index__()
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"expected a sequence of integers for size, got {type(s).__name__}")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(size)}")
        out.append(int(s))
    return tuple(out)


def _finish(a: np.ndarray, requires_grad: bool) -> Tensor:
    t = Tensor._wrap(a)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _dt(dtype: Any, default: Optional[D.dtype] = None) -> D.dtype:
    return D.as_dtype(dtype) if dtype is not None else (default or D.get_default_dtype())


def zeros(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
          **_: Any) -> Tensor:
    """A tensor of zeros."""
    as_device(device)
    return _finish(np.zeros(_size(size), D.to_numpy_dtype(_dt(dtype))), requires_grad)


def ones(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
         **_: Any) -> Tensor:
    """A tensor of ones."""
    as_device(device)
    return _finish(np.ones(_size(size), D.to_numpy_dtype(_dt(dtype))), requires_grad)


def empty(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
          **_: Any) -> Tensor:
    """An 'uninitialised' tensor; tsjit fills it with zeros so results are reproducible."""
    return zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)


def full(size: Sequence[int], fill_value: Any, *, dtype: Any = None, device: Any = None,
         requires_grad: bool = False, **_: Any) -> Tensor:
    """A tensor filled with `fill_value`; its dtype is inferred from the value."""
    as_device(device)
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    dt = D.as_dtype(dtype) if dtype is not None else D.scalar_dtype(fill_value)
    a = np.empty(_size((size,)), D.to_numpy_dtype(dt))
    a[...] = scalar_to_np(fill_value, dt)
    return _finish(a, requires_grad)


def _like_dtype(t: Tensor, dtype: Any) -> D.dtype:
    return D.as_dtype(dtype) if dtype is not None else t.dtype


def zeros_like(t: Tensor, *, dtype: Any = None, device: Any = None,
               requires_grad: bool = False, **_: Any) -> Tensor:
    """Zeros with t's shape (and dtype unless given)."""
    return zeros(t.shape, dtype=_like_dtype(t, dtype), device=device,
                 requires_grad=requires_grad)


def ones_like(t: Tensor, *, dtype: Any = None, device: Any = None,
              requires_grad: bool = False, **_: Any) -> Tensor:
    """Ones with t's shape (and dtype unless given)."""
    return ones(t.shape, dtype=_like_dtype(t, dtype), device=device,
                requires_grad=requires_grad)


def empty_like(t: Tensor, *, dtype: Any = None, device: Any = None,
               requires_grad: bool = False, **_: Any) -> Tensor:
    """Like zeros_like (tsjit's empty tensors are zero-filled)."""
    return zeros_like(t, dtype=dtype, device=device, requires_grad=requires_grad)


def full_like(t: Tensor, fill_value: Any, *, dtype: Any = None, device: Any = None,
              requires_grad: bool = False, **_: Any) -> Tensor:
    """A tensor of t's shape (and dtype unless given) filled with fill_value."""
    return full(tuple(t.shape), fill_value, dtype=_like_dtype(t, dtype), device=device,
                requires_grad=requires_grad)


def _num(x: Any) -> Any:
    return x.item() if isinstance(x, Tensor) else x


def arange(start: Any, end: Any = None, step: Any = 1, *, dtype: Any = None,
           device: Any = None, requires_grad: bool = False, **_: Any) -> Tensor:
    """Values from start (inclusive) to end (exclusive) by step."""
    as_device(device)
    if end is None:
        start, end = 0, start
    start, end, step = _num(start), _num(end), _num(step)
    ints = start.__class__ is int and end.__class__ is int and step.__class__ is int
    if dtype is None:
        dt = D.int64 if ints or not any(isinstance(v, float) for v in (start, end, step)) \
            else D.get_default_dtype()
        if not ints and any(isinstance(v, complex) for v in (start, end, step)):
            raise RuntimeError("arange does not support complex values")
    else:
        dt = D.as_dtype(dtype)
    for v in (start, end):
        if not ints and isinstance(v, float) and not math.isfinite(v):
            raise RuntimeError(f"unsupported range: {start} -> {end}")
    if step != 0 and not ((step > 0 and end >= start) or (step < 0 and end <= start)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dt.kind in "iu" and not ints:
        # integer dtypes truncate the bounds and the step first, like PyTorch
        start, end, step = (int(v) if isinstance(v, float) else v for v in (start, end, step))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if dt.kind == "i" and (ints or all(isinstance(v, int) for v in (start, end, step))):
        n = max(0, -((start - end) // step))
        a = np.arange(n, dtype=np.int64) if start == 0 and step == 1 else \
            start + np.arange(n, dtype=np.int64) * step
        a = a.astype(dt.np, copy=False)
    else:
        n = max(0, math.ceil((end - start) / step))
        with fp_ignored():
            a = (start + np.arange(n, dtype=np.float64) * step).astype(D.to_numpy_dtype(dt))
    return _finish(a, requires_grad)


def linspace(start: Any, end: Any, steps: int, *, dtype: Any = None, device: Any = None,
             requires_grad: bool = False, **_: Any) -> Tensor:
    """`steps` evenly spaced values from start to end inclusive."""
    as_device(device)
    start, end = _num(start), _num(end)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dt = _dt(dtype)
    if steps == 1:
        v = np.array([start], dtype=np.float64)
    else:
        # symmetric evaluation like PyTorch: the first half counts up from start, the
        # second half down from end, so both endpoints are exact
        if dt.kind in "iu":
            start, end = int(start), int(end)    # integer dtypes truncate the ends first
        i = np.arange(steps, dtype=np.float64)
        step = (end - start) / max(steps - 1, 1)
        half = steps // 2
        v = np.where(i < half, start + step * i, end - step * (steps - 1 - i))
    with fp_ignored():
        return _finish(v.astype(D.to_numpy_dtype(dt)), requires_grad)


def eye(n: int, m: Optional[int] = None, *, dtype: Any = None, device: Any = None,
        requires_grad: bool = False, **_: Any) -> Tensor:
    """An n x m identity matrix."""
    as_device(device)
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    return _finish(np.eye(n, n if m is None else m, dtype=D.to_numpy_dtype(_dt(dtype))),
                   requires_grad)


# ---------------------------------------------------------------------------------
# random numbers
# ---------------------------------------------------------------------------------

_seed = 67280421310721
_gen = np.random.Generator(np.random.PCG64(_seed))


def manual_seed(seed: int) -> Any:
    """Reseed tsjit's global generator (a numpy PCG64 `Generator`)."""
    global _gen, _seed
    _seed = int(seed)
    _gen = np.random.Generator(np.random.PCG64(_seed & ((1 << 128) - 1)))
    return _gen


def seed() -> int:
    """Reseed the generator non-deterministically; returns the new seed."""
    s = int(np.random.SeedSequence().entropy) & ((1 << 63) - 1)
    manual_seed(s)
    return s


def initial_seed() -> int:
    """The seed last given to manual_seed."""
    return _seed


class Generator:
    """`torch.Generator`: a random-number generator object (seed and state). tsjit's
    sampling functions draw from the global generator; a `generator=` argument is
    accepted and not used."""

    def __init__(self, device: Any = "cpu") -> None:
        self.device = as_device(device)
        self._seed = 67280421310721
        self._gen = np.random.Generator(np.random.PCG64(self._seed))

    def manual_seed(self, seed: int) -> "Generator":
        self._seed = int(seed)
        self._gen = np.random.Generator(np.random.PCG64(self._seed & ((1 << 128) - 1)))
        return self

    def seed(self) -> int:
        s = int(np.random.SeedSequence().entropy) & ((1 << 63) - 1)
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> Tensor:
        text = json.dumps(self._gen.bit_generator.state).encode()
        return Tensor._wrap(np.frombuffer(text, dtype=np.uint8).copy())

    def set_state(self, new_state: Tensor) -> "Generator":
        self._gen.bit_generator.state = json.loads(bytes(np.asarray(new_state._a)).decode())
        return self


def get_rng_state() -> Tensor:
    """The generator's state as a uint8 tensor (set_rng_state restores it)."""
    text = json.dumps(_gen.bit_generator.state).encode()
    return Tensor._wrap(np.frombuffer(text, dtype=np.uint8).copy())


def set_rng_state(new_state: Tensor) -> None:
    """Restore a state get_rng_state returned."""
    try:
        state = json.loads(bytes(np.asarray(new_state._a, dtype=np.uint8)).decode())
        _gen.bit_generator.state = state
    except (ValueError, TypeError, KeyError) as err:
        raise RuntimeError(f"set_rng_state: not a state get_rng_state returned ({err})") from None


def generator() -> np.random.Generator:
    """The global numpy Generator used by every random kernel."""
    return _gen


def _float_dt(dtype: Any) -> D.dtype:
    dt = _dt(dtype)
    if dt.kind not in "fc":
        raise RuntimeError(f'"check_uniform_bounds" not implemented for \'{dt.cname}\'')
    return dt


def rand(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
         generator: Any = None, **_: Any) -> Tensor:
    """Uniform samples in [0, 1)."""
    as_device(device)
    dt = _float_dt(dtype)
    return _finish(_gen.random(_size(size)).astype(D.to_numpy_dtype(dt)), requires_grad)


def randn(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
          generator: Any = None, **_: Any) -> Tensor:
    """Standard normal samples."""
    as_device(device)
    dt = _float_dt(dtype)
    return _finish(_gen.standard_normal(_size(size)).astype(D.to_numpy_dtype(dt)),
                   requires_grad)


def randint(low: int, high: Any = None, size: Any = None, *, dtype: Any = None,
            device: Any = None, requires_grad: bool = False, generator: Any = None,
            **_: Any) -> Tensor:
    """Uniform integers in [low, high); `randint(high, size)` starts at 0."""
    as_device(device)
    if size is None:
        low, high, size = 0, low, high
    if high <= low:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    dt = _dt(dtype, D.int64)
    return _finish(_gen.integers(low, high, _size((size,))).astype(D.to_numpy_dtype(dt)),
                   requires_grad)


def rand_like(t: Tensor, *, dtype: Any = None, **kw: Any) -> Tensor:
    """Uniform samples with t's shape."""
    return rand(t.shape, dtype=_like_dtype(t, dtype))


def randn_like(t: Tensor, *, dtype: Any = None, **kw: Any) -> Tensor:
    """Normal samples with t's shape."""
    return randn(t.shape, dtype=_like_dtype(t, dtype))


def randint_like(t: Tensor, low: int, high: Any = None, *, dtype: Any = None,
                 **kw: Any) -> Tensor:
    """Uniform integers with t's shape."""
    return randint(low, high, tuple(t.shape), dtype=_like_dtype(t, dtype))


def randperm(n: int, *, dtype: Any = None, device: Any = None, **_: Any) -> Tensor:
    """A random permutation of 0..n-1."""
    as_device(device)
    return Tensor._wrap(_gen.permutation(n).astype(D.to_numpy_dtype(_dt(dtype, D.int64))))


def normal(mean: Any = 0.0, std: Any = 1.0, size: Any = None, *, dtype: Any = None,
           **_: Any) -> Tensor:
    """Normal samples with the given mean and std (tensors broadcast)."""
    m = mean._a if isinstance(mean, Tensor) else mean
    s = std._a if isinstance(std, Tensor) else std
    shape = _size((size,)) if size is not None else np.broadcast_shapes(np.shape(m), np.shape(s))
    r = _gen.normal(m, s, shape)
    dt = (mean.dtype if isinstance(mean, Tensor) else std.dtype if isinstance(std, Tensor)
          else _dt(dtype))
    return Tensor._wrap(np.asarray(r).astype(D.to_numpy_dtype(dt)))
