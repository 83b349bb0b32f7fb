"""Scripting the same module gives the same code in every process (no hash-order jitter)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow

_PROGRAM = r"""
import tsjit
from tsjit import nn
class M(nn.Module):
    __constants__ = ["c", "a", "b", "zeta", "eta", "theta"]
    def __init__(self):
        super().__init__()
        self.theta = 1; self.a = 2.0; self.c = "x"; self.zeta = 4; self.b = 5; self.eta = 6
        self.act = nn.Softplus(2.0, 10.0)
    def forward(self, x: tsjit.Tensor) -> tsjit.Tensor:
        return self.act(x) * self.a + self.b + self.zeta + self.eta + self.theta
import io, zipfile
buf = io.BytesIO()
tsjit.save(tsjit.script(M()), buf)
with zipfile.ZipFile(buf) as z:
    for name in sorted(z.namelist()):
        if name.endswith(".py"):
            print(z.read(name).decode())
"""


def _code(seed: str, folder: str) -> str:
    env = dict(os.environ, PYTHONHASHSEED=seed)
    return subprocess.run([sys.executable, os.path.join(folder, "prog.py")], env=env,
                          check=True, capture_output=True, text=True).stdout


def test_constants_print_in_the_same_order_whatever_the_hash_seed(tmp_path) -> None:
    (tmp_path / "prog.py").write_text(_PROGRAM)     # (scripting reads the source file)
    outputs = {_code(seed, str(tmp_path)) for seed in ("0", "1", "2", "3", "4", "5")}
    assert len(outputs) == 1, "\n----\n".join(sorted(outputs))
    (code,) = outputs
    assert code.index("theta") < code.index("zeta")     # the order they were set in
