"""Extra files (`extra/<name>` records): written, read, listed, kept across round trips,
and exchanged with PyTorch."""
import os
import warnings
import zipfile

import pytest

import tsjit
from tests.helpers.corpus import case_path
from tsjit.cli import main
from tsjit.serialize import ArchiveError, list_extra_files, read_extra_files

from tests.helpers.models import Net

EXTRA = {"meta.json": '{"a": 1}', "blob/raw.bin": bytes(range(256)) * 2, "é.txt": "é"}
EXPECTED = {k: v.encode("utf-8") if isinstance(v, str) else v for k, v in EXTRA.items()}


def _torch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    return torch


@pytest.fixture
def saved(tmp_path):
    path = str(tmp_path / "net.pt")
    tsjit.save(tsjit.script(Net()), path, _extra_files=EXTRA)
    return path


def test_extra_files_round_trip(saved):
    wanted = {"meta.json": "", "blob/raw.bin": "", "absent": "x"}
    tsjit.load(saved, _extra_files=wanted)
    assert wanted == {"meta.json": EXPECTED["meta.json"],
                      "blob/raw.bin": EXPECTED["blob/raw.bin"], "absent": b""}


def test_extra_files_come_first_and_stored(saved):
    with zipfile.ZipFile(saved) as z:
        infos = z.infolist()
    names = [i.filename.split("/", 1)[1] for i in infos]
    assert names[:3] == [f"extra/{k}" for k in EXTRA]
    assert all(i.compress_type == zipfile.ZIP_STORED for i in infos[:3])


def test_listing(saved):
    m = tsjit.load(saved)
    assert list_extra_files(saved) == list(EXTRA)
    assert list_extra_files(open(saved, "rb").read()) == list(EXTRA)
    assert list_extra_files(m) == list(EXTRA)
    assert read_extra_files(m) == EXPECTED
    assert list_extra_files(tsjit.script(Net())) == []
    assert list_extra_files(case_path("model_mlp")) == []


def test_resave_keeps_extra_files_without_jitter(saved, tmp_path):
    first, second = str(tmp_path / "a" / "net.pt"), str(tmp_path / "b" / "net.pt")
    os.makedirs(os.path.dirname(first))
    os.makedirs(os.path.dirname(second))
    tsjit.save(tsjit.load(saved), first)
    assert read_extra_files(first) == EXPECTED
    tsjit.save(tsjit.load(first), second)
    assert open(first, "rb").read() == open(second, "rb").read()


def test_resave_replaces_named_extra_files(saved, tmp_path):
    out = str(tmp_path / "out.pt")
    tsjit.load(saved).save(out, _extra_files={"meta.json": b"{}", "new": "n"})
    assert read_extra_files(out) == {**EXPECTED, "meta.json": b"{}", "new": b"n"}


@pytest.mark.parametrize("extra,message", [
    ({"../escape": "x"}, "unsafe record name"),
    ({"/abs": "x"}, "unsafe record name"),
    ({"": "x"}, "unsafe record name"),
    ({"a//b": "x"}, "unsafe record name"),
    ({"n": 5}, "content must be bytes or str, not int"),
    ({3: "x"}, "names must be str"),
])
def test_bad_extra_files_are_refused_and_nothing_is_written(tmp_path, extra, message):
    path = tmp_path / "net.pt"
    path.write_bytes(b"keep me")
    with pytest.raises(ArchiveError, match=message):
        tsjit.save(tsjit.script(Net()), str(path), _extra_files=extra)
    assert path.read_bytes() == b"keep me"
    assert os.listdir(tmp_path) == ["net.pt"]


def test_load_extra_files_must_be_a_dict(saved):
    with pytest.raises(ArchiveError, match="_extra_files must be a dict"):
        tsjit.load(saved, _extra_files=["meta.json"])


def test_cli_list_shows_extra_files(saved, capsys):
    assert main(["list", saved]) == 0
    out = capsys.readouterr().out
    assert "net/extra/meta.json" in out
    assert "extra files (3):" in out and "blob/raw.bin" in out


def test_torch_reads_tsjit_extra_files(saved):
    torch = _torch()
    wanted = {k: "" for k in EXTRA}
    torch.jit.load(saved, _extra_files=wanted)
    assert wanted == EXPECTED


def test_tsjit_reads_torch_extra_files(tmp_path):
    torch = _torch()
    path = str(tmp_path / "mlp.pt")
    torch.jit.save(torch.jit.load(case_path("model_mlp")), path, _extra_files=EXTRA)
    wanted = {k: "" for k in EXTRA}
    m = tsjit.load(path, _extra_files=wanted)
    assert wanted == EXPECTED
    assert sorted(list_extra_files(m)) == sorted(EXTRA)
