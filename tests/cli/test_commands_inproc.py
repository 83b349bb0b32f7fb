"""The `tsjit` command."""
import numpy as np

from tests.helpers.corpus import case_path
from tsjit.cli import main


def test_code_list_graph_roundtrip(capsys):
    path = case_path("model_mlp")
    assert main(["code", path]) == 0
    assert "class MLP(Module):" in capsys.readouterr().out
    assert main(["list", path]) == 0
    assert "model/data.pkl" in capsys.readouterr().out
    assert main(["graph", path]) == 0
    assert "prim::CallMethod" in capsys.readouterr().out
    assert main(["roundtrip", path]) == 0
    assert "stable" in capsys.readouterr().out


def test_run_with_arrays_and_literals(tmp_path, capsys):
    x = tmp_path / "x.npy"
    np.save(x, np.ones((2, 6), np.float32))
    assert main(["run", case_path("model_mlp"), str(x)]) == 0
    assert "tensor(" in capsys.readouterr().out
    assert main(["run", case_path("lang_int_arith"), "7", "3"]) == 0


def test_errors_are_reported_not_raised(tmp_path, capsys):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a zip")
    assert main(["code", str(bad)]) == 1
    assert "tsjit: error:" in capsys.readouterr().err
    assert main(["run", case_path("model_mlp"), "not-a-literal"]) == 1


def test_closed_pipe_is_not_an_error():
    # `tsjit code x.pt | head -1`: the reader has gone; stdout is a pipe nobody reads.
    import subprocess
    import sys
    script = ("import os, sys\n"
              "r, w = os.pipe(); os.close(r); os.dup2(w, 1)\n"
              "from tsjit.cli import main\n"
              f"sys.exit(main(['code', {case_path('model_mlp')!r}]))\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""


def test_a_checkpoint_is_named_not_a_failure(capsys):
    import os
    cases = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "ckpt", "cases")
    for case in ("sd_linear", "legacy_state_dict"):
        path = os.path.join(cases, case, "file.pt")
        assert main(["list", path]) == 0
        out = capsys.readouterr().out
        assert "a torch.save checkpoint" in out and "tsjit.load" in out
        assert ("file/data/0" in out) == (case == "sd_linear")
        for command in ("code", "graph", "run"):
            assert main([command, path]) == 1
            err = capsys.readouterr().err
            assert "torch.save checkpoint" in err and "not a TorchScript archive" in err
            assert "Traceback" not in err
