"""Python operators and named methods of `Tensor`, delegating to the tensor kernels.

Operators call kernels directly (fast path); named methods (`x.sum(1)`, `x.view(2, 3)`)
go through the schema-binding dispatcher of `functional`, resolved lazily on first
attribute access so that importing `tsjit._tensor` does not import the kernel modules.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import dtypes as D
from .tensor import K, Tensor

_NUMBER = (bool, int, float, complex)


def _other(x: Any) -> Any:
    """A binary operator's other operand as Tensor / Python number, or NotImplemented."""
    if isinstance(x, (Tensor,) + _NUMBER):
        return x
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return Tensor._wrap(x)
    return NotImplemented


def _binary(kernel: Callable[[], Callable], reflected: bool = False) -> Callable:
    def method(self: Tensor, other: Any) -> Any:
        o = _other(other)
        if o is NotImplemented:
            return NotImplemented
        return kernel()(o, self) if reflected else kernel()(self, o)
    return method


def _install() -> None:
    a = lambda: K.arith  # noqa: E731  (modules resolved at call time)
    c = lambda: K.compare  # noqa: E731
    ops: dict[str, Callable] = {
        "__add__": _binary(lambda: a().add),
        "__radd__": _binary(lambda: a().add),
        "__sub__": _binary(lambda: a().sub),
        "__rsub__": _binary(lambda: a().sub, True),
        "__mul__": _binary(lambda: a().mul),
        "__rmul__": _binary(lambda: a().mul),
        "__truediv__": _binary(lambda: a().div),
        "__rtruediv__": _binary(lambda: a().div, True),
        "__floordiv__": _binary(lambda: a().floor_divide),
        "__rfloordiv__": _binary(lambda: a().floor_divide, True),
        "__mod__": _binary(lambda: a().remainder),
        "__rmod__": _binary(lambda: a().remainder, True),
        "__pow__": _binary(lambda: a().pow),
        "__rpow__": _binary(lambda: a().pow, True),
        "__matmul__": _binary(lambda: K.linalg.matmul),
        "__rmatmul__": _binary(lambda: K.linalg.matmul, True),
        "__and__": _binary(lambda: c().bitwise_and),
        "__rand__": _binary(lambda: c().bitwise_and, True),
        "__or__": _binary(lambda: c().bitwise_or),
        "__ror__": _binary(lambda: c().bitwise_or, True),
        "__xor__": _binary(lambda: c().bitwise_xor),
        "__rxor__": _binary(lambda: c().bitwise_xor, True),
        "__lshift__": _binary(lambda: c().bitwise_left_shift),
        "__rlshift__": _binary(lambda: c().bitwise_left_shift, True),
        "__rshift__": _binary(lambda: c().bitwise_right_shift),
        "__rrshift__": _binary(lambda: c().bitwise_right_shift, True),
        "__eq__": _binary(lambda: c().eq),
        "__ne__": _binary(lambda: c().ne),
        "__lt__": _binary(lambda: c().lt),
        "__le__": _binary(lambda: c().le),
        "__gt__": _binary(lambda: c().gt),
        "__ge__": _binary(lambda: c().ge),
        "__iadd__": _binary(lambda: a().add_),
        "__isub__": _binary(lambda: a().sub_),
        "__imul__": _binary(lambda: a().mul_),
        "__itruediv__": _binary(lambda: a().div_),
        "__ifloordiv__": _binary(lambda: a().floor_divide_),
        "__imod__": _binary(lambda: a().remainder_),
        "__ipow__": _binary(lambda: a().pow_),
        "__iand__": _binary(lambda: c().bitwise_and_),
        "__ior__": _binary(lambda: c().bitwise_or_),
        "__ixor__": _binary(lambda: c().bitwise_xor_),
        "__ilshift__": _binary(lambda: c().ilshift),
        "__irshift__": _binary(lambda: c().irshift),
    }
    for name, fn in ops.items():
        fn.__name__ = name
        setattr(Tensor, name, fn)
    Tensor.__neg__ = lambda self: K.arith.neg(self)          # type: ignore[assignment]
    Tensor.__pos__ = lambda self: K.unary.positive(self)     # type: ignore[assignment]
    Tensor.__abs__ = lambda self: K.arith.abs(self)          # type: ignore[assignment]
    Tensor.__invert__ = lambda self: K.compare.bitwise_not(self)  # type: ignore[assignment]


_install()


# --- dtype conversion shorthands ---------------------------------------------------------
def _caster(dt: D.dtype) -> Callable:
    def method(self: Tensor, memory_format: Any = None) -> Tensor:
        return K.convert.to_dtype(self, dt, False, False, None)
    method.__doc__ = f"self converted to {dt} (self when it already is)."
    return method


for _name, _dt in (("float", D.float32), ("double", D.float64), ("half", D.float16),
                   ("long", D.int64), ("int", D.int32), ("short", D.int16),
                   ("char", D.int8), ("byte", D.uint8), ("bool", D.bool_),
                   ("cfloat", D.complex64), ("cdouble", D.complex128)):
    setattr(Tensor, _name, _caster(_dt))


def _type(self: Tensor, dtype: Any = None, non_blocking: bool = False) -> Any:
    """With no argument, the type name ("torch.FloatTensor"); else a conversion."""
    if dtype is None:
        return f"torch.{self.dtype.cname}Tensor"
    if isinstance(dtype, str):
        names = {f"torch.{d.cname}Tensor": d for d in D.dtype._by_code.values()}
        if dtype not in names:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = names[dtype]
    return K.convert.to_dtype(self, D.as_dtype(dtype), False, False, None)


Tensor.type = _type  # type: ignore[attr-defined]


def _getattr(self: Tensor, name: str) -> Any:
    # Named methods resolve to operator dispatchers on first use, then stick on the class.
    if name.startswith("_"):
        raise AttributeError(f"'Tensor' object has no attribute '{name}'")
    from . import functional as F
    if F.first_arg_is_self(name):
        d = F.dispatcher(name)
        setattr(Tensor, name, d)
        return d.__get__(self, Tensor)
    raise AttributeError(f"'Tensor' object has no attribute '{name}'")


Tensor.__getattr__ = _getattr  # type: ignore[attr-defined]
