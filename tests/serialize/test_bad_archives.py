"""Bad archives end in a clear tsjit error, never a crash; saving never half-writes."""
import io
import os
import re
import zipfile

import pytest

import tsjit
from tests.helpers.corpus import case_path
from tsjit.serialize import ArchiveError


def test_not_an_archive(tmp_path):
    p = tmp_path / "x.pt"
    p.write_bytes(b"hello, this is not a zip file at all" * 4)
    with pytest.raises(ArchiveError, match="not a zip|not a TorchScript|not a tsjit"):
        tsjit.load(str(p))


def test_missing_file(tmp_path):
    with pytest.raises(ArchiveError, match="no such file"):
        tsjit.load(str(tmp_path / "missing.pt"))


@pytest.mark.parametrize("fraction", [0.1, 0.5, 0.9, 0.99])
def test_truncated_archive(tmp_path, fraction):
    data = open(case_path("model_mlp"), "rb").read()
    p = tmp_path / "t.pt"
    p.write_bytes(data[: int(len(data) * fraction)])
    with pytest.raises(tsjit.TsjitError):
        tsjit.load(str(p))


def _rezip(tmp_path, edit):
    """A copy of a corpus archive with records changed by `edit(name, data) -> data|None`."""
    src = zipfile.ZipFile(case_path("model_mlp"))
    out = tmp_path / "edited.pt"
    with zipfile.ZipFile(out, "w") as z:
        for info in src.infolist():
            data = edit(info.filename, src.read(info.filename))
            if data is not None:
                z.writestr(info.filename, data)
    return str(out)


def test_forbidden_global_is_refused_and_not_run(tmp_path):
    evil = (b"\x80\x02cos\nsystem\nq\x00X\x04\x00\x00\x00trueq\x01\x85q\x02Rq\x03.")
    path = _rezip(tmp_path, lambda n, d: evil if n.endswith("data.pkl") else d)
    with pytest.raises(ArchiveError, match="forbidden global 'os.system'"):
        tsjit.load(path)


def test_storage_shorter_than_tensor(tmp_path):
    path = _rezip(tmp_path, lambda n, d: d[:8] if n == "model/data/0" else d)
    with pytest.raises(ArchiveError, match="storage"):
        tsjit.load(path)


def test_unsupported_version(tmp_path):
    path = _rezip(tmp_path, lambda n, d: b"99\n" if n == "model/version" else d)
    with pytest.raises(ArchiveError, match="version 99 is not supported"):
        tsjit.load(path)


def test_bad_code_is_a_located_error(tmp_path):
    def edit(n, d):
        if n.endswith("modules/linear.py"):
            return d.replace(b"return torch.linear(input, weight, bias)", b"return torch.linear(input,")
        return d
    with pytest.raises(tsjit.CompileError, match=r"model/code/__torch__/torch/nn/modules/linear.py:\d+:\d+"):
        tsjit.load(_rezip(tmp_path, edit))


def test_failed_save_leaves_existing_file(tmp_path, monkeypatch):
    from tests.helpers.models import Tiny as build
    p = tmp_path / "m.pt"
    p.write_bytes(b"precious")
    m = tsjit.script(build())
    import tsjit.serialize.export as export

    def boom(*a, **k):
        raise RuntimeError("disk full")
    monkeypatch.setattr(export, "encode_debug_info", boom)
    with pytest.raises(RuntimeError):
        tsjit.save(m, str(p))
    assert p.read_bytes() == b"precious"
    assert os.listdir(tmp_path) == ["m.pt"]


def test_storage_of_an_element_type_numpy_lacks_loads_with_ml_dtypes(tmp_path):
    # bfloat16 tensors (PyTorch writes their storages as torch.BFloat16Storage): numpy has
    # no such type, ml_dtypes has; the float32 storages hold enough bytes for as many
    # bfloat16 elements
    def edit(name, data):
        if name.endswith("data.pkl"):
            assert b"ctorch\nFloatStorage\n" in data
            return data.replace(b"ctorch\nFloatStorage\n", b"ctorch\nBFloat16Storage\n")
        return data
    m = tsjit.load(_rezip(tmp_path, edit))
    dtypes = {str(t.dtype) for t in m.state_dict().values()}
    assert dtypes == {"torch.bfloat16"}


@pytest.mark.parametrize("call, op", [("torch.frobnicate", "aten::frobnicate"),
                                      ("ops.torchvision.frobnicate", "torchvision::frobnicate")])
def test_missing_operator_is_named_with_its_place_whenever_raised(tmp_path, call, op):
    """An operator tsjit lacks is reported as that, at the archive line naming it (not as a
    broken archive), and the same whether the first call, a save or `.code` meets it."""
    def edit(n, d):
        if n.endswith("modules/linear.py"):
            return d.replace(b"torch.linear(input, weight, bias)",
                             f"{call}(input, weight, bias)".encode())
        return d
    path = _rezip(tmp_path, edit)
    messages = []
    for use in (lambda m: m(tsjit.ones(2, 4)), lambda m: tsjit.save(m, str(tmp_path / "s.pt")),
                lambda m: m.code):
        m = tsjit.load(path)   # lazily: loading itself does not compile the method
        with pytest.raises(tsjit.CompileError) as info:
            use(m)
        assert not isinstance(info.value, ArchiveError)
        messages.append(str(info.value))
    assert messages[0] == messages[1] == messages[2]
    assert f"unknown builtin op {op}" in messages[0]
    assert re.search(r"model/code/__torch__/torch/nn/modules/linear.py:\d+:\d+", messages[0])
    assert not (tmp_path / "s.pt").exists()
