"""Every command through a subprocess on a model-zoo archive (torchvision's resnet18 as
torch.jit.save writes it; generated into the zoo's cache when missing, skipped without
PyTorch and torchvision)."""
import json

import numpy as np
import pytest

from tests.helpers.cli import doc_schema, tsjit

pytestmark = pytest.mark.slow


def _ok(*args):
    proc = tsjit(*args)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def loaded(zoo):
    import tsjit as T
    return T.jit.load(str(zoo))


def test_info_and_weights_match_the_loaded_module(zoo, loaded):
    jsonschema = pytest.importorskip("jsonschema")
    doc = json.loads(_ok("info", "--json", zoo))
    jsonschema.validate(doc, doc_schema("tsjit info --json"))
    assert [m["name"] for m in doc["modules"]] == [n for n, _ in loaded.named_modules()]
    assert doc["tensors"]["parameters"]["count"] == len(list(loaded.parameters()))
    assert all(o["available"] for o in doc["operators"])
    rows = [json.loads(line) for line in _ok("weights", "--json", zoo).splitlines()]
    row_schema = doc_schema("tsjit weights --json")
    for r in rows:
        jsonschema.validate(r, row_schema)
    named = list(loaded.named_parameters()) + list(loaded.named_buffers())
    assert [r["name"] for r in rows] == [n for n, _ in named]
    fc = next(r for r in rows if r["name"] == "fc.weight")
    ref = dict(named)["fc.weight"].numpy().astype(np.float64)
    assert fc["max"] == ref.max() and np.isclose(fc["std"], ref.std(ddof=1))


def test_check_list_show_code_graph(zoo):
    assert "0 problems" in _ok("check", zoo)
    assert "model/data.pkl" in _ok("list", zoo)
    assert "__torch__.torchvision.models.resnet.ResNet(" in _ok("show", zoo)
    code = _ok("code", zoo, "--module", "layer1.0", "--method", "forward")
    assert "BasicBlock.forward (module layer1.0)" in code
    assert _ok("graph", zoo, "--module", "layer1.0", "--format", "dot").startswith("digraph")


def test_run_diff_convert_report(zoo, loaded, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    result = json.loads(_ok("run", zoo, "--random", "1x3x32x32", "--json"))
    jsonschema.validate(result, doc_schema("tsjit run --json"))
    assert result["shape"] == [1, 1000]
    assert _ok("diff", zoo, zoo).strip() == "the files are the same"
    torch = pytest.importorskip("torch")
    pytest.importorskip("safetensors")
    from safetensors.torch import load_file
    st = tmp_path / "r.safetensors"
    _ok("convert", zoo, st)
    state = torch.jit.load(str(zoo)).state_dict()
    loaded_st = load_file(str(st))
    assert set(loaded_st) == set(state)
    assert all(torch.equal(loaded_st[k], state[k]) for k in state)
    page = tmp_path / "r.html"
    _ok("report", zoo, "-o", page)
    assert "__torch__.torchvision.models.resnet.BasicBlock" in page.read_text(encoding="utf-8")
