"""tsjit's tensor runtime: `Tensor` over numpy, dtypes, devices and creation.

    from tsjit._tensor import tensor, float32
    x = tensor([[1., 2.], [3., 4.]])
    y = (x @ x.t()).sum(1)

This package is the layer under `tsjit.ops`: it imports no other tsjit package. The kernels
(`tsjit/ops/kernels/`), the eager functions (`tsjit.add`, `tsjit.ops.eager`) and Tensor's
operators and named methods (`x + y`, `x.view(2, 3)`, installed by
`tsjit.ops.tensor_methods`) live above it.
"""
from __future__ import annotations

from .dtypes import (bfloat16, bool_, complex32, complex64, complex128, dtype, float16,
                     float32, float64, float8_e4m3fn, float8_e4m3fnuz, float8_e5m2,
                     float8_e5m2fnuz, float8_e8m0fnu, float4_e2m1fn_x2, get_default_dtype,
                     int8, int16, int32, int64, promote_types, result_type, can_cast,
                     set_default_dtype, uint8, uint16, uint32, uint64)
from .device import Device, device
from .grad_mode import autocast, is_grad_enabled
from .type_info import finfo, iinfo
from .tensor import Size, Tensor, is_tensor
from .creation import (arange, as_tensor, empty, empty_like, eye, from_numpy, full, full_like,
                       Generator, generator, get_rng_state, initial_seed, linspace, manual_seed, normal,
                       ones, ones_like, set_rng_state,
                       rand, rand_like, randint, randint_like, randn, randn_like, randperm,
                       seed, tensor, zeros, zeros_like)
from .printing import set_printoptions
from .sparse import SparseTensor, sparse_coo, sparse_csr, to_sparse as _to_sparse, \
    to_sparse_csr as _to_sparse_csr

Tensor.to_sparse = _to_sparse
Tensor.to_sparse_csr = _to_sparse_csr

# PyTorch's dtype aliases. `bool`, `float`, `int` are module attributes only (like
# `torch.float`); code in this package never uses them unqualified.
globals().update({"bool": bool_, "float": float32, "double": float64, "half": float16,
                  "long": int64, "int": int32, "short": int16, "cfloat": complex64,
                  "cdouble": complex128, "chalf": complex32})

strided = 0
contiguous_format = 0
preserve_format = 1
channels_last = 2

_CREATION = ["arange", "as_tensor", "empty", "empty_like", "eye", "from_numpy", "full",
             "full_like", "linspace", "manual_seed", "normal", "ones", "ones_like", "rand",
             "rand_like", "randint", "randint_like", "randn", "randn_like", "randperm",
             "seed", "initial_seed", "tensor", "zeros", "zeros_like", "get_rng_state",
             "set_rng_state"]


def is_floating_point(t: Tensor) -> bool:
    """Whether t's dtype is a floating-point type."""
    return t.is_floating_point()


def is_complex(t: Tensor) -> bool:
    """Whether t's dtype is complex."""
    return t.is_complex()


def numel(t: Tensor) -> int:
    """The number of elements of t."""
    return t.numel()


__all__ = [
    "Tensor", "Size", "dtype", "Device", "device", "is_tensor",
    "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
    "complex32", "complex64", "complex128", "bool", "bfloat16", "uint16", "uint32", "uint64",
    "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
    "float4_e2m1fn_x2",
    "half", "float", "double", "short", "int", "long", "cfloat", "cdouble", "chalf",
    "get_default_dtype", "set_default_dtype", "promote_types", "result_type", "can_cast",
    "is_grad_enabled",
    "set_printoptions", "generator", "is_floating_point", "is_complex", "numel",
    "strided", "contiguous_format", "preserve_format", "channels_last",
    "SparseTensor", "sparse_coo", "sparse_csr",
    "autocast", "finfo", "iinfo", "Generator",
] + _CREATION
