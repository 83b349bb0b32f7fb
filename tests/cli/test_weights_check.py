"""`tsjit weights` and `tsjit check` through a subprocess."""
import json

import numpy as np
import pytest

from tests.helpers.corpus import case_path

from tests.helpers.cli import tsjit, with_renamed_operator


def test_weights_rows_match_the_tensors():
    import tsjit as T
    path = case_path("model_mlp")
    proc = tsjit("weights", path, "--json")
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    tensors = dict(T.jit.load(path).named_parameters())
    assert [r["name"] for r in rows] == list(tensors)
    for r in rows:
        a = tensors[r["name"]].numpy().astype(np.float64)
        assert r["shape"] == list(a.shape) and r["bytes"] == a.size * 4
        assert r["min"] == a.min() and r["max"] == a.max()
        assert np.isclose(r["mean"], a.mean()) and np.isclose(r["std"], a.std(ddof=1))
    assert "features.0.weight" in tsjit("weights", path).stdout


def test_weights_of_a_checkpoint(checkpoint):
    rows = {r["name"]: r for r in map(json.loads, tsjit("weights", checkpoint, "--json")
                                      .stdout.splitlines())}
    assert rows["w"]["dtype"] == "float32" and rows["w"]["max"] == 5.0
    assert rows["b"]["dtype"] == "int64" and rows["b"]["mean"] == 1.5


def test_weights_statistics_go_chunk_by_chunk(monkeypatch):
    from tsjit.cli import weights
    from tsjit.cli.contents import TensorRef
    a = np.random.default_rng(0).normal(3.0, 2.0, 1000).astype(np.float32)
    monkeypatch.setattr(weights, "_CHUNK", 7)
    ref = TensorRef("a", "tensors", "data/0", "float32", 0, (1000,), (1,))
    # the file's chunks (uneven, as reads return them) split again into statistics chunks
    row = weights.measure(ref, iter([a[:300], a[300:301], a[301:]]))
    assert np.isclose(row["mean"], a.astype(np.float64).mean())
    assert np.isclose(row["std"], a.astype(np.float64).std(ddof=1))
    assert row["min"] == a.min() and row["max"] == a.max()


def test_check_passes_a_supported_archive_and_fails_an_unknown_operator(tmp_path):
    ok = tsjit("check", case_path("model_mlp"))
    assert ok.returncode == 0 and "0 problems" in ok.stdout
    bad = tsjit("check", with_renamed_operator(tmp_path))
    assert bad.returncode == 1
    assert "aten::no_such_op_xyz at model/code/__torch__/torch/nn/functional.py:" in bad.stdout
    assert "1 problem" in bad.stdout


def test_check_names_a_checkpoint(checkpoint):
    proc = tsjit("check", checkpoint)
    assert proc.returncode == 1 and "torch.save checkpoint" in proc.stderr


def test_contiguous_tensors_are_read_from_the_file_in_bounded_chunks(monkeypatch):
    import tsjit as T
    from tsjit.cli import contents
    path = case_path("model_mlp")
    view = contents.open_file(path)
    monkeypatch.setattr(contents, "_CHUNK_BYTES", 40)            # 10 float32 at a time
    params = dict(T.jit.load(path).named_parameters())
    for ref in view.tensors():
        pieces = list(view.chunks(ref))
        assert all(p.size <= 10 for p in pieces) and len(pieces) == -(-ref.numel // 10)
        assert np.array_equal(np.concatenate(pieces), params[ref.name].numpy().reshape(-1))


@pytest.mark.slow
@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/status"), reason="needs Linux's /proc")
def test_weights_of_a_large_archive_stay_small_in_memory(tmp_path):
    """256 MiB of parameters measured with far less than 256 MiB resident (VmHWM, the peak of
    the command's own address space: ru_maxrss would carry the forking test's over exec)."""
    import subprocess
    import sys
    import tsjit as T
    from tests.helpers.cli import ROOT
    import tsjit.nn as nn

    class Big(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Parameter(T.from_numpy(np.ones((8192, 4096), np.float32)))
            self.b = nn.Parameter(T.from_numpy(np.full((8192, 4096), 2.0, np.float32)))

        def forward(self, x):
            return x + self.a[0, 0] + self.b[0, 0]
    path = tmp_path / "big.pt"
    T.jit.save(T.jit.script(Big()), str(path))
    assert path.stat().st_size > 256 << 20
    code = ("import re, sys; from tsjit.cli import main; rc = main(['weights', '--json', sys.argv[1]]);"
            "status = open('/proc/self/status').read();"
            "print(re.search(r'VmHWM:\\s+(\\d+)', status)[1], file=sys.stderr); sys.exit(rc)")
    proc = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                          env={**__import__("os").environ, "PYTHONPATH": str(ROOT)}, timeout=600)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [(r["name"], r["mean"], r["std"]) for r in rows] == [("a", 1.0, 0.0), ("b", 2.0, 0.0)]
    peak_kib = int(proc.stderr.split()[-1])
    assert peak_kib < 160 << 10, f"peak RSS {peak_kib} KiB"
