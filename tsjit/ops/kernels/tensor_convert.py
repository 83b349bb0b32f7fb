"""Tensor <-> scalar conversions, dtype / device conversion (`to`) and metadata queries
(`size`, `dim`, `prim::dtype` ...), plus the grad-mode flag ops."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..._tensor import dtypes as D
from ..._tensor import grad_mode
from ..._tensor.creation import manual_seed as _manual_seed
from ..._tensor.device import CPU, Device, as_device
from ..registry import op
from ..._tensor.kernel_util import fp_ignored, wrap
from ..._tensor.tensor import Tensor, wrap_dim


# --- dtype / device conversion ------------------------------------------------------------
def to_dtype(self: Tensor, dtype: Any, non_blocking: bool = False, copy: bool = False,
             memory_format: Any = None) -> Tensor:
    """self as `dtype`: self itself when nothing changes and no copy is asked for."""
    dt = D.as_dtype(dtype) if dtype is not None else self.dtype
    if dt == self.dtype and not copy:
        return self
    with fp_ignored():
        if dt.kind == "b" and self._a.dtype.kind == "c":
            return wrap(self._a != 0)
        if dt.kind != "c" and self._a.dtype.kind == "c":
            return wrap(D.convert(self._a.real, dt))
        return wrap(D.convert(self._a, dt))


op("aten::to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, "
   "MemoryFormat? memory_format=None) -> Tensor(a)")(to_dtype)


@op("aten::to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, "
    "bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)")
def to_device(self: Tensor, device: Any, dtype: Any, non_blocking: bool = False,
              copy: bool = False, memory_format: Any = None) -> Tensor:
    """self on `device` (the CPU) as `dtype`."""
    as_device(device)
    return to_dtype(self, dtype, non_blocking, copy)


@op("aten::to.other(Tensor(a) self, Tensor other, bool non_blocking=False, bool copy=False, "
    "MemoryFormat? memory_format=None) -> Tensor(a)")
def to_other(self: Tensor, other: Tensor, non_blocking: bool = False, copy: bool = False,
             memory_format: Any = None) -> Tensor:
    """self with other's dtype and device."""
    return to_dtype(self, other.dtype, non_blocking, copy)


@op("aten::to.dtype_layout(Tensor(a) self, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None, bool non_blocking=False, bool copy=False, "
    "MemoryFormat? memory_format=None) -> Tensor(a)")
def to_dtype_layout(self: Tensor, dtype: Any = None, layout: Any = None, device: Any = None,
                    pin_memory: Any = None, non_blocking: bool = False, copy: bool = False,
                    memory_format: Any = None) -> Tensor:
    """self converted to the given dtype / device (keyword form)."""
    as_device(device)
    return to_dtype(self, dtype, non_blocking, copy)


@op("aten::to.prim_Device(Tensor(a) self, Device? device, int? dtype=None, "
    "bool non_blocking=False, bool copy=False) -> Tensor(b|a)")
def to_prim_device(self: Tensor, device: Any, dtype: Optional[int] = None,
                   non_blocking: bool = False, copy: bool = False) -> Tensor:
    """self on `device`, optionally as `dtype`."""
    as_device(device)
    return to_dtype(self, dtype, non_blocking, copy)


@op("aten::to.prim_dtype(Tensor(a) self, int? dtype=None, bool non_blocking=False, "
    "bool copy=False) -> Tensor(b|a)")
def to_prim_dtype(self: Tensor, dtype: Optional[int] = None, non_blocking: bool = False,
                  copy: bool = False) -> Tensor:
    """self as `dtype` (None: unchanged)."""
    return to_dtype(self, dtype, non_blocking, copy)


@op("aten::to.prim_other(Tensor(a) self, bool non_blocking=False, bool copy=False) -> "
    "Tensor(b|a)")
def to_prim_other(self: Tensor, non_blocking: bool = False, copy: bool = False) -> Tensor:
    """self, or a copy."""
    return to_dtype(self, None, non_blocking, copy)


@op("aten::type_as(Tensor self, Tensor other) -> Tensor")
def type_as(self: Tensor, other: Tensor) -> Tensor:
    """self converted to other's dtype."""
    return to_dtype(self, other.dtype)


def _cast(dt: D.dtype) -> Any:
    def kernel(self: Tensor, non_blocking: bool = False) -> Tensor:
        return to_dtype(self, dt)
    kernel.__name__ = f"_cast_{dt.cname}"
    kernel.__doc__ = f"self as {dt}."
    return kernel


for _dt in (D.float16, D.int16, D.int64, D.int32, D.float32, D.float64, D.int8, D.uint8):
    op(f"aten::_cast_{_dt.cname}(Tensor self, bool non_blocking=False) -> Tensor")(_cast(_dt))
del _dt


# --- tensor -> Python scalar ------------------------------------------------------------
@op("aten::item(Tensor self) -> Scalar")
def item(self: Tensor) -> Any:
    """The single element as a Python number."""
    return self.item()


@op("aten::ScalarImplicit(Tensor a) -> Scalar")
def ScalarImplicit(a: Tensor) -> Any:
    """The value of a zero-dim tensor as a Python number."""
    if a._a.ndim != 0:
        raise RuntimeError("Cannot input a tensor of dimension other than 0 as a scalar "
                           "argument")
    return a.item()


@op("aten::IntImplicit(Tensor a) -> int")
def IntImplicit(a: Tensor) -> int:
    """A zero-dim integral tensor where an int is expected (implicit conversion)."""
    if a._a.ndim != 0:
        raise RuntimeError("Cannot input a tensor of dimension other than 0 as a scalar "
                           "argument")
    if a.dtype.is_floating_point or a.dtype.is_complex or int(a.dtype) == 11:
        raise RuntimeError(f"Cannot input a tensor of type {_SCALAR_TYPE_NAMES[int(a.dtype)]}"
                           " as an integral argument")
    return int(a.item())


# PyTorch's ScalarType names (as its messages spell them), by dtype code.
_SCALAR_TYPE_NAMES = {0: "Byte", 1: "Char", 2: "Short", 3: "Int", 4: "Long", 5: "Half",
                      6: "Float", 7: "Double", 8: "ComplexHalf", 9: "ComplexFloat",
                      10: "ComplexDouble", 11: "Bool", 15: "BFloat16"}


@op("aten::FloatImplicit(Tensor a) -> float")
def FloatImplicit(a: Tensor) -> float:
    """A zero-dim tensor where a float is expected (implicit conversion)."""
    if a._a.ndim != 0:
        raise RuntimeError("Cannot input a tensor of dimension other than 0 as a scalar "
                           "argument")
    return float(a.item())


@op("aten::Int.Tensor(Tensor a) -> int")
def Int(a: Tensor) -> int:
    """int(a) of a one-element tensor (floats truncate)."""
    v = a.item()
    if isinstance(v, complex):
        v = v.real
    return int(v)


@op("aten::Float.Tensor(Tensor a) -> float")
def Float(a: Tensor) -> float:
    """float(a) of a one-element tensor."""
    v = a.item()
    return float(v.real if isinstance(v, complex) else v)


@op("aten::Bool.Tensor(Tensor a) -> bool")
def Bool(a: Tensor) -> bool:
    """bool(a) of a one-element tensor."""
    return bool(a.item())


@op("aten::ComplexImplicit(Tensor a) -> complex")
def ComplexImplicit(a: Tensor) -> complex:
    """complex(a) of a one-element tensor."""
    return complex(a.item())


def _num(x: Any) -> Any:
    return x.item() if isinstance(x, Tensor) else x


@op("aten::Complex.Tensor_Tensor(Tensor a, Tensor b) -> complex",
    "aten::Complex.Tensor_float(Tensor x, float y) -> complex",
    "aten::Complex.float_Tensor(float x, Tensor y) -> complex",
    "aten::Complex.Tensor_int(Tensor x, int y) -> complex",
    "aten::Complex.int_Tensor(int x, Tensor y) -> complex",
    "aten::Complex.Tensor_bool(Tensor x, bool y) -> complex",
    "aten::Complex.bool_Tensor(bool x, Tensor y) -> complex")
def Complex(x: Any, y: Any) -> complex:
    """complex(x, y) from one-element tensors and numbers."""
    return complex(float(_num(x)), float(_num(y)))


@op("prim::NumToTensor.Scalar(Scalar a) -> Tensor", "prim::NumToTensor.bool(bool a) -> Tensor")
def NumToTensor(a: Any) -> Tensor:
    """A zero-dim tensor holding a number: bool, int64, float64 or complex128."""
    if isinstance(a, bool):
        return wrap(np.asarray(a, dtype=np.bool_))
    if isinstance(a, int):
        return wrap(np.asarray(a, dtype=np.int64))
    if isinstance(a, float):
        return wrap(np.asarray(a, dtype=np.float64))
    return wrap(np.asarray(a, dtype=np.complex128))


# --- metadata ------------------------------------------------------------------------------
@op("prim::dtype(Tensor a) -> int")
def dtype(a: Tensor) -> D.dtype:
    """The dtype (an int ScalarType code that prints as torch.float32)."""
    return a.dtype


@op("prim::device(Tensor a) -> Device")
def device(a: Tensor) -> Device:
    """The device: always the CPU."""
    return CPU


@op("prim::type(Device self) -> str")
def device_type(self: Device) -> str:
    """The device type name ("cpu")."""
    return self.type


@op("prim::requires_grad(Tensor a) -> bool")
def requires_grad(a: Tensor) -> bool:
    """The requires_grad flag."""
    return bool(a.requires_grad)


def _const(value: Any, name: str) -> Any:
    def kernel(a: Tensor) -> Any:
        return value
    kernel.__name__ = name
    kernel.__doc__ = f"{name}: always {value!r} in tsjit."
    return kernel


for _n in ("is_nested", "is_cuda", "is_sparse", "is_sparse_csr", "is_mkldnn", "is_quantized",
           "is_meta", "is_xpu", "is_mps", "is_xla", "is_vulkan", "is_ipu", "is_maia",
           "is_mtia"):
    op(f"prim::{_n}(Tensor a) -> bool")(_const(False, _n))
op("prim::is_cpu(Tensor a) -> bool")(_const(True, "is_cpu"))
op("aten::is_leaf(Tensor self) -> bool")(_const(True, "is_leaf"))   # no autograd graph
op("prim::layout(Tensor a) -> Layout")(_const(0, "layout"))
op("prim::name(Tensor a) -> str?")(_const(None, "name"))
del _n


@op("prim::grad(Tensor a) -> Tensor")
def grad(a: Tensor) -> Any:
    """The tensor's `.grad`: None, as tsjit computes no gradients (PyTorch's undefined
    tensor, which Python sees as None)."""
    return a.grad


@op("prim::itemsize(Tensor a) -> int", "aten::element_size(Tensor self) -> int")
def itemsize(a: Tensor) -> int:
    """Bytes per element."""
    return int(a._a.itemsize)


@op("prim::nbytes(Tensor a) -> int")
def nbytes(a: Tensor) -> int:
    """Bytes of all elements."""
    return int(a._a.nbytes)


@op("prim::data(Tensor(a) a) -> Tensor(a)", "aten::data(Tensor self) -> Tensor",
    "aten::detach(Tensor(a) self) -> Tensor(a)")
def detach(a: Tensor) -> Tensor:
    """An alias of the tensor without requires_grad."""
    return a.detach()


@op("aten::detach_(Tensor(a!) self) -> Tensor(a!)")
def detach_(self: Tensor) -> Tensor:
    """Clear requires_grad in place."""
    return self.detach_()


@op("aten::requires_grad_(Tensor(a!) self, bool requires_grad=True) -> Tensor(a!)")
def requires_grad_(self: Tensor, requires_grad: bool = True) -> Tensor:
    """Set the requires_grad flag."""
    return self.requires_grad_(requires_grad)


@op("aten::size.int(Tensor self, int dim) -> int",
    "aten::sym_size.int(Tensor self, int dim) -> SymInt")
def size_int(self: Tensor, dim: int) -> int:
    """The size of dimension `dim`."""
    shape = self._a.shape
    if 0 <= dim < len(shape):
        return shape[dim]       # (numpy's shape holds Python ints)
    return int(shape[wrap_dim(dim, len(shape))])


@op("aten::size(Tensor self) -> int[]", "aten::sym_size(Tensor self) -> SymInt[]")
def size(self: Tensor) -> list[int]:
    """The shape as a list of ints."""
    return [int(s) for s in self._a.shape]


@op("aten::stride.int(Tensor self, int dim) -> int")
def stride_int(self: Tensor, dim: int) -> int:
    """The stride (in elements) of dimension `dim`."""
    return int(self.stride(dim))


@op("aten::stride(Tensor self) -> int[]")
def stride(self: Tensor) -> list[int]:
    """The strides in elements."""
    return list(self.stride())


@op("aten::dim(Tensor self) -> int")
def dim(self: Tensor) -> int:
    """The number of dimensions."""
    return self._a.ndim


@op("aten::numel(Tensor self) -> int", "aten::sym_numel(Tensor self) -> SymInt")
def numel(self: Tensor) -> int:
    """The number of elements."""
    return int(self._a.size)


@op("aten::len.Tensor(Tensor t) -> int")
def len_(t: Tensor) -> int:
    """The size of the first dimension."""
    if t._a.ndim == 0:
        raise RuntimeError("len() of a 0-d tensor")
    return int(t._a.shape[0])


@op("aten::is_floating_point(Tensor self) -> bool")
def is_floating_point(self: Tensor) -> bool:
    """Whether the dtype is floating point."""
    return self.dtype.is_floating_point


@op("aten::is_complex(Tensor self) -> bool")
def is_complex(self: Tensor) -> bool:
    """Whether the dtype is complex."""
    return self.dtype.is_complex


@op("aten::is_signed(Tensor self) -> bool")
def is_signed(self: Tensor) -> bool:
    """Whether the dtype is signed."""
    return self.dtype.is_signed


@op("aten::is_contiguous(Tensor self) -> bool",
    "aten::is_contiguous.memory_format(Tensor self, MemoryFormat memory_format) -> bool")
def is_contiguous(self: Tensor, memory_format: Any = 0) -> bool:
    """Whether the tensor is row-major contiguous."""
    return self.is_contiguous()


@op("aten::is_nonzero(Tensor self) -> bool")
def is_nonzero(self: Tensor) -> bool:
    """bool() of a one-element tensor."""
    n = self._a.size
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(self)


@op("aten::is_same_size(Tensor self, Tensor other) -> bool")
def is_same_size(self: Tensor, other: Tensor) -> bool:
    """Whether both shapes are equal."""
    return self._a.shape == other._a.shape


@op("aten::contiguous(Tensor(a) self, *, MemoryFormat memory_format=0) -> Tensor(a)")
def contiguous(self: Tensor, memory_format: Any = 0) -> Tensor:
    """self when contiguous, else a contiguous copy."""
    return self.contiguous()


@op("aten::clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor")
def clone(self: Tensor, memory_format: Any = None) -> Tensor:
    """A copy with its own memory."""
    return self.clone()


# --- global state ---------------------------------------------------------------------------
@op("aten::is_grad_enabled() -> bool")
def is_grad_enabled() -> bool:
    """The grad-mode flag."""
    return grad_mode.is_grad_enabled()


@op("aten::set_grad_enabled(bool val) -> ()")
def set_grad_enabled(val: bool) -> None:
    """Set the grad-mode flag."""
    grad_mode.set_grad_enabled_flag(val)


@op("aten::is_autocast_enabled() -> bool")
def is_autocast_enabled() -> bool:
    """Autocast is never enabled in tsjit."""
    return False


@op("aten::manual_seed(int seed) -> ()")
def manual_seed(seed: int) -> None:
    """Reseed the global random generator."""
    _manual_seed(seed)
