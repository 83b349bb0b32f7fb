"""The `tsjit` command line as a user runs it, and archives for its tests."""
from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def tsjit(*args: str, cwd: os.PathLike = ROOT, process: bool = False) -> subprocess.CompletedProcess:
    """`tsjit ARGS`: its entry point (`tsjit.cli.app.main`) called in this process with stdout
    and stderr captured, or (process=True) `python -m tsjit ARGS` in a fresh interpreter with
    this tree first on the path. A fresh process costs ~0.4 s of CPU (Python, numpy, tsjit):
    each command has its subprocess test in test_main.py; the variants run in-process."""
    argv = [str(a) for a in args]
    if process:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        return subprocess.run([sys.executable, "-m", "tsjit", *argv], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=300)
    from tsjit.cli.app import main
    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    finally:
        os.chdir(here)
    return subprocess.CompletedProcess(["tsjit", *argv], code, out.getvalue(), err.getvalue())


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


def zoo_archive(name: str = "tv_resnet18") -> Path:
    """A model-zoo archive (torch.jit.save of a torchvision model), generated into the zoo's
    cache when missing; the test is skipped when PyTorch or torchvision is absent."""
    import pytest
    pytest.importorskip("torch", reason="the zoo's archives are written by PyTorch")
    from tests.helpers import zoo_generate
    from tests.helpers.zoo_models import CASES
    case = next(c for c in CASES if c.name == name)
    why = zoo_generate.missing_library(case.library)
    if why:
        pytest.skip(why)
    return Path(zoo_generate.ensure(name)) / "model.pt"


def doc_schema(heading: str) -> dict:
    """The JSON schema under `## heading` of docs/cli.md."""
    import json
    import re
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    found = re.search(rf"## `{re.escape(heading)}`.*?```json\n(.*?)```", text, re.S)
    assert found, f"docs/cli.md has no schema under {heading}"
    return json.loads(found[1])
