"""`tsjit convert`: archives and checkpoints to safetensors and back; PyTorch reads both."""
import numpy as np
import pytest

from tests.helpers.corpus import case_path

from tests.helpers.cli import ROOT, tsjit

BF16 = ROOT / "tests" / "data" / "ckpt" / "cases" / "dtype_bfloat16" / "file.pt"


def _convert(*args):
    proc = tsjit("convert", *args)
    assert proc.returncode == 0, proc.stderr
    return proc


def test_archive_to_safetensors_and_back_read_by_pytorch(tmp_path):
    torch = pytest.importorskip("torch")
    pytest.importorskip("safetensors")
    from safetensors.torch import load_file
    import tsjit as T
    path = case_path("model_mlp")
    st, back = tmp_path / "m.safetensors", tmp_path / "back.pt"
    _convert(path, st)
    _convert(st, back)
    params = {k: v.numpy() for k, v in T.jit.load(path).named_parameters()}
    loaded = load_file(str(st))
    assert set(loaded) == set(params)
    for k, v in params.items():
        assert np.array_equal(loaded[k].numpy(), v)
    checkpoint = torch.load(str(back))
    assert set(checkpoint) == set(params)
    assert all(torch.equal(checkpoint[k], loaded[k]) for k in params)


def test_dtype_casts_floats_only(tmp_path, checkpoint):
    torch = pytest.importorskip("torch")
    pytest.importorskip("safetensors")
    from safetensors.torch import load_file
    st = tmp_path / "c.safetensors"
    _convert(checkpoint, st, "--dtype", "bfloat16")
    loaded = load_file(str(st))
    assert loaded["w"].dtype == torch.bfloat16 and loaded["b"].dtype == torch.int64
    assert torch.equal(loaded["w"], torch.arange(6, dtype=torch.bfloat16).reshape(2, 3))
    back = tmp_path / "c.pt"
    _convert(st, back)
    assert torch.equal(torch.load(str(back))["w"], loaded["w"])


def test_a_bfloat16_checkpoint_round_trips(tmp_path):
    torch = pytest.importorskip("torch")
    pytest.importorskip("safetensors")
    st, back = tmp_path / "b.safetensors", tmp_path / "b.pt"
    _convert(BF16, st)
    _convert(st, back)
    original, again = torch.load(str(BF16)), torch.load(str(back))
    assert original.dtype == torch.bfloat16 and torch.equal(again["<root>"], original)


def test_errors(tmp_path, checkpoint):
    bad = tsjit("convert", checkpoint, tmp_path / "x.safetensors", "--dtype", "int8")
    assert bad.returncode == 1 and "--dtype int8: expected a floating-point dtype" in bad.stderr
    assert not (tmp_path / "x.safetensors").exists()
    not_st = tmp_path / "fake.safetensors"
    not_st.write_bytes(b"\x00" * 20)
    proc = tsjit("convert", not_st, tmp_path / "y.pt")
    assert proc.returncode == 1 and "not a readable safetensors file" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fake.safetensors"]


def test_without_the_safetensors_package(tmp_path, checkpoint, monkeypatch, capsys):
    import sys
    from tsjit.cli import main
    monkeypatch.setitem(sys.modules, "safetensors", None)
    monkeypatch.setitem(sys.modules, "safetensors.numpy", None)
    assert main(["convert", str(checkpoint), str(tmp_path / "x.safetensors")]) == 1
    err = capsys.readouterr().err
    assert "needs the safetensors package: pip install 'tsjit[cli]'" in err


def test_scalars_keep_their_shape(tmp_path):
    torch = pytest.importorskip("torch")
    pytest.importorskip("safetensors")
    import tsjit as T
    src, back = tmp_path / "s.pt", tmp_path / "back.pt"
    T.save({"n": T.tensor(7), "v": T.from_numpy(np.ones((3, 2), np.float32)[:, 0])}, str(src))
    _convert(src, tmp_path / "s.safetensors")
    _convert(tmp_path / "s.safetensors", back)
    again = torch.load(str(back))
    assert again["n"].shape == () and again["n"].item() == 7
    assert again["v"].shape == (3,) and again["v"].is_contiguous()
