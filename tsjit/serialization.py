"""tsjit.serialization: loading torch.save files, safely, and their allow-list (as torch.serialization).

    state = tsjit.load("model.pth")                  # a state dict of tsjit.Tensor
    with tsjit.serialization.safe_globals([MyConfig]):
        ckpt = tsjit.load("checkpoint.pt")           # instances of MyConfig allowed too

`load` reads torch.save files (zip or legacy) and TorchScript archives (as modules).
Loading never imports or calls anything a file names outside PyTorch's weights-only
allow-list and the classes and functions you allow here: `weights_only=False` is
accepted, and then objects of other classes load as inert stand-ins
(`PickledObject`), but nothing else is called (tsjit has no unsafe mode). See
docs/checkpoints.md.
"""
from __future__ import annotations

import enum
import mmap as _mmap
import os
import sys
from typing import Any, Iterable, Optional

from .ir.diagnostics import TsjitError
from .ir.limits import Limits, use_limits
from .utils.serialization import config

_safe_globals: list[Any] = []      # what add_safe_globals / safe_globals allowed


class LoadEndianness(enum.Enum):
    """The byte order assumed for files without a `byteorder` record."""

    NATIVE = 1
    LITTLE = 2
    BIG = 3


def add_safe_globals(safe_globals: Iterable[Any]) -> None:
    """Allow these classes and functions (or `(obj, "module.name")` pairs) in checkpoints."""
    from .serialize.weights_only import safe_global_name
    for g in safe_globals:
        safe_global_name(g)     # (a TypeError now, not at the next load)
        _safe_globals.append(g)


def clear_safe_globals() -> None:
    """Forget every class and function add_safe_globals allowed."""
    _safe_globals.clear()


def get_safe_globals() -> list[Any]:
    """The classes and functions allowed by add_safe_globals / safe_globals."""
    return list(_safe_globals)


class safe_globals:
    """A context manager that allows these classes and functions while it is entered."""

    def __init__(self, safe_globals: Iterable[Any]) -> None:
        self.safe_globals = list(safe_globals)

    def __enter__(self) -> None:
        self._saved = list(_safe_globals)
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc: Any) -> None:
        _safe_globals[:] = self._saved


def set_default_mmap_options(flags: int) -> None:
    """The flags of the mapping `load(mmap=True)` makes; tsjit maps privately only."""
    if flags != getattr(_mmap, "MAP_PRIVATE", None):
        raise TsjitError(f"mmap flags {flags!r}: tsjit maps files with MAP_PRIVATE only "
                         "(copy-on-write: writing into a loaded tensor never changes the file)")
    config.load.mmap_flags = flags


def get_default_mmap_options() -> Optional[int]:
    """The flags of the mapping `load(mmap=True)` makes (MAP_PRIVATE)."""
    return config.load.mmap_flags


def set_default_load_endianness(endianness: Optional[LoadEndianness]) -> None:
    """The byte order assumed for files that do not record theirs (None: native)."""
    if endianness is not None and not isinstance(endianness, LoadEndianness):
        raise TsjitError("set_default_load_endianness takes a LoadEndianness or None")
    config.load.endianness = endianness


def get_default_load_endianness() -> Optional[LoadEndianness]:
    """The byte order assumed for files that do not record theirs."""
    return config.load.endianness


def get_unsafe_globals_in_checkpoint(f: Any) -> list[str]:
    """The `module.name` of each class or function a zip checkpoint names that is not
    allowed (by default or by add_safe_globals), read without loading anything."""
    from .serialize import checkpoint_load as C
    from .serialize.errors import NotACheckpointError
    from .serialize.weights_only import CheckpointAllowList, unsafe_globals
    from .serialize.sources import source_of
    source = source_of(f, mmap=False)
    if C.file_kind(_first_bytes(source)) != "zip":
        raise NotACheckpointError("Expected input to be a checkpoint returned by torch.save "
                                  "in the zip format (this file is not one)")
    try:
        reader = C.open_zip_checkpoint(source)
    except C.TorchScriptArchive as archive:
        archive.reader.close()
        raise NotACheckpointError("Expected input to be a checkpoint returned by torch.save "
                                  "but got a torchscript checkpoint") from None
    with reader:
        where = f"{reader.top}/data.pkl"
        return unsafe_globals(reader.read("data.pkl"), where,
                              CheckpointAllowList(_user_globals()))


def load(f: Any, map_location: Any = None, pickle_module: Any = None, *,
         weights_only: Optional[bool] = None, mmap: Optional[bool] = None,
         _extra_files: Optional[dict] = None, limits: Optional[Limits] = None,
         check: Optional[str] = None, **pickle_load_args: Any) -> Any:
    """Load what torch.save (or tsjit.save) wrote to `f` (a path or a file-like object):
    containers of tensors; a TorchScript archive loads as a module.

    Only PyTorch's weights-only allow-list and your safe globals are ever built or called
    (weights_only=False loads objects of other classes as stand-ins, calls nothing
    more). `mmap=True` maps the file: every tensor views it, nothing is read until used.
    `_extra_files`, `check` (archives only) as for tsjit.jit.load. `limits` (a
    `tsjit.Limits`; None: those in force) bounds what the load may cost, and for an
    archive every call of its module.
    """
    from .serialize import checkpoint_load as C
    from .serialize.errors import CheckpointError
    from .serialize.sources import check_map_location, source_of
    if pickle_module is not None or pickle_load_args:
        raise TsjitError("tsjit.load reads files with its own restricted unpickler: "
                         "pickle_module and pickle load arguments are not supported")
    check_map_location(map_location)
    mmap = config.load.mmap if mmap is None else bool(mmap)
    source = source_of(f, mmap)
    options = C.LoadOptions(
        weights_only=weights_only is not False, mmap=mmap, safe_globals=_user_globals(),
        endianness=_endianness(), calculate_storage_offsets=config.load.calculate_storage_offsets,
        make_parameter=_make_parameter)
    if limits is not None and not isinstance(limits, Limits):
        raise TsjitError(f"limits must be a tsjit.Limits, not {type(limits).__name__}")
    try:
        if limits is None:
            value = C.load_checkpoint(source, options)
        else:
            with use_limits(limits):
                value = C.load_checkpoint(source, options)
    except C.TorchScriptArchive as archive:
        if weights_only:
            archive.reader.close()
            raise CheckpointError(
                "Cannot use ``weights_only=True`` with TorchScript archives passed to "
                "``tsjit.load``: load it with tsjit.load(f) without weights_only, or "
                "tsjit.jit.load(f) (loading an archive runs no Python from the file, "
                "only its TorchScript code, so it is safe)") from None
        from .jit.script_module import ScriptModule
        from .serialize import load_module
        code_check = None
        if check is not None:
            from .jit.code_check import check_argument
            code_check = check_argument(check)
        return load_module(archive.reader, ScriptModule, _extra_files, limits=limits,
                           map_to_cpu=map_location is not None, check=code_check)   # (open already)
    if _extra_files is not None or check is not None:
        raise TsjitError(f"{'_extra_files' if check is None else 'check'} is for "
                         "TorchScript archives; this is a torch.save checkpoint")
    return value


def save(obj: Any, f: Any, pickle_module: Any = None, pickle_protocol: int = 2,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False,
         _extra_files: Optional[dict] = None) -> None:
    """Write `obj` to `f` (a path, replaced atomically, or a binary file object) as
    torch.save does: a scripted module as a TorchScript archive (as tsjit.jit.save); any
    other value as a checkpoint torch.load reads, in the zip format (storages aligned to
    `config.save.storage_alignment`) or, with `_use_new_zipfile_serialization=False`, the
    legacy one. See docs/checkpoints.md."""
    from .serialize.checkpoint_save import save as save_value
    save_value(obj, f, pickle_module, pickle_protocol, _use_new_zipfile_serialization,
               _disable_byteorder_record, _extra_files,
               storage_alignment=config.save.storage_alignment,
               compute_crc32=config.save.compute_crc32)


def _first_bytes(source: Any) -> bytes:
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as fh:
            return fh.read(512)
    return bytes(memoryview(source)[:512])


def _user_globals() -> dict[str, Any]:
    from .serialize.weights_only import safe_global_name
    return {safe_global_name(g): (g[0] if isinstance(g, tuple) else g) for g in _safe_globals}


def _endianness() -> str:
    e = config.load.endianness
    if e is None or e == LoadEndianness.NATIVE:
        return sys.byteorder
    return "big" if e == LoadEndianness.BIG else "little"


def _make_parameter(t: Any, requires_grad: bool) -> Any:
    from .nn import Parameter
    return Parameter(t, requires_grad=requires_grad)


def __getattr__(name: str) -> Any:
    # (the checkpoint loader is imported when first needed: `import tsjit` stays light)
    if name == "PickledObject":
        from .serialize.checkpoint_values import PickledObject
        return PickledObject
    raise AttributeError(f"module 'tsjit.serialization' has no attribute '{name}'")


__all__ = ["LoadEndianness", "PickledObject", "add_safe_globals", "clear_safe_globals", "get_safe_globals",
           "safe_globals", "get_unsafe_globals_in_checkpoint", "set_default_mmap_options",
           "get_default_mmap_options", "set_default_load_endianness",
           "get_default_load_endianness", "load", "save"]
