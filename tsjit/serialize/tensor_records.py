"""The calls that rebuild a tensor in a pickle, and the storages they name: one table of
how each call lays out its arguments, read by the archive loader, the checkpoint loader and
the command line's lazy view of files (`cli/contents`) alike.

- `torch._utils._rebuild_tensor(storage, offset, size, stride)` (old checkpoints);
- `_rebuild_tensor_v2(storage, offset, size, stride[, requires_grad, backward_hooks[,
  metadata]])` (archives and checkpoints);
- `_rebuild_tensor_v3(storage, offset, size, stride, requires_grad, backward_hooks, dtype[,
  metadata])` (dtypes without a typed storage: the storage is untyped, the dtype named);
- a parameter around a tensor: `_rebuild_parameter(data, requires_grad, backward_hooks)`,
  `_rebuild_parameter_with_state(data, requires_grad, backward_hooks, state)`.

A storage is the persistent id `("storage", <torch.XStorage class>, key, location, numel)`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple, Optional

from .pickle_format import REBUILD_TENSOR_V2, REBUILD_TENSOR_V3, Global

REBUILD_TENSOR_V1 = Global("torch._utils", "_rebuild_tensor")
REBUILD_PARAMETER = Global("torch._utils", "_rebuild_parameter")
REBUILD_PARAMETER_WITH_STATE = Global("torch._utils", "_rebuild_parameter_with_state")


@dataclass(frozen=True)
class TensorCall:
    """How one rebuilding call lays out its arguments: how many it takes, and where
    requires_grad and the dtype are (None: not among them); `parameter`: argument 0 is the
    tensor (itself a call) the parameter wraps."""
    func: Global
    min_args: int
    max_args: int
    requires_grad: Optional[int] = None
    dtype: Optional[int] = None
    parameter: bool = False


TENSOR_CALLS: dict[Global, TensorCall] = {c.func: c for c in (
    TensorCall(REBUILD_TENSOR_V1, 4, 4),
    TensorCall(REBUILD_TENSOR_V2, 4, 7, requires_grad=4),
    TensorCall(REBUILD_TENSOR_V3, 7, 8, requires_grad=4, dtype=6),
    TensorCall(REBUILD_PARAMETER, 1, 3, requires_grad=1, parameter=True),
    TensorCall(REBUILD_PARAMETER_WITH_STATE, 1, 4, requires_grad=1, parameter=True),
)}


def tensor_args(call: TensorCall, args: tuple) -> Optional[tuple]:
    """The arguments of tensor call `call` (not a parameter's) by meaning: (storage,
    offset, size, stride, requires_grad (False when not passed), dtype (None unless named)),
    or None when their number is not one it takes. (A plain tuple: the loader reads one per
    tensor.)"""
    n = len(args)
    if not call.min_args <= n <= call.max_args or call.parameter:
        return None
    rg, dt = call.requires_grad, call.dtype
    return (args[0], args[1], args[2], args[3], args[rg] if rg is not None and rg < n else False,
            args[dt] if dt is not None else None)


class StorageRef(NamedTuple):
    """A storage persistent id by meaning."""
    cls: Global             # torch.<X>Storage (torch.UntypedStorage for v3's)
    key: Any                # the record's name in data/ (or constants/)
    location: Any           # the device it was saved from
    numel: Any              # its size in elements of its class's type


def storage_ref(pid: Any) -> Optional[StorageRef]:
    """The storage a persistent id names, or None when it is not a storage's."""
    if type(pid) is tuple and len(pid) == 5 and pid[0] == "storage" and type(pid[1]) is Global:
        return StorageRef(pid[1], pid[2], pid[3], pid[4])
    return None
