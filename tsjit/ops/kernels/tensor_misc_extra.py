"""Assorted tensor operators archives call: diff, block_diag, cartesian_prod, heaviside,
float_power, isin, result_type, storage_offset, addcmul / addcdiv, the complex views
(real, imag, view_as_real, view_as_complex) and exponential_.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from ..._tensor import dtypes as D
from ..registry import op
from ..._tensor.kernel_util import (broadcast_shapes, dtype_of, inplace_check, not_implemented,
                                    quiet, checked_scalar, to_np, wrap, write_into)
from ..._tensor.tensor import Tensor, wrap_dim
from .tensor_shape import cat


def _shape(x: Any) -> tuple:
    return x._a.shape if isinstance(x, Tensor) else ()


# --- diff ----------------------------------------------------------------------------------------
@op("aten::diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None) "
    "-> Tensor")
def diff(self: Tensor, n: int = 1, dim: int = -1, prepend: Optional[Tensor] = None,
         append: Optional[Tensor] = None) -> Tensor:
    """The n-th forward difference along dim (logical xor for bools)."""
    if self._a.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    for extra in (prepend, append):
        if extra is not None and extra._a.ndim != self._a.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    if n == 0:   # PyTorch then ignores dim, prepend and append
        return wrap(self._a.copy())
    d = wrap_dim(dim, self._a.ndim)
    parts = [t for t in (prepend, self, append) if t is not None]
    a = cat(parts, d)._a if len(parts) > 1 else self._a
    for _ in range(min(n, a.shape[d])):
        hi = a[(slice(None),) * d + (slice(1, None),)]
        lo = a[(slice(None),) * d + (slice(None, -1),)]
        a = hi != lo if a.dtype == np.bool_ else hi - lo
    return wrap(np.array(a, copy=True) if a is self._a else a)


# --- block_diag / cartesian_prod -----------------------------------------------------------------
@op("aten::block_diag(Tensor[] tensors) -> Tensor")
def block_diag(tensors: Sequence[Tensor]) -> Tensor:
    """The tensors (0-, 1- or 2-d, as 1x1, 1xn, mxn blocks) along a block diagonal."""
    blocks = []
    for i, t in enumerate(tensors):
        if t._a.ndim > 2:
            raise RuntimeError("torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                               f"Input {i} has {t._a.ndim} dimensions")
        blocks.append(t._a.reshape((1,) * (2 - t._a.ndim) + t._a.shape))
    if not tensors:
        return wrap(np.zeros((1, 0), D.to_numpy_dtype(D.get_default_dtype())))
    dt = D.result_type(*tensors)
    rows = sum(b.shape[0] for b in blocks)
    cols = sum(b.shape[1] for b in blocks)
    out = np.zeros((rows, cols), D.to_numpy_dtype(dt))
    r = c = 0
    for b in blocks:   # one slice assignment per input tensor, not per element
        out[r:r + b.shape[0], c:c + b.shape[1]] = b
        r, c = r + b.shape[0], c + b.shape[1]
    return wrap(out)


@op("aten::cartesian_prod(Tensor[] tensors) -> Tensor")
def cartesian_prod(tensors: Sequence[Tensor]) -> Tensor:
    """Every combination of one element of each 1-d tensor, one row per combination."""
    if len(tensors) == 0:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t._a.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t._a.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    if any(t._a.dtype != tensors[0]._a.dtype for t in tensors):
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    grids = np.meshgrid(*[t._a for t in tensors], indexing="ij")
    return wrap(np.stack([g.reshape(-1) for g in grids], axis=1))


# --- elementwise ---------------------------------------------------------------------------------
@op("aten::heaviside(Tensor self, Tensor values) -> Tensor")
def heaviside(self: Tensor, values: Tensor) -> Tensor:
    """0 where self < 0, values where self == 0, 1 where self > 0 (NaN gives 0)."""
    if self.dtype.kind == "c" or values.dtype.kind == "c":
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if self.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    a, v = self._a, values._a
    broadcast_shapes(a.shape, v.shape)
    return wrap(np.where(a == 0, v, a > 0).astype(a.dtype))


@op("aten::heaviside_(Tensor(a!) self, Tensor values) -> Tensor(a!)")
def heaviside_(self: Tensor, values: Tensor) -> Tensor:
    """In-place heaviside."""
    return write_into(self, heaviside(self, values)._a)


@op("aten::float_power.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor",
    "aten::float_power.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor",
    "aten::float_power.Scalar(Scalar self, Tensor exponent) -> Tensor")
@quiet
def float_power(self: Any, exponent: Any) -> Tensor:
    """self ** exponent computed in double precision (complex128 if either is complex)."""
    dt = D.complex128 if "c" in (dtype_of(self).kind + dtype_of(exponent).kind) else D.float64
    s1, s2 = _shape(self), _shape(exponent)
    if s1 and s2:
        broadcast_shapes(s1, s2)
    a, b = to_np(self, dt), to_np(exponent, dt)
    if dt.kind != "c":
        return wrap(np.asarray(np.power(a, b)))
    if isinstance(self, Tensor) and not isinstance(exponent, Tensor) and \
            complex(exponent).imag == 0 and complex(exponent).real in _COMPLEX_POW_SPECIAL:
        # a Python exponent of 0, +-0.5, 1, 2, 3, -1, -2 takes PyTorch's dedicated formulas
        return wrap(np.asarray(_COMPLEX_POW_SPECIAL[complex(exponent).real](a)))
    if not isinstance(self, Tensor) and complex(self) == 1:
        return wrap(np.ones_like(b))     # PyTorch: 1 ** anything is 1, NaN included
    # other complex powers are exp(b log a) in PyTorch (0 ** 0 is NaN there, 1 in numpy)
    return wrap(np.asarray(np.exp(b * np.log(a))))


_COMPLEX_POW_SPECIAL = {0.0: np.ones_like, 1.0: np.copy, 2.0: lambda a: a * a,
                        3.0: lambda a: a * a * a, 0.5: np.sqrt, -0.5: lambda a: 1 / np.sqrt(a),
                        -1.0: lambda a: 1 / a, -2.0: lambda a: 1 / (a * a)}


@op("aten::float_power_.Tensor(Tensor(a!) self, Tensor exponent) -> Tensor(a!)",
    "aten::float_power_.Scalar(Tensor(a!) self, Scalar exponent) -> Tensor(a!)")
def float_power_(self: Tensor, exponent: Any) -> Tensor:
    """In-place float_power: self must already be double (or complex double)."""
    r = float_power(self, exponent)
    if r.dtype != self.dtype:
        raise RuntimeError(f"the base given to float_power_ has dtype {self.dtype.cname} but "
                           f"the operation's result requires dtype {r.dtype.cname}")
    return write_into(self, r._a)


def _addc(self: Tensor, tensor1: Tensor, tensor2: Tensor, value: Any, divide: bool) -> Tensor:
    dt = D.result_type(self, tensor1, tensor2)
    if divide and tensor1.dtype.kind in "ib" and tensor2.dtype.kind in "ib":
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
            "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))"
            ".to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for "
            "float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes.")
    if dt.kind == "b":
        raise not_implemented("addcdiv_cpu_out" if divide else "addcmul_cpu_out", dt)
    broadcast_shapes(self._a.shape, tensor1._a.shape, tensor2._a.shape)
    v = checked_scalar(value, dt)
    a, b, c = to_np(self, dt), to_np(tensor1, dt), to_np(tensor2, dt)
    # PyTorch's order of evaluation: value * t1 first, then * or / t2, then + self
    return wrap(np.asarray(a + (v * b / c if divide else v * b * c)))


@op("aten::addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor")
@quiet
def addcmul(self: Tensor, tensor1: Tensor, tensor2: Tensor, value: Any = 1) -> Tensor:
    """self + value * tensor1 * tensor2 (broadcast, promoted)."""
    return _addc(self, tensor1, tensor2, value, False)


@op("aten::addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor")
@quiet
def addcdiv(self: Tensor, tensor1: Tensor, tensor2: Tensor, value: Any = 1) -> Tensor:
    """self + value * tensor1 / tensor2 (broadcast, promoted; integer division refused)."""
    return _addc(self, tensor1, tensor2, value, True)


def _addc_inplace(fn: Any) -> Any:
    def kernel(self: Tensor, tensor1: Tensor, tensor2: Tensor, value: Any = 1) -> Tensor:
        r = fn(self, tensor1, tensor2, value)
        inplace_check(self, r.dtype)
        return write_into(self, r._a)
    kernel.__name__ = fn.__name__ + "_"
    kernel.__doc__ = f"In-place {fn.__name__}."
    return kernel


addcmul_ = op("aten::addcmul_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, "
              "Scalar value=1) -> Tensor(a!)")(_addc_inplace(addcmul))
addcdiv_ = op("aten::addcdiv_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, "
              "Scalar value=1) -> Tensor(a!)")(_addc_inplace(addcdiv))


def _isin_dtype(elements: Any, test: Any) -> D.dtype:
    for x in (elements, test):
        if dtype_of(x).kind in "cb":
            raise RuntimeError(f"Unsupported input type encountered for isin(): "
                               f"{dtype_of(x).cname}")
    return D.result_type(elements, test)


@op("aten::isin.Tensor_Tensor(Tensor elements, Tensor test_elements, *, "
    "bool assume_unique=False, bool invert=False) -> Tensor",
    "aten::isin.Tensor_Scalar(Tensor elements, Scalar test_element, *, "
    "bool assume_unique=False, bool invert=False) -> Tensor",
    "aten::isin.Scalar_Tensor(Scalar element, Tensor test_elements, *, "
    "bool assume_unique=False, bool invert=False) -> Tensor")
def isin(elements: Any, test_elements: Any, assume_unique: bool = False,
         invert: bool = False) -> Tensor:
    """Whether each element occurs in test_elements (compared in the promoted dtype)."""
    dt = _isin_dtype(elements, test_elements)
    a = to_np(elements, dt)
    b = to_np(test_elements, dt).reshape(-1)
    return wrap(np.asarray(np.isin(a, b, invert=invert)))


@op("aten::result_type.Tensor(Tensor tensor, Tensor other) -> ScalarType",
    "aten::result_type.Scalar(Tensor tensor, Scalar other) -> ScalarType",
    "aten::result_type.Scalar_Tensor(Scalar scalar, Tensor tensor) -> ScalarType",
    "aten::result_type.Scalar_Scalar(Scalar scalar1, Scalar scalar2) -> ScalarType")
def result_type(tensor: Any, other: Any) -> D.dtype:
    """The dtype PyTorch's type promotion gives an operation on the two operands."""
    return D.result_type(tensor, other)


@op("aten::storage_offset(Tensor self) -> int")
def storage_offset(self: Tensor) -> int:
    """The offset, in elements, of self's first element in its storage."""
    return self.storage_offset()


# --- complex views -------------------------------------------------------------------------------
@op("aten::real(Tensor(a) self) -> Tensor(a)")
def real(self: Tensor) -> Tensor:
    """The real parts of a complex tensor as a view; a real tensor itself."""
    return wrap(self._a.real) if self.dtype.kind == "c" else self


@op("aten::imag(Tensor(a) self) -> Tensor(a)")
def imag(self: Tensor) -> Tensor:
    """The imaginary parts of a complex tensor as a view."""
    if self.dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return wrap(self._a.imag)


@op("aten::view_as_real(Tensor(a) self) -> Tensor(a)")
def view_as_real(self: Tensor) -> Tensor:
    """A complex tensor viewed as reals with a trailing dimension of 2 (real, imaginary)."""
    if self.dtype.kind != "c":
        raise RuntimeError("view_as_real is only supported for complex tensors")
    a = self._a
    # a trailing length-1 axis is contiguous whatever a's strides, so numpy may split it
    return wrap(a[..., None].view(a.real.dtype))


@op("aten::view_as_complex(Tensor(a) self) -> Tensor(a)")
def view_as_complex(self: Tensor) -> Tensor:
    """A real tensor with a trailing dimension of 2 viewed as complex numbers."""
    a = self._a
    if self.dtype not in (D.float32, D.float64, D.float16):
        raise RuntimeError("view_as_complex is only supported for half, float and double "
                           f"tensors, but got a tensor of scalar type: {self.dtype.cname}")
    if a.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if a.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    st = self.stride()
    if st[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s, n in zip(st[:-1], a.shape[:-1]) if n > 1):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if self.storage_offset() % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    if a.dtype == np.float16:
        raise not_implemented("view_as_complex", D.complex32)
    return wrap(a.view(np.complex64 if a.dtype == np.float32 else np.complex128)[..., 0])


# --- random --------------------------------------------------------------------------------------
@op("aten::exponential_(Tensor(a!) self, float lambd=1., *, Generator? generator=None) -> "
    "Tensor(a!)")
def exponential_(self: Tensor, lambd: float = 1.0, generator: Any = None) -> Tensor:
    """Fill self with samples of the exponential distribution of rate lambd."""
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    if self.dtype.kind != "f":
        raise RuntimeError("Exponential distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified {self.dtype.cname}")
    from ..._tensor.creation import generator as rng
    self._writable()[...] = rng().exponential(1.0 / lambd, self._a.shape)
    return self



# --- complex construction ------------------------------------------------------------------------
_COMPLEX_OF = {"float32": np.complex64, "float64": np.complex128}


def _complex_parts(name: str, a: Tensor, b: Tensor) -> tuple[np.ndarray, np.ndarray, Any]:
    """Both parts of a complex result: float or double tensors of one dtype, broadcast."""
    if a.dtype != b.dtype:
        raise RuntimeError(f"Expected object of scalar type {a.dtype.cname} but got scalar type "
                           f"{b.dtype.cname} for second argument")
    if a.dtype not in (D.float32, D.float64):
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{a.dtype.cname} and {b.dtype.cname}")
    shape = broadcast_shapes(a._a.shape, b._a.shape)
    return (np.broadcast_to(a._a, shape), np.broadcast_to(b._a, shape),
            _COMPLEX_OF[a._a.dtype.name])


@op("aten::complex(Tensor real, Tensor imag) -> Tensor")
def complex_(real: Tensor, imag: Tensor) -> Tensor:
    """real + i imag."""
    re, im, ct = _complex_parts("complex", real, imag)
    out = np.empty(re.shape, ct)
    out.real, out.imag = re, im
    return wrap(out)


@op("aten::polar(Tensor abs, Tensor angle) -> Tensor")
def polar(abs: Tensor, angle: Tensor) -> Tensor:
    """abs (cos angle + i sin angle)."""
    r, t, ct = _complex_parts("polar", abs, angle)
    out = np.empty(r.shape, ct)
    with np.errstate(all="ignore"):
        out.real, out.imag = r * np.cos(t), r * np.sin(t)
    return wrap(out)
