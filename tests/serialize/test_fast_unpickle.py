"""The C-unpickler fast path (`fast_unpickle.unpickle_records`) against the Python unpickler.

The contract: for any bytes, `unpickle_records` returns what `unpickle` returns (up to memo
flags and MemoTuple) or raises the very UnpicklingError `unpickle` raises; `try_fast`, the
fast path alone, returns a value only where `unpickle` returns that same value.
"""
from __future__ import annotations

import base64
import builtins
import os
import re
import struct
import sys
import threading
import time
import tracemalloc
import zlib
from typing import Any, Optional

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers.serialize_corpus import CORPUS, pickle_records
from tests.helpers.bad_pickles import INLINED_IRREGULAR, MALFORMED
from tsjit.serialize import fast_unpickle
from tsjit.serialize.errors import UnpicklingError
from tsjit.serialize.fast_unpickle import FALLBACK, try_fast, unpickle_records
from tsjit.serialize.pickle_format import Global, MemoTuple, Object, PersistentId, Reduce
from tsjit.serialize.unpickler import AllowFn, unpickle

RECORD = "model/data.pkl"


@pytest.fixture(autouse=True)
def fast_path_at_every_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tiny pickles go straight to the Python unpickler; these tests want the C run."""
    monkeypatch.setattr(fast_unpickle, "_MIN_SIZE", 0)


# --------------------------------------------------------------------- comparison

def assert_same(fast: Any, slow: Any) -> None:
    """Same structure: types (MemoTuple counts as tuple), values, the same interned Globals,
    and the same sharing of mutable objects and records (a one-to-one map between them);
    memo flags are ignored. Tuples compare by content: the Python unpickler itself makes a
    tuple it memoizes a new MemoTuple, which splits what C shares (two empty tuples)."""
    seen: dict[int, Any] = {}        # id(fast object) -> slow object
    seen_back: dict[int, Any] = {}   # id(slow object) -> fast object
    tuples: set[tuple[int, int]] = set()   # tuple pairs compared already
    keep: list[Any] = []             # keeps the ids above valid
    todo = [(fast, slow, "value")]
    while todo:
        a, b, path = todo.pop()
        kind = _kind(b)
        assert _kind(a) is kind, f"{path}: {type(a).__name__} vs {type(b).__name__}"
        if a is None or kind in (bool, int, str, bytes):
            assert a == b, f"{path}: {a!r} vs {b!r}"
            continue
        if kind is float:
            assert struct.pack("<d", a) == struct.pack("<d", b), f"{path}: {a!r} vs {b!r}"
            continue
        if kind is Global:
            assert a is b, f"{path}: {a!r} is not the interned {b!r}"
            continue
        if kind is tuple:
            if (id(a), id(b)) not in tuples:
                tuples.add((id(a), id(b)))
                keep += [a, b]
                todo += _parts(a, b, path)
            continue
        if id(a) in seen or id(b) in seen_back:
            assert seen.get(id(a)) is b and seen_back.get(id(b)) is a, f"{path}: sharing differs"
            continue
        seen[id(a)], seen_back[id(b)] = b, a
        keep += [a, b]
        todo += _parts(a, b, path)


def _kind(x: Any) -> type:
    return tuple if type(x) is MemoTuple else type(x)


def _parts(a: Any, b: Any, path: str) -> list[tuple[Any, Any, str]]:
    """The pairs of parts of a and b (of the same type) to compare next."""
    if isinstance(a, (tuple, list)):
        assert len(a) == len(b), f"{path}: lengths {len(a)} vs {len(b)}"
        return [(x, y, f"{path}[{i}]") for i, (x, y) in enumerate(zip(a, b))]
    if isinstance(a, dict):
        assert len(a) == len(b), f"{path}: sizes {len(a)} vs {len(b)}"
        out = []
        for i, ((ka, va), (kb, vb)) in enumerate(zip(a.items(), b.items())):
            out += [(ka, kb, f"{path}.key{i}"), (va, vb, f"{path}[{ka!r}]")]
        return out
    if isinstance(a, (set, frozenset)):
        assert _set_key(a) == _set_key(b), f"{path}: sets differ"
        return []
    if isinstance(a, bytearray):
        assert a == b, f"{path}: {a!r} vs {b!r}"
        return []
    if isinstance(a, Object):
        return [(a.cls, b.cls, f"{path}.cls"), (a.state, b.state, f"{path}.state")]
    if isinstance(a, Reduce):
        return [(a.func, b.func, f"{path}.func"), (a.args, b.args, f"{path}.args")]
    if isinstance(a, PersistentId):
        return [(a.pid, b.pid, f"{path}.pid")]
    raise AssertionError(f"{path}: unexpected {type(a).__name__} in an unpickled value")


def _set_key(s: Any) -> list[str]:
    # Sets only come from the Python unpickler (the fast path never builds one), and hold
    # hashable values: their reprs compare them (records repr by content).
    return sorted(repr(x) for x in s)


def check(data: bytes, allowed: Optional[AllowFn] = None) -> bool:
    """Compare both paths on `data`; whether the fast path gave the value itself."""
    try:
        slow, slow_error = unpickle(data, RECORD, allowed), None
    except UnpicklingError as e:
        slow, slow_error = None, e
    fast = try_fast(data, allowed)
    if fast is not FALLBACK:
        assert slow_error is None, f"the fast path accepted what unpickle refuses: {slow_error}"
        assert_same(fast, slow)
    try:
        public, public_error = unpickle_records(data, RECORD, allowed), None
    except UnpicklingError as e:
        public, public_error = None, e
    if slow_error is not None:
        assert public_error is not None, "unpickle_records accepted what unpickle refuses"
        assert str(public_error) == str(slow_error)
        assert (public_error.record, public_error.offset) == (slow_error.record, slow_error.offset)
    else:
        assert public_error is None, f"unpickle_records refused: {public_error}"
        assert_same(public, slow)
    return fast is not FALLBACK


def test_the_comparison_can_fail() -> None:
    shared = [1]
    with pytest.raises(AssertionError, match="sharing"):
        assert_same((shared, shared), ([1], [1]))
    with pytest.raises(AssertionError, match="sharing"):
        assert_same(([1], [1]), (shared, shared))
    with pytest.raises(AssertionError, match="lengths"):
        assert_same(([1],), ([1, 2],))
    impostor = object.__new__(Global)       # equal fields, but not the interned one
    object.__setattr__(impostor, "module", "a")
    object.__setattr__(impostor, "name", "b")
    with pytest.raises(AssertionError, match="interned"):
        assert_same(Reduce(impostor, ()), Reduce(Global("a", "b"), ()))
    with pytest.raises(AssertionError, match="bool vs int|int vs bool"):
        assert_same(True, 1)
    assert_same((1, MemoTuple((2,))), MemoTuple((1, (2,))))
    assert_same(Object(Global("m", "C"), {"a": 1}, memo=None),
                Object(Global("m", "C"), {"a": 1}, memo=True))


# --------------------------------------------------------------------- real pickles

RECORDS = list(pickle_records())
# Objects with __getstate__ have states other than attribute dicts: the C path leaves
# their BUILDs to the Python unpickler.
SLOW_RECORDS = {("lang_getstate_setstate", "model/data.pkl")}


@pytest.mark.parametrize("case,name,data", RECORDS, ids=[f"{c}/{n}" for c, n, _ in RECORDS])
def test_corpus_records_are_equal_on_both_paths(case: str, name: str, data: bytes) -> None:
    fast = check(data)
    if name.split("/")[-1] in ("data.pkl", "constants.pkl"):
        assert fast == ((case, name) not in SLOW_RECORDS), "fast path taken or not, unexpectedly"


def test_tiny_pickles_go_to_the_python_unpickler(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fast_unpickle, "_MIN_SIZE", 32)
    assert try_fast(b"\x80\x02).") is FALLBACK
    assert unpickle_records(b"\x80\x02).", RECORD) == ()
    assert try_fast(_corpus("model_mlp", "data.pkl")) is not FALLBACK


def test_the_fast_path_is_used_again_after_a_fallback() -> None:
    data = _corpus("model_mlp", "data.pkl")
    assert try_fast(data) is not FALLBACK
    assert try_fast(b"\x80\x02c__torch__\nA\n.") is FALLBACK    # a marker escapes
    assert try_fast(data) is not FALLBACK


def test_a_busy_fast_path_falls_back() -> None:
    data = _corpus("model_mlp", "data.pkl")
    with fast_unpickle._LOCK:
        assert try_fast(data) is FALLBACK
        assert_same(unpickle_records(data, RECORD), unpickle(data, RECORD))


def test_threads_agree() -> None:
    # Threads switching often: fast runs (one at a time) and fallbacks interleave, and
    # Globals are interned by several threads at once.
    datas = [d for c, n, d in RECORDS if n.endswith("data.pkl")]
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for data in datas * 3:
                assert_same(unpickle_records(data, RECORD), unpickle(data, RECORD))
        except BaseException as e:       # pragma: no cover - reported below
            errors.append(e)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        threads = [threading.Thread(target=work) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert not errors, errors[0]


def test_records_are_the_neutral_model() -> None:
    value = unpickle_records(_corpus("model_mlp", "data.pkl"), RECORD)
    assert type(value) is Object and value.cls is Global("__torch__.model_mlp", "MLP")
    weight = value.state["features"].state["0"].state["weight"]
    assert type(weight) is Reduce and type(weight.args) is tuple
    assert type(weight.args[0]) is PersistentId
    assert weight.args[0].pid[1] is Global("torch", "FloatStorage")


def _corpus(case: str, record: str) -> bytes:
    for c, name, data in RECORDS:
        if c == case and name.endswith("/" + record):
            return data
    raise KeyError(case)


# --------------------------------------------------------------------- malformed input

@pytest.mark.parametrize("label", sorted(MALFORMED))
def test_malformed_pickles(label: str) -> None:
    check(MALFORMED[label])


@pytest.mark.parametrize("label", sorted(INLINED_IRREGULAR))
def test_irregular_forms_of_inlined_opcodes(label: str) -> None:
    check(INLINED_IRREGULAR[label][0])


ZERO8 = b"\x00" * 8
# Where the C unpickler differs from the Python one (CPython 3.11): each must come out as
# unpickle says, most of them by falling back.
DIVERGENCES = {
    "BUILD None on a list": b"\x80\x02]Nb.",
    "BUILD (None, {}) on a tuple": b"\x80\x02)N}\x86b.",
    "BUILD a dict on a Global": b"\x80\x02c__torch__\nA\n}(X\x01\x00\x00\x00aK\x01ub.",
    "BUILD an empty dict on a Global": b"\x80\x02ctorch\nFloatStorage\n}b.",
    "BUILD on a Reduce": b"\x80\x02c__torch__\nf\n)R}b.",
    "BUILD on a PersistentId": b"\x80\x02)Q}b.",
    "BUILD twice": b"\x80\x02c__torch__\nC\n)\x81q\x00}(ubh\x00}(ub.",
    "BUILD twice, empty states": b"\x80\x02c__torch__\nC\n)\x81}b}b.",
    "SETITEMS on a list": b"\x80\x02](Ne(K\x00K\x05u.",
    "SETITEMS on a memoized list": b"\x80\x02]q\x00(K\x00h\x00(Neu.",
    "SETITEM on a list": b"\x80\x02](NeK\x00K\x05s.",
    "empty SETITEMS on None": b"\x80\x02N(u.",
    "empty APPENDS on a dict": b"\x80\x02}(e.",
    "empty ADDITEMS on a list": b"\x80\x04](\x90.",
    "APPEND to a bytearray": b"\x80\x05\x96" + ZERO8 + b"K\x05a.",
    "READONLY_BUFFER of bytes": b"\x80\x05C\x01a\x98.",
    "NEXT_BUFFER": b"\x80\x05\x97.",
    "INT in base 0": b"I010\n.",
    "INT +1 is True": b"I+1\n.",
    "LONG": b"L12L\n.",
    "FLOAT": b"F1.5\n.",
    "STRING with escapes": b"S'\\x41'\n.",
    "UNICODE escapes": b"V\\u0041\n.",
    "GET text": b"Np1\n0g1\n.",
    "two values at STOP": b"\x80\x02NK\x01.",
    "a mark open at STOP": b"\x80\x02(N.",
    "trailing data": b"\x80\x02N.N.",
    "OBJ": b"\x80\x02(c__torch__\nA\nK\x01o.",
    "OBJ without arguments": b"\x80\x02(c__torch__\nA\no.",
    "OBJ of a helper": b"\x80\x02(ccollections\nOrderedDict\no.",
    "INST": b"(i__torch__\nA\n.",
    "EXT1": b"\x80\x02\x82\x01.",
    "PERSID": b"Pabc\n.",
    "BINPERSID of a str": b"\x80\x02X\x01\x00\x00\x00aQ.",
    "BINPERSID of a memoized tuple": b"\x80\x02)q\x00Qh\x00\x86.",
    "NEWOBJ with arguments": b"\x80\x02c__torch__\nC\nK\x01\x85\x81}b.",
    "NEWOBJ_EX": b"\x80\x04c__torch__\nC\n)}\x92}b.",
    "NEWOBJ of a helper": b"\x80\x02ccollections\nOrderedDict\n)\x81}b.",
    "NEWOBJ never built": b"\x80\x02c__torch__\nC\n)\x81.",
    "REDUCE of a class": b"\x80\x02c__torch__\nC\nK\x01\x85R.",
    "REDUCE with a list": b"\x80\x02c__torch__\nf\n]R.",
    "REDUCE of OrderedDict with arguments": b"\x80\x02ccollections\nOrderedDict\nK\x01\x85R.",
    "REDUCE of a storage class": b"\x80\x02ctorch\nFloatStorage\n)R.",
    "a global as a value": b"\x80\x02c__torch__\nA\n.",
    "a helper as a value": b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n\x85.",
    "a class as a value, by memo": b"\x80\x02c__torch__\nC\nq\x00)\x81}bh\x00\x86.",
    "a storage class as a value": b"\x80\x02ctorch\nFloatStorage\n.",
    "huge LONG_BINPUT": b"\x80\x02Nr\x00\x00\x00\x10.",
    "LONG_BINPUT": b"\x80\x02Nr\x05\x00\x00\x00j\x05\x00\x00\x00\x86.",
    "POP and DUP": b"\x80\x02NK\x010\x32\x86.",
    "POP_MARK": b"\x80\x02N(K\x011.",
    "POP empties a mark before APPENDS": b"\x80\x02}q\x000h\x00(N0e.",
    "POP_MARK empties a mark before APPENDS": b"\x80\x02}q\x000h\x00((1e.",
    "DUP then BUILD": b"\x80\x02c__torch__\nC\n)\x81}2bb.",
    "STACK_GLOBAL": b"\x80\x04\x8c\t__torch__\x8c\x01A\x93)\x81}b.",
    "sets": b"\x80\x04\x8f(K\x01\x90(K\x02\x91\x86.",
    "surrogates": b"\x80\x02X\x03\x00\x00\x00\xed\xa0\x80.",
    "bad utf-8": b"\x80\x02X\x01\x00\x00\x00\xff.",
    "protocol 6": b"\x80\x06N.",
    "self-referencing list": b"\x80\x02]q\x00(h\x00e.",
    "unhashable key": b"\x80\x02}(]Nu.",
    "odd SETITEMS": b"\x80\x02}(NNNu.",
    "FRAME": b"\x80\x04\x95\x02" + b"\x00" * 7 + b"N..",
}


@pytest.mark.parametrize("label", sorted(DIVERGENCES))
def test_known_divergences(label: str) -> None:
    check(DIVERGENCES[label])


@pytest.mark.parametrize("data", [
    b"\x80\x02c__torch__\nA\n.",
    b"\x80\x02(ctorch._utils\n_rebuild_tensor_v2\nK\x01t.",
    b"\x80\x02c__torch__\nC\nq\x00)\x81}bh\x00\x86.",
    b"\x80\x02}(X\x01\x00\x00\x00ac__torch__\nA\nu.",
    b"\x80\x02(c__torch__\nA\ntQ.",                                  # in a persistent id
    b"\x80\x02c__torch__\nf\nc__torch__\nA\n\x85R.",                  # in a call's arguments
    b"\x80\x02ccollections\nOrderedDict\nq\x00)Rh\x00\x86.",         # a helper, by memo
    b"\x80\x02c__torch__\nC\nq\x00)\x81}(X\x01\x00\x00\x00ah\x00ub.",  # in its own state
])
def test_escaped_markers_are_caught(data: bytes) -> None:
    # Well-formed pickles whose value holds a global outside a call: the C run succeeds,
    # with a marker in its value, so the refcount check must send them to the fallback.
    assert fast_unpickle._shape_ok(data)
    assert try_fast(data) is FALLBACK
    check(data)


def test_the_fast_path_works_on_this_interpreter() -> None:
    # CPython 3.11-3.13: the self-test of the refcount accounting must pass (if it did not,
    # every pickle would silently take the slow path).
    if not fast_unpickle._SUPPORTED:
        pytest.skip("the fast path needs CPython 3.11-3.13")
    assert try_fast(_corpus("model_mlp", "data.pkl")) is not FALLBACK
    assert fast_unpickle._self_tested is True


@pytest.mark.parametrize("data", [
    b"\x80\x02" + b"c" * 200_000 + b".",                 # lines that never end
    b"\x80\x02" + b"N" * 200_000,                        # no STOP
    b"\x80\x02" + b"N" * 200_000 + b"K.",                # the last '.' is an argument
    b"\x80\x02" + b"(" * 50_000 + b"N" + b"t" * 50_000 + b".",   # deep marks
    b"\x80\x02" + b"(N" * 100_000 + b".",                # unclosed marks
    b"\x80\x02" + b"(K\x01(" * 30_000 + b".",            # failing inline tuples
])
def test_hostile_shapes_are_checked_in_linear_time(data: bytes) -> None:
    start = time.perf_counter()
    assert try_fast(data) is FALLBACK
    assert time.perf_counter() - start < 2.0    # (quadratic would take minutes)


def test_memo_indexes_cannot_make_the_c_unpickler_allocate() -> None:
    # LONG_BINPUT n makes the C unpickler's memo array 2n entries long.
    tracemalloc.start()
    try:
        assert try_fast(b"\x80\x02Nr\x00\x00\x00\x02.") is FALLBACK    # n = 2**25
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10 << 20
    check(b"\x80\x02Nr\x00\x00\x00\x02.")


def test_more_globals_than_cached(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fast_unpickle, "_MAX_MARKERS", 4)
    names = b"".join(b"c__torch__\nC%d\n)\x81}b" % i for i in range(6))
    data = b"\x80\x02(" + names + b"t."
    assert try_fast(data) is FALLBACK
    check(data)
    monkeypatch.setattr(fast_unpickle, "_MAX_MARKERS", 4096)
    assert try_fast(data) is not FALLBACK


# --------------------------------------------------------------------- forbidden globals

def _global_pickle(module: str, name: str, stack: bool = False) -> bytes:
    if stack:
        m, n = module.encode(), name.encode()
        head = b"\x80\x04\x8c" + bytes([len(m)]) + m + b"\x8c" + bytes([len(n)]) + n + b"\x93"
    else:
        head = b"\x80\x02c" + f"{module}\n{name}\n".encode()
    return head + b"X\x02\x00\x00\x00ls\x85R."


@pytest.mark.parametrize("module,name,stack", [("os", "system", False), ("os", "system", True),
                                               ("posix", "system", False),
                                               ("builtins", "eval", False),
                                               ("builtins", "eval", True)])
def test_forbidden_globals_are_refused_and_nothing_is_called(
        monkeypatch: pytest.MonkeyPatch, module: str, name: str, stack: bool) -> None:
    calls: list[Any] = []
    monkeypatch.setattr(os, "system", lambda *a: calls.append(a))
    monkeypatch.setattr(builtins, "eval", lambda *a, **k: calls.append(a))
    data = _global_pickle(module, name, stack)
    with pytest.raises(UnpicklingError) as fast_info:
        unpickle_records(data, RECORD)
    with pytest.raises(UnpicklingError) as slow_info:
        unpickle(data, RECORD)
    assert str(fast_info.value) == str(slow_info.value)
    assert f"forbidden global '{module}.{name}'" in str(fast_info.value)
    assert try_fast(data) is FALLBACK
    assert calls == []
    assert (module, name) not in fast_unpickle._MARKERS


def test_a_custom_allow_list_builds_records_without_calling_anything(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Any] = []
    monkeypatch.setattr(os, "system", lambda *a: calls.append(a))
    data = _global_pickle("os", "system")
    value = try_fast(data, lambda m, n: m == "os")
    assert type(value) is Reduce and value.func is Global("os", "system")
    assert value.args == ("ls",) and calls == []
    check(data, lambda m, n: m == "os")
    # ... and the default allow-list still refuses it afterwards (nothing cached across)
    check(data)
    assert try_fast(data) is FALLBACK
    check(b"\x80\x02c__torch__\nC\n)\x81}b.", lambda m, n: False)


# --------------------------------------------------------------------- generated pickles

PICKLES = [d for _, name, d in RECORDS if name.endswith(("data.pkl", "constants.pkl"))]


@settings(max_examples=400)
@given(st.data())
def test_mutated_real_pickles(data: st.DataObject) -> None:
    raw = bytearray(data.draw(st.sampled_from(PICKLES)))
    for _ in range(data.draw(st.integers(1, 3))):
        pos = data.draw(st.integers(0, len(raw)))
        action = data.draw(st.sampled_from(["flip", "insert", "delete"]))
        if action == "insert" or not raw:
            raw[pos:pos] = bytes([data.draw(st.integers(0, 255))])
        elif action == "delete":
            del raw[min(pos, len(raw) - 1)]
        else:
            raw[min(pos, len(raw) - 1)] = data.draw(st.integers(0, 255))
    check(bytes(raw))


class _Emitter:
    """Draws a TorchScript-like pickle, token by token, so that insertions, deletions and
    replacements can hit token boundaries."""

    def __init__(self, data: st.DataObject) -> None:
        self.draw = data.draw
        self.tokens: list[bytes] = []
        self.memo = 0

    def put(self) -> None:
        if self.draw(st.integers(0, 3)) == 0:
            self.tokens.append(b"q" + bytes([self.memo % 256]))
            self.memo += 1

    def string(self) -> None:
        text = self.draw(st.sampled_from(["training", "weight", "0", "cpu", "storage", "é",
                                          "x" * 70, "b" * 300]))
        raw = text.encode()
        self.tokens.append(b"X" + struct.pack("<I", len(raw)) + raw)
        self.put()

    def value(self, depth: int) -> None:
        kinds = ["none", "bool", "int", "float", "str", "get", "tuple", "global"]
        if depth > 0:
            kinds += ["list", "dict", "object", "tensor", "reduce", "mark tuple"] * 2
        kind = self.draw(st.sampled_from(kinds))
        t = self.tokens
        if kind == "none":
            t.append(b"N")
        elif kind == "bool":
            t.append(self.draw(st.sampled_from([b"\x88", b"\x89"])))
        elif kind == "int":
            t.append(self.draw(st.sampled_from([b"K\x07", b"M\x10\x07", b"J\xff\xff\xff\xff",
                                                b"\x8a\x05\x00\x00\x00\x00\x01"])))
        elif kind == "float":
            t.append(b"G" + struct.pack(">d", 0.5))
        elif kind == "str":
            self.string()
        elif kind == "get":
            t.append(b"h" + bytes([self.draw(st.integers(0, max(self.memo, 1))) % 256]))
        elif kind == "global":
            t.append(self.draw(st.sampled_from([b"c__torch__.m\nC\n", b"ctorch\nFloatStorage\n",
                                                b"ccollections\nOrderedDict\n", b"cos\nsystem\n"])))
            self.put()
        elif kind == "tuple":
            n = self.draw(st.integers(0, 3))
            for _ in range(n):
                self.value(depth - 1)
            t.append([b")", b"\x85", b"\x86", b"\x87"][n])
        elif kind == "mark tuple":
            t.append(b"(")
            for _ in range(self.draw(st.integers(0, 4))):
                self.value(depth - 1)
            t.append(b"t")
            if self.draw(st.booleans()):
                t.append(b"Q")
            self.put()
        elif kind == "list":
            t.append(b"]")
            self.put()
            if self.draw(st.booleans()):
                t.append(b"(")
                for _ in range(self.draw(st.integers(0, 3))):
                    self.value(depth - 1)
                t.append(b"e")
        elif kind == "dict":
            self.items(depth, b"}")
        elif kind == "object":
            t.append(self.draw(st.sampled_from([b"c__torch__.m\nC\n", b"h\x00"])))
            self.put()
            t.append(b")\x81")
            self.put()
            self.items(depth, b"}")
            t.append(b"b")
            self.put()
        elif kind == "tensor":
            self.tensor()
        elif kind == "reduce":
            t.append(self.draw(st.sampled_from([b"c__torch__.m\nf\n", b"h\x01",
                                                b"ccollections\nOrderedDict\n"])))
            self.put()
            self.value(depth - 1)
            if t[-1] not in (b")", b"\x85", b"\x86", b"\x87", b"t"):
                t.append(b"\x85")
            t.append(b"R")
            self.put()

    def items(self, depth: int, head: bytes) -> None:
        self.tokens.append(head)
        self.put()
        if self.draw(st.booleans()):
            self.tokens.append(b"(")
            for _ in range(self.draw(st.integers(0, 2))):
                self.string()
                self.value(depth - 1)
            self.tokens.append(b"u")

    def tensor(self) -> None:
        t = self.tokens
        t.append(self.draw(st.sampled_from([b"h\x08",
                                            b"ctorch._utils\n_rebuild_tensor_v2\nq\x08"])))
        t += [b"((", b"X\x07\x00\x00\x00storage", b"ctorch\nFloatStorage\n", b"h\x05",
              b"X\x03\x00\x00\x00cpu", b"K\x06", b"tQ", b"K\x00", b"(K\x02K\x03t", b"(K\x03K\x01t",
              b"\x88", b"ccollections\nOrderedDict\n", b")R", b"tR"]
        self.put()


DANGEROUS = [b"b", b"u", b"e", b"s", b"a", b"0", b"1", b"2", b"(", b"t", b"R", b"Q", b"\x81",
             b"\x92", b"o", b"i__torch__.m\nC\n", b"\x98", b"\x97", b"\x90", b"\x8f", b"\x91",
             b"N", b"}", b"]", b")", b"h\x00", b"h\x01", b"q\x00", b"\x94", b"Pabc\n", b"I010\n",
             b"I01\n", b"L1L\n", b"F1.0\n", b"S'a'\n", b"V\\u0062\n", b"g0\n", b"p0\n", b"p-1\n",
             b"cos\nsystem\n", b"\x82\x01", b"\x96" + ZERO8, b"r\x00\x00\x00\x01",
             b"j\x00\x00\x00\x00",
             b"\x80\x02", b"\x80\x09", b".", b"\x8c\x01a\x93", b"\x95" + ZERO8, b"d", b"l"]


@settings(max_examples=500)
@given(st.data())
def test_generated_pickles(data: st.DataObject) -> None:
    emit = _Emitter(data)
    emit.tokens.append(b"\x80\x02")
    emit.value(data.draw(st.integers(0, 4)))
    emit.tokens.append(b".")
    tokens = emit.tokens
    for _ in range(data.draw(st.integers(0, 3))):
        pos = data.draw(st.integers(0, len(tokens)))
        action = data.draw(st.sampled_from(["insert", "insert", "delete", "replace"]))
        if action == "insert":
            tokens.insert(pos, data.draw(st.sampled_from(DANGEROUS)))
        elif tokens and action == "delete":
            del tokens[min(pos, len(tokens) - 1)]
        elif tokens:
            tokens[min(pos, len(tokens) - 1)] = data.draw(st.sampled_from(DANGEROUS))
    check(b"".join(tokens))


@settings(max_examples=300)
@given(st.lists(st.sampled_from(DANGEROUS + [b"N", b"K\x01", b"X\x01\x00\x00\x00a", b"h\x00",
                                             b"q\x00", b"c__torch__\nC\n", b"(", b"t", b")"]),
                max_size=12))
def test_random_token_streams(tokens: list[bytes]) -> None:
    check(b"\x80\x02" + b"".join(tokens) + b".")


def _run_loads(prelude: str) -> str:
    """Output of a fresh interpreter that runs `prelude`, then loads the mlp model until the
    fast path is on and prints how many loads that took."""
    import subprocess
    import sys
    program = (
        "import tsjit\n"
        "from tsjit.serialize import fast_unpickle as F\n"
        f"{prelude}\n"
        f"path = {str(CORPUS / 'model_mlp' / 'model.pt')!r}\n"
        "n = 0\n"
        "while not F.switched_on():\n"
        "    tsjit.load(path)\n"
        "    n += 1\n"
        "    assert n < 100000\n"
        "print(n)\n")
    return subprocess.run([sys.executable, "-c", program], check=True, capture_output=True,
                          text=True).stdout


def test_with_the_shipped_code_the_fast_path_runs_from_the_first_load() -> None:
    if not fast_unpickle._SUPPORTED:
        pytest.skip("the fast path needs CPython 3.11-3.13")
    assert int(_run_loads("")) == 1


def test_without_the_shipped_code_the_first_loads_do_not_compile_the_pattern() -> None:
    if not fast_unpickle._SUPPORTED:
        pytest.skip("the fast path needs CPython 3.11-3.13")
    # (as on an interpreter the code was not compiled for: the ski-rental switch)
    assert int(_run_loads("F._prebuilt = False")) > 10


def test_the_shipped_shape_code_is_current() -> None:
    # The code must be what this interpreter's `re` compiles the pattern to now; if this
    # fails, run tools/precompile_shape_pattern.py.
    if not fast_unpickle._SUPPORTED:
        pytest.skip("the fast path needs CPython 3.11-3.13")
    from re import _compiler, _parser
    source = fast_unpickle._shape_source()
    parsed = _parser.parse(source, fast_unpickle._SHAPE_FLAGS)
    shipped = fast_unpickle.prebuilt_code(source)
    assert shipped is not None, "no shipped code for this interpreter's regex engine"
    flags, groups, groupindex, code = shipped
    assert code == _compiler._code(parsed, fast_unpickle._SHAPE_FLAGS)
    assert (flags, groups, groupindex) == (fast_unpickle._SHAPE_FLAGS | parsed.state.flags,
                                           parsed.state.groups, parsed.state.groupdict)


def test_the_prebuilt_pattern_matches_as_the_compiled_one() -> None:
    if not fast_unpickle._SUPPORTED:
        pytest.skip("the fast path needs CPython 3.11-3.13")
    prebuilt = fast_unpickle._build_prebuilt(fast_unpickle._shape_source())
    compiled = re.compile(fast_unpickle._shape_source(), fast_unpickle._SHAPE_FLAGS)
    assert prebuilt is not None
    assert (prebuilt.groupindex, prebuilt.groups, prebuilt.flags) == \
        (compiled.groupindex, compiled.groups, compiled.flags)
    last = fast_unpickle._LAST_GROUP
    for _, _, data in RECORDS:
        text = data.decode("latin-1")
        assert prebuilt.sub(last, text) == compiled.sub(last, text)


def test_code_for_another_pattern_or_damaged_code_is_not_used(monkeypatch) -> None:
    from tsjit.serialize import _shape_code
    source = fast_unpickle._shape_source()
    assert fast_unpickle.prebuilt_code(source + "x") is None
    # (bad code is an error of `_sre.compile`'s validation, so `re` compiles instead)
    damaged = {key: (flags, groups, index, base64.b64encode(zlib.compress(b"\x07" * 64)))
               for key, (flags, groups, index, _) in _shape_code.CODES.items()}
    monkeypatch.setattr(_shape_code, "CODES", damaged)
    assert fast_unpickle._build_prebuilt(source) is None
