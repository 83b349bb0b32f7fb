"""The zip layer: PyTorch's layout reproduced byte for byte, validation of hostile or
damaged archives, atomic writes, and copy-on-write storage views."""
from __future__ import annotations

import hashlib
import io
import os
import struct
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

from serialize_corpus_util import ARCHIVES, CORPUS, case_name
from tsjit.serialize.errors import ArchiveError
from tsjit.serialize.zip_archive import (
    ALIGNMENT, COMPRESS_MIN_SIZE, METHOD_DEFLATED, METHOD_STORED, ArchiveReader,
    ArchiveWriter, pad_extra_length)

MLP = CORPUS / "model_mlp" / "model.pt"


def rewrite(path: Path, **writer_args: object) -> tuple[bytes, bytes]:
    """(original bytes, the same records written again by ArchiveWriter)."""
    raw = path.read_bytes()
    with ArchiveReader(path) as r:
        writer = ArchiveWriter(**writer_args)
        for name in r.names():
            compress = r.info(name).method == METHOD_DEFLATED or name.startswith("code/")
            writer.write_record(f"{r.top}/{name}", r.read(name), compress)
        return raw, writer.to_bytes()


@pytest.mark.parametrize("path", ARCHIVES, ids=[case_name(p) for p in ARCHIVES])
def test_writer_reproduces_corpus_archives_given_pytorchs_deflate_output(path: Path) -> None:
    raw = path.read_bytes()
    compressed = {}
    with ArchiveReader(path) as r:
        for name in r.names():
            e = r.info(name)
            compressed[r.read(name)] = raw[e.data_offset:e.data_offset + e.compressed_size]
    _, again = rewrite(path, deflate=compressed.__getitem__)
    assert again == raw


@pytest.mark.parametrize("path", ARCHIVES[::6], ids=[case_name(p) for p in ARCHIVES[::6]])
def test_reader_agrees_with_zipfile_and_zlib_rewrite_reads_back(path: Path) -> None:
    with zipfile.ZipFile(path) as z, ArchiveReader(path) as r:
        assert r.top == "model"
        assert [f"model/{n}" for n in r.names()] == z.namelist()
        for name in r.names():
            assert r.read(name) == z.read(f"model/{name}")
            assert r.has(name)
            assert r.info(name).data_offset % ALIGNMENT == 0
        assert not r.has("nope") and not r.has("model/data.pkl")
    raw, again = rewrite(path)
    with zipfile.ZipFile(io.BytesIO(again)) as z2, zipfile.ZipFile(path) as z:
        assert z2.testzip() is None
        assert [(i.filename, i.compress_type, z2.read(i)) for i in z2.infolist()] == \
            [(i.filename, i.compress_type, z.read(i)) for i in z.infolist()]


def test_layout_details() -> None:
    data = MLP.read_bytes()
    assert data[:4] == b"PK\x03\x04"
    # version needed 0, flags 0x0808, stored, time and date 0, CRC and sizes deferred
    assert struct.unpack_from("<HHHHHIII", data, 4) == (0, 0x0808, 0, 0, 0, 0, 0, 0)
    nlen, xlen = struct.unpack_from("<HH", data, 26)
    extra = data[30 + nlen:30 + nlen + xlen]
    assert extra[:2] == b"FB" and extra[4:] == b"Z" * (xlen - 4)
    assert (30 + nlen + xlen) % 64 == 0
    assert [pad_extra_length(n) for n in (0, 1, 60, 61, 63, 64, 42)] == [64, 63, 4, 67, 65, 64, 22]


def test_compression_threshold() -> None:
    w = ArchiveWriter()
    w.write_record("m/small", b"a" * COMPRESS_MIN_SIZE, compress=True)
    w.write_record("m/big", b"a" * (COMPRESS_MIN_SIZE + 1), compress=True)
    w.write_record("m/raw", b"a" * 5000, compress=False)
    r = ArchiveReader(w.to_bytes())
    assert [r.info(n).method for n in r.names()] == [METHOD_STORED, METHOD_DEFLATED, METHOD_STORED]
    assert r.read("big") == b"a" * 201


def test_writer_top_folder_bytesio_and_buffers(tmp_path: Path) -> None:
    buf = io.BytesIO()
    w = ArchiveWriter(buf, top="archive")
    w.write_record("data/0", np.arange(5, dtype=np.float32))
    w.write_record("data.pkl", memoryview(b"\x80\x02N."))
    w.close()
    r = ArchiveReader(buf.getvalue())
    assert r.top == "archive" and r.names() == ["data/0", "data.pkl"]
    assert np.frombuffer(r.storage_view("data/0"), np.float32).tolist() == [0, 1, 2, 3, 4]
    assert r.storage_view("data/0").readonly
    assert w.to_bytes() == buf.getvalue()


@pytest.mark.parametrize("name", ["../evil", "m/../x", "/abs", "m\\x", "m//x", "m/./x", "C:/x",
                                  "", "m/\x00", "m/..", "m/.", ".", "..", "m/x/../", "a:",
                                  "m//", "./m", "m/.../..", "m/\n/.."])
def test_writer_rejects_unsafe_names(name: str) -> None:
    w = ArchiveWriter()
    with pytest.raises(ArchiveError, match="unsafe record name"):
        w.write_record(name, b"x")


def test_writer_rejects_duplicates_and_writes_after_failure() -> None:
    w = ArchiveWriter()
    w.write_record("m/a", b"x")
    with pytest.raises(ArchiveError, match="duplicate"):
        w.write_record("m/a", b"y")
    with pytest.raises(ArchiveError, match="aborted"):
        w.write_record("m/b", b"y")


# ------------------------------------------------------------------- atomic writes

def test_atomic_write_replaces_target(tmp_path: Path) -> None:
    target = tmp_path / "out.pt"
    target.write_bytes(b"old")
    target.chmod(0o640)
    with ArchiveWriter(target) as w:
        w.write_record("m/a", b"new")
        assert target.read_bytes() == b"old"          # not visible until close
    assert ArchiveReader(target).read("a") == b"new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.pt"]
    assert target.stat().st_mode & 0o777 == 0o640      # keeps the replaced file's mode


def test_failed_write_leaves_target_untouched(tmp_path: Path) -> None:
    target = tmp_path / "out.pt"
    target.write_bytes(b"precious")

    def failing_deflate(data: bytes) -> bytes:
        raise RuntimeError("disk on fire")

    w = ArchiveWriter(target, deflate=failing_deflate)
    w.write_record("m/a", b"x" * 1000)
    with pytest.raises(RuntimeError, match="disk on fire"):
        w.write_record("m/b", b"y" * 1000, compress=True)
    with pytest.raises(ArchiveError):
        w.close()
    assert target.read_bytes() == b"precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.pt"]

    with pytest.raises(KeyError):
        with ArchiveWriter(target) as w2:
            w2.write_record("m/a", b"x" * 1000)
            raise KeyError("caller failed midway")
    assert target.read_bytes() == b"precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.pt"]


def test_new_target_is_not_created_on_failure(tmp_path: Path) -> None:
    target = tmp_path / "new.pt"
    with pytest.raises(ValueError):
        with ArchiveWriter(target) as w:
            w.write_record("m/a", b"x")
            raise ValueError
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------- storage views

def test_storage_views_are_copy_on_write(tmp_path: Path) -> None:
    path = tmp_path / "model.pt"
    path.write_bytes(MLP.read_bytes())
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    with ArchiveReader(path) as r:
        original = r.read("data/0")
        view = r.storage_view("data/0")
        assert bytes(view) == original and not view.readonly
        weights = np.frombuffer(view, dtype=np.float32)
        assert weights.flags.writeable
        weights[:] = 42.0
        assert (np.frombuffer(r.storage_view("data/0"), np.float32) == 42.0).all()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
    with ArchiveReader(path) as again:
        assert again.read("data/0") == original
    assert (weights == 42.0).all()     # the view outlives the reader safely


def test_storage_view_of_a_compressed_record_is_an_error() -> None:
    with ArchiveReader(MLP) as r:
        with pytest.raises(ArchiveError, match="compressed"):
            r.storage_view("code/__torch__/model_mlp.py")
        with pytest.raises(ArchiveError, match="no record"):
            r.read("data/99")


# ------------------------------------------------------------------- hostile archives

def zip_of(*names: str) -> bytes:
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # zipfile warns about duplicate names
        with zipfile.ZipFile(buf, "w") as z:
            for n in names:
                z.writestr(n, b"data")
    return buf.getvalue()


@pytest.mark.parametrize("names,message", [
    (("m/a", "../evil"), "unsafe record name"),
    (("m/../../evil",), "unsafe record name"),
    (("/etc/passwd",), "unsafe record name"),
    (("m\\..\\evil",), "unsafe record name"),
    (("m/a", "m/a"), "duplicate record name"),
    (("m/a", "n/b"), "one top folder"),
    (("m/a", "loose"), "one top folder"),
])
def test_bad_layouts_are_rejected(names: tuple[str, ...], message: str) -> None:
    with pytest.raises(ArchiveError, match=message):
        ArchiveReader(zip_of(*names))


def test_not_a_zip(tmp_path: Path) -> None:
    for content in (b"", b"hello", b"\x80\x02N." * 20, os.urandom(5000)):
        path = tmp_path / "junk.pt"
        path.write_bytes(content)
        with pytest.raises(ArchiveError, match=r"not a tsjit/TorchScript archive \(not a zip "
                                               r"file\): .*junk.pt"):
            ArchiveReader(path)


def test_truncated_archives(tmp_path: Path) -> None:
    data = MLP.read_bytes()
    for n in (10, 30, 64, 1000, len(data) // 2, len(data) - 100, len(data) - 30, len(data) - 1):
        path = tmp_path / "cut.pt"
        path.write_bytes(data[:n])
        with pytest.raises(ArchiveError) as info:
            ArchiveReader(path)
        assert "cut.pt" in str(info.value)
        with pytest.raises(ArchiveError):
            ArchiveReader(data[:n])


def test_records_that_lie_about_their_place_or_content() -> None:
    data = bytearray(MLP.read_bytes())
    with ArchiveReader(bytes(data)) as r:
        first = r.info("data/0")
        cd = bytes(data).index(b"PK\x01\x02")
    corrupt = bytearray(data)
    corrupt[first.data_offset] ^= 0xFF                      # flip a byte of data/0
    with pytest.raises(ArchiveError, match="CRC"):
        ArchiveReader(bytes(corrupt)).read("data/0")
    renamed = bytearray(data)
    renamed[30] = ord("X")                                  # local name != central name
    with pytest.raises(ArchiveError, match="local header names"):
        ArchiveReader(bytes(renamed))
    oversized = bytearray(data)
    struct.pack_into("<II", oversized, cd + 20, 10**6, 10**6)   # sizes past the file
    with pytest.raises(ArchiveError, match="data runs past"):
        ArchiveReader(bytes(oversized))
    misplaced = bytearray(data)
    struct.pack_into("<I", misplaced, cd + 42, 5)           # header offset into garbage
    with pytest.raises(ArchiveError):
        ArchiveReader(bytes(misplaced))


def test_bad_deflate_data_is_reported() -> None:
    data = bytearray(MLP.read_bytes())
    with ArchiveReader(bytes(data)) as r:
        e = r.info("code/__torch__/model_mlp.py")
    data[e.data_offset:e.data_offset + 8] = b"\xff" * 8
    with pytest.raises(ArchiveError, match="model_mlp.py"):
        ArchiveReader(bytes(data)).read("code/__torch__/model_mlp.py")


# ------------------------------------------------------------------- against PyTorch

def test_pytorch_loads_what_we_write(tmp_path: Path) -> None:
    """Records re-pickled and re-zipped by tsjit load in PyTorch (skipped without it)."""
    torch = pytest.importorskip("torch")
    from tsjit.serialize.pickler import pickle_value
    from tsjit.serialize.unpickler import unpickle

    for case in ("model_mlp", "lang_attributes", "model_small_cnn"):
        path = CORPUS / case / "model.pt"
        out = tmp_path / f"{case}.pt"
        with ArchiveReader(path) as r, ArchiveWriter(out, top=r.top) as w:
            for name in r.names():
                data = r.read(name)
                if name.endswith("pkl"):
                    data = pickle_value(unpickle(data, name))
                w.write_record(name, data, compress=name.startswith("code/"))
        ours, theirs = torch.jit.load(str(out)), torch.jit.load(str(path))
        assert ours.code == theirs.code
        for (k1, v1), (k2, v2) in zip(ours.state_dict().items(), theirs.state_dict().items()):
            assert k1 == k2 and torch.equal(v1, v2)
