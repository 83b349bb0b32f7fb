"""The block-by-block formulas (ops/kernels/blocked_math.py) against the plain float64 formulas,
over sizes that end inside a block, span several blocks, or are 0-d / empty / strided."""
from __future__ import annotations

import math

import numpy as np
import pytest

from tsjit.ops.kernels import blocked_math as B

_ERFC = np.vectorize(math.erfc, otypes=[np.float64])

PLAIN = {
    "gelu_erf": lambda x: x * 0.5 * _ERFC(-x / math.sqrt(2)),   # = 1 + erf, no cancellation
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "silu": lambda x: x / (1 + np.exp(-x)),
    "hardsigmoid": lambda x: np.clip(x + 3, 0, 6) / 6,
    "hardswish": lambda x: x * np.clip(x + 3, 0, 6) / 6,
}


def _inputs(dtype):
    rng = np.random.default_rng(0)
    n = 2 * B.BLOCK + 123                               # two whole blocks and a partial one
    dense = np.linspace(-12, 12, n)
    yield dense.astype(dtype)
    yield (rng.standard_normal((3, 5, 7)) * 4).astype(dtype)
    yield np.asarray(-0.75, dtype)                      # 0-d stays 0-d
    yield np.zeros((0, 3), dtype)
    yield dense.reshape(-1, 1)[::3].astype(dtype)       # strided
    yield np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-30, -1e-30, 80, -80, 1e4, -1e4],
                   dtype)


@pytest.mark.parametrize("name", sorted(PLAIN))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_blocked_matches_plain(name: str, dtype) -> None:
    fast, plain = getattr(B, name), PLAIN[name]
    tol = 2e-7 if dtype == np.float32 else 1e-13
    for x in _inputs(dtype):
        got = fast(x)
        with np.errstate(all="ignore"):
            want = plain(x.astype(np.float64))
        assert got.shape == x.shape and got.dtype == x.dtype
        finite = np.isfinite(x)
        # absolute error relative to max(1, |x|): GELU's float32 erf is A&S 7.1.26
        err = np.abs(got[finite] - want[finite]) / np.maximum(1, np.abs(x[finite]))
        assert err.size == 0 or err.max() <= tol * 4, (name, dtype, err.max())
        if name != "gelu_erf":   # PyTorch's vectorised GELU gives NaN at +-inf; see gelu
            np.testing.assert_array_equal(got[~finite], want[~finite].astype(dtype))


def test_gelu_float32_negative_tail_has_no_cancellation() -> None:
    # 0.5 * x * (1 + erf(x / sqrt 2)) in float32 rounds to 0 below x ~ -5.5; the erfc form
    # keeps A&S 7.1.26's relative accuracy there (1.5% at x = -9, better nearer 0)
    x = np.linspace(-9, -3, 1001).astype(np.float32)
    got = B.gelu_erf(x).astype(np.float64)
    want = PLAIN["gelu_erf"](x.astype(np.float64))
    assert np.all(np.abs(got - want) <= 0.016 * np.abs(want))
