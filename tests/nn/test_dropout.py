"""Dropout in training mode: random masks from tsjit's RNG, checked statistically."""
import numpy as np
import pytest

import tsjit
import tsjit.nn as nn
import tsjit.nn.functional as F


def _ones(*shape):
    return tsjit.ones(*shape)


@pytest.mark.parametrize("p", [0.2, 0.5, 0.8])
def test_dropout_mask_and_scale(p):
    tsjit.manual_seed(0)
    y = nn.Dropout(p).train()(_ones(200, 500)).numpy()
    kept = y != 0
    assert abs(1 - kept.mean() - p) < 0.01
    np.testing.assert_allclose(y[kept], 1 / (1 - p), rtol=1e-6)


def test_dropout_eval_and_extremes():
    x = tsjit.randn(4, 5)
    assert nn.Dropout(0.5).eval()(x) is not None
    np.testing.assert_array_equal(nn.Dropout(0.5).eval()(x).numpy(), x.numpy())
    np.testing.assert_array_equal(nn.Dropout(0.0).train()(x).numpy(), x.numpy())
    np.testing.assert_array_equal(nn.Dropout(1.0).train()(x).numpy(), np.zeros((4, 5)))
    np.testing.assert_array_equal(F.dropout(x, 0.5, training=False).numpy(), x.numpy())
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.Dropout(1.5)
    with pytest.raises(ValueError, match="between 0 and 1"):
        F.dropout(x, -0.1)


def test_dropout_inplace_writes_the_input():
    tsjit.manual_seed(1)
    x = _ones(50, 40)
    y = nn.Dropout(0.5, inplace=True).train()(x)
    np.testing.assert_array_equal(x.numpy(), y.numpy())
    assert (x.numpy() == 0).any()


def test_dropout_is_reproducible_with_the_seed():
    tsjit.manual_seed(7)
    a = nn.Dropout(0.5)(_ones(10, 10)).numpy()
    tsjit.manual_seed(7)
    b = nn.Dropout(0.5)(_ones(10, 10)).numpy()
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("layer,shape", [(nn.Dropout1d, (8, 30, 5)), (nn.Dropout1d, (30, 5)),
                                         (nn.Dropout2d, (8, 30, 4, 5)),
                                         (nn.Dropout3d, (4, 30, 2, 3, 4))])
def test_channel_dropout_drops_whole_channels(layer, shape):
    tsjit.manual_seed(2)
    y = layer(0.4).train()(_ones(*shape)).numpy()
    assert y.shape == shape
    # one decision per (sample, channel): each channel is all zero or all 1 / (1 - p)
    flat = y.reshape(-1, int(np.prod(shape[-1 if len(shape) == 2 else 2:])))
    for row in flat:
        assert np.all(row == 0) or np.allclose(row, 1 / 0.6)
    assert 0.2 < (flat[:, 0] == 0).mean() < 0.6


def test_alpha_dropout_keeps_mean_and_variance():
    tsjit.manual_seed(3)
    x = tsjit.randn(400, 500)
    y = nn.AlphaDropout(0.3).train()(x).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1) < 0.03
    np.testing.assert_array_equal(nn.AlphaDropout(0.3).eval()(x).numpy(), x.numpy())


def test_rnn_dropout_between_layers_only_in_training():
    tsjit.manual_seed(4)
    lstm = nn.LSTM(3, 8, num_layers=2, dropout=0.5)
    x = tsjit.randn(5, 2, 3)
    eval_out = lstm.eval()(x)[0].numpy()
    np.testing.assert_array_equal(lstm(x)[0].numpy(), eval_out)       # deterministic in eval
    train_out = lstm.train()(x)[0].numpy()
    assert not np.allclose(train_out, eval_out)
    tsjit.manual_seed(5)
    a = lstm(x)[0].numpy()
    tsjit.manual_seed(5)
    np.testing.assert_array_equal(lstm(x)[0].numpy(), a)
    # a single layer has nothing to drop between layers
    with pytest.warns(UserWarning, match="dropout option adds dropout after all but last"):
        one = nn.GRU(3, 4, dropout=0.5)
    x1 = tsjit.randn(4, 1, 3)
    np.testing.assert_array_equal(one.train()(x1)[0].numpy(), one.eval()(x1)[0].numpy())


def test_transformer_dropout_only_in_training():
    tsjit.manual_seed(6)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5)
    x = tsjit.randn(4, 2, 8)
    a = layer.eval()(x).numpy()
    np.testing.assert_array_equal(layer(x).numpy(), a)
    assert not np.allclose(layer.train()(x).numpy(), a)
