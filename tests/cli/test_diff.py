"""`tsjit diff`: code, structure and weights differences; exit 0 same, 1 different; the JSON
checked against docs/cli.md's schema."""
import json

import numpy as np
import pytest

from tests.helpers.corpus import case_path

from tests.helpers.cli import doc_schema, tsjit, with_renamed_operator


def _diff(*args, code=1):
    jsonschema = pytest.importorskip("jsonschema")
    proc = tsjit("diff", "--json", *args)
    assert proc.returncode == code, proc.stderr
    doc = json.loads(proc.stdout)
    jsonschema.validate(doc, doc_schema("tsjit diff --json"))
    return doc


def test_a_file_is_the_same_as_itself(checkpoint):
    for path in (case_path("model_mlp"), checkpoint):
        assert _diff(path, path, code=0)["same"] is True
        text = tsjit("diff", path, path)
        assert text.returncode == 0 and text.stdout.strip() == "the files are the same"


def test_changed_weights_report_the_largest_difference(tmp_path):
    import tsjit as T
    path = case_path("model_mlp")
    m = T.jit.load(path)
    w = dict(m.named_parameters())["features.3.weight"]
    before = w.numpy().copy()
    delta = np.zeros_like(before)
    delta[2, 5] = 0.25
    w.copy_(T.from_numpy(before + delta))
    out = tmp_path / "changed.pt"
    T.jit.save(m, str(out))
    doc = _diff(path, out)
    assert [r["name"] for r in doc["weights"]] == ["features.3.weight"]
    row = doc["weights"][0]
    expected = float(np.abs((before + delta).astype(np.float64) - before).max())
    assert row["change"] == "values" and row["max_abs_diff"] == expected
    assert _diff(path, out, "--atol", "0.3", code=0)["same"] is True
    assert "max abs difference 0.25" in tsjit("diff", path, out).stdout


def test_code_changes_are_unified_diffs(tmp_path):
    out = with_renamed_operator(tmp_path)
    doc = _diff(case_path("model_mlp"), out)
    changed = {c["file"]: c["diff"] for c in doc["code"]}
    diff = changed["code/__torch__/torch/nn/functional.py"]
    assert diff.startswith("--- a/code/__torch__/torch/nn/functional.py\n+++ b/code/")
    assert any(line.startswith("-") and "torch.relu(" in line for line in diff.splitlines())
    assert any(line.startswith("+") and "torch.no_such_op_xyz(" in line for line in diff.splitlines())
    assert doc["weights"] == [] and doc["modules"] == []


def test_structure_and_tensors_of_different_models():
    a, b = case_path("model_mlp"), case_path("model_resnet_block")
    doc = _diff(a, b)
    assert {"name": "", "change": "type"}.items() <= doc["modules"][0].items()
    changes = {r["change"] for r in doc["weights"]}
    assert {"added", "removed"} <= changes


def test_checkpoints_by_tensor_name(checkpoint, tmp_path):
    import tsjit as T
    other = tmp_path / "other.pt"
    T.save({"w": T.from_numpy(np.arange(6, dtype=np.float64).reshape(2, 3)),
            "c": T.from_numpy(np.zeros(1, np.float32))}, str(other))
    rows = {r["name"]: r for r in _diff(checkpoint, other)["weights"]}
    assert rows["w"]["change"] == "dtype" and rows["w"]["max_abs_diff"] == 0.0
    assert rows["b"]["change"] == "removed" and rows["c"]["change"] == "added"
