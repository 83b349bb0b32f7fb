"""`tsjit.as_torch()` and `python -m tsjit.run_as_torch`: torch-written source runs
unchanged, every `torch.X.Y` is tsjit's own module (one copy), a real torch never loads."""
import os
import subprocess
import sys
import textwrap

import pytest

import tsjit

ROOT = os.path.join(os.path.dirname(__file__), "..")

MODEL = textwrap.dedent("""
    import sys
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.nn import Parameter

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 2)
            self.scale = Parameter(torch.ones(2))

        def forward(self, x):
            return F.relu(self.fc(x)) * self.scale

    net = Net()
    with torch.no_grad():
        net.scale.copy_(torch.full((2,), 2.0))   # a Parameter of the one tsjit.nn
    scripted = torch.jit.script(net)
    x = torch.ones(1, 3)
    assert torch.equal(scripted(x), net(x))
    print(torch.__name__, nn.__name__, F.__name__, "real torch" if "torch._C" in sys.modules
          else "no real torch", *sys.argv[1:])
""")


def test_every_torch_module_is_tsjits_own():
    with tsjit.as_torch():
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        from torch.jit import script
        assert torch is tsjit and nn is tsjit.nn and F is tsjit.nn.functional
        assert script is tsjit.jit.script
        assert sys.modules["torch.nn"] is sys.modules["tsjit.nn"]


def test_a_module_tsjit_lacks_is_not_found():
    with tsjit.as_torch():
        with pytest.raises(ModuleNotFoundError, match="no_such_module"):
            import torch.no_such_module  # noqa: F401


def test_the_previous_torch_modules_come_back():
    before = {n: m for n, m in sys.modules.items() if n == "torch" or n.startswith("torch.")}
    with tsjit.as_torch():
        import torch  # noqa: F401
    after = {n: m for n, m in sys.modules.items() if n == "torch" or n.startswith("torch.")}
    assert after == before


@pytest.mark.slow
def test_run_as_torch_runs_a_torch_script_unchanged(tmp_path):
    script = tmp_path / "model.py"
    script.write_text(MODEL)
    env = {**os.environ, "PYTHONPATH": os.path.abspath(ROOT)}
    out = subprocess.run([sys.executable, "-m", "tsjit.run_as_torch", str(script), "a", "b"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["tsjit", "tsjit.nn", "tsjit.nn.functional", "no", "real",
                                  "torch", "a", "b"]
