"""The torch.jit names code written against PyTorch calls, and ScriptModule's
nn.Module-style conveniences."""
from typing import Dict, List

import pytest

import tsjit


class _Leaf(tsjit.nn.Module):
    def forward(self, x: tsjit.Tensor) -> tsjit.Tensor:
        return tsjit.relu(x) + 1


def test_error_is_what_failing_scripted_code_raises():
    @tsjit.jit.script
    def boom(x: int) -> int:
        if x > 0:
            raise ValueError("positive")
        return x
    with pytest.raises(tsjit.jit.Error):
        boom(1)
    assert issubclass(tsjit.jit.Error, RuntimeError)


def test_attribute_declares_an_attribute_type():
    class Holder(tsjit.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.xs = tsjit.jit.Attribute([], List[int])
            self.table = tsjit.jit.Attribute({}, Dict[str, float])

        def forward(self, x: int) -> int:
            self.xs.append(x)
            self.table["n"] = float(len(self.xs))
            return len(self.xs)

    m = tsjit.jit.script(Holder())
    assert (m(3), m(4)) == (1, 2) and m.xs == [3, 4] and m.table == {"n": 2.0}


def test_fork_and_wait_in_python():
    fut = tsjit.jit.fork(lambda a, b: a * b, 3, b=4)
    assert tsjit.jit.wait(fut) == 12 and fut.done() and tsjit.jit._wait(tsjit.jit._fork(abs, -2)) == 2


def test_script_method_marks_a_method_for_compilation():
    class WithExtra(tsjit.nn.Module):
        def forward(self, x: int) -> int:
            return x

        @tsjit.jit.script_method
        def twice(self, x: int) -> int:
            return 2 * x

    assert tsjit.jit.script(WithExtra()).twice(4) == 8


def test_optimize_for_inference_and_optimized_execution():
    m = tsjit.jit.script(_Leaf()).eval()
    with tsjit.jit.optimized_execution(True):
        frozen = tsjit.jit.optimize_for_inference(m)
    x = tsjit.tensor([-1.0, 2.0])
    assert tsjit.equal(frozen(x), m(x))


def test_export_opnames_lists_the_operators_run():
    assert tsjit.jit.export_opnames(tsjit.jit.script(_Leaf())) == ["aten::add.Scalar", "aten::relu"]


def test_script_module_conveniences():
    m = tsjit.jit.script(tsjit.nn.Linear(2, 3))
    assert isinstance(m, tsjit.jit.RecursiveScriptModule)
    assert m.double().weight.dtype == tsjit.float64 and m.float().weight.dtype == tsjit.float32
    assert m.cpu() is m and m.to("cpu") is m and m.extra_repr() == ""
    with pytest.raises(RuntimeError, match="CPU only"):
        m.to("cuda")
    seen = []
    m.apply(seen.append)
    assert seen == [m]
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())
    loaded = tsjit.jit.load(m.save_to_buffer())
    x = tsjit.ones(1, 2)
    assert tsjit.equal(loaded(x), m(x))
