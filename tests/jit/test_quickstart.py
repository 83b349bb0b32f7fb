"""The walking skeleton end to end: script -> run -> print -> save -> load -> run (the printed
graph and code are golden cases in tests/golden/quickstart.test)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tsjit
from tests.helpers.models import Net, collatz_steps, mixed

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def _reference(net, x, n):
    """The same computation directly in numpy."""
    w, b = net.fc.weight.numpy(), net.fc.bias.numpy()
    y = np.maximum(x @ w.T + b, 0)
    for i in range(n):
        y = y * net.scale if i % 2 == 0 else y + 1.0
    return y


def test_results_match_numpy():
    net = Net()
    m = tsjit.script(net)
    x = np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32)
    for n in (0, 1, 2, 5):
        y = m(tsjit.from_numpy(x), n)
        assert y.numpy().dtype == np.float32
        np.testing.assert_allclose(y.numpy(), _reference(net, x, n), rtol=1e-5, atol=1e-6)
    # numpy arrays are accepted where tensors are expected
    np.testing.assert_allclose(m(x, 3).numpy(), _reference(net, x, 3), rtol=1e-5, atol=1e-6)


def test_parameters_are_reachable():
    net = Net()
    m = tsjit.script(net)
    assert isinstance(m.fc.weight, tsjit.Tensor)
    np.testing.assert_array_equal(m.fc.weight.numpy(), net.fc.weight.numpy())
    assert [k for k, _ in m.named_parameters()] == ["fc.weight", "fc.bias"]
    assert m.scale == 2


def test_functions_script():
    f = tsjit.script(collatz_steps)
    assert [f(n) for n in (1, 6, 27)] == [collatz_steps(n) for n in (1, 6, 27)]
    g = tsjit.script(mixed)
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(g(x, 3, 0.5, True).numpy(), x * 0.125)
    np.testing.assert_allclose(g(x, 3, 0.5, False).numpy(), x - 3)


def test_save_load_run(tmp_path):
    m = tsjit.script(Net())
    x = tsjit.from_numpy(np.ones((2, 4), np.float32))
    path = tmp_path / "net.pt"
    tsjit.save(m, str(path))
    loaded = tsjit.load(str(path))
    np.testing.assert_allclose(loaded(x, 5).numpy(), m(x, 5).numpy())
    np.testing.assert_array_equal(loaded.fc.weight.numpy(), m.fc.weight.numpy())
    assert loaded.code == m.code


def test_no_jitter(tmp_path):
    m = tsjit.script(Net())
    a, b, c = (tmp_path / d for d in "abc")
    for d in (a, b, c):
        d.mkdir()
    tsjit.save(m, str(a / "net.pt"))
    tsjit.save(tsjit.load(str(a / "net.pt")), str(b / "net.pt"))
    tsjit.save(tsjit.load(str(b / "net.pt")), str(c / "net.pt"))
    first = (a / "net.pt").read_bytes()
    assert (b / "net.pt").read_bytes() == first
    assert (c / "net.pt").read_bytes() == first


@pytest.mark.slow
def test_quickstart_example_runs(tmp_path):
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "quickstart.py")],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "prim::Loop" in out.stdout and "prim::If" in out.stdout
    assert "def forward(self" in out.stdout
    code = subprocess.run([sys.executable, "-m", "tsjit.cli", "code", "net.pt"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert code.returncode == 0, code.stderr
    assert "class Net(Module):" in code.stdout and "class Linear(Module):" in code.stdout
