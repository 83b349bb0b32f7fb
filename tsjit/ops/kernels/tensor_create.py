"""Tensor factories: zeros / ones / full / empty / arange / linspace / eye, the *_like and
new_* forms, aten::tensor from Python data, and random tensors (numpy PCG64 generator)."""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from ..._tensor import creation as C
from ..._tensor import dtypes as D
from ..._tensor.device import as_device
from ..registry import op
from ..._tensor.kernel_util import checked_scalar, fp_ignored, wrap
from ..._tensor.tensor import Tensor

_OPTS = ("ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
         "bool? pin_memory=None")
_LIKE = _OPTS + ", MemoryFormat? memory_format=None"


@op(f"aten::zeros(SymInt[] size, *, {_OPTS}) -> Tensor")
def zeros(size: Sequence[int], dtype: Any = None, layout: Any = None, device: Any = None,
          pin_memory: Any = None) -> Tensor:
    """A tensor of zeros (dtype None: float32)."""
    return C.zeros(list(size), dtype=dtype, device=device)


@op(f"aten::ones(SymInt[] size, *, {_OPTS}) -> Tensor")
def ones(size: Sequence[int], dtype: Any = None, layout: Any = None, device: Any = None,
         pin_memory: Any = None) -> Tensor:
    """A tensor of ones (dtype None: float32)."""
    return C.ones(list(size), dtype=dtype, device=device)


@op(f"aten::empty.memory_format(SymInt[] size, *, {_LIKE}) -> Tensor")
def empty(size: Sequence[int], dtype: Any = None, layout: Any = None, device: Any = None,
          pin_memory: Any = None, memory_format: Any = None) -> Tensor:
    """An 'uninitialised' tensor (zero-filled in tsjit)."""
    return C.zeros(list(size), dtype=dtype, device=device)


@op("aten::empty_strided(SymInt[] size, SymInt[] stride, *, " + _OPTS + ") -> Tensor")
def empty_strided(size: Sequence[int], stride: Sequence[int], dtype: Any = None,
                  layout: Any = None, device: Any = None, pin_memory: Any = None) -> Tensor:
    """An 'uninitialised' tensor (zero-filled, contiguous)."""
    return C.zeros(list(size), dtype=dtype, device=device)


@op(f"aten::full(SymInt[] size, Scalar fill_value, *, {_OPTS}) -> Tensor")
def full(size: Sequence[int], fill_value: Any, dtype: Any = None, layout: Any = None,
         device: Any = None, pin_memory: Any = None) -> Tensor:
    """A tensor filled with fill_value (dtype inferred from it when None)."""
    as_device(device)
    dt = D.as_dtype(dtype) if dtype is not None else D.scalar_dtype(fill_value)
    a = np.empty(tuple(size), D.to_numpy_dtype(dt))
    a[...] = checked_scalar(fill_value, dt)
    return wrap(a)


@op(f"aten::scalar_tensor(Scalar s, *, {_OPTS}) -> Tensor")
def scalar_tensor(s: Any, dtype: Any = None, layout: Any = None, device: Any = None,
                  pin_memory: Any = None) -> Tensor:
    """A zero-dim tensor holding s (dtype None: float32)."""
    as_device(device)
    dt = D.as_dtype(dtype) if dtype is not None else D.get_default_dtype()
    return wrap(checked_scalar(s, dt).copy())


def _like(self: Tensor, dtype: Any) -> D.dtype:
    return D.as_dtype(dtype) if dtype is not None else self.dtype


@op(f"aten::zeros_like(Tensor self, *, {_LIKE}) -> Tensor")
def zeros_like(self: Tensor, dtype: Any = None, layout: Any = None, device: Any = None,
               pin_memory: Any = None, memory_format: Any = None) -> Tensor:
    """Zeros shaped like self."""
    return C.zeros(self.shape, dtype=_like(self, dtype), device=device)


@op(f"aten::ones_like(Tensor self, *, {_LIKE}) -> Tensor")
def ones_like(self: Tensor, dtype: Any = None, layout: Any = None, device: Any = None,
              pin_memory: Any = None, memory_format: Any = None) -> Tensor:
    """Ones shaped like self."""
    return C.ones(self.shape, dtype=_like(self, dtype), device=device)


@op(f"aten::empty_like(Tensor self, *, {_LIKE}) -> Tensor")
def empty_like(self: Tensor, dtype: Any = None, layout: Any = None, device: Any = None,
               pin_memory: Any = None, memory_format: Any = None) -> Tensor:
    """An 'uninitialised' tensor shaped like self (zero-filled)."""
    return C.zeros(self.shape, dtype=_like(self, dtype), device=device)


@op(f"aten::full_like(Tensor self, Scalar fill_value, *, {_LIKE}) -> Tensor")
def full_like(self: Tensor, fill_value: Any, dtype: Any = None, layout: Any = None,
              device: Any = None, pin_memory: Any = None, memory_format: Any = None) -> Tensor:
    """fill_value everywhere, shaped like self (self's dtype unless given)."""
    return full(list(self.shape), fill_value, _like(self, dtype), None, device)


@op(f"aten::new_zeros(Tensor self, SymInt[] size, *, {_OPTS}) -> Tensor")
def new_zeros(self: Tensor, size: Sequence[int], dtype: Any = None, layout: Any = None,
              device: Any = None, pin_memory: Any = None) -> Tensor:
    """Zeros of the given size with self's dtype (unless given)."""
    return C.zeros(list(size), dtype=_like(self, dtype), device=device)


@op(f"aten::new_ones(Tensor self, SymInt[] size, *, {_OPTS}) -> Tensor")
def new_ones(self: Tensor, size: Sequence[int], dtype: Any = None, layout: Any = None,
             device: Any = None, pin_memory: Any = None) -> Tensor:
    """Ones of the given size with self's dtype (unless given)."""
    return C.ones(list(size), dtype=_like(self, dtype), device=device)


@op(f"aten::new_empty(Tensor self, SymInt[] size, *, {_OPTS}) -> Tensor")
def new_empty(self: Tensor, size: Sequence[int], dtype: Any = None, layout: Any = None,
              device: Any = None, pin_memory: Any = None) -> Tensor:
    """An 'uninitialised' (zero) tensor with self's dtype (unless given)."""
    return C.zeros(list(size), dtype=_like(self, dtype), device=device)


@op(f"aten::new_full(Tensor self, SymInt[] size, Scalar fill_value, *, {_OPTS}) -> Tensor")
def new_full(self: Tensor, size: Sequence[int], fill_value: Any, dtype: Any = None,
             layout: Any = None, device: Any = None, pin_memory: Any = None) -> Tensor:
    """fill_value everywhere with self's dtype (unless given)."""
    return full(size, fill_value, _like(self, dtype), None, device)


@op(f"aten::arange(Scalar end, *, {_OPTS}) -> Tensor")
def arange(end: Any, dtype: Any = None, layout: Any = None, device: Any = None,
           pin_memory: Any = None) -> Tensor:
    """0, 1, ..., end - 1 (int64 unless end is a float)."""
    return C.arange(0, end, 1, dtype=dtype, device=device)


@op(f"aten::arange.start(Scalar start, Scalar end, *, {_OPTS}) -> Tensor")
def arange_start(start: Any, end: Any, dtype: Any = None, layout: Any = None,
                 device: Any = None, pin_memory: Any = None) -> Tensor:
    """start, start + 1, ... below end."""
    return C.arange(start, end, 1, dtype=dtype, device=device)


@op(f"aten::arange.start_step(Scalar start, Scalar end, Scalar step=1, *, {_OPTS}) -> Tensor")
def arange_start_step(start: Any, end: Any, step: Any = 1, dtype: Any = None,
                      layout: Any = None, device: Any = None, pin_memory: Any = None) -> Tensor:
    """start, start + step, ... up to (excluding) end."""
    return C.arange(start, end, step, dtype=dtype, device=device)


@op(f"aten::linspace(Scalar start, Scalar end, int steps, *, {_OPTS}) -> Tensor",
    f"aten::linspace.Tensor_Tensor(Tensor start, Tensor end, int steps, *, {_OPTS}) -> Tensor",
    f"aten::linspace.Tensor_Scalar(Tensor start, Scalar end, int steps, *, {_OPTS}) -> Tensor",
    f"aten::linspace.Scalar_Tensor(Scalar start, Tensor end, int steps, *, {_OPTS}) -> Tensor")
def linspace(start: Any, end: Any, steps: int, dtype: Any = None, layout: Any = None,
             device: Any = None, pin_memory: Any = None) -> Tensor:
    """steps evenly spaced values from start to end inclusive."""
    return C.linspace(start, end, steps, dtype=dtype, device=device)


@op(f"aten::logspace(Scalar start, Scalar end, int steps, float base=10., *, {_OPTS}) -> Tensor")
def logspace(start: Any, end: Any, steps: int, base: float = 10.0, dtype: Any = None,
             layout: Any = None, device: Any = None, pin_memory: Any = None) -> Tensor:
    """base ** linspace(start, end, steps)."""
    dt = D.as_dtype(dtype) if dtype is not None else D.get_default_dtype()
    if dt.kind in "iu" and steps > 1:
        start, end = int(start), int(end)     # integer dtypes truncate the exponents' ends
    e = C.linspace(start, end, steps, dtype=D.float64)._a
    with fp_ignored():
        return wrap((base ** e).astype(D.to_numpy_dtype(dt)))


@op(f"aten::eye(SymInt n, *, {_OPTS}) -> Tensor")
def eye(n: int, dtype: Any = None, layout: Any = None, device: Any = None,
        pin_memory: Any = None) -> Tensor:
    """The n x n identity matrix."""
    return C.eye(n, dtype=dtype, device=device)


@op(f"aten::eye.m(SymInt n, SymInt m, *, {_OPTS}) -> Tensor")
def eye_m(n: int, m: int, dtype: Any = None, layout: Any = None, device: Any = None,
          pin_memory: Any = None) -> Tensor:
    """The n x m identity matrix."""
    return C.eye(n, m, dtype=dtype, device=device)


# --- aten::tensor / as_tensor (from TorchScript values) -------------------------------------
_TOPTS = "ScalarType? dtype=None, Device? device=None"


@op(f"aten::tensor(t[] data, *, {_TOPTS}, bool requires_grad=False) -> Tensor",
    f"aten::tensor.int(int t, *, {_TOPTS}, bool requires_grad=False) -> Tensor",
    f"aten::tensor.float(float t, *, {_TOPTS}, bool requires_grad=False) -> Tensor",
    f"aten::tensor.bool(bool t, *, {_TOPTS}, bool requires_grad=False) -> Tensor",
    f"aten::tensor.complex(complex t, *, {_TOPTS}, bool requires_grad=False) -> Tensor")
def tensor(data: Any, dtype: Any = None, device: Any = None,
           requires_grad: bool = False) -> Tensor:
    """A new tensor from a number or (nested) list, as TorchScript builds it.

    TorchScript first makes the tensor with the inferred dtype (float lists become the
    default float32) and only then converts to `dtype`, so float64 lists keep float32
    rounding and integer lists wrap instead of failing.
    """
    t = C.tensor(data, device=device)
    if dtype is not None and D.as_dtype(dtype) != t.dtype:
        from .tensor_convert import to_dtype
        t = to_dtype(t, dtype)
    if requires_grad:
        t.requires_grad_(True)
    return t


@op(f"aten::as_tensor(Tensor(a) data, *, {_TOPTS}) -> Tensor(b|a)",
    f"aten::as_tensor.list(t[] data, *, {_TOPTS}) -> Tensor",
    f"aten::as_tensor.int(int t, *, {_TOPTS}) -> Tensor",
    f"aten::as_tensor.float(float t, *, {_TOPTS}) -> Tensor",
    f"aten::as_tensor.bool(bool t, *, {_TOPTS}) -> Tensor",
    f"aten::as_tensor.complex(complex t, *, {_TOPTS}) -> Tensor")
def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """data as a tensor (a Tensor of the right dtype is returned as is)."""
    # a number or list becomes a tensor as `aten::tensor` makes it (float32 first, then dtype)
    if isinstance(data, Tensor):
        return C.as_tensor(data, dtype=dtype, device=device)
    return tensor(data, dtype, device)


# --- random --------------------------------------------------------------------------------
@op(f"aten::rand(SymInt[] size, *, {_OPTS}) -> Tensor",
    f"aten::rand.generator(SymInt[] size, *, Generator? generator, {_OPTS}) -> Tensor")
def rand(size: Sequence[int], *args: Any) -> Tensor:
    """Uniform [0, 1) samples."""
    dtype = args[1] if len(args) == 5 else args[0] if args else None
    return C.rand(list(size), dtype=dtype)


@op(f"aten::randn(SymInt[] size, *, {_OPTS}) -> Tensor",
    f"aten::randn.generator(SymInt[] size, *, Generator? generator, {_OPTS}) -> Tensor")
def randn(size: Sequence[int], *args: Any) -> Tensor:
    """Standard normal samples."""
    dtype = args[1] if len(args) == 5 else args[0] if args else None
    return C.randn(list(size), dtype=dtype)


_RI = ("ScalarType? dtype=4, Layout? layout=None, Device? device=None, "
       "bool? pin_memory=None")


@op(f"aten::randint(SymInt high, SymInt[] size, *, {_RI}) -> Tensor")
def randint(high: int, size: Sequence[int], dtype: Any = 4, layout: Any = None,
            device: Any = None, pin_memory: Any = None) -> Tensor:
    """Uniform integers in [0, high)."""
    return C.randint(0, high, list(size), dtype=dtype)


@op(f"aten::randint.low(SymInt low, SymInt high, SymInt[] size, *, {_RI}) -> Tensor")
def randint_low(low: int, high: int, size: Sequence[int], dtype: Any = 4, layout: Any = None,
                device: Any = None, pin_memory: Any = None) -> Tensor:
    """Uniform integers in [low, high)."""
    return C.randint(low, high, list(size), dtype=dtype)


@op(f"aten::randperm(SymInt n, *, {_RI}) -> Tensor")
def randperm(n: int, dtype: Any = 4, layout: Any = None, device: Any = None,
             pin_memory: Any = None) -> Tensor:
    """A random permutation of 0 .. n-1."""
    return C.randperm(n, dtype=dtype)


@op(f"aten::rand_like(Tensor self, *, {_LIKE}) -> Tensor")
def rand_like(self: Tensor, dtype: Any = None, *args: Any) -> Tensor:
    """Uniform samples shaped like self."""
    return C.rand_like(self, dtype=dtype)


@op(f"aten::randn_like(Tensor self, *, {_LIKE}) -> Tensor")
def randn_like(self: Tensor, dtype: Any = None, *args: Any) -> Tensor:
    """Normal samples shaped like self."""
    return C.randn_like(self, dtype=dtype)


@op(f"aten::randint_like(Tensor self, SymInt high, *, {_LIKE}) -> Tensor")
def randint_like(self: Tensor, high: int, dtype: Any = None, *args: Any) -> Tensor:
    """Uniform integers in [0, high) shaped like self."""
    return C.randint_like(self, 0, high, dtype=dtype)


@op(f"aten::randint_like.low_dtype(Tensor self, SymInt low, SymInt high, *, {_LIKE}) -> Tensor")
def randint_like_low(self: Tensor, low: int, high: int, dtype: Any = None, *args: Any) -> Tensor:
    """Uniform integers in [low, high) shaped like self."""
    return C.randint_like(self, low, high, dtype=dtype)


@op("aten::normal.Tensor_float(Tensor mean, float std=1., *, Generator? generator=None) -> "
    "Tensor",
    "aten::normal.float_Tensor(float mean, Tensor std, *, Generator? generator=None) -> Tensor",
    "aten::normal.Tensor_Tensor(Tensor mean, Tensor std, *, Generator? generator=None) -> "
    "Tensor")
def normal(mean: Any, std: Any = 1.0, generator: Any = None) -> Tensor:
    """Normal samples with elementwise mean and std."""
    return C.normal(mean, std)


@op("aten::normal.float_float(float mean, float std, SymInt[] size, *, "
    f"Generator? generator=None, {_OPTS}) -> Tensor")
def normal_size(mean: float, std: float, size: Sequence[int], generator: Any = None,
                dtype: Any = None, *args: Any) -> Tensor:
    """Normal samples of a given size."""
    return C.normal(mean, std, list(size), dtype=dtype)


def _rng() -> np.random.Generator:
    return C.generator()


@op("aten::normal_(Tensor(a!) self, float mean=0., float std=1., *, "
    "Generator? generator=None) -> Tensor(a!)")
def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    """Fill self with normal samples."""
    self._writable()[...] = _rng().normal(mean, std, self._a.shape)
    return self


@op("aten::uniform_(Tensor(a!) self, float from=0., float to=1., *, "
    "Generator? generator=None) -> Tensor(a!)")
def uniform_(self: Tensor, from_: float = 0.0, to: float = 1.0, generator: Any = None) -> Tensor:
    """Fill self with uniform samples in [from, to)."""
    self._writable()[...] = _rng().uniform(from_, to, self._a.shape)
    return self


@op("aten::bernoulli(Tensor self, *, Generator? generator=None) -> Tensor")
def bernoulli(self: Tensor, generator: Any = None) -> Tensor:
    """0/1 samples with probabilities self."""
    return wrap((_rng().random(self._a.shape) < self._a).astype(self._a.dtype))


@op("aten::bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor")
def bernoulli_p(self: Tensor, p: float, generator: Any = None) -> Tensor:
    """0/1 samples with probability p, shaped like self."""
    return wrap((_rng().random(self._a.shape) < p).astype(self._a.dtype))


@op("aten::bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None) -> "
    "Tensor(a!)")
def bernoulli_(self: Tensor, p: float = 0.5, generator: Any = None) -> Tensor:
    """Fill self with 0/1 samples of probability p."""
    self._writable()[...] = _rng().random(self._a.shape) < p
    return self


@op("aten::random_.from(Tensor(a!) self, int from, int? to, *, Generator? generator=None) -> "
    "Tensor(a!)")
def random_from_(self: Tensor, from_: int, to: Optional[int], generator: Any = None) -> Tensor:
    """Fill self with integers in [from, to)."""
    self._writable()[...] = _rng().integers(from_, (1 << 53) if to is None else to,
                                            self._a.shape)
    return self


@op("aten::random_.to(Tensor(a!) self, int to, *, Generator? generator=None) -> Tensor(a!)")
def random_to_(self: Tensor, to: int, generator: Any = None) -> Tensor:
    """Fill self with integers in [0, to)."""
    self._writable()[...] = _rng().integers(0, to, self._a.shape)
    return self


@op("aten::multinomial(Tensor self, SymInt num_samples, bool replacement=False, *, "
    "Generator? generator=None) -> Tensor")
def multinomial(self: Tensor, num_samples: int, replacement: bool = False,
                generator: Any = None) -> Tensor:
    """Indices sampled from the rows of self taken as (unnormalised) probabilities."""
    p = self._a.astype(np.float64)
    rows = p.reshape(-1, p.shape[-1])
    out = np.stack([_rng().choice(r.size, num_samples, replace=replacement, p=r / r.sum())
                    for r in rows])
    return wrap(out.reshape(p.shape[:-1] + (num_samples,)).astype(np.int64))
