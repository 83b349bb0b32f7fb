"""The restricted unpickler: the neutral model it builds, its allow-list, and hostile or
malformed input (always UnpicklingError, never another exception)."""
from __future__ import annotations

import pickle
import struct
import zipfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers.serialize_corpus import CORPUS
from tsjit.ir.diagnostics import TsjitError
from tsjit.serialize.errors import ArchiveError, UnpicklingError
from tsjit.serialize.pickle_format import (
    OPCODES, REBUILD_TENSOR_V2, Global, MemoTuple, Object, Op, PersistentId, Reduce)
from tsjit.serialize.unpickler import (
    DEFAULT_ALLOWED_GLOBALS, LOOP_SOURCE, default_allowed, disassemble, unpickle)


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


MALFORMED = {
    "empty": b"",
    "missing STOP": b"\x80\x02N",
    "trailing data": b"\x80\x02N.junk",
    "stack underflow": b"\x80\x02t.",
    "pop underflow": b"\x80\x020.",
    "tuple2 underflow": b"\x80\x02N\x86.",
    "no mark": b"\x80\x02Ne.",
    "empty stop": b"\x80\x02.",
    "two values at STOP": b"\x80\x02NN.",
    "mark open at STOP": b"\x80\x02(N.",
    "bad memo index": b"\x80\x02h\x05.",
    "bad long memo index": b"\x80\x02j\xff\xff\xff\x7f.",
    "unknown opcode": b"\x80\x02\xff.",
    "unknown opcode 2": b"\x80\x02!.",
    "bad protocol": b"\x80\x09N.",
    "huge unicode length": b"\x80\x02X\xff\xff\xff\xffab.",
    "huge unicode8 length": b"\x80\x04\x8d" + b"\xff" * 8 + b"ab.",
    "bad utf8": b"\x80\x02X\x02\x00\x00\x00\xff\xfe.",
    "negative long4": b"\x80\x02\x8b\xff\xff\xff\xff.",
    "frame past end": b"\x80\x04\x95\xff\x00\x00\x00\x00\x00\x00\x00N.",
    "odd setitems": b"\x80\x02}(NNNu.",
    "setitems on list": b"\x80\x02](NNu.",
    "appends on dict": b"\x80\x02}(Ne.",
    "unhashable key": b"\x80\x02}(]Nu.",
    "build on list": b"\x80\x02]Nb.",
    "reduce of non-global": b"\x80\x02N)R.",
    "reduce with list args": b"\x80\x02c__torch__\nf\n]R.",
    "build twice": b"\x80\x02c__torch__\nC\n)\x81NbNb.",
    "persistent id not tuple": b"\x80\x02NQ.",
    "ext1": b"\x80\x02\x82\x01.",
    "out-of-band buffer": b"\x80\x05\x97.",
    "read-only buffer": b"\x80\x05N\x98.",
    "ext4": b"\x80\x02\x84\x01\x00\x00\x00.",
    "inst of a forbidden class": b"(ios\nsystem\n.",
    "obj of a non-global": b"\x80\x02(N)o.",
    "newobj_ex kwargs not a dict": b"\x80\x04c__torch__\nC\n)N\x92.",
    "additems on a list": b"\x80\x04](N\x90.",
    "frozenset without mark": b"\x80\x04N\x91.",
    "int text garbage": b"Ixyz\n.",
    "float text garbage": b"Fxyz\n.",
    "line without newline": b"I123",
    "stack global non-str": b"\x80\x04NN\x93.",
    "non-ascii binstring": b"U\x01\xff.",
    "unquoted string": b"Sabc\n.",
    "huge text int": b"I" + b"9" * 5000 + b"\n.",
    "get text bad": b"g7\n.",
    "put negative": b"Np-1\n.",
}


@pytest.mark.parametrize("label", sorted(MALFORMED))
def test_malformed_pickles_raise_unpickling_error(label: str) -> None:
    with pytest.raises(UnpicklingError) as info:
        unpickle(MALFORMED[label], "model/constants.pkl")
    assert "model/constants.pkl" in str(info.value)
    assert "offset" in str(info.value)


@pytest.mark.slow
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


# Irregular forms of the opcodes TorchScript pickles are made of are reported at the
# opcode itself.
INLINED_IRREGULAR = {
    "binget truncated": (b"\x80\x02h", 2),
    "binget unknown": (b"\x80\x02Nq\x00h\x01.", 5),
    "binput empty stack": (b"\x80\x02q\x00.", 2),
    "binput truncated": (b"\x80\x02Nq", 3),
    "memoize empty stack": (b"\x80\x04\x94.", 2),
    "tuple without mark": (b"\x80\x02Nt.", 3),
    "binint2 truncated": (b"\x80\x02M\x01", 2),
    "binint1 truncated": (b"\x80\x02K", 2),
    "binint truncated": (b"\x80\x02J\x01\x02", 2),
    "reduce underflow": (b"\x80\x02)R.", 3),
    "reduce of a tuple": (b"\x80\x02))R.", 4),
    "binunicode short length": (b"\x80\x02X\x01\x00", 2),
    "binunicode short data": (b"\x80\x02X\x05\x00\x00\x00ab", 2),
    "short_binunicode truncated": (b"\x80\x04\x8c\x03ab", 2),
    "short_binunicode no length": (b"\x80\x04\x8c", 2),
    "binpersid of a list": (b"\x80\x02]Q.", 3),
    "binpersid underflow": (b"\x80\x02Q.", 2),
    "newobj of a str": (b"\x80\x02X\x01\x00\x00\x00a)\x81.", 9),
    "newobj underflow": (b"\x80\x02)\x81.", 3),
    "setitems without mark": (b"\x80\x02}NNu.", 5),
    "setitems on nothing": (b"\x80\x02(NNu.", 5),
    "setitems on a tuple": (b"\x80\x02)(NNu.", 6),
    "build underflow": (b"\x80\x02Nb.", 3),
    "stop with a mark open": (b"\x80\x02N(.", 4),
    "stop on empty stack": (b"\x80\x02(N1.", 5),
}


@pytest.mark.parametrize("label", sorted(INLINED_IRREGULAR))
def test_irregular_forms_are_reported_at_the_opcode(label: str) -> None:
    data, offset = INLINED_IRREGULAR[label]
    with pytest.raises(UnpicklingError) as info:
        unpickle(data, "model/data.pkl")
    assert info.value.offset == offset, str(info.value)
    assert "model/data.pkl" in str(info.value)


# ------------------------------------------------------------------- the opcode table

def test_the_table_is_pickletools_table() -> None:
    """Every opcode of protocols 0-5, with CPython's byte, argument kind and protocol."""
    import pickletools
    ours = {o.name: (o.code, o.arg.name, o.proto, len(o.before)) for o in OPCODES}
    theirs = {o.name: (ord(o.code), o.arg.name if o.arg else "none", o.proto,
                       len(o.stack_before)) for o in pickletools.opcodes}
    assert ours == theirs
    assert all(getattr(Op, o.name) == o.code for o in OPCODES)


def test_the_machine_is_made_from_the_table() -> None:
    branches = [line.split("# ")[1] for line in LOOP_SOURCE.splitlines()
                if line.lstrip().startswith(("if op ==", "elif op =="))]
    assert sorted(branches) == sorted(o.name for o in OPCODES)
    assert branches[0] == "BINGET"      # the hot opcodes first


def test_disassemble_lists_opcodes_without_running_them() -> None:
    data = pickle.dumps({"a": (1, "x")}, protocol=4)
    names = [info.name for _, info, _ in disassemble(data, "t")]
    assert names == [o.name for o in pickletools_ops(data)]
    evil = _global_pickle("os", "system")
    ops = disassemble(evil, "t")
    assert ("os", "system") in [arg for _, info, arg in ops if info.name == "GLOBAL"]


def pickletools_ops(data: bytes) -> list:
    import pickletools
    return [op for op, _, _ in pickletools.genops(data)]


VALUES = [None, True, False, 0, -1, 255, 65535, 2**31, -2**31 - 1, 10**40, -10**40, 1.5,
          float("inf"), -0.0, "", "text", "é\u1234", b"", b"bytes", bytearray(b"ba"), (),
          (1,), (1, 2), (1, 2, 3), (1, 2, 3, 4), [], [1, [2, [3]]], {}, {"k": [1]},
          {1, 2}, frozenset({3})]


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_every_protocol_loads_python_values(protocol: int) -> None:
    """The data opcodes of every protocol give Python's values (what older protocols
    spell as calls, e.g. a set as `builtins.set([...])`, stays a Reduce record)."""
    for v in VALUES:
        data = pickle.dumps(v, protocol=protocol)
        got = unpickle(data, "t", allowed=lambda m, n: True)
        if isinstance(got, Reduce):
            assert protocol < 4 or type(v) is bytearray, (v, got)
            continue
        assert got == v and type(got) is type(v) or (type(v) is tuple and isinstance(got, tuple))


def test_records_keep_what_the_pickle_applies_to_them() -> None:
    """SETITEMS, APPENDS and BUILD on a call's result or an object stay on its record."""
    import collections
    od = collections.OrderedDict([("a", 1), ("b", [2])])
    od._metadata = {"": {"version": 1}}
    got = unpickle(pickle.dumps(od, protocol=2), "t", allowed=lambda m, n: True)
    assert isinstance(got, Reduce) and got.func is Global("collections", "OrderedDict")
    assert got.items == [("a", 1), ("b", [2])] and got.state == {"_metadata": {"": {"version": 1}}}

    got = unpickle(pickle.dumps(Items([1, 2]), protocol=2), "t", allowed=lambda m, n: True)
    assert isinstance(got, Object) and got.appended == [1, 2] and got.state == {"tag": "t"}


class Items(list):
    """A list subclass with an attribute: NEWOBJ, APPENDS, BUILD."""

    def __init__(self, items: list) -> None:
        super().__init__(items)
        self.tag = "t"


def test_objects_keep_their_constructor_arguments() -> None:
    point = b"\x80\x02cm\nPoint\nK\x01K\x02\x86\x81."
    got = unpickle(point, "t", allowed=lambda m, n: True)
    assert isinstance(got, Object) and got.args == (1, 2) and got.state is None
    got = unpickle(b"(K\x01im\nC\n.", "t", allowed=lambda m, n: True)
    assert got.cls is Global("m", "C") and got.args == (1,)
    got = unpickle(b"\x80\x04cm\nC\n)}X\x01\x00\x00\x00kK\x01s\x92.", "t",
                   allowed=lambda m, n: True)
    assert got.kwargs == {"k": 1}
    assert unpickle(b"Pabc\n.", "t").pid == "abc"


def test_deep_nesting_loads_without_recursion() -> None:
    depth = 100_000
    data = b"\x80\x02" + b"]" * depth + b"a" * (depth - 1) + b"."
    value = unpickle(data, "t")
    for _ in range(depth - 1):
        assert type(value) is list and len(value) == 1
        value = value[0]
    assert value == []
