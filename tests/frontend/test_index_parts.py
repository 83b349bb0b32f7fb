"""Tensor subscripts with `...` (the parts after it count from the last dimension, None
consuming none) and with Python lists (long indices, also when empty or of floats) agree
with eager indexing; the printed code is PyTorch's."""
import itertools
from typing import List

import pytest

import tsjit

PARTS = [":", "1", "None", "0:2"]
CASES = [list(combo[:pos]) + ["..."] + list(combo[pos:])
         for combo in itertools.product(PARTS, repeat=3) for pos in range(4)]


@pytest.mark.parametrize("parts", CASES, ids=[",".join(c) for c in CASES])
def test_ellipsis_subscripts_match_eager(parts):
    src = f"def f(x: torch.Tensor):\n    return x[{', '.join(parts)}]\n"
    env = {"torch": tsjit}
    exec(src, env)
    x = tsjit.arange(5 * 4 * 3 * 2).reshape(5, 4, 3, 2)
    want = env["f"](x)
    got = tsjit.jit.CompilationUnit(src, {"torch": tsjit}).f(x)
    assert list(got.shape) == list(want.shape) and tsjit.equal(got, want)


def test_ellipsis_dimensions_print_as_pytorchs():
    code = tsjit.jit.CompilationUnit("def f(x):\n    return x[:, ..., None, 1]\n").f.code
    assert "torch.select(torch.unsqueeze(torch.slice(x), -2), -1, 1)" in code


@pytest.mark.parametrize("index", [[0.1, 1.2, 2.3], [], [2, 0]])
def test_list_indices_are_long(index):
    x = tsjit.arange(12).reshape(3, 2, 2)

    def f(x: tsjit.Tensor, ls: List[float]) -> tsjit.Tensor:
        return x[ls, :, :]

    def g(x: tsjit.Tensor, ls: List[int]) -> tsjit.Tensor:
        return x[ls, :, :]
    fn = f if any(isinstance(i, float) for i in index) else g
    got = tsjit.jit.script(fn)(x, index)
    assert tsjit.equal(got, x[index, :, :]) and "dtype=4" in tsjit.jit.script(fn).code
