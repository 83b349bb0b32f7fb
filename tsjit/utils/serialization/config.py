"""Options of `tsjit.save` / `tsjit.load` for torch.save files, named as in
`torch.utils.serialization.config` (set them as attributes: `config.save.storage_alignment = 4096`).
"""
from __future__ import annotations


class _SaveConfig:
    """How checkpoints are written."""

    # data/ records start at a multiple of this file offset (a power of two, >= 64), so
    # that loading can map storages in place
    storage_alignment: int = 64
    # False writes zero CRC-32s (PyTorch reads such files; Python's zipfile refuses them)
    compute_crc32: bool = True


class _LoadConfig:
    """How checkpoints are read."""

    mmap: bool = False
    endianness = None
    calculate_storage_offsets: bool = False


save = _SaveConfig()
load = _LoadConfig()
