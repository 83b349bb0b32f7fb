"""Run the `tsjit` command line in a subprocess, as a user would."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def tsjit(*args: str, cwd: os.PathLike = ROOT) -> subprocess.CompletedProcess:
    """`python -m tsjit ARGS` with this tree first on the path."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "tsjit", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)
