"""The storages of the tensors a pickle being written refers to.

A storage is the whole memory tensors view (numpy's root array: a view's `.base` chain
ends there), written once as a `data/N` record and named in the pickle by a persistent id
`('storage', <storage class>, 'N', 'cpu', numel)`; N counts storages in the order the
pickle first meets them. Tensors viewing one storage share it in the file, with their
offsets, sizes and strides, and a storage larger than its views is written whole, as
PyTorch does. Memory that is no such storage (a view of a non-contiguous array, of a
foreign buffer at an odd offset, a byte-swapped array) is copied into a storage of its own.

Dtypes with a typed storage class (`torch.FloatStorage` ...) are rebuilt with
`torch._utils._rebuild_tensor_v2` and counted in elements; the others (float8, uint16 ...)
with `_rebuild_tensor_v3`, an untyped storage counted in bytes, and the dtype.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from .._tensor import Tensor
from .._tensor.tensor import storage_root
from .._tensor import dtypes as D
from . import pickle_format as P
from .errors import PicklingError

# The strings of every persistent id, one object each: Python's pickler memoizes by
# identity, and PyTorch's files say 'storage' and 'cpu' once.
_STORAGE = "storage"
_CPU = "cpu"


@dataclass
class _Storage:
    key: str
    dtype: D.dtype
    cls: P.Global
    numel: int
    root: np.ndarray
    pid: Optional[P.PersistentId] = None


def _persistent_id(s: _Storage, legacy: bool = False) -> P.PersistentId:
    # (the legacy format adds a view's metadata, always None since PyTorch 1.x)
    tail = (None,) if legacy else ()
    return P.PersistentId((_STORAGE, s.cls, s.key, _CPU, s.numel) + tail)


class StorageTable:
    """Storages numbered in order of first use.

    `torchscript`: as torch.jit.save writes them: one persistent id object per storage
    (the pickle memoizes it), and a root viewed as two dtypes is two storages. Otherwise
    as torch.save: a persistent id tuple per tensor (Python's pickler shares only its
    parts), and two dtypes over one storage are an error, as in PyTorch.
    """

    def __init__(self, folder: str, torchscript: bool = False, legacy: bool = False) -> None:
        self.folder = folder
        self.torchscript = torchscript
        self.legacy = legacy
        self.storages: list[_Storage] = []
        self.by_root: dict[Any, _Storage] = {}

    def records(self) -> list[tuple[str, memoryview]]:
        """(record name, bytes) of every storage, in order."""
        return [(f"{self.folder}/{s.key}", _bytes_of(s.root)) for s in self.storages]

    def tensor(self, t: Tensor) -> P.Reduce:
        """The `_rebuild_tensor_v2/v3` reduction of tensor `t` (requires_grad kept)."""
        a = t._a
        dt = D.from_numpy_dtype(a.dtype)
        itemsize = a.itemsize
        size = tuple(int(s) for s in a.shape)
        root, offset = _storage_root(a)
        if root is None:
            root = a = np.ascontiguousarray(a).copy() if a.dtype.isnative else \
                a.astype(a.dtype.newbyteorder("="), order="C")
            offset = 0
        stride = tuple(int(s) // itemsize for s in (a.strides if a.size else t._a.strides))
        if not a.size and not any(stride):
            # numpy makes empty arrays' strides zero; PyTorch's empty tensors have
            # contiguous ones
            stride = _contiguous_strides(size)
        storage = self._storage(root, dt)
        pid = storage.pid if self.torchscript else _persistent_id(storage, self.legacy)
        args: tuple = (pid, offset // itemsize, size, stride, bool(t.requires_grad),
                       P.Reduce(P.ORDERED_DICT, ()))
        if dt.storage is None:
            return P.Reduce(P.REBUILD_TENSOR_V3, args + (P.Global("torch", dt.name),))
        return P.Reduce(P.REBUILD_TENSOR_V2, args)

    def _storage(self, root: np.ndarray, dt: D.dtype) -> _Storage:
        key = (id(root), dt) if self.torchscript else id(root)
        found = self.by_root.get(key)
        if found is not None:
            if found.dtype != dt:
                raise PicklingError(
                    "Cannot save multiple tensors or storages that view the same data as "
                    f"different types ({found.dtype} and {dt})")
            return found
        typed = dt.storage is not None
        cls = P.Global("torch", dt.storage) if typed else P.UNTYPED_STORAGE
        numel = root.nbytes // dt.itemsize if typed else root.nbytes
        found = _Storage(str(len(self.storages)), dt, cls, numel, root)
        found.pid = _persistent_id(found)
        self.storages.append(found)
        self.by_root[key] = found
        return found


def _storage_root(a: np.ndarray) -> tuple[Optional[np.ndarray], int]:
    """The array whose memory `a` views, whole and contiguous, and `a`'s byte offset in
    it; (None, 0) when there is none to write as a storage."""
    root = storage_root(a)
    if not (root.flags.c_contiguous or root.flags.f_contiguous) or not a.dtype.isnative:
        return None, 0
    start = root.__array_interface__["data"][0]
    lo = a.__array_interface__["data"][0] - start
    if a.size == 0:
        return (root, lo) if 0 <= lo <= root.nbytes and not lo % a.itemsize else (None, 0)
    if lo < 0 or lo % a.itemsize or any(s < 0 for s in a.strides):
        return None, 0        # (PyTorch has no negative strides)
    # the highest byte `a` touches must lie inside the root
    if lo + sum(s * (n - 1) for s, n in zip(a.strides, a.shape)) + a.itemsize > root.nbytes:
        return None, 0
    return root, lo


def _contiguous_strides(size: tuple) -> tuple:
    out, acc = [], 1
    for n in reversed(size):
        out.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(out))


def _bytes_of(root: np.ndarray) -> memoryview:
    """The memory of a contiguous array as bytes, without a copy."""
    flat = root.reshape(-1, order="A")
    return memoryview(flat.view(np.uint8)) if flat.size else memoryview(b"")
