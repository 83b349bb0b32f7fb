"""`tsjit info`: text and JSON summaries, the JSON checked against docs/cli.md's schema."""
import json

import pytest

from tests.helpers.corpus import case_path

from tests.helpers.cli import ROOT, doc_schema, tsjit, with_renamed_operator


def _schema():
    return doc_schema("tsjit info --json")


def _validated(*args):
    jsonschema = pytest.importorskip("jsonschema")
    proc = tsjit("info", "--json", *args)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    jsonschema.validate(doc, _schema())
    return doc


def test_archive_summary_matches_the_loaded_module():
    import tsjit as T
    path = case_path("model_mlp")
    doc = _validated(path)
    m = T.jit.load(path)
    assert doc["kind"] == "torchscript" and doc["byteorder"] == "little"
    assert [d["name"] for d in doc["modules"]] == [n for n, _ in m.named_modules()]
    params = list(m.parameters())
    assert doc["tensors"]["parameters"]["count"] == len(params)
    assert doc["tensors"]["parameters"]["bytes"] == sum(p.numel() * 4 for p in params)
    assert {"type": doc["modules"][0]["type"], "name": "forward"}.items() <= \
        doc["methods"][0].items()
    ops = {o["name"]: o["available"] for o in doc["operators"]}
    assert ops["aten::linear"] is True and "prim::RaiseException" in ops


def test_an_unknown_operator_is_reported_missing(tmp_path):
    out = with_renamed_operator(tmp_path)
    ops = {o["name"]: o["available"] for o in _validated(out)["operators"]}
    assert ops["aten::no_such_op_xyz"] is False
    assert "MISSING" in tsjit("info", out).stdout


def test_checkpoints_zip_and_legacy(checkpoint):
    doc = _validated(checkpoint)
    assert doc["kind"] == "checkpoint-zip" and doc["modules"] == []
    t = doc["tensors"]["tensors"]
    assert t["by_dtype"] == {"float32": {"count": 1, "bytes": 24}, "int64": {"count": 1, "bytes": 32}}
    legacy = ROOT / "tests" / "data" / "ckpt" / "cases" / "legacy_state_dict" / "file.pt"
    assert _validated(legacy)["kind"] == "checkpoint-legacy"
    text = tsjit("info", checkpoint).stdout
    assert "torch.save checkpoint (zip)" in text and "int64 1 (32 bytes)" in text


def test_info_reads_no_tensor_data_and_compiles_nothing(monkeypatch):
    """The summary comes from the zip directory, data.pkl and the code's text."""
    from tsjit.cli import info
    from tsjit.serialize import ArchiveReader
    from tsjit.ir import function

    def refuse(*args, **kwargs):
        raise AssertionError("info read tensor data or compiled a method")
    monkeypatch.setattr(ArchiveReader, "storage_view", refuse)
    monkeypatch.setattr(ArchiveReader, "readinto", refuse)
    monkeypatch.setattr(function.Function, "graph", property(refuse))
    path = case_path("model_mlp")
    fast = info.summarize(path)
    monkeypatch.undo()
    import tsjit as T
    m = T.jit.load(path)
    assert [d["name"] for d in fast["modules"]] == [n for n, _ in m.named_modules()]
    assert fast["tensors"]["parameters"]["count"] == len(list(m.parameters()))
