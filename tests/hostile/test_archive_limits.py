"""Loading under tsjit.Limits: the caps on records, inflation, pickle nesting and time
that keep a hostile archive from costing more than its size, each a LimitError naming
the limit and what exceeded it."""
import time

import pytest

import tsjit
from tests.helpers import hostile_archives as H
from tests.helpers.archive_fuzz import crafted_pickles
from tsjit.ir import limits as L
from tsjit.ir.limits import LimitError
from tsjit.serialize import ArchiveError, UnpicklingError

CODE = "code/__torch__/tests/helpers/hostile_archives.py"


@pytest.fixture(scope="module")
def base():
    return H.base_archive()


# ------------------------------------------------------------------ zip records

@pytest.mark.parametrize("record,size", [(CODE, 2 << 30), ("data.pkl", 1 << 30)])
def test_a_bomb_record_is_refused_at_once(base, record, size):
    bomb = H.zip_with_claims(base, record, H.zeros_deflated(size), size)
    assert len(bomb) < 3 << 20
    start = time.perf_counter()
    with pytest.raises(LimitError, match=f"record {H.TOP}/{record} would inflate .* to "
                       f"{size} bytes in all.*exceeds Limits.max_inflation_ratio") as err:
        tsjit.load(bomb)
    assert time.perf_counter() - start < 1.0
    assert err.value.limit == "max_inflation_ratio"


def test_a_record_larger_than_max_record_bytes(base):
    with pytest.raises(LimitError, match=rf"the size of record {H.TOP}/data.pkl in <bytes> "
                       r"\(\d+ > 100\): exceeds Limits.max_record_bytes; raise it with"):
        tsjit.load(base, limits=tsjit.Limits(max_record_bytes=100))
    assert tsjit.load(base, limits=tsjit.Limits(max_record_bytes=1 << 20))(tsjit.zeros(1)) == 16


@pytest.mark.slow
def test_raising_the_ratio_lets_a_trusted_archive_inflate(base):
    size = 128 << 20    # over the allowance any archive has, far over 100 times this one
    with_extra = H.rewrite(base, lambda n, b: b, add=[("extra/big", b"")])
    bomb = H.zip_with_claims(with_extra, "extra/big", H.zeros_deflated(size), size)
    m = tsjit.load(bomb)                 # (extra files are read only when asked for)
    files = {"big": b""}
    with pytest.raises(LimitError, match="max_inflation_ratio"):
        tsjit.load(bomb, _extra_files=files)
    m = tsjit.load(bomb, _extra_files=files, limits=tsjit.Limits(max_inflation_ratio=1e6))
    assert len(files["big"]) == size and m(tsjit.zeros(1)) == 16


# ------------------------------------------------------------------ pickle nesting

@pytest.mark.slow
@pytest.mark.parametrize("record", ["data.pkl", "constants.pkl"])
@pytest.mark.parametrize("which", range(4))   # lists, tuples by marks, TUPLE1 chains, dicts
def test_deep_pickles_are_a_limit_error_not_a_recursion_error(base, record, which):
    deep = crafted_pickles(100_000)[which]
    with pytest.raises(LimitError, match=f"the nesting of values in {H.TOP}/{record} "
                       r"\(10001 > 10000\): exceeds Limits.max_pickle_depth"):
        tsjit.load(H.rewrite(base, H.replace(record, deep)))


def test_the_depth_limit_is_the_one_given(base):
    deep = crafted_pickles(50)[0]
    with pytest.raises(LimitError, match=r"\(11 > 10\)"):
        tsjit.load(H.rewrite(base, H.replace("data.pkl", deep)),
                   limits=tsjit.Limits(max_pickle_depth=10))


@pytest.mark.slow
def test_deep_pickles_in_a_checkpoint(tmp_path):
    path = tmp_path / "deep.pt"
    tsjit.save({"a": [1]}, str(path))
    data = H.rewrite(path.read_bytes(), H.replace("data.pkl", crafted_pickles(100_000)[0]))
    with pytest.raises(LimitError, match="max_pickle_depth"):
        tsjit.load(data)


@pytest.mark.parametrize("which,problem", [
    (4, "tuples of more than 100000 elements in all"),    # 2**40 with shared halves
    (5, "tuples nested more than 100 deep"),
    (6, "tuples of more than 100000 elements in all"),    # a set member
])
def test_keys_too_costly_to_hash_are_refused(base, which, problem):
    # (hashing them would crash the interpreter, or run for 2**40 steps)
    start = time.perf_counter()
    with pytest.raises(UnpicklingError, match=f"a dict key or set member holds {problem} "
                       f"in {H.TOP}/data.pkl"):
        tsjit.load(H.rewrite(base, H.replace("data.pkl", crafted_pickles(40 if which != 5 else 200)[which])))
    assert time.perf_counter() - start < 1.0


# ------------------------------------------------------------------ version record

@pytest.mark.parametrize("content", [b"7" * 5000, bytes(range(256)) * 4096])
def test_huge_version_records_give_a_short_error(base, content):
    with pytest.raises(ArchiveError, match=f"bad version record {H.TOP}/version: ") as err:
        tsjit.load(H.rewrite(base, H.replace("version", content)))
    assert len(str(err.value)) < 200


# ------------------------------------------------------------------ limits kept by the module

def test_a_loaded_module_keeps_its_limits_and_calls_under_them(base, monkeypatch):
    from tsjit.jit import script_module
    limits = tsjit.Limits(call_seconds=30.0, max_tensor_bytes=1 << 20)
    m = tsjit.load(base, limits=limits)
    seen = []
    real = script_module.call_function

    def spy(fn, args):
        seen.append((L.current_limits(), L._DEADLINE.get()))
        return real(fn, args)
    monkeypatch.setattr(script_module, "call_function", spy)
    assert m(tsjit.zeros(1)) == 16
    assert seen[0][0] is limits and seen[0][1] is not None
    assert seen[0][1][1:3] == ("call_seconds", "a call of __torch__.tests.helpers.hostile_archives.Base.forward")
    assert L.current_limits() is L.DEFAULT_LIMITS and L._DEADLINE.get() is None
    assert tsjit.jit.load(base, limits=limits)._limits is limits
    assert tsjit.load(base)._limits is L.DEFAULT_LIMITS


def test_limits_must_be_limits(base):
    with pytest.raises(tsjit.TsjitError, match="limits must be a tsjit.Limits, not dict"):
        tsjit.load(base, limits={"max_pickle_depth": 5})


def test_limit_errors_say_how_to_raise_them():
    with L.use_limits(tsjit.Limits(max_pickle_depth=7)):
        err = LimitError("max_pickle_depth", "the nesting of values in x.pkl", 8)
    assert str(err) == ("the nesting of values in x.pkl (8 > 7): exceeds Limits.max_pickle_depth; "
                        "raise it with tsjit.load(..., limits=tsjit.Limits(max_pickle_depth=...)) "
                        "if you trust this input")
