"""The command line as a whole: entry points, help, exit codes, errors; each command once
through a fresh process (`tsjit(..., process=True)`), its variants in-process."""
import numpy as np
import pytest

from tests.helpers.corpus import case_path
from tsjit.cli.app import COMMANDS

from tests.helpers.cli import ROOT, tsjit


def test_version_and_both_entry_points():
    import os
    import subprocess
    import sys
    import tsjit as T
    assert tsjit("--version", process=True).stdout.strip() == f"tsjit {T.__version__}"
    proc = subprocess.run([sys.executable, "-m", "tsjit.cli", "--version"], capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.stdout == tsjit("--version").stdout


def _invocation(command: str, tmp_path) -> list:
    x = tmp_path / "x.npy"
    np.save(x, np.ones((2, 6), np.float32))
    mlp = case_path("model_mlp")
    more = {"run": [x], "diff": [mlp], "report": ["-o", tmp_path / "r.html"],
            "convert": [tmp_path / "w.safetensors"], "show": ["data.pkl"]}
    if command == "convert":
        pytest.importorskip("safetensors", reason="tsjit convert writes safetensors with it")
    return [command, mlp, *more.get(command, [])]


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_runs_in_a_fresh_process(command, tmp_path):
    """As a user runs it: `python -m tsjit COMMAND ...` exits 0 and prints what the entry point
    prints in-process (the other tests call it in-process)."""
    args = _invocation(command, tmp_path)
    fresh = tsjit(*args, process=True)
    assert fresh.returncode == 0, fresh.stderr
    assert fresh.stdout.strip() and "Traceback" not in fresh.stderr
    if command not in ("run", "roundtrip", "report", "convert"):   # timings, temporary names
        assert fresh.stdout == tsjit(*args).stdout


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_has_help_with_an_example(command):
    proc = tsjit(command, "--help")
    assert proc.returncode == 0
    assert f"usage: tsjit {command}" in proc.stdout
    assert f"example:\n  tsjit {command} " in proc.stdout
    assert "exit codes: 0 ok, 1 error, 2 usage error" in proc.stdout
    assert command in tsjit("--help").stdout


@pytest.mark.parametrize("args", [[], ["nosuchcommand"], ["info"], ["info", "--nosuchoption", "x"]])
def test_usage_errors_exit_2(args):
    proc = tsjit(*args)
    assert proc.returncode == 2 and "usage:" in proc.stderr and "Traceback" not in proc.stderr


def test_run_arguments_in_any_order(tmp_path):
    x = tmp_path / "x.npy"
    np.save(x, np.ones((2, 6), np.float32))
    path = case_path("model_mlp")
    outs = [tsjit("run", path, "-m", "hidden", x), tsjit("run", "-m", "hidden", path, x),
            tsjit("run", path, x, "--method", "hidden")]
    assert all(p.returncode == 0 for p in outs), [p.stderr for p in outs]
    assert len({p.stdout for p in outs}) == 1 and "tensor(" in outs[0].stdout


def test_errors_are_one_line_and_debug_shows_the_traceback(tmp_path):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a zip")
    for args in (["code", bad], ["info", bad], ["info", tmp_path / "missing.pt"], ["info", tmp_path],
                 ["run", case_path("model_mlp"), "-m", "nosuch"],
                 ["run", case_path("model_mlp"), "not-a-literal"]):
        proc = tsjit(*args)
        assert proc.returncode == 1, args
        assert proc.stderr.startswith("tsjit: error: ") and proc.stderr.count("\n") == 1, proc.stderr
    debug = tsjit("code", bad, "--debug", process=True)
    assert debug.returncode == 1 and "Traceback" in debug.stderr
    assert debug.stderr.splitlines()[-1].startswith("tsjit: error: ")


def test_a_checkpoint_is_named_by_every_command(checkpoint, tmp_path):
    """Commands that need code explain a checkpoint; the others handle it."""
    for command in ("check", "code", "graph", "run", "roundtrip"):
        proc = tsjit(command, checkpoint)
        assert proc.returncode == 1
        assert "torch.save checkpoint" in proc.stderr and f"tsjit {command}" in proc.stderr
    listed = tsjit("list", checkpoint)
    assert listed.returncode == 0 and "a torch.save checkpoint (zip, 2 storages)" in listed.stdout
    handled = {"info": [], "weights": [], "show": [], "diff": [checkpoint],
               "report": ["-o", tmp_path / "r.html"], "convert": [tmp_path / "c.pt"]}
    assert set(handled) | {"check", "code", "graph", "run", "roundtrip", "list"} == set(COMMANDS)
    for command, more in handled.items():
        proc = tsjit(command, checkpoint, *more)
        assert proc.returncode == 0, (command, proc.stderr)
