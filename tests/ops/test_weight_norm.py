"""aten::_weight_norm against PyTorch, for each normalised dimension."""
from __future__ import annotations

import numpy as np
import pytest

import tsjit
from tests.helpers import tensor_oracle as O


@pytest.mark.parametrize("dim, gshape", [(0, (4, 1, 1)), (1, (1, 3, 1)), (2, (1, 1, 5)),
                                         (-1, ())])
def test_weight_norm_matches_torch(dim, gshape):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(dim + 1)
    v = rng.standard_normal((4, 3, 5)).astype(np.float32)
    g = rng.standard_normal(gshape).astype(np.float32)
    got = O.kernel("aten::_weight_norm")(tsjit.from_numpy(v), tsjit.from_numpy(g), dim)
    ref = torch._weight_norm(torch.from_numpy(v), torch.from_numpy(g), dim).numpy()
    assert got.numpy().dtype == ref.dtype
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-5, atol=1e-6)


def test_weight_norm_by_hand():
    v = tsjit.from_numpy(np.array([[3.0, 4.0], [0.0, 2.0]], np.float32))
    g = tsjit.from_numpy(np.array([[10.0], [1.0]], np.float32))
    # rows have norms 5 and 2: scaled to norms 10 and 1
    out = O.kernel("aten::_weight_norm")(v, g, 0).numpy()
    assert out.tolist() == [[6.0, 8.0], [0.0, 1.0]]
    with pytest.raises(IndexError):
        O.kernel("aten::_weight_norm")(v, g, 2)
