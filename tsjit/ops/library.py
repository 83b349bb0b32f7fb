"""Importing kernel modules (each registers its operators when imported): one, or all."""
from __future__ import annotations

import importlib

from .kernel_index import module_names


def import_kernel_module(name: str) -> None:
    """Import `tsjit.ops.kernels.<name>` (registering its operators)."""
    importlib.import_module(f"tsjit.ops.kernels.{name}")


def import_all() -> None:
    """Import every kernel module, in name order."""
    for name in module_names():
        import_kernel_module(name)
