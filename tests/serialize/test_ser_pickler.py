"""The pickler: byte-identical round trips of PyTorch's pickles, PyTorch's opcode
conventions, and interoperability with Python's own pickle module."""
from __future__ import annotations

import io
import pickle
import pickletools
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers.serialize_corpus import pickle_records, same
from tsjit.serialize.errors import PicklingError
from tsjit.serialize.pickle_format import (
    BUILD_INTLIST, ORDERED_DICT, REBUILD_TENSOR_V2, RESTORE_TYPE_TAG, Global, MemoTuple,
    Object, PersistentId, Reduce)
from tsjit.serialize.pickler import pickle_value
from tsjit.serialize.unpickler import unpickle

RECORDS = list(pickle_records())


@pytest.mark.parametrize("case,name,data", RECORDS, ids=[f"{c}:{n.split('/', 1)[1]}"
                                                         for c, n, _ in RECORDS])
def test_corpus_pickles_round_trip_byte_identically(case: str, name: str, data: bytes) -> None:
    value = unpickle(data, name)
    assert pickle_value(value) == data


def test_corpus_has_every_kind_of_pickle_record() -> None:
    kinds = {name.rsplit("/", 1)[-1].split(".", 1)[-1] for _, name, _ in RECORDS}
    assert {"pkl", "py.debug_pkl"} <= kinds
    assert len(RECORDS) >= 3 * 73


# ------------------------------------------------------------------- conventions

def ops(data: bytes) -> list[tuple[str, object]]:
    return [(op.name, arg) for op, arg, _ in pickletools.genops(data)]


def test_int_opcode_choices() -> None:
    cases = {0: "BININT1", 255: "BININT1", 256: "BININT2", 65535: "BININT2",
             65536: "BININT", -1: "BININT", 2**31 - 1: "BININT", -2**31: "BININT",
             2**31: "LONG1", -2**31 - 1: "LONG1", 2**63 - 1: "LONG1", -2**63: "LONG1"}
    for n, opname in cases.items():
        data = pickle_value(n)
        assert ops(data)[1] == (opname, n)
        assert unpickle(data, "t") == n
    # int64 values are always 8 bytes, as PyTorch writes them
    assert pickle_value(2**31) == b"\x80\x02\x8a\x08" + (2**31).to_bytes(8, "little") + b"."
    huge = -(2**200) + 7
    assert unpickle(pickle_value(huge), "t") == huge == pickle.loads(pickle_value(huge))


def test_strings_are_memoized_by_value_and_globals_by_name() -> None:
    a, b = "attr", "".join(["at", "tr"])
    assert a is not b
    data = pickle_value([a, b, Global("torch", "device"), Global("torch", "device")])
    names = [n for n, _ in ops(data)]
    assert names.count("BINUNICODE") == 1 and names.count("GLOBAL") == 1
    assert names.count("BINGET") == 2


def test_containers_are_memoized_only_when_shared() -> None:
    inner = [1, 2]
    value = {"x": inner, "y": inner, "z": [3]}
    data = pickle_value(value)
    back = unpickle(data, "t")
    assert back["x"] is back["y"] and back["x"] is not back["z"]
    assert [n for n, _ in ops(data)].count("BINPUT") == 4   # "x", inner, "y", "z"
    assert pickle_value(back) == data


def test_lists_and_dicts_are_not_batched() -> None:
    data = pickle_value([list(range(2500)), {str(i): i for i in range(1500)}])
    names = [n for n, _ in ops(data)]
    assert names.count("APPENDS") == 2 and names.count("SETITEMS") == 1
    assert ops(pickle_value([]))[1:] == [("EMPTY_LIST", None), ("MARK", None),
                                         ("APPENDS", None), ("STOP", None)]


def test_tuple_styles() -> None:
    # TorchScript tuples: EMPTY_TUPLE, TUPLE1..3, MARK ... TUPLE.
    value = ((), (1,), (1, 2), (1, 2, 3), (1, 2, 3, 4))
    assert [n for n, _ in ops(pickle_value(value))][1:] == (
        ["MARK", "EMPTY_TUPLE", "BININT1", "TUPLE1", "BININT1", "BININT1", "TUPLE2"]
        + ["BININT1"] * 3 + ["TUPLE3", "MARK"] + ["BININT1"] * 4 + ["TUPLE", "TUPLE", "STOP"])
    # Literal tuples: the tensor rebuild arguments, sizes and strides, persistent ids.
    storage = PersistentId(("storage", Global("torch", "FloatStorage"), "0", "cpu", 1))
    tensor = Reduce(REBUILD_TENSOR_V2, (storage, 0, (), (), False, Reduce(ORDERED_DICT, ())))
    names = [n for n, _ in ops(pickle_value(tensor))]
    assert "TUPLE1" not in names and "TUPLE2" not in names and "TUPLE3" not in names
    assert names.count("MARK") == 4 and names.count("EMPTY_TUPLE") == 1
    assert names[-3:] == ["REDUCE", "BINPUT", "STOP"]          # tensors are memoized
    intlist = Reduce(BUILD_INTLIST, ([1, 2],))
    assert [n for n, _ in ops(pickle_value(intlist))][-4:] == ["APPENDS", "TUPLE", "REDUCE", "STOP"]
    tagged = Reduce(RESTORE_TYPE_TAG, (["a"], "List[str]"))
    assert [n for n, _ in ops(pickle_value(tagged))][-3:] == ["TUPLE2", "REDUCE", "STOP"]


def test_memo_flags_are_honoured() -> None:
    t = MemoTuple((1, 2))
    assert [n for n, _ in ops(pickle_value(t))][-3:] == ["TUPLE2", "BINPUT", "STOP"]
    obj = Object(Global("__torch__.m", "M"), {"a": 1}, memo=False)
    assert [n for n, _ in ops(pickle_value(obj))][-2:] == ["BUILD", "STOP"]
    obj.memo = None
    assert [n for n, _ in ops(pickle_value(obj))][-3:] == ["BUILD", "BINPUT", "STOP"]


def test_memo_indices_past_255_use_long_opcodes() -> None:
    strings = [f"s{i}" for i in range(300)]
    data = pickle_value(strings + strings)
    names = [n for n, _ in ops(data)]
    assert "LONG_BINPUT" in names and "LONG_BINGET" in names
    assert unpickle(data, "t") == strings + strings


def test_unpicklable_values_raise_pickling_error() -> None:
    cyclic: list = []
    cyclic.append(cyclic)
    for bad in (cyclic, {1, 2}, object(), 1j, bytearray(b"x")):
        with pytest.raises(PicklingError):
            pickle_value(bad)
    deep: list = []
    for _ in range(100000):
        deep = [deep]
    with pytest.raises(PicklingError):
        pickle_value(deep)


# ------------------------------------------------------------------- standard pickle

class _StandIn:
    """What Python's pickle builds for a `__torch__` class in these tests."""

    qualname = "?"

    def __setstate__(self, state: object) -> None:
        self.state = state


class _StandInUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> object:
        qualname = f"{module}.{name}"
        if module.startswith("__torch__") or name.endswith("Storage"):
            return type(name, (_StandIn,), {"qualname": qualname})
        return lambda *args: ("reduce", qualname, tuple(canon(a) for a in args))

    def persistent_load(self, pid: object) -> object:
        return ("pid", canon(pid))


def canon(v: object) -> object:
    """A comparable form of both our neutral values and the stand-ins above."""
    if isinstance(v, type) and issubclass(v, _StandIn):
        return ("global", v.qualname)
    if isinstance(v, _StandIn):
        return ("object", type(v).qualname, canon(getattr(v, "state", None)))
    if isinstance(v, Global):
        return ("global", v.qualname)
    if isinstance(v, Object):
        return ("object", v.cls.qualname, canon(v.state))
    if isinstance(v, Reduce):
        return ("reduce", v.func.qualname, tuple(canon(a) for a in v.args))
    if isinstance(v, PersistentId):
        return ("pid", canon(v.pid))
    if isinstance(v, tuple):
        return tuple(canon(x) for x in v)
    if isinstance(v, list):
        return [canon(x) for x in v]
    if isinstance(v, dict):
        return {canon(k) if not isinstance(k, (list, dict)) else repr(k): canon(x)
                for k, x in v.items()}
    return v


@pytest.mark.parametrize("case,name,data", RECORDS[::7], ids=[f"{c}:{n.split('/', 1)[1]}"
                                                              for c, n, _ in RECORDS[::7]])
def test_our_output_loads_in_standard_pickle(case: str, name: str, data: bytes) -> None:
    value = unpickle(data, name)
    ours = pickle_value(value)
    theirs = _StandInUnpickler(io.BytesIO(ours)).load()
    assert canon(theirs) == canon(value)


_keys = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8),
                  st.floats(allow_nan=False))
_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(),
    st.integers(min_value=-2**300, max_value=2**300), st.floats(), st.text(),
    st.sampled_from([float("nan"), float("inf"), float("-inf"), -0.0, 2**63, -2**63 - 1]))


def _containers(children: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(st.lists(children, max_size=6),
                     st.lists(children, max_size=6).map(tuple),
                     st.dictionaries(_keys, children, max_size=6))


plain_values = st.recursive(_scalars, _containers, max_leaves=25)
relaxed = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@relaxed
@given(plain_values)
def test_plain_values_round_trip_through_our_unpickler(v: object) -> None:
    assert same(unpickle(pickle_value(v), "hypothesis"), v)


@relaxed
@given(plain_values)
def test_plain_values_round_trip_through_standard_pickle(v: object) -> None:
    assert same(pickle.loads(pickle_value(v)), v)


@relaxed
@given(plain_values, st.sampled_from([0, 1, 2]))
def test_standard_pickle_output_loads_in_our_unpickler(v: object, protocol: int) -> None:
    assert same(unpickle(pickle.dumps(v, protocol=protocol), "hypothesis"), v)


@relaxed
@given(st.recursive(st.one_of(_scalars, st.binary()), _containers, max_leaves=15),
       st.sampled_from([3, 4, 5]))
def test_newer_protocols_and_bytes(v: object, protocol: int) -> None:
    assert same(unpickle(pickle.dumps(v, protocol=protocol), "hypothesis"), v)
    assert same(pickle.loads(pickle_value(v)), v)
    assert same(unpickle(pickle_value(v), "hypothesis"), v)


# ------------------------------------------------------------------- against PyTorch

_KINDS_SOURCE = """
import torch
from typing import Dict, List, Optional


class Kinds(torch.nn.Module):
    big: List[int]
    opt: Optional[int]
    dt: Dict[str, torch.Tensor]
    tl: List[torch.Tensor]
    emptyl: List[int]
    nested: List[List[int]]

    def __init__(self) -> None:
        super().__init__()
        self.dev = torch.device("cpu")
        self.ints = [0, 255, 256, 65535, 65536, -1, 2**31, -2**31 - 1, 2**63 - 1, -2**63]
        self.big = list(range(1005))
        self.bigd = {str(i): i for i in range(1003)}
        self.flags = [True, False]
        self.nested = [[1], [2, 3]]
        self.tup = (1, (2.5, "h\u00e9llo"), (1, 2, 3, 4))
        self.opt = None
        self.dt = {"a": torch.zeros(1)}
        self.tl = [torch.ones(2), torch.ones(3)]
        self.fl = [float("nan"), float("inf"), -0.0, 1e300]
        self.emptyl = []
        self.t0 = ()
        self.scalar = torch.tensor(3)
        self.w = torch.nn.Parameter(torch.ones(2, 3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.scalar + self.w.sum() + self.w[0, 0]
"""


def test_round_trip_of_fresh_pytorch_archives(tmp_path, monkeypatch) -> None:
    """Attributes of many kinds and frozen constants, written by the installed PyTorch
    (skipped without it)."""
    torch = pytest.importorskip("torch")
    (tmp_path / "ser_kinds_mod.py").write_text(_KINDS_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib
    kinds = importlib.import_module("ser_kinds_mod").Kinds
    plain, frozen = io.BytesIO(), io.BytesIO()
    torch.jit.save(torch.jit.script(kinds()), plain)
    torch.jit.save(torch.jit.freeze(torch.jit.script(kinds().eval())), frozen)
    for archive in (plain, frozen):
        with zipfile.ZipFile(archive) as z:
            for name in z.namelist():
                if name.endswith("pkl"):
                    data = z.read(name)
                    assert pickle_value(unpickle(data, name)) == data, name
