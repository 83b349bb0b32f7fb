"""The allow-list of checkpoint pickles: the globals PyTorch 2.13's weights-only unpickler
accepts, the user's safe globals, and the refusals.

The unpickler (one machine for archives and checkpoints) checks each GLOBAL against an
allow-list given to it; `CheckpointAllowList` is the checkpoints' one. Refusing happens
there, before anything is built; a refusal is a `WeightsOnlyError` (a tsjit error and a
`pickle.UnpicklingError`) whose message starts as PyTorch's and names the remedy.
`unsafe_globals` lists what a pickle names beyond the allow-list without running it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from .checkpoint_format import (LAYOUT_NAMES, MEMORY_FORMAT_NAMES, QSCHEME_NAMES,
                                TORCH_DTYPE_NAMES, TYPED_STORAGES)
from .errors import UnpicklingError, WeightsOnlyError
from .unpickler import disassemble

# Modules no allow-list opens (PyTorch blocks them too): they reach the system.
BLOCKED_MODULES = frozenset({"sys", "os", "posix", "nt"})
# Protocol 2 pickles spell Python 3's module names as Python 2's (pickle's fix_imports).
_PY2_MODULES = {"__builtin__": "builtins", "copy_reg": "copyreg"}

# What PyTorch 2.13 allows by default, by qualified name.
DEFAULT_GLOBALS: frozenset[str] = frozenset(
    ["collections.OrderedDict", "collections.Counter", "torch.nn.parameter.Parameter",
     "torch.serialization._get_layout", "torch.Size", "torch.Tensor", "torch.device",
     "_codecs.encode", "builtins.bytearray", "builtins.set", "builtins.complex",
     "torch._tensor._rebuild_from_type_v2", "torch.UntypedStorage",
     "torch.storage.UntypedStorage", "torch.storage.TypedStorage"]
    + [f"torch._utils.{name}" for name in (
        "_rebuild_tensor", "_rebuild_tensor_v2", "_rebuild_tensor_v3", "_rebuild_parameter",
        "_rebuild_parameter_with_state", "_rebuild_sparse_tensor", "_rebuild_qtensor",
        "_rebuild_meta_tensor_no_storage", "_rebuild_nested_tensor",
        "_rebuild_wrapper_subclass", "_rebuild_device_tensor_from_cpu_tensor")]
    + [g.qualname for g in TYPED_STORAGES]
    + [f"torch.{name}" for name in TORCH_DTYPE_NAMES + LAYOUT_NAMES + MEMORY_FORMAT_NAMES
       + QSCHEME_NAMES])


def qualified_name(module: str, name: str) -> str:
    """`module.name` with Python 2 module names as Python 3's (`builtins.set`)."""
    return f"{_PY2_MODULES.get(module, module)}.{name}"


def safe_global_name(obj: Any) -> str:
    """The qualified name a class or function is allow-listed under."""
    if isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[1], str):
        return obj[1]       # (obj, "module.name"): as torch.serialization accepts
    module, name = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(name, str):
        raise TypeError(f"{obj!r} is not a class or function: it has no module and name")
    return f"{module}.{name}"


@dataclass
class CheckpointAllowList:
    """The globals a checkpoint may name: the defaults, plus `user` (qualified name ->
    the class or function the user allowed), plus any name when `any_name` (weights_only
    False: names are data; what a loader may call or build is still decided by it)."""

    user: dict[str, Any] = field(default_factory=dict)
    any_name: bool = False

    def __call__(self, module: str, name: str) -> bool:
        full = qualified_name(module, name)
        if full.split(".", 1)[0] in BLOCKED_MODULES:
            return False
        return self.any_name or full in DEFAULT_GLOBALS or full in self.user

    def allows(self, full: str) -> bool:
        """Whether qualified name `full` is allowed without `any_name`."""
        return full.split(".", 1)[0] not in BLOCKED_MODULES and (
            full in DEFAULT_GLOBALS or full in self.user)


def refusal(err: UnpicklingError) -> WeightsOnlyError:
    """The weights-only refusal for an unpickler's "forbidden global" error."""
    module, name = err.forbidden
    return refused_global(qualified_name(module, name), f"{err.record} at offset {err.offset}",
                          err.record, err.offset)


def refused_global(full: str, where: str, record: Optional[str] = None,
                   offset: Optional[int] = None, calls: bool = False) -> WeightsOnlyError:
    """The error for a checkpoint that needs global `full` (at `where`), which is not
    allowed; `calls`: it is allowed as a name but tsjit would have to call it."""
    module, _, name = full.rpartition(".")
    shown = name if module == "builtins" else full     # (PyTorch shows builtins by name)
    if module.split(".", 1)[0] in BLOCKED_MODULES:
        reason = (f"Trying to load unsupported GLOBAL {shown} whose module {module} is "
                  f"blocked ({where}). tsjit never loads it, with add_safe_globals or "
                  "weights_only=False either.")
    else:
        what = "calls" if calls else "was not an allowed global by default"
        reason = (f"Unsupported global: GLOBAL {shown} {what} ({where}). If you trust "
                  f"this class/function, allow it with `tsjit.serialization."
                  f"add_safe_globals([{name}])` or the `tsjit.serialization.safe_globals"
                  f"([{name}])` context manager. tsjit never imports or calls anything a "
                  "file names beyond the allow-list and your safe globals: it has no "
                  "unsafe mode, and weights_only=False does not add one.")
    return WeightsOnlyError(f"Weights only load failed. WeightsUnpickler error: {reason}",
                            record=record, offset=offset)


def unsafe_globals(data: bytes, record: str, allow: CheckpointAllowList) -> list[str]:
    """The qualified names of the globals pickle `data` names that `allow` refuses, read
    without running it (its opcodes of protocols 0-3: PyTorch's reader refuses others
    with "Unsupported operand", and so does this, so the answers agree)."""
    found: list[str] = []
    for offset, info, arg in disassemble(data, record):
        if info.proto >= 4 and info.name != "PROTO":
            raise WeightsOnlyError(f"Unsupported operand {info.code} in {record} at offset "
                                   f"{offset} (pickle protocol {info.proto} opcode "
                                   f"{info.name}; the file loads, this listing reads "
                                   "protocols 0-3 only, as PyTorch's)",
                                   record=record, offset=offset)
        if info.name in ("GLOBAL", "INST"):
            full = qualified_name(*arg)
            if not allow.allows(full) and full not in found:
                found.append(full)
    return found
