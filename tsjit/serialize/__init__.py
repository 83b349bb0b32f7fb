"""Archives: zip layout, pickles, debug records, export (module -> archive) and loading.

The names below are imported when first used: loading an archive needs none of the
writer's modules (export, the printer), and a fresh process compiles fewer of them."""
from __future__ import annotations

import importlib

from ..ir.lazy_names import lazy_getattr
from .errors import ArchiveError, PicklingError, UnpicklingError

# name -> the module of this package that defines it
_LAZY = {"archive_records": "export", "save_module": "export",
         "list_extra_files": "extra_files", "read_extra_files": "extra_files",
         "load_module": "loader", "ArchiveReader": "zip_archive", "ArchiveWriter": "zip_archive"}

__all__ = ["ArchiveError", "PicklingError", "UnpicklingError", *_LAZY]


__getattr__ = lazy_getattr(__name__, _LAZY,
                           lambda m: importlib.import_module(f".{m}", __name__))
