"""The `tsjit` command line in a subprocess, as a user runs it, and archives for its tests."""
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


def with_renamed_operator(tmp_path: Path) -> Path:
    """model_mlp with its calls of torch.relu renamed to an operator nobody has."""
    from tests.helpers.corpus import case_path
    from tsjit.serialize import ArchiveReader, ArchiveWriter
    src = ArchiveReader(case_path("model_mlp"))
    out = tmp_path / "m.pt"
    renamed = 0
    with ArchiveWriter(str(out), top=src.top) as w:
        for name in src.names():
            data = src.read(name)
            if name.endswith(".py"):
                renamed += data.count(b"torch.relu(")
                data = data.replace(b"torch.relu(", b"torch.no_such_op_xyz(")
            w.write_record(name, data)
    assert renamed, "model_mlp no longer calls torch.relu"
    return out
