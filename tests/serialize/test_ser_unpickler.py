"""The restricted unpickler: the neutral model it builds, its allow-list, and hostile or
malformed input (always UnpicklingError, never another exception)."""
from __future__ import annotations

import pickle
import struct
import zipfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers.bad_pickles import INLINED_IRREGULAR, MALFORMED
from tests.helpers.serialize_corpus import CORPUS
from tsjit.ir.diagnostics import TsjitError
from tsjit.serialize.errors import ArchiveError, UnpicklingError
from tsjit.serialize.pickle_format import (
    REBUILD_TENSOR_V2, Global, MemoTuple, Object, PersistentId, Reduce)
from tsjit.serialize.unpickler import DEFAULT_ALLOWED_GLOBALS, default_allowed, unpickle


def corpus_record(case: str, name: str) -> bytes:
    with zipfile.ZipFile(CORPUS / case / "model.pt") as z:
        return z.read(f"model/{name}")


SMALL = corpus_record("lang_bool_logic", "data.pkl")
MLP = corpus_record("model_mlp", "data.pkl")


def test_error_hierarchy() -> None:
    assert issubclass(UnpicklingError, ArchiveError) and issubclass(ArchiveError, TsjitError)


def test_data_pkl_becomes_the_neutral_model() -> None:
    top = unpickle(MLP, "model/data.pkl")
    assert isinstance(top, Object) and top.cls is Global("__torch__.model_mlp", "MLP")
    assert top.memo is True
    linear = top.state["features"].state["0"]
    weight = linear.state["weight"]
    assert isinstance(weight, Reduce) and weight.func is REBUILD_TENSOR_V2
    storage, offset, size, stride, requires_grad, hooks = weight.args
    assert isinstance(storage, PersistentId)
    assert storage.pid == ("storage", Global("torch", "FloatStorage"), "0", "cpu", 96)
    assert (offset, size, stride, requires_grad) == (0, (16, 6), (6, 1), True)
    assert hooks.func is Global("collections", "OrderedDict") and hooks.args == ()
    # shared values stay shared: the same interned Global, the same str key
    assert linear.state["bias"].func is weight.func


def test_globals_are_interned() -> None:
    assert Global("a", "b") is Global("a", "b")
    assert Global("a", "b") is not Global("a", "c")


def test_memoized_tuples_are_marked() -> None:
    data = corpus_record("model_mlp", "code/__torch__/model_mlp.py.debug_pkl")
    value = unpickle(data, "x")
    assert type(value) is tuple and type(value[1]) is MemoTuple and value[1] == tuple(value[1])


def test_default_allow_list() -> None:
    assert default_allowed("__torch__.foo.bar", "Baz")
    assert default_allowed("__torch__", "Baz")
    assert default_allowed("torch", "FloatStorage")
    assert default_allowed("torch._utils", "_rebuild_tensor_v2")
    assert default_allowed("torch.jit._pickle", "restore_type_tag")
    assert not default_allowed("__torch__x", "y")
    assert not default_allowed("torch", "load")
    assert not default_allowed("torch._utils", "_rebuild_parameter")
    assert ("collections", "OrderedDict") in DEFAULT_ALLOWED_GLOBALS


# ------------------------------------------------------------------- forbidden globals

def _global_pickle(module: str, name: str, stack: bool = False) -> bytes:
    if stack:   # protocol 4 spelling
        m, n = module.encode(), name.encode()
        head = (b"\x80\x04\x8c" + bytes([len(m)]) + m + b"\x8c" + bytes([len(n)]) + n + b"\x93")
    else:
        head = b"\x80\x02c" + f"{module}\n{name}\n".encode()
    return head + b"X\x02\x00\x00\x00ls\x85R."


@pytest.mark.parametrize("module,name", [("os", "system"), ("builtins", "eval"),
                                         ("subprocess", "Popen"), ("posix", "system"),
                                         ("builtins", "getattr"), ("torch", "load"),
                                         ("__builtin__", "exec"), ("nt", "system")])
@pytest.mark.parametrize("stack", [False, True])
def test_forbidden_globals_are_rejected(module: str, name: str, stack: bool) -> None:
    data = _global_pickle(module, name, stack)
    with pytest.raises(UnpicklingError) as info:
        unpickle(data, "model/data.pkl")
    msg = str(info.value)
    assert f"forbidden global '{module}.{name}'" in msg and "model/data.pkl" in msg
    # reported at the global itself: nothing after it was looked at
    assert info.value.offset == data.index(b"\x93" if stack else b"c")


def test_python_pickle_of_a_callable_is_rejected() -> None:
    class Evil:
        def __reduce__(self) -> tuple:
            import os
            return (os.system, ("echo pwned",))

    with pytest.raises(UnpicklingError, match="forbidden global '(posix|os|nt).system'"):
        unpickle(pickle.dumps(Evil(), protocol=2), "data.pkl")


def test_custom_allow_list_builds_records_without_calling_anything() -> None:
    value = unpickle(_global_pickle("os", "system"), "t", allowed=lambda m, n: m == "os")
    assert isinstance(value, Reduce) and value.func is Global("os", "system")
    assert value.args == ("ls",)
    with pytest.raises(UnpicklingError, match="forbidden global '__torch__.m.M'"):
        unpickle(b"\x80\x02c__torch__.m\nM\n)\x81.", "t", allowed=lambda m, n: False)


# ------------------------------------------------------------------- malformed input

def test_every_truncation_of_a_real_pickle_is_an_unpickling_error() -> None:
    for data in (SMALL, MLP):
        for n in range(len(data)):
            with pytest.raises(UnpicklingError) as info:
                unpickle(data[:n], "model/data.pkl")
            assert "model/data.pkl" in str(info.value)
            assert info.value.offset is not None and info.value.offset <= n


@pytest.mark.parametrize("label", sorted(MALFORMED))
def test_malformed_pickles_raise_unpickling_error(label: str) -> None:
    with pytest.raises(UnpicklingError) as info:
        unpickle(MALFORMED[label], "model/constants.pkl")
    assert "model/constants.pkl" in str(info.value)
    assert "offset" in str(info.value)


@settings(deadline=None, max_examples=300)
@given(st.data())
def test_mutated_real_pickles_never_raise_other_exceptions(data: st.DataObject) -> None:
    raw = bytearray(MLP)
    for _ in range(data.draw(st.integers(1, 4))):
        pos = data.draw(st.integers(0, len(raw) - 1))
        raw[pos] = data.draw(st.integers(0, 255))
    try:
        unpickle(bytes(raw), "model/data.pkl")
    except UnpicklingError:
        pass


@settings(deadline=None, max_examples=300)
@given(st.binary(max_size=64))
def test_random_bytes_never_raise_other_exceptions(raw: bytes) -> None:
    try:
        unpickle(b"\x80\x02" + raw, "x.pkl")
    except UnpicklingError:
        pass


def test_lengths_are_read_little_endian_and_unsigned() -> None:
    assert unpickle(b"\x80\x02M\xff\xff.", "t") == 65535
    assert unpickle(b"\x80\x02J\xff\xff\xff\xff.", "t") == -1
    assert unpickle(b"\x80\x02G" + struct.pack(">d", -0.5) + b".", "t") == -0.5
    assert unpickle(b"\x80\x02\x8a\x00.", "t") == 0


@pytest.mark.parametrize("label", sorted(INLINED_IRREGULAR))
def test_irregular_forms_of_inlined_opcodes_are_reported_at_the_opcode(label: str) -> None:
    data, offset = INLINED_IRREGULAR[label]
    with pytest.raises(UnpicklingError) as info:
        unpickle(data, "model/data.pkl")
    assert info.value.offset == offset, str(info.value)
    assert "model/data.pkl" in str(info.value)
