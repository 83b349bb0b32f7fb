"""The zip layer: PyTorch's layout reproduced byte for byte, validation of hostile or
damaged archives, atomic writes, and copy-on-write storage views."""
from __future__ import annotations

import hashlib
import io
import os
import struct
import sys
import warnings
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.helpers.serialize_corpus import ARCHIVES, CORPUS, case_name
from tsjit.serialize import zip_archive
from tsjit.serialize.errors import ArchiveError
from tsjit.serialize.zip_archive import (
    ALIGNMENT, COMPRESS_MIN_SIZE, METHOD_DEFLATED, METHOD_STORED, ArchiveReader,
    ArchiveWriter, _plain_names, check_name, pad_extra_length)

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


def test_large_records_crc_on_a_thread_agree_with_zlib() -> None:
    # records from CRC_THREAD_MIN_SIZE on are checksummed on a second thread while written
    big = np.arange(zip_archive.CRC_THREAD_MIN_SIZE // 4 + 3, dtype=np.float32)
    w = ArchiveWriter()
    w.write_record("m/data/0", big)
    w.write_record("m/data/1", b"small")
    w.write_record("m/empty", b"")
    data = w.to_bytes()
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert z.testzip() is None
        assert z.getinfo("m/data/0").CRC == zlib.crc32(big.tobytes())
        assert z.getinfo("m/data/1").CRC == zlib.crc32(b"small")


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
    # Local headers are checked when their record is first used (data/0 here).
    renamed = bytearray(data)
    renamed[30] = ord("X")                                  # local name != central name
    with pytest.raises(ArchiveError, match="local header names"):
        ArchiveReader(bytes(renamed)).read("data/0")
    oversized = bytearray(data)
    struct.pack_into("<II", oversized, cd + 20, 10**6, 10**6)   # sizes past the file
    with pytest.raises(ArchiveError, match="data runs past"):
        ArchiveReader(bytes(oversized)).read("data/0")
    misplaced = bytearray(data)
    struct.pack_into("<I", misplaced, cd + 42, 5)           # header offset into garbage
    with pytest.raises(ArchiveError):
        ArchiveReader(bytes(misplaced)).read("data/0")


def test_bad_deflate_data_is_reported() -> None:
    data = bytearray(MLP.read_bytes())
    with ArchiveReader(bytes(data)) as r:
        e = r.info("code/__torch__/model_mlp.py")
    data[e.data_offset:e.data_offset + 8] = b"\xff" * 8
    with pytest.raises(ArchiveError, match="model_mlp.py"):
        ArchiveReader(bytes(data)).read("code/__torch__/model_mlp.py")


# ------------------------------------------------------------------- checks on first use

def central_entry(data: bytes, name: str) -> int:
    """File offset of the central directory entry of record `name` (full name)."""
    cd = data.index(b"PK\x01\x02")
    return data.rindex(b"PK\x01\x02", 0, data.index(name.encode() + b"PK", cd))


def header_offset(data: bytes, name: str) -> int:
    return struct.unpack_from("<I", data, central_entry(data, name) + 42)[0]


def damaged(record: str, how: str) -> tuple[bytes, str]:
    """MLP with one thing of `record`'s local header, data descriptor or sizes broken, and
    the message the reader gave for it (when it checked every record at open)."""
    data = bytearray(MLP.read_bytes())
    full = f"model/{record}"
    with ArchiveReader(bytes(data)) as r:
        e = r.info(record)
        h, data_at, size, method = e.header_offset, e.data_offset, e.compressed_size, e.method
        next_header = min(r.info(n).header_offset for n in r.names()
                          if r.info(n).header_offset > h)
    where = f"record {full} in <bytes>"
    if how == "signature":
        data[h] ^= 0xFF
        return bytes(data), f"{where} has a bad local header signature at offset {h}"
    if how == "name":
        data[h + 30] = ord("X")
        local_name = b"X" + full[1:].encode()
        return bytes(data), f"{where} local header names {local_name!r} at offset {h}"
    if how == "method":
        other = METHOD_STORED if method == METHOD_DEFLATED else METHOD_DEFLATED
        struct.pack_into("<H", data, h + 8, other)
        return bytes(data), (f"{where} local header disagrees with the central directory "
                             f"at offset {h}")
    if how == "crc":
        struct.pack_into("<I", data, h + 14, 1)
        return bytes(data), (f"{where} local header sizes disagree with the central directory "
                             f"at offset {h}")
    if how == "descriptor":
        data[data_at + size + 4] ^= 0xFF                    # its CRC-32
        return bytes(data), (f"{where} data descriptor disagrees with the central directory "
                             f"at offset {data_at + size + 4}")
    assert how == "sizes"
    struct.pack_into("<II", data, central_entry(bytes(data), full) + 20, 10**6, 10**6)
    return bytes(data), (f"{where} data runs past the end of its record area "
                         f"({data_at + 10**6} > {next_header}; truncated file?) "
                         f"at offset {data_at}")


DAMAGES = ["signature", "name", "method", "crc", "descriptor", "sizes"]


@pytest.mark.parametrize("how", DAMAGES)
@pytest.mark.parametrize("record", ["data/3", "data.pkl", "constants.pkl"])
def test_a_damaged_record_is_reported_when_first_used(record: str, how: str) -> None:
    data, message = damaged(record, how)
    r = ArchiveReader(data)                     # opening does not look at local headers
    assert r.names() == ArchiveReader(MLP).names() and r.has(record)
    assert r.read("version") == b"3\n"          # nor does reading another record
    for use in (r.read, r.info, r.storage_view, r.read):    # and again: nothing is cached
        with pytest.raises(ArchiveError) as info:
            use(record)
        assert str(info.value) == message
        assert info.value.record == f"model/{record}"


@pytest.mark.parametrize("how", DAMAGES)
def test_storage_view_of_a_damaged_record_is_an_error(tmp_path: Path, how: str) -> None:
    data, message = damaged("data/2", how)
    path = tmp_path / "model.pt"
    path.write_bytes(data)
    with ArchiveReader(path) as r:
        assert np.frombuffer(r.storage_view("data/1"), np.float32).size == 16
        with pytest.raises(ArchiveError) as info:
            r.storage_view("data/2")
        assert str(info.value) == message.replace("<bytes>", str(path))


@pytest.mark.parametrize("how", DAMAGES)
@pytest.mark.parametrize("record", ["data/0", "data.pkl", "code/__torch__/model_mlp.py"])
def test_loading_an_archive_with_a_damaged_needed_record_fails(tmp_path: Path, record: str,
                                                               how: str) -> None:
    import tsjit
    data, message = damaged(record, how)
    path = tmp_path / "model.pt"
    path.write_bytes(data)
    with pytest.raises(ArchiveError) as info:
        tsjit.load(str(path))
    assert str(info.value).startswith(message.replace("<bytes>", str(path)))  # + context


def test_entries_sharing_a_local_header() -> None:
    data = bytearray(MLP.read_bytes())
    struct.pack_into("<I", data, central_entry(bytes(data), "model/data/2") + 42,
                     header_offset(bytes(data), "model/data/1"))
    r = ArchiveReader(bytes(data))
    with pytest.raises(ArchiveError, match=r"model/data/1 .* local header lies outside the "
                                           r"record area at offset 464"):
        r.read("data/1")        # the first of the two in the directory: an empty area
    with pytest.raises(ArchiveError, match=r"model/data/2 .* local header names "
                                           r"b'model/data/1' at offset 464"):
        r.read("data/2")
    assert r.read("data/3") == ArchiveReader(MLP).read("data/3")


def test_record_areas_end_at_the_central_directory() -> None:
    data = bytearray(MLP.read_bytes())
    cd = bytes(data).index(b"PK\x01\x02")
    # Headers claimed past the end of the file. A record's area runs up to the next header,
    # but never past the directory (the area of the first used to end past the file).
    for name, offset in (("model/data/6", 20000), ("model/data/7", 30000),
                         ("model/.data/serialization_id", 40000)):
        struct.pack_into("<I", data, central_entry(bytes(data), name) + 42, offset)
    r = ArchiveReader(bytes(data))
    for name, offset in (("data/6", 20000), ("data/7", 30000)):
        with pytest.raises(ArchiveError) as info:
            r.read(name)
        assert str(info.value) == (f"record model/{name} in <bytes> local header lies outside "
                                   f"the record area at offset {offset}")
    # byteorder, now followed by no header before the directory: its data may not reach
    # into the directory.
    e = ArchiveReader(MLP).info("byteorder")
    size = cd - e.data_offset + 10
    struct.pack_into("<II", data, central_entry(bytes(data), "model/byteorder") + 20, size, size)
    with pytest.raises(ArchiveError) as info:
        ArchiveReader(bytes(data)).read("byteorder")
    assert str(info.value) == (f"record model/byteorder in <bytes> data runs past the end of "
                               f"its record area ({cd + 10} > {cd}; truncated file?) at offset "
                               f"{e.data_offset}")


def test_folder_entries_are_checked_at_open() -> None:
    """Folder entries are never read, so their local headers are checked at open."""
    good = zip_of("m/", "m/a")
    assert ArchiveReader(good).names() == ["a"]
    bad = bytearray(good)
    bad[30] = ord("X")                          # the folder entry's local name
    with pytest.raises(ArchiveError, match=r"record m/ in <bytes> local header names b'X/'"):
        ArchiveReader(bytes(bad))


def test_a_closed_file_reader_refuses_unchecked_records(tmp_path: Path) -> None:
    path = tmp_path / "model.pt"
    path.write_bytes(MLP.read_bytes())
    r = ArchiveReader(path)
    r.close()
    with pytest.raises(ArchiveError, match="closed"):
        r.info("data/0")


@pytest.mark.parametrize("names,message", [
    (("m/a", "m/a", "../evil"), "duplicate record name 'm/a'"),
    (("m/a", "../evil", "m/a"), "unsafe record name '../evil'"),
    (("m/a", "n/../x", "m/./b"), "unsafe record name 'n/../x'"),
    (("n/a", "m/a", "/x"), "unsafe record name '/x'"),
])
def test_the_first_problem_in_the_directory_is_reported(names: tuple[str, ...],
                                                        message: str) -> None:
    with pytest.raises(ArchiveError, match=message):
        ArchiveReader(zip_of(*names))


def test_an_unsafe_name_before_a_bad_entry_is_reported_first() -> None:
    data = bytearray(zip_of("m/a", "m/./b", "m/c"))
    struct.pack_into("<H", data, central_entry(bytes(data), "m/c") + 8, 1)  # encrypted
    with pytest.raises(ArchiveError, match=r"unsafe record name 'm/./b'"):
        ArchiveReader(bytes(data))
    data = bytearray(zip_of("m/a", "m/b", "m/c"))
    struct.pack_into("<H", data, central_entry(bytes(data), "m/c") + 8, 1)
    with pytest.raises(ArchiveError, match=r"record m/c in <bytes> is encrypted"):
        ArchiveReader(bytes(data))


@settings(max_examples=500, deadline=None, database=None)
@given(st.lists(st.text(alphabet="ab/.:\\\x00\né", max_size=6), min_size=1, max_size=5))
def test_names_checked_together_as_one_at_a_time(names: list[str]) -> None:
    """_plain_names (all names at once) is true exactly for names check_name accepts that
    are neither folder entries nor contain a newline."""
    def accepted(name: str) -> bool:
        try:
            check_name(name, "test")
        except ArchiveError:
            return False
        return "\n" not in name and not name.endswith("/")
    assert _plain_names("\n".join(names), len(names)) == all(map(accepted, names))


@pytest.mark.parametrize("tail", [0, 1, 4, 22, 64, 500, 5000, 10**6])
@pytest.mark.parametrize("comment", [b"", b"a comment", b"PK\x05\x06" * 10])
def test_any_tail_read_at_open_gives_the_same_archive(tmp_path: Path, monkeypatch,
                                                      tail: int, comment: bytes) -> None:
    """The directory is read from the file's tail when it is there, else from the mapping."""
    raw = MLP.read_bytes()
    raw = raw[:-2] + struct.pack("<H", len(comment)) + comment
    path = tmp_path / "model.pt"
    path.write_bytes(raw)
    monkeypatch.setattr(zip_archive, "TAIL_READ", tail)
    with zipfile.ZipFile(MLP) as z, ArchiveReader(path) as r:
        assert [f"model/{n}" for n in r.names()] == z.namelist()
        assert all(r.read(n) == z.read(f"model/{n}") for n in r.names())


def test_a_directory_longer_than_the_tail_read(tmp_path: Path) -> None:
    path = tmp_path / "many.pt"
    with ArchiveWriter(path, top="many") as w:
        for i in range(600):
            w.write_record(f"data/{i}", i.to_bytes(4, "little"))
    assert path.stat().st_size - path.read_bytes().index(b"PK\x01\x02") > zip_archive.TAIL_READ
    with ArchiveReader(path) as r:
        assert len(r.names()) == 600 and r.read("data/599") == (599).to_bytes(4, "little")


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


def test_records_read_from_the_file_and_from_the_map_agree() -> None:
    reader = ArchiveReader(MLP)
    names = reader.names()
    from_file = {n: reader.read(n) for n in names}
    reader.release_file()
    fresh = ArchiveReader(MLP)
    fresh.release_file()            # every record checked and read through the mapping
    assert {n: fresh.read(n) for n in names} == from_file
    assert {n: reader.read(n) for n in names} == from_file
    assert [fresh.info(n) for n in names] == [reader.info(n) for n in names]


# Python's mmap holds a descriptor of its own, except from 3.13, where it can be told not to.
MAP_KEEPS_FD = int(sys.version_info < (3, 13))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
def test_a_loaded_module_keeps_only_its_mapping_open(frozen_heap) -> None:
    import gc
    import tsjit
    before = len(os.listdir("/proc/self/fd"))
    modules = [tsjit.load(str(MLP)) for _ in range(5)]
    # (the file the reader read is closed)
    assert len(os.listdir("/proc/self/fd")) == before + MAP_KEEPS_FD * len(modules)
    del modules
    gc.collect()
    assert len(os.listdir("/proc/self/fd")) == before


def test_without_pread_records_come_from_the_mapping(monkeypatch) -> None:
    expected = {n: ArchiveReader(MLP).read(n) for n in ArchiveReader(MLP).names()}
    monkeypatch.setattr(zip_archive, "_PREAD", None)     # as on Windows
    reader = ArchiveReader(MLP)
    assert {n: reader.read(n) for n in reader.names()} == expected


# ------------------------------------------------------------------- layouts and reads

def hand_zip(records: dict[str, bytes], layout: str) -> bytes:
    """A zip of stored `records` (full names) in one of the layouts a zip may have: PyTorch's
    ("pytorch": sizes in a data descriptor with its signature) or another valid one."""
    out, central = bytearray(), []
    for name, data in records.items():
        encoded, crc, n, at = name.encode(), zlib.crc32(data), len(data), len(out)
        descriptor = layout != "sizes in the header"
        flags = 0x0808 if descriptor else 0x0800
        version = 20 if layout == "version 20" else 0
        sizes = (0, 0, 0) if layout in ("pytorch", "version 20", "unsigned descriptor") \
            else (crc, n, n)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, version, flags, 0, 0, 0, *sizes,
                           len(encoded), 0) + encoded + data
        if descriptor:
            signature = b"" if layout == "unsigned descriptor" else b"PK\x07\x08"
            out += signature + struct.pack("<III", crc, n, n)
        central.append(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0, version, flags, 0,
                                   0, 0, crc, n, n, len(encoded), 0, 0, 0, 0, 0, at) + encoded)
    cd = len(out)
    out += b"".join(central)
    out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(records), len(records),
                       len(out) - cd, cd, 0)
    return bytes(out)


LAYOUTS = ["pytorch", "version 20", "unsigned descriptor", "sizes in the header",
           "sizes in both"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("from_file", [False, True])
def test_records_of_every_layout_are_found(tmp_path: Path, monkeypatch, layout: str,
                                           from_file: bool) -> None:
    """Records PyTorch's way are checked in one pass, others by the full check: both find
    the same data, in any order of use."""
    records = {f"m/data/{i}": bytes([i]) * (7 + 300 * i) for i in range(6)}
    raw = hand_zip(records, layout)
    assert zipfile.ZipFile(io.BytesIO(raw)).testzip() is None
    source: object = raw
    if from_file:
        source = tmp_path / "m.pt"
        source.write_bytes(raw)
        monkeypatch.setattr(zip_archive, "TAIL_READ", 0)    # headers read from the file
    for order in (list(records), list(records)[::-1]):
        with ArchiveReader(source) as r:
            for full in order:
                name = full[2:]
                assert bytes(r.storage_view(name)) == r.read(name) == records[full]
                header = raw.index(b"PK\x03\x04" + raw[4:6], raw.index(full.encode()) - 30)
                assert r.info(name).data_offset == header + 30 + len(full)


def test_small_records_are_read_with_the_record_before(tmp_path: Path, monkeypatch) -> None:
    """A record's data descriptor is read with the next record's header, and with all of
    the next record when it is small: fewer reads than records, none of a large record."""
    sizes = [100, 5000, 200, 40000, 300, 50]
    path = tmp_path / "m.pt"
    with ArchiveWriter(path, top="m") as w:
        for i, n in enumerate(sizes):
            w.write_record(f"data/{i}", bytes([i]) * n)
    monkeypatch.setattr(zip_archive, "TAIL_READ", 0)        # every record read from the file
    reads: list[int] = []
    pread = zip_archive._PREAD
    if pread is None:
        pytest.skip("records come from the mapping without os.pread")
    monkeypatch.setattr(zip_archive, "_PREAD",
                        lambda fd, n, at: reads.append(n) or pread(fd, n, at))
    with ArchiveReader(path) as r:
        reads.clear()
        for i, n in enumerate(sizes):
            assert bytes(r.storage_view(f"data/{i}")) == bytes([i]) * n
    assert len(reads) < len(sizes)
    assert max(reads) <= zip_archive._READ_WHOLE + zip_archive._HEAD_READ


def test_opening_a_folder_or_a_short_file(tmp_path: Path) -> None:
    with pytest.raises(OSError) as expected:
        open(tmp_path, "rb")
    with pytest.raises(ArchiveError) as info:
        ArchiveReader(tmp_path)
    assert str(info.value) == f"cannot open archive {tmp_path}: {expected.value.strerror}"
    for n in (0, 1, 21):
        path = tmp_path / f"short{n}.pt"
        path.write_bytes(b"P" * n)
        with pytest.raises(ArchiveError) as info:
            ArchiveReader(path)
        assert str(info.value) == f"not a tsjit/TorchScript archive (not a zip file): {path}"


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
def test_a_dropped_reader_closes_its_file(tmp_path: Path, frozen_heap) -> None:
    import gc
    before = len(os.listdir("/proc/self/fd"))
    reader = ArchiveReader(MLP)
    # its file, and the mapping's own descriptor before Python 3.13
    assert len(os.listdir("/proc/self/fd")) == before + 1 + MAP_KEEPS_FD
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a zip" * 10)
    for _ in range(3):
        with pytest.raises(ArchiveError):
            ArchiveReader(bad)
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # (and no ResourceWarning)
        del reader
        gc.collect()
    assert len(os.listdir("/proc/self/fd")) == before
