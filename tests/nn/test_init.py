"""Default initialisation follows torch.nn's distributions (values come from tsjit's RNG)."""
import math

import numpy as np
import pytest

import tsjit
import tsjit.nn as nn
from tsjit.nn import init
from tests.helpers.nn_util import needs_torch, torch


def _uniform_in(t, bound):
    a = t.numpy()
    assert a.min() >= -bound - 1e-7 and a.max() <= bound + 1e-7
    assert abs(a.std() - bound / math.sqrt(3)) < 0.1 * bound     # uniform, not degenerate


def test_layer_defaults():
    tsjit.manual_seed(0)
    lin = nn.Linear(200, 100)
    _uniform_in(lin.weight, 1 / math.sqrt(200))
    _uniform_in(lin.bias, 1 / math.sqrt(200))
    conv = nn.Conv2d(8, 64, 3)
    _uniform_in(conv.weight, 1 / math.sqrt(8 * 9))
    lstm = nn.LSTM(10, 32, 2)
    for p in lstm.parameters():
        _uniform_in(p, 1 / math.sqrt(32))
    emb = nn.Embedding(300, 40, padding_idx=3)
    w = emb.weight.numpy()
    assert abs(w.std() - 1) < 0.05 and np.all(w[3] == 0)
    mha = nn.MultiheadAttention(16, 4)
    _uniform_in(mha.in_proj_weight, math.sqrt(6 / (16 + 48)))
    assert np.all(mha.in_proj_bias.numpy() == 0) and np.all(mha.out_proj.bias.numpy() == 0)
    bn = nn.BatchNorm2d(5)
    assert np.all(bn.weight.numpy() == 1) and np.all(bn.bias.numpy() == 0)
    assert np.all(bn.running_var.numpy() == 1) and int(bn.num_batches_tracked) == 0
    assert bn.num_batches_tracked.dtype == tsjit.int64
    assert np.all(nn.PReLU(3).weight.numpy() == np.float32(0.25))
    t = nn.Transformer(16, 2, 1, 1, 32)
    assert all(abs(p.numpy()).max() <= math.sqrt(6 / sum(p.shape[:2])) + 1e-6
               for p in t.parameters() if p.dim() > 1)


def test_dtype_argument():
    assert nn.Linear(2, 3, dtype=tsjit.float64).weight.dtype == tsjit.float64
    assert nn.LSTM(2, 3, dtype=tsjit.float64).weight_hh_l0.dtype == tsjit.float64


@needs_torch
def test_calculate_gain_matches_torch():
    for nl, param in [("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None),
                      ("relu", None), ("leaky_relu", None), ("leaky_relu", 0.2), ("selu", None)]:
        assert init.calculate_gain(nl, param) == pytest.approx(
            torch.nn.init.calculate_gain(nl, param))


def test_init_functions():
    tsjit.manual_seed(1)
    t = tsjit.empty(400, 300)
    init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu")
    assert abs(t.numpy().std() - math.sqrt(2 / 400)) < 0.002
    init.xavier_normal_(t, gain=2.0)
    assert abs(t.numpy().std() - 2 * math.sqrt(2 / 700)) < 0.002
    init.xavier_uniform_(t)
    _uniform_in(t, math.sqrt(6 / 700))
    init.trunc_normal_(t, mean=1.0, std=2.0, a=-1.0, b=2.0)
    assert t.numpy().min() >= -1.0 and t.numpy().max() <= 2.0
    q = tsjit.empty(6, 4)
    init.orthogonal_(q)
    np.testing.assert_allclose(q.numpy().T @ q.numpy(), np.eye(4), atol=1e-5)
    init.eye_(q)
    np.testing.assert_array_equal(q.numpy(), np.eye(6, 4))
    init.constant_(q, 0.5)
    assert np.all(q.numpy() == 0.5)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.xavier_uniform_(tsjit.empty(3))
