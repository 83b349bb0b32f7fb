"""tsjit.load of torch.save files: views, byte order, computed offsets, the allow-list and
its refusals, stand-ins, file-likes, protocols, and bad input (always a tsjit error,
nothing executed). Files are made by hand (checkpoint_files) or, where said, by PyTorch."""
from __future__ import annotations

import collections
import io
import os
import pickle
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tsjit
from tests.helpers.checkpoint_files import storage, tensor, write_checkpoint
from tsjit.serialize import checkpoint_storages as S
from tsjit.serialize.checkpoint_values import PickledObject
from tsjit.serialize import pickle_format as P
from tsjit.serialize.errors import ArchiveError, CheckpointError, WeightsOnlyError
from tsjit.serialize.pickler import pickle_value
from tsjit.serialize.zip_archive import ArchiveReader
from tsjit.utils.serialization import config


@pytest.fixture(autouse=True)
def clean_settings() -> Any:
    yield
    tsjit.serialization.clear_safe_globals()
    tsjit.serialization.set_default_load_endianness(None)
    config.load.calculate_storage_offsets = False


def numbers_and_evens(tmp_path: Path, **kw: Any) -> str:
    """[numbers, evens] of the serialization notes: evens = numbers[1::2]."""
    s = storage("0", 9, "LongStorage")
    return write_checkpoint(tmp_path / "views.pt",
                            [tensor(s, 0, (9,), (1,)), tensor(s, 1, (4,), (2,))],
                            {"0": np.arange(1, 10, dtype=np.int64).tobytes()}, **kw)


@pytest.mark.parametrize("mmap", [False, True])
def test_views_share_their_storage_after_loading(tmp_path: Path, mmap: bool) -> None:
    numbers, evens = tsjit.load(numbers_and_evens(tmp_path), mmap=mmap)
    assert evens.stride() == (2,) and evens.storage_offset() == 1
    evens *= 2
    assert numbers.tolist() == [1, 4, 3, 8, 5, 12, 7, 16, 9]
    assert open(tmp_path / "views.pt", "rb").read().count(np.arange(1, 10).tobytes()) == 1


def test_a_tensor_saved_twice_is_one_object_and_a_larger_storage_is_kept(tmp_path: Path) -> None:
    s = storage("0", 12)
    t = tensor(s, 2, (2, 2), (1, 2))
    path = write_checkpoint(tmp_path / "t.pt", {"a": t, "b": t, "c": [t]},
                            {"0": np.arange(12, dtype=np.float32).tobytes()})
    out = tsjit.load(path)
    assert out["a"] is out["b"] is out["c"][0]
    a = out["a"].numpy()
    assert a.tolist() == [[2.0, 4.0], [3.0, 5.0]]
    root = a
    while isinstance(root.base, np.ndarray):
        root = root.base
    assert root.nbytes == 48


@pytest.mark.parametrize("mmap", [False, True])
def test_big_endian_files_are_swapped(tmp_path: Path, mmap: bool) -> None:
    values = {"0": np.array([1.5, -2.0, 3.25], ">f4"), "1": np.array([1, -300], ">i2"),
              "2": np.array([1 + 2j, -3.5j], ">c8")}
    classes = {"0": "FloatStorage", "1": "ShortStorage", "2": "ComplexFloatStorage"}
    model = {k: tensor(storage(k, len(v), classes[k]), 0, (len(v),), (1,))
             for k, v in values.items()}
    path = write_checkpoint(tmp_path / "big.pt", model,
                            {k: v.tobytes() for k, v in values.items()}, byteorder="big")
    out = tsjit.load(path, mmap=mmap)
    for k, v in values.items():
        assert out[k].numpy().tolist() == v.tolist()


def test_files_without_a_byteorder_use_the_default_endianness(tmp_path: Path) -> None:
    data = {"0": np.array([1.0, 2.0], ">f4").tobytes()}
    path = write_checkpoint(tmp_path / "old.pt", tensor(storage("0", 2), 0, (2,), (1,)),
                            data, byteorder=None)
    assert tsjit.load(path).tolist() != [1.0, 2.0]
    tsjit.serialization.set_default_load_endianness(tsjit.serialization.LoadEndianness.BIG)
    assert tsjit.load(path).tolist() == [1.0, 2.0]


def test_computed_storage_offsets_are_the_ones_in_the_file(tmp_path: Path) -> None:
    sizes = [3, 100, 1, 17, 64]
    model = [tensor(storage(str(i), n), 0, (n,), (1,)) for i, n in enumerate(sizes)]
    path = write_checkpoint(tmp_path / "many.pt", model, {
        str(i): np.arange(n, dtype=np.float32).tobytes() for i, n in enumerate(sizes)})
    with ArchiveReader(path) as reader:
        cursor = None
        for i in range(len(sizes)):
            e = reader.info(f"data/{i}")
            if cursor is not None:
                assert S.storage_data_offset(cursor, len(e.name), e.size, 64) == e.data_offset
            cursor = e.data_offset + e.size + S.data_descriptor_size(e.size, e.data_offset)
    config.load.calculate_storage_offsets = True
    out = tsjit.load(path, mmap=True)
    assert [t.tolist() for t in out] == [list(map(float, range(n))) for n in sizes]


# ------------------------------------------------------------------ the allow-list

class Config:
    """A class a checkpoint pickles by reference; its __init__ must never run on load."""

    def __init__(self) -> None:
        raise AssertionError("__init__ called")


def _config_file(tmp_path: Path) -> str:
    obj = Config.__new__(Config)
    obj.lr, obj.me = 0.5, obj      # (refers to itself: made before its state)
    return write_checkpoint(tmp_path / "cfg.pt", None, {},
                            pickled=pickle.dumps({"config": obj}, protocol=2))


def test_allowed_classes_are_built_by_new_and_state(tmp_path: Path) -> None:
    path = _config_file(tmp_path)
    with pytest.raises(WeightsOnlyError, match=f"Unsupported global: GLOBAL {Config.__module__}"):
        tsjit.load(path)
    assert tsjit.serialization.get_unsafe_globals_in_checkpoint(path) == [
        f"{Config.__module__}.Config"]
    with tsjit.serialization.safe_globals([Config]):
        assert tsjit.serialization.get_safe_globals() == [Config]
        assert tsjit.serialization.get_unsafe_globals_in_checkpoint(path) == []
        cfg = tsjit.load(path)["config"]
    assert type(cfg) is Config and cfg.lr == 0.5 and cfg.me is cfg
    assert tsjit.serialization.get_safe_globals() == []
    tsjit.serialization.add_safe_globals([(Config, f"{Config.__module__}.Config")])
    assert type(tsjit.load(path)["config"]) is Config
    tsjit.serialization.clear_safe_globals()
    with pytest.raises(WeightsOnlyError):
        tsjit.load(path)


def test_weights_only_false_loads_other_objects_as_inert_stand_ins(tmp_path: Path) -> None:
    cfg = tsjit.load(_config_file(tmp_path), weights_only=False)["config"]
    assert isinstance(cfg, PickledObject) and type(cfg) is not Config
    assert type(cfg).__qualname__ == "Config" and cfg.lr == 0.5 and cfg.me is cfg
    assert "loaded as data" in repr(cfg)


def gadget(tmp_path: Path, module: str, name: str, marker: Path) -> str:
    call = P.Reduce(P.Global(module, name), (f"touch {marker}",))
    return write_checkpoint(tmp_path / "gadget.pt", {"w": call}, {})


@pytest.mark.parametrize("weights_only", [True, False])
@pytest.mark.parametrize("module,name", [("os", "system"), ("posix", "system"),
                                         ("subprocess", "check_call"), ("builtins", "eval")])
def test_calls_outside_the_allow_list_are_refused_and_never_run(
        tmp_path: Path, weights_only: bool, module: str, name: str) -> None:
    marker = tmp_path / "pwned"
    path = gadget(tmp_path, module, name, marker)
    with pytest.raises(WeightsOnlyError) as info:
        tsjit.load(path, weights_only=weights_only)
    err = info.value
    assert isinstance(err, pickle.UnpicklingError) and isinstance(err, tsjit.TsjitError)
    msg = str(err)
    shown = name if module == "builtins" else f"{module}.{name}"
    assert msg.startswith("Weights only load failed") and f"GLOBAL {shown}" in msg
    assert "blocked" in msg if module in ("os", "posix") else "add_safe_globals" in msg
    assert not marker.exists()


def test_blocked_modules_stay_refused_when_allowed(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    tsjit.serialization.add_safe_globals([os.system])
    with pytest.raises(WeightsOnlyError, match="blocked"):
        tsjit.load(gadget(tmp_path, "os", "system", marker), weights_only=False)
    assert not marker.exists()


def test_unsafe_globals_are_listed_without_running_anything(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = gadget(tmp_path, "os", "system", marker)
    assert tsjit.serialization.get_unsafe_globals_in_checkpoint(path) == ["os.system"]
    assert not marker.exists()
    with pytest.raises(CheckpointError, match="Expected input to be a checkpoint") as info:
        tsjit.serialization.get_unsafe_globals_in_checkpoint(
            os.path.join(os.path.dirname(__file__), "..", "data", "corpus", "model_mlp",
                         "model.pt"))
    assert isinstance(info.value, ValueError)


# ------------------------------------------------------------------ pickles and sources

VALUE = {"list": [1, 2.5, "x", None, True], "tuple": (1, (2,)), "bytes": b"\x00\xff",
         "big": 10**30, "complex": 1 - 2j, "set": {1, 2}, "nested": [[[]]],
         "od": collections.OrderedDict(a=1), "bytearray": bytearray(b"ab")}


@pytest.mark.parametrize("protocol", range(2, pickle.HIGHEST_PROTOCOL + 1))
def test_plain_python_values_of_every_protocol(tmp_path: Path, protocol: int) -> None:
    path = write_checkpoint(tmp_path / "v.pt", None, {},
                            pickled=pickle.dumps(VALUE, protocol=protocol))
    if protocol >= 4:   # refused with weights_only=True, as PyTorch refuses them
        with pytest.raises(WeightsOnlyError, match="Unsupported operand 149"):
            tsjit.load(path)
    out = tsjit.load(path, weights_only=False if protocol >= 4 else None)
    assert out == VALUE and type(out["od"]) is collections.OrderedDict


def test_file_likes_load_like_paths(tmp_path: Path) -> None:
    path = numbers_and_evens(tmp_path)
    data = open(path, "rb").read()
    with open(path, "rb") as f:
        from_file = tsjit.load(f)
    buf = io.BytesIO(b"junk" + data)
    buf.seek(4)
    for numbers, evens in (from_file, tsjit.load(buf)):
        evens *= 2    # writable, and still views of one storage
        assert numbers.tolist() == [1, 4, 3, 8, 5, 12, 7, 16, 9]
    with pytest.raises(tsjit.TsjitError, match="file path in order to use the mmap"):
        tsjit.load(io.BytesIO(data), mmap=True)
    archive = os.path.join(os.path.dirname(__file__), "..", "data", "corpus", "model_mlp",
                           "model.pt")
    with open(archive, "rb") as f:
        m = tsjit.jit.load(io.BytesIO(f.read()), map_location="cpu")
    assert m.training in (True, False)


@pytest.mark.slow
def test_deep_nesting_in_a_checkpoint_loads(tmp_path: Path) -> None:
    depth = 100_000
    pickled = b"\x80\x02" + b"]" * depth + b"a" * (depth - 1) + b"."
    out = tsjit.load(write_checkpoint(tmp_path / "deep.pt", None, {}, pickled=pickled),
                     limits=tsjit.Limits(max_pickle_depth=depth))
    for _ in range(depth - 1):
        out = out[0]
    assert out == []


# ------------------------------------------------------------------ bad input

def test_every_truncation_is_a_tsjit_error(tmp_path: Path) -> None:
    data = open(numbers_and_evens(tmp_path), "rb").read()
    legacy = open(os.path.join(os.path.dirname(__file__), "..", "data", "ckpt", "cases",
                               "legacy_views_shared", "file.pt"), "rb").read()
    for whole in (data, legacy):
        for n in range(0, len(whole), 7):
            with pytest.raises(tsjit.TsjitError):
                tsjit.load(io.BytesIO(whole[:n]))


@pytest.mark.parametrize("model,storages,match", [
    (tensor(storage("0", 4), 0, (5,), (1,)), {"0": bytes(16)}, "needs storage element 4"),
    (tensor(storage("0", 2**60), 0, (2,), (1,)), {"0": bytes(16)}, "has 16 bytes"),
    (tensor(storage("0", 4), 0, (2,), (1,)), {}, "lacks"),
    (tensor(storage("0", 2, "QInt8Storage"), 0, (2,), (1,)), {"0": bytes(2)},
     "does not support"),
    (P.Reduce(P.Global("torch._utils", "_rebuild_tensor_v3"), (
        storage("0", 2, "UntypedStorage"), 0, (1,), (1,), False, None,
        P.Global("torch", "bits16"))), {"0": bytes(2)}, "does not support"),
    (tensor(storage("0", 4), 0, (2, 2), (2,)), {"0": bytes(16)}, "bad tensor geometry"),
    (P.PersistentId(("nonsense",)), {}, "unexpected persistent id"),
])
def test_bad_checkpoints_are_clear_errors(tmp_path: Path, model: Any, storages: dict,
                                          match: str) -> None:
    path = write_checkpoint(tmp_path / "bad.pt", model, storages)
    with pytest.raises(ArchiveError, match=match):
        tsjit.load(path)


def test_files_that_are_not_checkpoints(tmp_path: Path) -> None:
    plain = tmp_path / "plain.pkl"
    plain.write_bytes(pickle.dumps({"a": 1}))
    with pytest.raises(ArchiveError, match="not a zip"):
        tsjit.load(plain)
    with pytest.raises(ArchiveError, match="no such file"):
        tsjit.load(tmp_path / "missing.pt")
    path = write_checkpoint(tmp_path / "t.pt", None, {}, pickled=pickle_value([1]) + b"xx")
    with pytest.raises(CheckpointError, match="trailing data"):
        tsjit.load(path)


def test_mmap_options_are_private_only() -> None:
    import mmap
    tsjit.serialization.set_default_mmap_options(mmap.MAP_PRIVATE)
    assert tsjit.serialization.get_default_mmap_options() == mmap.MAP_PRIVATE
    with pytest.raises(tsjit.TsjitError, match="MAP_PRIVATE only"):
        tsjit.serialization.set_default_mmap_options(mmap.MAP_SHARED)


def test_map_location_is_the_cpu_only(tmp_path: Path) -> None:
    path = numbers_and_evens(tmp_path)
    for ok in ("cpu", tsjit.device("cpu"), {"cuda:0": "cpu"}):
        tsjit.load(path, map_location=ok)
    for bad in ("cuda", {"cpu": "cuda:1"}, lambda storage, loc: storage):
        with pytest.raises(tsjit.TsjitError):
            tsjit.load(path, map_location=bad)


# ------------------------------------------------------------------ files PyTorch writes

@pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta")
def test_pytorch_variants_alignment_no_crc_protocols_sparse(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from torch.utils.serialization import config as tconfig
    numbers = torch.arange(1, 10)
    obj = {"numbers": numbers, "evens": numbers[1::2], "w": torch.randn(3, 4).t(),
           "csr": torch.eye(3).to_sparse_csr(), "coo": (torch.eye(3) * 2).to_sparse(),
           "csc": torch.arange(6.).view(2, 3).to_sparse_csc(),
           "bsr": torch.arange(16.).view(4, 4).to_sparse_bsr((2, 2)),
           "bsc": torch.arange(16.).view(4, 4).to_sparse_bsc((2, 1)),
           "param": torch.nn.Parameter(torch.ones(2)), "empty": torch.zeros(0)}
    files = {}
    old = (tconfig.save.storage_alignment, tconfig.save.compute_crc32)
    try:
        tconfig.save.storage_alignment, tconfig.save.compute_crc32 = 4096, False
        torch.save(obj, tmp_path / "aligned.pt")
    finally:
        tconfig.save.storage_alignment, tconfig.save.compute_crc32 = old
    files["aligned"] = tmp_path / "aligned.pt"
    torch.save(obj, tmp_path / "p5.pt", pickle_protocol=5)
    files["p5"] = tmp_path / "p5.pt"
    torch.save(obj, tmp_path / "legacy.pt", _use_new_zipfile_serialization=False)
    files["legacy"] = tmp_path / "legacy.pt"
    for name, path in files.items():
        for mmap in (False, True) if name != "legacy" else (False,):
            for computed in (False, True):
                config.load.calculate_storage_offsets = computed
                out = tsjit.load(path, mmap=mmap, weights_only=name != "p5")
                assert out["numbers"].tolist() == numbers.tolist(), name
                out["evens"] *= 2
                assert out["numbers"].tolist() == [1, 4, 3, 8, 5, 12, 7, 16, 9], name
                assert out["w"].stride() == (1, 4)
                assert np.array_equal(out["w"].numpy(), obj["w"].numpy())
                for k in ("csr", "coo", "csc", "bsr", "bsc"):
                    assert str(out[k].layout) == str(obj[k].layout)
                    assert np.array_equal(out[k].to_dense().numpy(), obj[k].to_dense().numpy())
                assert type(out["param"]).__name__ == "Parameter" and out["param"].requires_grad
                assert out["empty"].shape == (0,)


def test_mmap_of_a_large_file_reads_nothing_until_touched(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    path = tmp_path / "big.pt"
    state = {f"layer{i}.weight": torch.full((1024, 1024), float(i)) for i in range(16)}
    torch.save(state, path)          # 64 MiB
    del state

    def rss() -> int:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    before = rss()
    out = tsjit.load(path, mmap=True)
    assert rss() - before < os.path.getsize(path) // 8
    with open("/proc/self/maps") as f:     # address ranges mapping the file
        spans = [[int(x, 16) for x in line.split()[0].split("-")] for line in f
                 if line.rstrip().endswith(" " + os.path.realpath(path))]
    assert all(any(lo <= t.data_ptr() < hi for lo, hi in spans) for t in out.values())
    assert out["layer7.weight"][3, 5].item() == 7.0
    out["layer7.weight"][0, 0] = -1.0          # a private mapping: the file is unchanged
    assert torch.load(path, mmap=True)["layer7.weight"][0, 0].item() == 7.0
