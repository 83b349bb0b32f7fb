"""Fractional max pooling against PyTorch: the same samples give the same windows, values
and indices (unbatched and batched, ties, NaN), and bad sizes fail in both."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

from tests.helpers import tensor_oracle as O

pytestmark = O.requires_torch


@pytest.mark.parametrize("nd", [2, 3])
@O.SETTINGS
@given(data=st.data(), batched=st.booleans(), ties=st.booleans(), nan=st.booleans())
def test_fractional_max_pool(nd: int, data, batched: bool, ties: bool, nan: bool) -> None:
    sizes = [data.draw(st.integers(1, 8)) for _ in range(nd)]
    kernel = [data.draw(st.integers(1, s)) for s in sizes]
    out = [data.draw(st.integers(1, s - k + 2)) for s, k in zip(sizes, kernel)]  # may be too big
    lead = (2, 3) if batched else (3,)
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 16)))
    x = (rng.integers(-2, 3, lead + tuple(sizes)) if ties else
         rng.standard_normal(lead + tuple(sizes))).astype(np.float32)
    if nan:
        x.reshape(-1)[rng.integers(0, x.size)] = np.nan
    samples = rng.random(((lead[0] if batched else 1), lead[-1], nd)).astype(np.float32)
    O.diff(f"aten::fractional_max_pool{nd}d", x, kernel, out, samples)
