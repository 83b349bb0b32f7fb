"""@ignore functions and methods run in Python when scripted code calls them (PyTorch's
prim::PythonOp), in both executors; code holding such a call cannot be saved; @unused
methods compile to a raise."""
import os

import pytest

import tsjit
from tsjit import nn
from tsjit.ir.diagnostics import TsjitError

from tests.helpers.executors import executor

CALLS = []


@tsjit.jit.ignore
def record(t: tsjit.Tensor, tag: str) -> int:
    CALLS.append((tag, t.shape[0]))      # Python only: a list of a Python module
    return len(CALLS)


class WithIgnored(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.k = 5

    def forward(self, x: tsjit.Tensor) -> int:
        return self.helper(x) + record(x, "forward")

    @tsjit.jit.ignore
    def helper(self, x: tsjit.Tensor) -> int:
        return self.k * 100 + x.shape[0]   # self is the scripted module


class WithUnused(nn.Module):
    def forward(self, x: tsjit.Tensor) -> int:
        if self.training:
            return self.other(x)
        return 1

    @tsjit.jit.unused
    def other(self, x: tsjit.Tensor) -> int:
        return 3


@pytest.mark.parametrize("mode", ["interpreter", "codegen"])
def test_ignored_calls_run_in_python(mode):
    m = tsjit.script(WithIgnored())
    CALLS.clear()
    with executor(mode):
        assert m(tsjit.ones(3)) == 503 + 1
        assert m(tsjit.ones(4)) == 504 + 2
    assert CALLS == [("forward", 3), ("forward", 4)]


def test_ignored_calls_print_as_pytorch_shows_them():
    m = tsjit.script(WithIgnored())
    assert "torch.add(^helper()(self, x), ^record()(x, \"forward\"))" in m.code


def test_code_with_a_python_call_cannot_be_saved(tmp_path):
    path = tmp_path / "m.pt"
    with pytest.raises(TsjitError) as info:
        tsjit.save(tsjit.script(WithIgnored()), str(path))
    text = str(info.value)
    assert "Could not export Python function call 'helper'" in text
    assert "test_python_calls.py" in text and "self.helper(x)" in text   # located
    assert not os.listdir(tmp_path)      # nothing written, not even a temporary file


def test_unused_methods_raise_and_save(tmp_path):
    m = tsjit.script(WithUnused())
    with pytest.raises(Exception, match="annotated to be ignored"):
        m(tsjit.ones(2))
    m.eval()
    assert m(tsjit.ones(2)) == 1
    tsjit.save(m, str(tmp_path / "m.pt"))
    assert "ops.prim.RaiseException" in tsjit.load(str(tmp_path / "m.pt")).code
