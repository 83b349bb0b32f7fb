"""Imports every kernel module under `ops/kernels/`, which registers its operators."""
from __future__ import annotations

import importlib
import pkgutil

from . import kernels

for _info in sorted(pkgutil.iter_modules(kernels.__path__), key=lambda m: m.name):
    importlib.import_module(f"tsjit.ops.kernels.{_info.name}")
