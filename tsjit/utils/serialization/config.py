"""Process-wide settings of `tsjit.save` and `tsjit.load`, as `torch.utils.serialization.config`.

    from tsjit.utils.serialization import config
    config.load.calculate_storage_offsets = True
    config.save.storage_alignment = 4096

The public functions read these once per call, when they are not given explicitly, and
pass the values down; nothing below `tsjit.serialization` reads this module.
"""
from __future__ import annotations

import mmap as _mmap
from typing import Optional


class load:
    """Settings of `tsjit.load`."""

    # mmap=None in a call means this.
    mmap: bool = False
    # None/"native": data in the file's `byteorder`; "little"/"big": force one for files
    # without a byteorder record (see tsjit.serialization.set_default_load_endianness).
    endianness: Optional[str] = None
    # flags of the mapping mmap=True makes: MAP_PRIVATE (copy-on-write) or MAP_SHARED
    mmap_flags: Optional[int] = getattr(_mmap, "MAP_PRIVATE", None)
    # mmap=True: find each storage's data from `.format_version` and the record before it,
    # instead of reading its local header (fewer random reads off slow storage)
    calculate_storage_offsets: bool = False


class save:
    """Settings of `tsjit.save` (torch.save's format)."""

    # write the CRC-32 of each record (PyTorch may leave them 0 when this is off)
    compute_crc32: bool = True
    # accepted for PyTorch's API; tsjit's tensors are always in host memory
    use_pinned_memory_for_d2h: bool = False
    # storage data starts at a multiple of this many bytes (the `.storage_alignment` record)
    storage_alignment: int = 64
