"""tsjit.functional: torch.functional's Python-level operators (`unique`, `tensordot`).

`torch.unique` is not one aten operator: its result is a tensor or a tuple depending on
the constant flags `return_inverse` / `return_counts`, so, as in PyTorch, it is a boolean
dispatch over four functions with fixed return types that all call `_unique_impl`
(aten::_unique2, or aten::unique_dim with a dim). Archives name them
`__torch__.torch.functional._unique_impl` etc., as PyTorch's do. `tensordot` turns its
`dims` count into the dimension lists aten::tensordot takes.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from .nn._jit_internal import boolean_dispatch
from ._tensor import Tensor
from .ops import functions as torch


def _unique_impl(input: Tensor, sorted: bool = True, return_inverse: bool = False,
                 return_counts: bool = False,
                 dim: Optional[int] = None) -> Tuple[Tensor, Tensor, Tensor]:
    """(unique values, inverse indices, counts); the last two are empty unless asked for."""
    if dim is not None:
        output, inverse_indices, counts = torch.unique_dim(
            input, dim, sorted, return_inverse, return_counts)
    else:
        output, inverse_indices, counts = torch._unique2(
            input, sorted, return_inverse, return_counts)
    return output, inverse_indices, counts


def _return_output(input: Tensor, sorted: bool = True, return_inverse: bool = False,
                   return_counts: bool = False, dim: Optional[int] = None) -> Tensor:
    """The unique values only."""
    output, _, _ = _unique_impl(input, sorted, return_inverse, return_counts, dim)
    return output


def _return_inverse(input: Tensor, sorted: bool = True, return_inverse: bool = False,
                    return_counts: bool = False,
                    dim: Optional[int] = None) -> Tuple[Tensor, Tensor]:
    """(unique values, inverse indices)."""
    output, inverse_indices, _ = _unique_impl(input, sorted, return_inverse, return_counts, dim)
    return output, inverse_indices


def _return_counts(input: Tensor, sorted: bool = True, return_inverse: bool = False,
                   return_counts: bool = False,
                   dim: Optional[int] = None) -> Tuple[Tensor, Tensor]:
    """(unique values, counts)."""
    output, _, counts = _unique_impl(input, sorted, return_inverse, return_counts, dim)
    return output, counts


_return_inverse_false = boolean_dispatch(
    arg_name="return_counts", arg_index=3, default=False, if_true=_return_counts,
    if_false=_return_output, module_name=__name__, func_name="unique")

_return_inverse_true = boolean_dispatch(
    arg_name="return_counts", arg_index=3, default=False, if_true=_unique_impl,
    if_false=_return_inverse, module_name=__name__, func_name="unique")

unique = boolean_dispatch(
    arg_name="return_inverse", arg_index=2, default=False, if_true=_return_inverse_true,
    if_false=_return_inverse_false, module_name=__name__, func_name="unique")
unique.__doc__ = """The unique elements of input (sorted), with the inverse indices and / or
the counts when return_inverse / return_counts are True; along dim when given."""



def tensordot(a: Tensor, b: Tensor, dims: int = 2, out: Optional[Tensor] = None) -> Tensor:
    """Contract the last `dims` dimensions of a with the first `dims` of b (eagerly, dims
    may also be two lists of dimensions)."""
    dims_a: List[int] = []
    dims_b: List[int] = []
    if isinstance(dims, (tuple, list)):   # never true in scripted code (dims is an int)
        dims_a, dims_b = [int(d) for d in dims[0]], [int(d) for d in dims[1]]
    elif isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a = [i for i in range(-dims, 0)]
        dims_b = [i for i in range(dims)]
    else:
        raise RuntimeError("tensordot expects dims to be int or Tuple[List[int], List[int]] or "
                           f"List[List[int]] containing two lists, but got dims={dims}")
    if out is None:
        return torch.tensordot(a, b, dims_a, dims_b)
    return torch.tensordot(a, b, dims_a, dims_b, out=out)


def norm(input: Tensor, p: object = "fro", dim: object = None, keepdim: bool = False,
         out: Optional[Tensor] = None, dtype: object = None) -> Tensor:
    """torch.norm / Tensor.norm: `p` a number (vector norm over `dim`, all elements when
    None), "fro" (the 2-norm over `dim`), or "nuc" (nuclear norm of the matrices over the
    two `dim`s, the last two by default)."""
    dims = [dim] if isinstance(dim, int) else (list(dim) if dim is not None else None)
    if p == "nuc":
        result = torch.nuclear_norm(input, dims if dims is not None else [-2, -1], keepdim)
    else:
        order = 2 if p == "fro" or p is None else p
        if isinstance(order, str):
            raise RuntimeError(f"norm: unsupported p={order!r} (a number, 'fro' or 'nuc')")
        result = torch.linalg_vector_norm(input, order, dims, keepdim, dtype=dtype)
    if out is not None:
        out.resize_(result.shape).copy_(result)
        return out
    return result


# In scripted code torch.norm is the aten operator, as in PyTorch's archives.
norm.__tsjit_op__ = "aten::norm"   # type: ignore[attr-defined]
Tensor.norm = norm                 # type: ignore[method-assign]


__all__ = ["norm", "tensordot", "unique"]
