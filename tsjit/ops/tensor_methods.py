"""Python operators and named methods of `Tensor`, installed on the class from above.

`tsjit._tensor` defines `Tensor` and knows no kernel; this module (imported by `tsjit.ops`)
gives it its operators and methods. Operators call the kernel of one overload named by
schema (`x + y` is aten::add.Tensor), found on first use; named methods (`x.sum(1)`,
`x.view(2, 3)`) go through the schema-binding dispatcher of `eager`, resolved on first
attribute access. Neither imports a kernel module before it is used.
"""
from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from .._tensor import dtypes as D
from .._tensor.tensor import Tensor
from . import eager
from .registry import find

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


@functools.cache
def _kernel(qualified: str, nargs: int) -> tuple[Callable, tuple]:
    """The kernel of operator `qualified` and the schema defaults of its arguments after
    the first `nargs` (a call passes them: one argument per schema argument)."""
    o = find(qualified)
    rest = o.schema.arguments[nargs:]
    if any(not a.has_default for a in rest):
        raise TypeError(f"{qualified} needs more than {nargs} arguments")
    return o.kernel, tuple(a.default for a in rest)


def _binary(qualified: str, reflected: bool = False) -> Callable:
    k: Any = None          # the kernel, found by schema name on the first call
    rest: tuple = ()

    def method(self: Tensor, other: Any) -> Any:
        nonlocal k, rest
        o = _other(other)
        if o is NotImplemented:
            return NotImplemented
        if k is None:
            k, rest = _kernel(qualified, 2)
        return k(o, self, *rest) if reflected else k(self, o, *rest)
    return method


def _unary(qualified: str) -> Callable:
    def method(self: Tensor) -> Any:
        k, rest = _kernel(qualified, 1)
        return k(self, *rest)
    return method


# Python operator -> (operator, reflected). The kernels take Tensors and Python numbers
# for the other operand alike, so one overload names each (PyTorch binds `x + 2` to
# aten::add.Tensor too, with 2 wrapped as a tensor).
BINARY: dict[str, tuple[str, bool]] = {
    "__add__": ("aten::add.Tensor", False), "__radd__": ("aten::add.Tensor", False),
    "__sub__": ("aten::sub.Tensor", False), "__rsub__": ("aten::sub.Tensor", True),
    "__mul__": ("aten::mul.Tensor", False), "__rmul__": ("aten::mul.Tensor", False),
    "__truediv__": ("aten::div.Tensor", False), "__rtruediv__": ("aten::div.Tensor", True),
    "__floordiv__": ("aten::floor_divide", False),
    "__rfloordiv__": ("aten::floor_divide", True),
    "__mod__": ("aten::remainder.Tensor", False), "__rmod__": ("aten::remainder.Tensor", True),
    "__pow__": ("aten::pow.Tensor_Tensor", False), "__rpow__": ("aten::pow.Tensor_Tensor", True),
    "__matmul__": ("aten::matmul", False), "__rmatmul__": ("aten::matmul", True),
    "__and__": ("aten::bitwise_and.Tensor", False), "__rand__": ("aten::bitwise_and.Tensor", True),
    "__or__": ("aten::bitwise_or.Tensor", False), "__ror__": ("aten::bitwise_or.Tensor", True),
    "__xor__": ("aten::bitwise_xor.Tensor", False), "__rxor__": ("aten::bitwise_xor.Tensor", True),
    "__lshift__": ("aten::__lshift__.Tensor", False),
    "__rlshift__": ("aten::__lshift__.Tensor", True),
    "__rshift__": ("aten::__rshift__.Tensor", False),
    "__rrshift__": ("aten::__rshift__.Tensor", True),
    "__eq__": ("aten::eq.Tensor", False), "__ne__": ("aten::ne.Tensor", False),
    "__lt__": ("aten::lt.Tensor", False), "__le__": ("aten::le.Tensor", False),
    "__gt__": ("aten::gt.Tensor", False), "__ge__": ("aten::ge.Tensor", False),
    "__iadd__": ("aten::add_.Tensor", False), "__isub__": ("aten::sub_.Tensor", False),
    "__imul__": ("aten::mul_.Tensor", False), "__itruediv__": ("aten::div_.Tensor", False),
    "__ifloordiv__": ("aten::floor_divide_.Tensor", False),
    "__imod__": ("aten::remainder_.Tensor", False), "__ipow__": ("aten::pow_.Tensor", False),
    "__iand__": ("aten::bitwise_and_.Tensor", False),
    "__ior__": ("aten::bitwise_or_.Tensor", False),
    "__ixor__": ("aten::bitwise_xor_.Tensor", False),
    "__ilshift__": ("aten::__ilshift__.Tensor", False),
    "__irshift__": ("aten::__irshift__.Tensor", False),
}
UNARY: dict[str, str] = {"__neg__": "aten::neg", "__pos__": "aten::positive",
                         "__abs__": "aten::abs", "__invert__": "aten::bitwise_not"}


def _install() -> None:
    for name, (qualified, reflected) in BINARY.items():
        fn = _binary(qualified, reflected)
        fn.__name__ = name
        setattr(Tensor, name, fn)
    for name, qualified in UNARY.items():
        fn = _unary(qualified)
        fn.__name__ = name
        setattr(Tensor, name, fn)


_install()


# --- dtype conversion shorthands ---------------------------------------------------------
def _to_dtype(self: Tensor, dt: D.dtype) -> Tensor:
    k, rest = _kernel("aten::to.dtype", 2)
    return k(self, dt, *rest)


def _caster(dt: D.dtype) -> Callable:
    def method(self: Tensor, memory_format: Any = None) -> Tensor:
        return _to_dtype(self, dt)
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
    return _to_dtype(self, D.as_dtype(dtype))


Tensor.type = _type  # type: ignore[attr-defined]


def _getattr(self: Tensor, name: str) -> Any:
    # Named methods resolve to operator dispatchers on first use, then stick on the class.
    if name.startswith("_"):
        raise AttributeError(f"'Tensor' object has no attribute '{name}'")
    if eager.first_arg_is_self(name):
        d = eager.dispatcher(name)
        setattr(Tensor, name, d)
        return d.__get__(self, Tensor)
    raise AttributeError(f"'Tensor' object has no attribute '{name}'")


Tensor.__getattr__ = _getattr  # type: ignore[attr-defined]
