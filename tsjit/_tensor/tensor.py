"""The `Tensor` class: a numpy ndarray with PyTorch's dtype, view and conversion semantics.

A tensor owns nothing but `_a`, an ndarray. View operations return tensors over numpy
views of the same memory, so writes through a view reach the base (`x[0] = 1`,
`x.t().add_(1)`). Results are always ndarrays, never numpy scalars: zero-dim values are
0-d arrays. Operators and most methods call the kernels in `tsjit/ops/kernels/tensor_*`
(attached by `tsjit.ops.tensor_methods`), so eager code and compiled code share one
implementation.
"""
from __future__ import annotations

from typing import Any, Iterator, Optional

import numpy as np

from . import dtypes as D
from .device import CPU, Device


class Size(tuple):
    """A tensor shape: a tuple of ints printed as `torch.Size([2, 3])`."""

    def __new__(cls, it: Any = ()) -> "Size":
        return super().__new__(cls, (int(x) for x in it))

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(x) for x in self)}])"

    __str__ = __repr__

    def __getitem__(self, i: Any) -> Any:
        r = super().__getitem__(i)
        return Size(r) if isinstance(i, slice) else r

    def __add__(self, other: Any) -> "Size":
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other: Any) -> "Size":
        return Size(tuple(other) + tuple(self))

    def numel(self) -> int:
        """The number of elements a tensor of this shape has."""
        n = 1
        for x in self:
            n *= x
        return n

    def __reduce__(self) -> Any:
        return (Size, (tuple(self),))


# For `Tensor._wrap`, which makes every result: numpy's module has a __getattr__, so
# Python looks its attributes up the slow way at each use.
_new_object = object.__new__
_ndarray = np.ndarray


def _root(a: np.ndarray) -> np.ndarray:
    """The array whose memory `a` views (its storage): the end of the `.base` chain, which
    goes through numpy's as_strided wrappers (they hold the array they view as `.base`)."""
    while True:
        b = a.base
        if not isinstance(b, np.ndarray):
            b = getattr(b, "base", None)     # as_strided's wrapper, or the end
            if not isinstance(b, np.ndarray):
                return a
        a = b


class Tensor:
    """A multi-dimensional array with PyTorch semantics, stored in a numpy ndarray.

    `Tensor(ndarray)` wraps the array without copying (keeping its dtype);
    `Tensor(*sizes)` and `Tensor(list)` follow PyTorch's legacy constructor (float32).
    """

    __array_ufunc__ = None          # numpy defers to our reflected operators
    __array_priority__ = 1000
    # Defaults as class attributes: a freshly wrapped result only needs its array set.
    requires_grad: bool = False
    grad: Optional["Tensor"] = None

    def __init__(self, *args: Any, dtype: Any = None, device: Any = None) -> None:
        if len(args) == 1 and isinstance(args[0], np.ndarray):
            a = args[0]
            D.from_numpy_dtype(a.dtype)   # reject unsupported element types early
        elif len(args) == 1 and isinstance(args[0], Tensor):
            a = args[0]._a
        elif len(args) == 1 and isinstance(args[0], (list, tuple)) and \
                not isinstance(args[0], Size):
            from .creation import tensor as _tensor
            a = _tensor(args[0], dtype=dtype or D.get_default_dtype())._a
        else:
            shape = tuple(args[0]) if len(args) == 1 and isinstance(args[0], Size) else args
            if not all(isinstance(s, (int, np.integer)) for s in shape):
                raise TypeError(f"new(): invalid arguments {args!r}")
            a = np.zeros(shape, D.to_numpy_dtype(dtype or D.get_default_dtype()))
        self._a: np.ndarray = a
        self.requires_grad: bool = False
        self.grad: Optional[Tensor] = None

    # --- construction helpers ------------------------------------------------------
    @staticmethod       # (no bound method made at each call)
    def _wrap(a: Any) -> "Tensor":
        """Wrap an ndarray (or numpy scalar, made a 0-d array) without copying."""
        t = _new_object(Tensor)
        t._a = a if isinstance(a, _ndarray) else np.asarray(a)
        return t

    # --- metadata ------------------------------------------------------------------
    @property
    def dtype(self) -> D.dtype:
        return D.from_numpy_dtype(self._a.dtype)

    @property
    def shape(self) -> Size:
        return Size(self._a.shape)

    def size(self, dim: Optional[int] = None) -> Any:
        """The shape, or the size of dimension `dim`."""
        if dim is None:
            return Size(self._a.shape)
        return self._a.shape[wrap_dim(dim, self._a.ndim)]

    def dim(self) -> int:
        """The number of dimensions."""
        return self._a.ndim

    ndimension = dim

    @property
    def ndim(self) -> int:
        return self._a.ndim

    def numel(self) -> int:
        """The number of elements."""
        return int(self._a.size)

    nelement = numel

    def element_size(self) -> int:
        """Bytes per element."""
        return int(self._a.itemsize)

    @property
    def itemsize(self) -> int:
        return int(self._a.itemsize)

    @property
    def nbytes(self) -> int:
        return int(self._a.nbytes)

    def stride(self, dim: Optional[int] = None) -> Any:
        """Strides in elements (PyTorch counts elements, numpy bytes)."""
        st = tuple(s // self._a.itemsize for s in self._a.strides)
        return st if dim is None else st[wrap_dim(dim, self._a.ndim)]

    def storage_offset(self) -> int:
        """Offset in elements of the first element from the start of the base buffer."""
        root = _root(self._a)
        if self._a.size == 0:
            return 0
        return (self._a.__array_interface__["data"][0] -
                root.__array_interface__["data"][0]) // self._a.itemsize

    def data_ptr(self) -> int:
        """The address of the first element."""
        return int(self._a.__array_interface__["data"][0])

    def is_contiguous(self, memory_format: Any = None) -> bool:
        """Whether the elements are laid out row-major without gaps."""
        return bool(self._a.flags.c_contiguous)

    @property
    def device(self) -> Device:
        return CPU

    is_cuda = False
    is_cpu = True
    is_sparse = False
    is_quantized = False
    is_meta = False
    is_nested = False
    is_mkldnn = False
    layout = 0          # torch.strided
    grad_fn = None
    is_leaf = True

    def is_floating_point(self) -> bool:
        """Whether the dtype is a floating-point type."""
        return self.dtype.is_floating_point

    def is_complex(self) -> bool:
        """Whether the dtype is complex."""
        return self.dtype.is_complex

    def is_signed(self) -> bool:
        """Whether the dtype is signed."""
        return self.dtype.is_signed

    def get_device(self) -> int:
        """-1: the CPU."""
        return -1

    # --- autograd stand-ins ------------------------------------------------------------
    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        """Set the requires_grad flag (tsjit has no autograd; the flag is kept for printing)."""
        if requires_grad and not (self.dtype.is_floating_point or self.dtype.is_complex):
            raise RuntimeError("only Tensors of floating point and complex dtype can "
                               "require gradients")
        self.requires_grad = bool(requires_grad)
        return self

    def detach(self) -> "Tensor":
        """A tensor sharing this one's memory, without requires_grad."""
        return Tensor._wrap(self._a.view())

    def detach_(self) -> "Tensor":
        """Clear requires_grad in place."""
        self.requires_grad = False
        return self

    @property
    def data(self) -> "Tensor":
        return self.detach()

    @data.setter
    def data(self, other: "Tensor") -> None:
        self._a = other._a

    # --- conversions -------------------------------------------------------------------
    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The underlying ndarray (shares memory).

        Unlike PyTorch, this works on tensors that require grad: tsjit has no autograd,
        so there is no graph to detach from and refusing would only get in the way.
        """
        return self._a

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        a = self._a
        if dtype is not None and np.dtype(dtype) != a.dtype:
            return a.astype(dtype)
        return a.copy() if copy else a

    def item(self) -> Any:
        """The single element as a Python number."""
        a = self._a
        if a.size != 1:
            raise RuntimeError(f"a Tensor with {a.size} elements cannot be converted "
                               "to Scalar")
        if a.dtype.kind in "biufc":
            return a.item()     # (numpy's item gives the Python number to_py would)
        a = self._numbers("_local_scalar_dense_cpu")
        return to_py(a.reshape(-1)[0], a.dtype)

    def tolist(self) -> Any:
        """Nested Python lists of Python numbers (a number for a 0-dim tensor)."""
        return self._numbers("tolist").tolist()

    def _numbers(self, what: str) -> np.ndarray:
        """The elements in a numpy type whose values are Python numbers (bfloat16 ... as
        float32); float4_e2m1fn_x2 pairs have no value, as in PyTorch."""
        a = self._a
        if a.dtype.kind in "biufc":
            return a
        dt = self.dtype
        if dt in D.RAW_DTYPES:
            raise NotImplementedError(f'"{what}" not implemented for \'{dt.cname}\'')
        return D.native_values(a)

    def __bool__(self) -> bool:
        n = self._a.size
        if n != 1:
            what = "no values" if n == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {what} is ambiguous")
        return bool(self._a.reshape(-1)[0])

    def __int__(self) -> int:
        if self._a.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        v = self._a.reshape(-1)[0]
        if isinstance(v, np.complexfloating):
            v = v.real
        if isinstance(v, np.floating) and not np.isfinite(v):
            raise ValueError(f"cannot convert float {v} to integer")
        return int(v)

    def __float__(self) -> float:
        if self._a.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        v = self._a.reshape(-1)[0]
        return float(v.real if isinstance(v, np.complexfloating) else v)

    def __complex__(self) -> complex:
        if self._a.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return complex(self._a.reshape(-1)[0])

    def __index__(self) -> int:
        if self._a.size != 1 or self.dtype.kind != "i":
            raise TypeError("only integer tensors of a single element can be converted to "
                            "an index")
        return int(self._a.reshape(-1)[0])

    def __len__(self) -> int:
        if self._a.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._a.shape[0]

    def __iter__(self) -> Iterator["Tensor"]:
        if self._a.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        for i in range(self._a.shape[0]):
            yield Tensor._wrap(self._a[i, ...])

    def __reversed__(self) -> "Tensor":
        if self._a.ndim == 0:
            return self
        return Tensor._wrap(np.flip(self._a, 0).copy())

    def __contains__(self, element: Any) -> bool:
        if not isinstance(element, (Tensor, int, float, bool, complex)):
            raise RuntimeError("Tensor.__contains__ only supports Tensor or scalar, but you "
                               f"passed in a {type(element)}.")
        return bool((self == element).any())

    __hash__ = object.__hash__   # tensors hash by identity, like PyTorch's

    def __format__(self, spec: str) -> str:
        if self._a.ndim == 0:
            return format(self.item(), spec)
        return format(repr(self), spec)

    def __repr__(self) -> str:
        from .printing import tensor_repr
        return tensor_repr(self)

    __str__ = __repr__

    def __deepcopy__(self, memo: dict) -> "Tensor":
        t = Tensor._wrap(self._a.copy())
        t.requires_grad = self.requires_grad
        memo[id(self)] = t
        return t

    def __reduce__(self) -> Any:
        return (_rebuild, (self._a.copy(), self.requires_grad))

    # --- copies and views ----------------------------------------------------------------
    def clone(self, *, memory_format: Any = None) -> "Tensor":
        """A copy with its own (contiguous) memory."""
        return Tensor._wrap(np.array(self._a, copy=True, order="C"))

    def contiguous(self, memory_format: Any = None) -> "Tensor":
        """Self when contiguous, else a contiguous copy."""
        if self._a.flags.c_contiguous:
            return self
        return Tensor._wrap(np.ascontiguousarray(self._a))

    def cpu(self) -> "Tensor":
        """Self: tsjit tensors always live on the CPU."""
        return self

    def cuda(self, *args: Any, **kwargs: Any) -> "Tensor":
        """Always fails: tsjit has no CUDA."""
        raise RuntimeError("Torch not compiled with CUDA enabled")

    @property
    def T(self) -> "Tensor":
        return Tensor._wrap(self._a.transpose())

    @property
    def mT(self) -> "Tensor":
        if self._a.ndim < 2:
            raise RuntimeError("tensor.mT is only supported on matrices or batches of "
                               f"matrices. Got {self._a.ndim}-D tensor.")
        return Tensor._wrap(np.swapaxes(self._a, -1, -2))

    @property
    def H(self) -> "Tensor":
        return Tensor._wrap(np.conj(self._a.transpose())) if self.is_complex() else self.T

    @property
    def mH(self) -> "Tensor":
        t = self.mT
        return Tensor._wrap(np.conj(t._a)) if self.is_complex() else t

    @property
    def real(self) -> "Tensor":
        return Tensor._wrap(self._a.real)

    @property
    def imag(self) -> "Tensor":
        if not self.is_complex():
            raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
        return Tensor._wrap(self._a.imag)

    # --- indexing ------------------------------------------------------------------------
    def __getitem__(self, idx: Any) -> "Tensor":
        from .indexing import getitem
        return getitem(self, idx)

    def __setitem__(self, idx: Any, value: Any) -> None:
        from .indexing import setitem
        setitem(self, idx, value)

    # --- in-place storage access -----------------------------------------------------------
    def _writable(self) -> np.ndarray:
        """The array, for in-place writes; raises when its memory is read-only."""
        a = self._a
        if not a.flags.writeable:
            try:
                a.flags.writeable = True
            except ValueError:
                raise RuntimeError(
                    "cannot write to this tensor: its memory is read-only (it was made from "
                    "a read-only numpy array or buffer); clone() it first") from None
        return a


def _rebuild(a: np.ndarray, requires_grad: bool) -> Tensor:
    t = Tensor._wrap(a)
    t.requires_grad = requires_grad
    return t


def to_py(v: Any, np_dtype: np.dtype) -> Any:
    """A numpy element as the Python number PyTorch's item() gives."""
    if np_dtype.kind == "b":
        return bool(v)
    if np_dtype.kind in "iu":
        return int(v)
    if np_dtype.kind == "f":
        return float(v)
    return complex(v)


def wrap_dim(dim: int, ndim: int) -> int:
    """Normalise a possibly negative dim, with PyTorch's IndexError when out of range."""
    n = max(ndim, 1)    # a 0-dim tensor accepts dims 0 and -1
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim + n if dim < 0 else dim


storage_root = _root


def is_tensor(x: Any) -> bool:
    """Whether x is a Tensor."""
    return isinstance(x, Tensor)
