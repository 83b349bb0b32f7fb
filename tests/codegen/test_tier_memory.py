"""Both executors release a tensor after its last use, so a call's peak memory is that of
the values live at once, not of every intermediate (ir/liveness.py)."""
import tracemalloc

import numpy as np
import pytest

import tsjit

from tests.helpers.executors import executor

N = 1 << 20          # float64 elements: 8 MiB per tensor

SRC = '''
def chain(x: Tensor) -> Tensor:
    a = x * 2.0
    b = a + 1.0
    c = b * 3.0
    d = c - 1.0
    return d

def branchy(x: Tensor, flag: bool) -> Tensor:
    a = x * 2.0
    if flag:
        b = a + 1.0
        c = b * 3.0
    else:
        c = a - 1.0
    d = c * c
    return d

def looped(x: Tensor, n: int) -> Tensor:
    acc = x * 0.0
    for i in range(n):
        t = x * float(i)
        acc = acc + t
    return acc
'''


def _peak_tensors(fn, *args) -> float:
    """Peak memory of one call beyond what the arguments hold, in tensors of N float64s."""
    fn(*args)   # compile / warm up outside the measurement
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        result = fn(*args)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    del result
    return peak / (N * 8)


@pytest.mark.parametrize("mode", ["interpreter", "codegen"])
@pytest.mark.parametrize("name, args, live", [
    ("chain", (), 2),            # an intermediate and the next one (the result)
    ("branchy", (True,), 2),
    ("branchy", (False,), 2),
    ("looped", (5,), 3),         # acc, t and the new acc
])
def test_intermediates_are_released_after_last_use(mode, name, args, live):
    cu = tsjit.jit.CompilationUnit(SRC, {"Tensor": tsjit.Tensor})
    x = tsjit.from_numpy(np.ones(N))
    with executor(mode, 1):
        fn = getattr(cu, name)
        peak = _peak_tensors(fn, x, *args)
        expected = getattr(cu, name)(x, *args).numpy()
    # Without releasing, chain would peak at 4 tensors and looped at 3 + one per trip.
    assert peak < live + 0.5, f"{name}{args} peaked at {peak:.2f} tensors under {mode}"
    assert np.array_equal(expected, _python(name, np.ones(N), *args))


def _python(name, x, *args):
    ns: dict = {}
    exec(SRC.replace(": Tensor", "").replace(" -> Tensor", "").replace(": bool", "")
         .replace(": int", ""), ns)
    return ns[name](x, *args)
