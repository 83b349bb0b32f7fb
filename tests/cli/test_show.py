"""`tsjit show`: pickle records rendered from the neutral model, text records as text."""
import re

from tests.helpers.corpus import case_path

from tests.helpers.cli import ROOT, tsjit

CKPT = ROOT / "tests" / "data" / "ckpt" / "cases"
LEGACY = ROOT / "tests" / "data" / "ckpt" / "cases" / "legacy_state_dict" / "file.pt"


def _tensors(text):
    """(shape, storage) of each tensor line."""
    return re.findall(r"tensor\(\w+, shape=(\[[\d, ]*\]), stride=\[[\d, ]*\], storage=(\S+?),", text)


def test_data_pkl_shows_every_module_and_parameter():
    import tsjit as T
    path = case_path("model_mlp")
    proc = tsjit("show", path, "data.pkl")
    assert proc.returncode == 0, proc.stderr
    m = T.jit.load(path)
    for _, sub in m.named_modules():
        assert sub._c.type.qualified_name + "(" in proc.stdout
    shown = _tensors(proc.stdout)
    assert sorted(s for s, _ in shown) == sorted(str(list(p.shape)) for p in m.parameters())
    assert all(storage.startswith("data/") for _, storage in shown)
    # the default record is data.pkl; the archive's top folder may be given
    assert tsjit("show", path).stdout == proc.stdout == tsjit("show", path, "model/data.pkl").stdout


def test_text_records_debug_pickles_and_storages():
    path = case_path("model_mlp")
    code = tsjit("show", path, "code/__torch__/model_mlp.py")
    assert code.returncode == 0 and code.stdout.startswith("class MLP(Module):")
    debug = tsjit("show", path, "code/__torch__/model_mlp.py.debug_pkl")
    assert debug.returncode == 0 and "'FORMAT_WITH_STRING_TABLE'" in debug.stdout
    assert "torch.jit._pickle.build_intlist(" in debug.stdout and "<same as [2]" in debug.stdout
    storage = tsjit("show", path, "data/0")
    assert "tensor storage, 384 bytes" in storage.stdout
    missing = tsjit("show", path, "no/such")
    assert missing.returncode == 1 and "has no record 'no/such'" in missing.stderr


def test_extra_files_by_name(tmp_path):
    import tsjit as T
    out = tmp_path / "with_extra.pt"
    T.jit.save(T.jit.load(case_path("model_mlp")), str(out), _extra_files={"notes.txt": "hello\nworld"})
    proc = tsjit("show", out, "notes.txt")
    assert proc.returncode == 0 and proc.stdout == "hello\nworld\n"


def test_checkpoints_zip_legacy_and_shared_tensors(checkpoint):
    zipped = tsjit("show", checkpoint).stdout
    assert sorted(s for s, _ in _tensors(zipped)) == ["[2, 3]", "[4]"]
    legacy = tsjit("show", LEGACY)
    assert legacy.returncode == 0 and "collections.OrderedDict(" in legacy.stdout
    assert [s for s, _ in _tensors(legacy.stdout)] == ["[2, 3]", "[2]"]
    shared = tsjit("show", CKPT / "same_tensor_twice" / "file.pt").stdout
    assert "'b': <same as ['a']>" in shared


def test_a_gadget_is_named_never_run(tmp_path):
    """A pickle calling os.system is shown as the call it would make; nothing runs."""
    proc = tsjit("show", CKPT / "gadget_os_system" / "file.pt", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"\b(os|posix)\.system\(", proc.stdout)
    assert list(tmp_path.iterdir()) == []
