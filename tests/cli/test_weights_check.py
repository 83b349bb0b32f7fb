"""`tsjit weights` and `tsjit check` through a subprocess."""
import json

import numpy as np

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
