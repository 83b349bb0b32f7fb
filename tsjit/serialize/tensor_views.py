"""A tensor's array from its storage and geometry (offset, sizes, strides in elements).

Both the archive and the checkpoint loaders make every tensor this way: a view of its
storage's array (never a copy), so tensors that share a storage share memory, as they did
when saved. Every geometry is checked against the storage before a view is made.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..ir.limits import LimitError, current_limits
from .errors import ArchiveError

_INT = {int}
# The most dimensions a numpy array (so a tsjit tensor) has: 64 from numpy 2, 32 before.
MAX_DIMS = 64 if int(np.__version__.split(".")[0]) >= 2 else 32


def tensor_array(storage: np.ndarray, offset: Any, size: Any, stride: Any,
                 where: str) -> np.ndarray:
    """The view of 1-d array `storage` a tensor of this geometry is; an error for a bad one."""
    a = _usual_array(storage, offset, size, stride)
    return a if a is not None else _strided(storage, offset, size, stride, where)


def _usual_array(storage: np.ndarray, offset: Any, size: Any,
                 stride: Any) -> Optional[np.ndarray]:
    """A tensor's array if it is a vector or matrix laid out as PyTorch lays out new ones,
    checked with a few comparisons; None for `_strided` to make the others.

    What this accepts (exact ints, none negative, the elements inside the storage)
    `_strided` accepts too, and makes the same array of.
    """
    if type(size) is not tuple or type(offset) is not int or offset < 0:
        return None
    if len(size) == 2:
        rows, cols = size
        if stride == (cols, 1) and type(rows) is int and type(cols) is int and \
                type(stride[0]) is int and type(stride[1]) is int and rows > 0 and cols > 0:
            end = offset + rows * cols
            n = len(storage)    # (its size: storages are vectors; a cheaper call)
            if end == n and offset == 0:
                return storage.reshape(size)     # (the whole storage: no slice first)
            if end <= n:
                return storage[offset:end].reshape(size)
    elif len(size) == 1:
        n = size[0]
        if stride == (1,) and type(n) is int and type(stride[0]) is int and n > 0 and \
                offset + n <= len(storage):
            return storage[offset:offset + n]
    return None


def _strided(storage: np.ndarray, offset: Any, size: Any, stride: Any, where: str) -> np.ndarray:
    """The tensor's array for any geometry; an error for a bad one."""
    geometry = size + stride if type(size) is tuple and type(stride) is tuple else None
    # (tuples of ints, checked with C loops rather than generators)
    if geometry is None or type(offset) is not int or len(size) != len(stride) or \
            not set(map(type, geometry)) <= _INT:
        if not (isinstance(offset, int) and isinstance(size, (tuple, list)) and
                isinstance(stride, (tuple, list)) and all(isinstance(x, int) for x in size) and
                all(isinstance(x, int) for x in stride) and len(size) == len(stride)):
            raise ArchiveError(f"bad tensor geometry in {where}")
        geometry = tuple(size) + tuple(stride)
    n = storage.size
    if offset < 0 or (geometry and min(geometry) < 0):
        raise ArchiveError(f"negative tensor geometry in {where}")
    if len(size) > MAX_DIMS:
        raise ArchiveError(f"a tensor in {where} has {len(size)} dimensions; tsjit's tensors "
                           f"have at most {MAX_DIMS}")
    if 0 in size:
        # (no element: PyTorch checks no offset; numpy would, against the buffer)
        return storage[:0].reshape(size)
    numel = 1
    for s in size:
        numel *= s
    if numel * storage.itemsize > current_limits().max_tensor_bytes:
        raise LimitError("max_tensor_bytes", f"a tensor of size {_shape(size)} in {where}",
                         numel * storage.itemsize)
    last = offset + sum([(s - 1) * st for s, st in zip(size, stride)])
    if last >= n:
        raise ArchiveError(f"a tensor in {where} needs storage element {last} but its "
                           f"storage has {n} elements")
    if len(size) == 2 and stride == (size[1], 1) and size[0] and size[1]:
        # (a matrix as PyTorch lays it out: a reshaped slice, made faster than an ndarray
        # of explicit strides, and with the same strides)
        return storage[offset:offset + size[0] * size[1]].reshape(size)
    if len(size) == 1 and stride == (1,):
        return storage[offset:offset + size[0]]
    item = storage.itemsize
    try:
        return np.ndarray(size, dtype=storage.dtype, buffer=storage, offset=offset * item,
                          strides=[s * item for s in stride])
    except (ValueError, OverflowError) as exc:   # (what the checks above leave to numpy)
        raise ArchiveError(f"a tensor of size {_shape(size)} in {where} cannot be made: "
                           f"{exc}") from None


def _shape(size: tuple) -> str:
    """A tensor's size for a message (long ones cut)."""
    text = str(tuple(size))
    return text if len(text) <= 80 else text[:80] + "...)"
