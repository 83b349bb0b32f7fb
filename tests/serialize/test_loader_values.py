"""The loader's interpretation of pickle records: tensors of every geometry (the usual ones
take a shorter path, which must agree with the general one), records met twice, and
attribute states in any order."""
from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

import tsjit
from tsjit.ir.limits import Limits, use_limits
from tests.helpers.corpus import case_path
from tsjit.serialize import loader as L
from tsjit.serialize import pickle_format as P
from tsjit.serialize import tensor_views as V
from tsjit.serialize.errors import ArchiveError
from tsjit.serialize.pickler import pickle_value
from tsjit.serialize.unpickler import unpickle
from tsjit.serialize.zip_archive import ArchiveReader, ArchiveWriter
from tsjit._tensor.tensor import _root

STORAGE = np.arange(24, dtype=np.float32)


def storages() -> L._Storages:
    """The folder `data/` of an archive holding STORAGE as its record `data/0`."""
    with ArchiveWriter(top="m") as w:
        w.write_record("data/0", STORAGE.tobytes())
    return L._Storages(ArchiveReader(w.to_bytes()), "data", False)


def storage_id(numel: int = 24) -> P.PersistentId:
    return P.PersistentId(("storage", P.Global("torch", "FloatStorage"), "0", "cpu", numel))


def outcome(make: Callable[[], Any]) -> tuple:
    """What `make()` gives: its array's layout, values and storage, or its error."""
    try:
        a = make()
    except Exception as exc:   # noqa: BLE001 - any error must be the same
        return type(exc), str(exc)
    a = a.numpy() if isinstance(a, tsjit.Tensor) else a
    return a.shape, a.strides, a.tolist(), a.dtype, a.flags.writeable


GEOMETRIES = [
    (0, (4, 6), (6, 1)),            # a matrix, the whole storage
    (6, (3, 6), (6, 1)),            # ... a part of it
    (0, (2, 6), (6, 1)),
    (0, (1, 1), (1, 1)),
    (0, (24,), (1,)),               # a vector, the whole storage
    (5, (7,), (1,)),                # ... a part of it
    (0, (6, 4), (1, 6)),            # other layouts
    (0, (2, 3, 4), (12, 4, 1)),
    (2, (3, 2), (4, 1)),
    (0, (0, 6), (6, 1)),            # no elements
    (24, (4, 0), (0, 1)),
    (3, (0,), (1,)),
    (0, (True, 6), (6, 1)),         # bools are ints
    (0, (4, 6), (6, True)),
    (0, (4, 6), (True, 1)),
    (0, [4, 6], [6, 1]),            # lists
    (0, (4, 6), [6, 1]),
    (0, (4.0, 6), (6, 1)),          # bad geometries
    (0, (4, 6), (6.0, 1)),
    (0, (4, 6), (6, 1.0)),
    (0.0, (24,), (1,)),
    (0, (24,), (1.0,)),
    (0, (4, 6), (6,)),
    (0, "ab", (6, 1)),
    (0, 24, 1),
    (-1, (4,), (1,)),               # negative
    (0, (-1, 6), (6, 1)),
    (0, (4, -6), (-6, 1)),
    (1, (4, 6), (6, 1)),            # past the storage
    (0, (5, 6), (6, 1)),
    (0, (25,), (1,)),
    (20, (5,), (1,)),
    (0, (4, 7), (7, 1)),
]


@pytest.mark.parametrize("offset,size,stride", GEOMETRIES)
def test_usual_tensors_are_made_as_any_tensor(offset: Any, size: Any, stride: Any) -> None:
    store = storages()
    args = (storage_id(), offset, size, stride, False, P.Reduce(P.ORDERED_DICT, ()))
    made = outcome(lambda: L._rebuild_tensor(store, args, "w"))
    general = outcome(lambda: V._strided(store.get(storage_id().pid, "w"), offset, size,
                                         stride, "w"))
    assert made == general
    if isinstance(made[0], tuple):      # a view of the storage
        t = L._rebuild_tensor(store, args, "w")
        assert _root(t.numpy()) is store.arrays["0"][0]


@pytest.mark.parametrize("extra,requires_grad", [
    ((), False), ((True,), True), ((False,), False), ((True, None), True),
    ((False, None), False), ((True, None, "more"), True), ((False, None, "more"), False)])
def test_tensor_records_of_four_to_seven_arguments(extra: tuple, requires_grad: bool) -> None:
    t = L._rebuild_tensor(storages(), (storage_id(), 0, (4, 6), (6, 1)) + extra, "w")
    assert t.requires_grad is requires_grad
    assert t.numpy().tolist() == STORAGE.reshape(4, 6).tolist()
    with pytest.raises(ArchiveError, match="bad tensor record in w"):
        L._rebuild_tensor(storages(), (storage_id(), 0, (4, 6)), "w")


def test_a_storage_the_archive_lacks_or_cannot_give() -> None:
    store = storages()
    missing = P.PersistentId(("storage", P.Global("torch", "FloatStorage"), "7", "cpu", 4))
    with pytest.raises(ArchiveError, match=r"w refers to storage m/data/7, which the "
                                           r"archive lacks"):
        L._rebuild_tensor(store, (missing, 0, (4,), (1,)), "w")
    with ArchiveWriter(top="m") as w:
        w.write_record("data/0", STORAGE.tobytes() * 10, compress=True)
    compressed = L._Storages(ArchiveReader(w.to_bytes()), "data", False)
    with pytest.raises(ArchiveError, match=r"record m/data/0 in <bytes> is compressed"):
        L._rebuild_tensor(compressed, (storage_id(), 0, (4,), (1,)), "w")


def loader() -> L._ObjectLoader:
    """A loader of plain values and tensors (no archive classes)."""
    return L._ObjectLoader(None, storages(), "w", L.LoadClock(None))   # type: ignore[arg-type]


def test_records_met_twice_give_one_value() -> None:
    tensor = P.Reduce(P.REBUILD_TENSOR_V2, (storage_id(), 0, (24,), (1,), False, None))
    listed, devices = [1, 2.5, "x"], P.Reduce(P.TORCH_DEVICE, ("cpu",))
    out = loader().value(([listed, listed], (tensor, tensor), {"t": tensor, "d": devices},
                          devices, P.Reduce(P.RESTORE_TYPE_TAG, (listed, "List[int]"))))
    assert out[0][0] is out[0][1] is out[4] and out[0][0] == listed
    assert out[1][0] is out[1][1] is out[2]["t"]
    assert out[2]["d"] is out[3]
    assert type(out) is tuple and type(out[1]) is tuple


class Text(str):
    """A str subclass: no archive holds one, but such values are their own values."""


def test_values_of_subclasses_and_other_types() -> None:
    out = loader().value([P.MemoTuple((1, [2])), Text("a"), None, True, 3, 4.5])
    assert type(out[0]) is tuple and out[0] == (1, [2])
    assert type(out[1]) is Text and out[2:] == [None, True, 3, 4.5]
    assert loader().value(P.Reduce(P.ORDERED_DICT, ())) == {}
    for bad, name in ((b"x", "bytes"), ({1}, "set"), (P.Global("a", "b"), "Global")):
        with pytest.raises(ArchiveError, match=f"unexpected {name} value in w"):
            loader().value([bad])


def _rezip(tmp_path: Path, edit: Callable[[Any], None]) -> str:
    """model_mlp with its data.pkl records changed in place by `edit(root)`."""
    out = tmp_path / "edited.pt"
    with zipfile.ZipFile(case_path("model_mlp")) as src, zipfile.ZipFile(out, "w") as z:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename == "model/data.pkl":
                root = unpickle(data, info.filename)
                edit(root)
                data = pickle_value(root)
            z.writestr(info.filename, data)
    return str(out)


def _linear(root: Any, index: str) -> P.Object:
    return root.state["features"].state[index]


def test_attribute_states_in_any_order(tmp_path: Path) -> None:
    """States list attributes in the class's order (the picklers do); any other order
    gives the same object."""
    def reverse(root: Any) -> None:
        layer = _linear(root, "0")
        layer.state = dict(reversed(layer.state.items()))
    original = tsjit.load(str(case_path("model_mlp")))
    edited = tsjit.load(_rezip(tmp_path, reverse))
    for m in (original, edited):
        assert m.features[0].training is False
    assert edited.features[0].weight.tolist() == original.features[0].weight.tolist()
    assert edited.features[0].bias.tolist() == original.features[0].bias.tolist()
    x = tsjit.ones(2, 6)
    assert edited(x).tolist() == original(x).tolist()


def test_a_tensor_record_met_twice_is_one_tensor(tmp_path: Path) -> None:
    def share(root: Any) -> None:
        layer = _linear(root, "0")
        layer.state["bias"] = layer.state["weight"]
    m = tsjit.load(_rezip(tmp_path, share))
    assert m.features[0].bias is m.features[0].weight


def test_deep_nesting_is_loaded_without_recursion() -> None:
    """100,000 nested lists, tuples and dicts: no RecursionError (the walk keeps its own
    stack) when the limits allow such depths."""
    depth = 100_000
    for wrap in (lambda x: [x], lambda x: (x,), lambda x: {"k": x}):
        v: Any = 1
        for _ in range(depth):
            v = wrap(v)
        with use_limits(Limits(max_pickle_depth=depth + 1)):
            out = loader().value(v)
        for _ in range(depth):
            out = out["k"] if isinstance(out, dict) else out[0]
        assert out == 1


def test_cycles_through_lists_keep_identity_and_through_tuples_are_refused() -> None:
    a: list = []
    a.append(a)
    out = loader().value(a)
    assert out[0] is out
    t = P.Reduce(P.RESTORE_TYPE_TAG, ([], "List[int]"))
    t.args[0].append(t)
    with pytest.raises(ArchiveError, match="contains itself"):
        loader().value((t,))
