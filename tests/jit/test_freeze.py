"""tsjit.jit.freeze: parameters and attributes become code constants, submodule calls are
inlined, only forward and the preserved methods remain; the result runs, prints and saves."""
import numpy as np
import pytest

import tsjit
from tsjit import Tensor, nn


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4, 3)
        self.offset = 0.5

    def forward(self, x: Tensor) -> Tensor:
        h = tsjit.relu(self.bn(self.conv(x)))
        return self.fc(h.mean([2, 3])) + self.offset

    @tsjit.jit.export
    def embed(self, x: Tensor) -> Tensor:
        return self.conv(x).flatten(1)

    @tsjit.jit.export
    def unused_helper(self, x: Tensor) -> Tensor:
        return x + 1


def _net() -> Net:
    tsjit.manual_seed(0)
    net = Net()
    net.bn.running_mean.uniform_(-0.2, 0.2)
    net.bn.running_var.uniform_(0.5, 1.5)
    return net.eval()


@pytest.fixture
def frozen():
    return tsjit.jit.freeze(tsjit.script(_net()), preserved_attrs=["embed"])


def test_frozen_module_computes_what_the_scripted_one_does(frozen):
    scripted = tsjit.script(_net())
    x = tsjit.randn(2, 2, 5, 5)
    np.testing.assert_allclose(frozen(x).numpy(), scripted(x).numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(frozen.embed(x).numpy(), scripted.embed(x).numpy(), rtol=1e-6)


def test_only_forward_and_preserved_methods_remain_without_attributes(frozen):
    t = frozen._c.type
    assert list(t.methods) == ["forward", "embed"]
    assert t.attributes == []
    assert "___torch_mangle_" in t.qualified_name
    for fn in t.methods.values():
        kinds = {n.kind for n in fn.graph.walk()}
        assert not kinds & {"prim::GetAttr", "prim::CallMethod", "prim::CallFunction"}


def test_batch_norm_is_folded_into_the_convolution(frozen):
    code = frozen.code
    assert "batch_norm" not in code and "conv2d" in code and "CONSTANTS.c0" in code
    assert "self." not in code


def test_frozen_module_saves_loads_and_prints(frozen, tmp_path):
    path = tmp_path / "frozen.pt"
    tsjit.save(frozen, str(path))
    loaded = tsjit.load(str(path))
    x = tsjit.randn(1, 2, 4, 4)
    np.testing.assert_array_equal(loaded(x).numpy(), frozen(x).numpy())
    np.testing.assert_array_equal(loaded.embed(x).numpy(), frozen.embed(x).numpy())
    tsjit.save(loaded, str(tmp_path / "again.pt"))
    assert tsjit.load(str(tmp_path / "again.pt")).code == loaded.code


def test_constants_do_not_follow_later_changes_of_the_original():
    scripted = tsjit.script(_net())
    frozen = tsjit.jit.freeze(scripted)
    x = tsjit.randn(1, 2, 4, 4)
    before = frozen(x).numpy()
    scripted.fc.weight.numpy()[...] = 0.0
    np.testing.assert_array_equal(frozen(x).numpy(), before)


class Counter(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.calls = 0
        self.scale = 3
        self.names = {"a": 1}
        self.lin = nn.Linear(2, 2)

    def forward(self, x: Tensor) -> Tensor:
        self.calls += 1
        if self.training:
            x = x * 2
        return self.lin(x) * self.scale + self.calls + self.names["a"]


def test_written_and_unfoldable_attributes_stay_attributes():
    frozen = tsjit.jit.freeze(tsjit.script(Counter().eval()))
    t = frozen._c.type
    assert [a.name for a in t.attributes] == ["calls", "names"]
    assert "self.scale" not in frozen.code and "training" not in frozen.code
    x = tsjit.ones(1, 2)
    first, second = frozen(x).numpy(), frozen(x).numpy()
    np.testing.assert_allclose(second - first, 1.0, rtol=1e-6)
    assert frozen.calls == 2


def test_preserved_attribute_stays():
    frozen = tsjit.jit.freeze(tsjit.script(Counter().eval()), preserved_attrs=["scale"])
    assert frozen.scale == 3 and "self.scale" in frozen.code


def test_freeze_errors():
    with pytest.raises(tsjit.TsjitError, match="eval mode"):
        tsjit.jit.freeze(tsjit.script(Net()))
    with pytest.raises(tsjit.TsjitError, match="ScriptModule"):
        tsjit.jit.freeze(Net().eval())
    with pytest.raises(tsjit.TsjitError, match="'nothing' was not found"):
        tsjit.jit.freeze(tsjit.script(_net()), preserved_attrs=["nothing"])
