"""Hostile archives, through tsjit.load: each ends in a clear tsjit error and nothing in
them runs. (Zip- and pickle-level cases are in test_ser_zip.py / test_ser_unpickler.py.)"""
import io
import os
import warnings
import zipfile

import pytest

import tsjit
from tests.helpers.corpus import case_path
from tsjit.ir.diagnostics import TsjitError
from tsjit.serialize import ArchiveError
from tsjit.serialize import pickle_format as P
from tsjit.serialize.pickler import pickle_value
from tsjit.serialize.unpickler import unpickle


def _rezip(tmp_path, edit, add=()):
    """model_mlp with each record's bytes replaced by edit(name, data) (None drops it),
    then the (name, data) records of `add` appended."""
    out = tmp_path / "edited.pt"
    with zipfile.ZipFile(case_path("model_mlp")) as src, zipfile.ZipFile(out, "w") as z:
        for info in src.infolist():
            data = edit(info.filename, src.read(info.filename))
            if data is not None:
                z.writestr(info.filename, data)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # zipfile warns about duplicate names
            for name, data in add:
                z.writestr(name, data)
    return str(out)


def _replace(record, data):
    return lambda n, d: data if n == f"model/{record}" else d


def _payloads(sentinel):
    """Pickles that would create `sentinel` if anything in them were run."""
    cmd = f"touch {sentinel}".encode()
    code = f"open({str(sentinel)!r}, 'w')".encode()
    return {
        "os.system": b"\x80\x02cos\nsystem\nX" + len(cmd).to_bytes(4, "little") + cmd + b"\x85R.",
        "builtins.eval": b"\x80\x02cbuiltins\neval\nX" + len(code).to_bytes(4, "little") + code
                         + b"\x85R.",
        "posix.system": b"\x80\x02cposix\nsystem\nX" + len(cmd).to_bytes(4, "little") + cmd
                        + b"\x85R.",
    }


@pytest.mark.parametrize("record", ["data.pkl", "constants.pkl"])
@pytest.mark.parametrize("which", ["os.system", "builtins.eval", "posix.system"])
def test_forbidden_globals_are_named_and_not_run(tmp_path, record, which):
    sentinel = tmp_path / "pwned"
    path = _rezip(tmp_path, _replace(record, _payloads(sentinel)[which]))
    with pytest.raises(ArchiveError, match=f"forbidden global '{which}' in model/{record}"):
        tsjit.load(path)
    assert not sentinel.exists()


def test_forbidden_global_in_debug_records_is_an_error_when_they_are_read(tmp_path):
    sentinel = tmp_path / "pwned"
    debug = "code/__torch__/model_mlp.py.debug_pkl"
    path = _rezip(tmp_path, _replace(debug, _payloads(sentinel)["os.system"]))
    m = tsjit.load(path)            # debug records are read when first needed
    with pytest.raises(ArchiveError, match=f"forbidden global 'os.system' in model/{debug}"):
        tsjit.save(m, str(tmp_path / "again.pt"))
    assert not sentinel.exists()


def _edit_first_tensor(tmp_path, change):
    """model_mlp whose first tensor record's (pid, offset, size, stride, ...) are changed."""
    def edit(name, data):
        if name != "model/data.pkl":
            return data
        root = unpickle(data, name)
        found = []

        def walk(v):
            if isinstance(v, P.Reduce) and v.func is P.REBUILD_TENSOR_V2 and not found:
                found.append(v)
                v.args = change(v.args)
            elif isinstance(v, P.Object):
                walk(v.state)
            elif isinstance(v, (list, tuple)):
                for x in v:
                    walk(x)
            elif isinstance(v, dict):
                for x in v.values():
                    walk(x)
            elif isinstance(v, P.Reduce):
                walk(v.args)
        walk(root)
        assert found
        return pickle_value(root)
    return _rezip(tmp_path, edit)


@pytest.mark.parametrize("change,message", [
    (lambda a: (a[0], 10 ** 6) + a[2:], "needs storage element"),
    (lambda a: (a[0], a[1], (a[2][0] * 4,) + tuple(a[2][1:])) + a[3:], "needs storage element"),
    (lambda a: (a[0], a[1], a[2], (10 ** 9,) * len(a[3])) + a[4:], "needs storage element"),
    (lambda a: (a[0], -1) + a[2:], "negative tensor geometry"),
    (lambda a: (a[0], a[1], a[2], a[3][:-1]) + a[4:], "bad tensor geometry"),
    (lambda a: (P.PersistentId(("storage", P.Global("torch", "FloatStorage"), "99", "cpu",
                                4)),) + a[1:], "lacks"),
    (lambda a: (P.PersistentId(("storage", P.Global("torch", "FloatStorage"), "0", "cpu",
                                10 ** 9)),) + a[1:], "bytes but 1000000000 elements"),
    (lambda a: (P.PersistentId(("storage", P.Global("torch", "EvilStorage"), "0", "cpu",
                                4)),) + a[1:], "forbidden global 'torch.EvilStorage'"),
])
def test_tensors_that_claim_more_than_their_storage(tmp_path, change, message):
    with pytest.raises(ArchiveError, match=message):
        tsjit.load(_edit_first_tensor(tmp_path, change))


def test_storage_record_shorter_than_its_tensor(tmp_path):
    path = _rezip(tmp_path, lambda n, d: d[:10] if n == "model/data/1" else d)
    with pytest.raises(ArchiveError, match="storage model/data/1 has 10 bytes"):
        tsjit.load(path)


@pytest.mark.parametrize("name", ["model/../evil", "model/code/../../evil", "../model/x",
                                  "/model/abs", "model/a\\..\\b", "model/./x"])
def test_names_escaping_the_top_folder(tmp_path, name):
    path = _rezip(tmp_path, lambda n, d: d, add=[(name, b"x")])
    with pytest.raises(ArchiveError, match="unsafe record name"):
        tsjit.load(path)


@pytest.mark.parametrize("name", ["model/data.pkl", "model/code/__torch__/model_mlp.py",
                                  "model/extra/x"])
def test_repeated_names(tmp_path, name):
    extra = [("model/extra/x", b"1")] if name == "model/extra/x" else []
    path = _rezip(tmp_path, lambda n, d: d, add=extra + [(name, b"second")])
    with pytest.raises(ArchiveError, match="duplicate record name"):
        tsjit.load(path)


def test_a_second_top_folder(tmp_path):
    path = _rezip(tmp_path, lambda n, d: d, add=[("other/data.pkl", b"x")])
    with pytest.raises(ArchiveError, match="one top folder"):
        tsjit.load(path)


def test_every_truncation_is_a_tsjit_error(tmp_path):
    data = open(case_path("model_mlp"), "rb").read()
    path = tmp_path / "cut.pt"
    for n in list(range(0, 200, 7)) + list(range(200, len(data), max(1, len(data) // 97))):
        path.write_bytes(data[:n])
        with pytest.raises(TsjitError):
            tsjit.load(str(path))


@pytest.mark.parametrize("content,message", [
    (b"99\n", "format version 99 is not supported: tsjit reads versions"),
    (b"0\n", "format version 0 is not supported"),
    (b"-3\n", "bad version record model/version"),
    (b"three\n", "bad version record model/version: 'three'"),
    (b"", "bad version record"),
    (b"\xff\xfe", "bad version record"),
    (None, "has no version record"),
])
def test_bad_version_numbers(tmp_path, content, message):
    with pytest.raises(ArchiveError, match=message):
        tsjit.load(_rezip(tmp_path, _replace("version", content)))


def test_bad_version_in_data_folder(tmp_path):
    path = _rezip(tmp_path, _replace("version", None), add=[("model/.data/version", b"1000\n")])
    with pytest.raises(ArchiveError, match="version 1000 is not supported"):
        tsjit.load(path)


def test_big_endian_archives_are_refused(tmp_path):
    with pytest.raises(ArchiveError, match="byte order 'big' is not supported"):
        tsjit.load(_rezip(tmp_path, _replace("byteorder", b"big")))


def test_class_not_in_code_is_a_clear_error(tmp_path):
    def edit(name, data):
        return None if name == "model/code/__torch__/model_mlp.py" else data
    with pytest.raises(TsjitError, match="no class __torch__.model_mlp.MLP"):
        tsjit.load(_rezip(tmp_path, edit))


def test_inflating_past_the_declared_size_is_refused(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(case_path("model_mlp")) as src, \
            zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            z.writestr(info.filename, src.read(info.filename))
    data = bytearray(buf.getvalue())
    # Shrink the declared size of data.pkl in the central directory: a "zip bomb" shape.
    name = b"model/data.pkl"
    at = data.rindex(name) - 46     # its central directory entry (46-byte header, then name)
    assert data[at:at + 4] == b"PK\x01\x02"
    size = int.from_bytes(data[at + 24:at + 28], "little")
    data[at + 24:at + 28] = (size // 2).to_bytes(4, "little")
    path = tmp_path / "bomb.pt"
    path.write_bytes(bytes(data))
    with pytest.raises(ArchiveError):
        tsjit.load(str(path))
    assert os.path.getsize(path) == len(data)


@pytest.mark.parametrize("call", [
    'eval("open({s!r}, \'w\')")',
    '__import__("os").system("touch {s}")',
    'os.system("touch {s}")',
    'torch.load("{s}")',
    'getattr(__builtins__, "exec")("open({s!r}, \'w\')")',
    'open("{s}", "w")',
])
def test_archive_code_reaches_only_registered_operators(tmp_path, call):
    sentinel = tmp_path / "pwned"
    line = "    features = self.features\n    return (features).forward(x, )"
    payload = "    _0 = " + call.format(s=str(sentinel)) + "\n    return x"

    def edit(name, data):
        if name == "model/code/__torch__/model_mlp.py":
            assert line.encode() in data
            return data.replace(line.encode(), payload.encode())
        return data
    m = tsjit.load(_rezip(tmp_path, edit))
    with pytest.raises(TsjitError, match=r"model/code/__torch__/model_mlp.py:\d+:\d+"):
        m.hidden(tsjit.ones(2, 6))
    assert not sentinel.exists()


def _edit_root_state(tmp_path, change):
    """model_mlp with data.pkl's root object state replaced by change(state)."""
    def edit(name, data):
        if name != "model/data.pkl":
            return data
        root = unpickle(data, name)
        root.state = change(dict(root.state))
        return pickle_value(root)
    return _rezip(tmp_path, edit)


@pytest.mark.parametrize("change,message", [
    (lambda s: {**s, "sneaky": 1}, "sets attribute 'sneaky', which class "
                                   "__torch__.model_mlp.MLP does not declare"),
    (lambda s: {**s, 7: 1}, "sets attribute '7', which class"),
    (lambda s: [1, 2], "state of a __torch__.model_mlp.MLP object .* is not a dict"),
])
def test_object_states_that_do_not_fit_their_class(tmp_path, change, message):
    with pytest.raises(ArchiveError, match=message):
        tsjit.load(_edit_root_state(tmp_path, change))


def test_objects_of_one_class_get_their_own_attribute_values(tmp_path):
    m = tsjit.load(case_path("model_mlp"))
    layers = [x for x in m.features.children() if hasattr(x, "weight")]
    assert len(layers) > 1 and len({id(x.weight) for x in layers}) == len(layers)
    assert len({tuple(x.weight.shape) for x in layers}) > 1
