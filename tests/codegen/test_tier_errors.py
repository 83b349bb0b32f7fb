"""Errors raised in generated code: the same messages, kinds and TorchScript tracebacks
(frames and source lines) as the interpreter's, inlined calls included."""
import pytest

import tsjit
from tsjit.interpreter import ScriptError

SOURCE = '''
def check(x: int) -> int:
    if x == 13:
        raise ValueError("unlucky " + str(x))
    return x

def big(xs: List[int]) -> int:
    total = 0
    for x in xs:
        total += check(x)
        total = total * 3 - total // 2 + total % 7
        if total > 1000000:
            total = total - 1000000
        elif total < -1000000:
            total = total + 1000000
        else:
            total = total + 1
    assert total != 4, "total is four"
    return total

def entry(xs: List[int], d: Dict[str, int], key: str, i: int, j: int) -> int:
    a = big(xs) + check(i)
    b = d[key] + xs[i]
    return a + b + 10 // j
'''

CALLS = [
    ([1, 2], {"k": 1}, "k", 0, 1),        # fine
    ([1, 13], {"k": 1}, "k", 0, 1),       # raise inside big -> check (check inlined)
    ([1], {"k": 1}, "k", 13, 1),          # raise inside check called from entry
    ([1], {"k": 1}, "missing", 0, 1),     # dict KeyError
    ([1], {"k": 1}, "k", 5, 1),           # list index out of range
    ([1], {"k": 1}, "k", 0, 0),           # integer division by zero
    ([3], {"k": 1}, "k", 0, 1),           # assert in big
]


def _outcome(f):
    try:
        return "ok", f()
    except ScriptError as e:
        return e.kind, str(e), [(name, r.lineno() if r else None) for name, r in e.frames]


@pytest.mark.parametrize("args", CALLS)
def test_both_tiers_fail_alike(args, use_executor):
    import typing
    cu = tsjit.jit.CompilationUnit(SOURCE, {"List": typing.List, "Dict": typing.Dict})
    results = {}
    for mode in ("interpreter", "codegen"):
        with use_executor(mode):
            results[mode] = _outcome(lambda: cu.entry(*args))
    assert results["codegen"] == results["interpreter"]


def test_traceback_names_each_frame_and_source_line(use_executor):
    import typing
    cu = tsjit.jit.CompilationUnit(SOURCE, {"List": typing.List, "Dict": typing.Dict})
    with use_executor("codegen"):
        with pytest.raises(ScriptError) as info:
            cu.entry([1, 13], {"k": 1}, "k", 0, 1)
    text = str(info.value)
    assert [name.rsplit(".", 1)[-1] for name, _ in info.value.frames] == ["check", "big", "entry"]
    assert 'raise ValueError("unlucky " + str(x))' in text
    assert "total += check(x)" in text and "a = big(xs) + check(i)" in text
    assert text.rstrip().endswith("ValueError: unlucky 13")
