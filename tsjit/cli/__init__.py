"""The `tsjit` command: look into archives and checkpoints, run their methods, check round trips.

One module per command (`tsjit/cli/<command>.py`, listed in COMMANDS); `boundary.py` is the one
place errors become one line and exit codes (0 ok, 1 error, 2 usage).
"""
from __future__ import annotations

from .main import main

__all__ = ["main"]
