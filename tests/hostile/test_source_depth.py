"""Source nested past Limits.max_source_depth is a located LimitError, never a RecursionError;
source nested just within it compiles, runs in both tiers, and saves."""
import io

import pytest

import tsjit
from tests.helpers import hostile_code as H
from tsjit.ir.limits import LimitError, Limits, use_limits
from tsjit.jit import CompilationUnit

# The sizes the issue reports crashing with RecursionError; the rest at five times the limit.
HOSTILE = {"nested_ifs": 1_000, "nested_calls": 20_000, "deep_list_type": 10_000,
           "long_sum": 100_000, "nested_lists": 5_000, "nested_dicts": 5_000,
           "nested_negations": 5_000, "attribute_chain": 5_000}


def _assert_depth_error(err: LimitError, where: str) -> None:
    assert err.limit == "max_source_depth"
    text = str(err)
    assert "source nests too deeply" in text and "> 1000" in text
    assert "Limits.max_source_depth" in text
    assert err.range is not None and where in err.range.location()


@pytest.mark.parametrize("kind", [pytest.param(k, marks=pytest.mark.slow) if n >= 100_000 else k
                                  for k, n in HOSTILE.items()])
def test_deep_archive_code_is_a_limit_error(tmp_path, kind):
    m = tsjit.jit.load(H.archive_with_forward(tmp_path / "m.pt", H.DEEP[kind](HOSTILE[kind])))
    with pytest.raises(LimitError) as info:
        m(1)
    _assert_depth_error(info.value, H.CODE_FILE)


@pytest.mark.parametrize("kind", ["nested_ifs", "nested_calls", "deep_list_type", "nested_lists"])
def test_deep_scripted_source_is_a_limit_error(kind):
    with pytest.raises(LimitError) as info:
        CompilationUnit(H.script_source(H.DEEP[kind](HOSTILE[kind])), {"List": list})
    _assert_depth_error(info.value, "<source>")


def test_deep_attribute_type_is_a_limit_error(tmp_path):
    deep = "List[" * 5_000 + "int" + "]" * 5_000
    code = H.module_code(H.straight_line(1)).replace("  training : bool\n",
                                                      f"  training : bool\n  deep : {deep}\n")
    with pytest.raises(LimitError) as info:
        tsjit.jit.load(H.archive_with_code(tmp_path / "m.pt", code))
    _assert_depth_error(info.value, H.CODE_FILE)


def test_the_limit_can_be_raised():
    source = H.script_source(H.nested_negations(1_500))
    with pytest.raises(LimitError):
        CompilationUnit(source)
    with use_limits(Limits(max_source_depth=2_000)):
        assert CompilationUnit(source).f(3) == 3


# Just within the limit (nested ifs less deep: their compile time grows with depth cubed,
# each level's names being looked up through every enclosing scope). Each result is known.
LEGAL = {"nested_calls": (990, lambda x: x), "deep_list_type": (990, lambda x: x),
         "long_sum": (990, lambda x: 990 * x), "nested_lists": (990, lambda x: x),
         "nested_dicts": (990, lambda x: x), "nested_negations": (990, lambda x: x),
         "nested_ifs": (300, lambda x: x + 1)}


@pytest.mark.parametrize("kind", list(LEGAL))
def test_deep_code_within_the_limit_compiles_runs_and_saves(tmp_path, kind):
    depth, expected = LEGAL[kind]
    m = tsjit.jit.load(H.archive_with_forward(tmp_path / "m.pt", H.DEEP[kind](depth)))
    x = depth + 5   # every `if` of nested_ifs is taken
    for mode in ("interpreter", "auto", "auto", "auto"):
        tsjit.jit.set_executor(mode)
        try:
            assert m(x) == expected(x)
        finally:
            tsjit.jit.set_executor("auto")
    buf = io.BytesIO()
    tsjit.jit.save(m, buf)
    buf.seek(0)
    assert tsjit.jit.load(buf)(x) == expected(x)


def test_blocks_too_deep_for_python_stay_interpreted(tmp_path):
    m = tsjit.jit.load(H.archive_with_forward(tmp_path / "m.pt", H.nested_ifs(120)))
    tsjit.jit.set_executor("codegen")
    try:
        with pytest.raises(tsjit.TsjitError, match="blocks nest too deeply for generated Python"):
            m(200)
    finally:
        tsjit.jit.set_executor("auto")
    assert [m(200) for _ in range(4)] == [201] * 4   # auto: the interpreter keeps it
