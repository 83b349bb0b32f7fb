"""The layer configurations the eager, state-dict and scripting tests share."""
from __future__ import annotations

from collections import OrderedDict

import numpy as np

from tests.helpers.nn_util import Case, randn


def _tensor(nn, a: np.ndarray):
    """A tensor of the library `nn` belongs to (torch.nn or tsjit.nn)."""
    if nn.__name__.startswith("torch"):
        import torch
        return torch.from_numpy(a.copy())
    import tsjit
    return tsjit.from_numpy(a.copy())


def x(*shape: int):
    """Inputs: one float32 normal tensor of `shape`."""
    return lambda rng: (randn(rng, *shape),)


def ints(high: int, *shape: int):
    return lambda rng: (rng.integers(0, high, shape).astype(np.int64),)


def _causal(n: int) -> np.ndarray:
    return np.triu(np.full((n, n), -np.inf, np.float32), 1)


def _kpm(batch: int, s: int) -> np.ndarray:
    # bool key padding mask (True = padded) leaving at least one key per row
    m = np.zeros((batch, s), bool)
    m[0, -2:] = True
    m[-1, -1:] = True
    return m


ACTIVATIONS = [
    Case("ReLU", lambda nn: nn.ReLU(), x(2, 3, 4, 5), train=True),
    Case("ReLU6", lambda nn: nn.ReLU6(), lambda r: (randn(r, 3, 40) * 5,), train=True),
    Case("LeakyReLU", lambda nn: nn.LeakyReLU(0.2), x(3, 7), train=True),
    Case("ELU", lambda nn: nn.ELU(alpha=0.7), x(3, 7), train=True),
    Case("CELU", lambda nn: nn.CELU(1.3), x(3, 7), train=True),
    Case("SELU", lambda nn: nn.SELU(), x(3, 7), train=True),
    Case("GELU", lambda nn: nn.GELU(), x(3, 7), train=True),
    Case("GELU-tanh", lambda nn: nn.GELU("tanh"), x(3, 7), train=True),
    Case("SiLU", lambda nn: nn.SiLU(), x(3, 7), train=True),
    Case("Mish", lambda nn: nn.Mish(), x(3, 7), train=True),
    Case("Sigmoid", lambda nn: nn.Sigmoid(), x(3, 7), train=True),
    Case("Tanh", lambda nn: nn.Tanh(), x(3, 7), train=True),
    Case("Softplus", lambda nn: nn.Softplus(beta=2.0, threshold=5.0),
         lambda r: (randn(r, 4, 9) * 4,)),
    Case("Softshrink", lambda nn: nn.Softshrink(0.3), x(3, 7)),
    Case("Hardshrink", lambda nn: nn.Hardshrink(0.4), x(3, 7)),
    Case("Hardtanh", lambda nn: nn.Hardtanh(-0.5, 0.7), x(3, 7)),
    Case("Hardsigmoid", lambda nn: nn.Hardsigmoid(), lambda r: (randn(r, 3, 30) * 4,)),
    Case("Hardswish", lambda nn: nn.Hardswish(), lambda r: (randn(r, 3, 30) * 4,)),
    Case("Threshold", lambda nn: nn.Threshold(0.1, 20.0), x(3, 7)),
    Case("LogSigmoid", lambda nn: nn.LogSigmoid(), lambda r: (randn(r, 3, 30) * 10,)),
    Case("PReLU", lambda nn: nn.PReLU(), x(2, 3, 4)),
    Case("PReLU-channels", lambda nn: nn.PReLU(3, init=0.1), x(2, 3, 4)),
    Case("GLU", lambda nn: nn.GLU(dim=1), x(2, 6, 3)),
    Case("Softmax", lambda nn: nn.Softmax(dim=1), x(2, 5, 3)),
    Case("LogSoftmax", lambda nn: nn.LogSoftmax(dim=-1), x(2, 5, 3)),
    Case("Softmin", lambda nn: nn.Softmin(dim=0), x(2, 5, 3)),
    Case("Softmax2d", lambda nn: nn.Softmax2d(), x(2, 3, 4, 5)),
    Case("Tanhshrink", lambda nn: nn.Tanhshrink(), x(3, 7)),
    Case("Softsign", lambda nn: nn.Softsign(), x(3, 7)),
    Case("RReLU-eval", lambda nn: nn.RReLU(0.1, 0.3), x(3, 7)),
]

LINEAR = [
    Case("Linear", lambda nn: nn.Linear(5, 3), x(4, 5), train=True),
    Case("Linear-nobias", lambda nn: nn.Linear(5, 3, bias=False), x(2, 4, 5)),
    Case("Bilinear", lambda nn: nn.Bilinear(3, 4, 5), lambda r: (randn(r, 6, 3), randn(r, 6, 4))),
    Case("Identity", lambda nn: nn.Identity(3, foo=1), x(2, 3)),
    Case("Flatten", lambda nn: nn.Flatten(), x(2, 3, 4, 5)),
    Case("Flatten-0-2", lambda nn: nn.Flatten(0, 2), x(2, 3, 4, 5)),
    Case("Unflatten", lambda nn: nn.Unflatten(1, (2, 3)), x(4, 6, 5)),
    Case("PixelShuffle", lambda nn: nn.PixelShuffle(2), x(2, 8, 3, 4)),
    Case("PixelUnshuffle", lambda nn: nn.PixelUnshuffle(2), x(2, 2, 4, 6)),
]

CONTAINERS = [
    Case("Sequential", lambda nn: nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 3)),
         x(4, 5), train=True),
    Case("Sequential-OrderedDict", lambda nn: nn.Sequential(OrderedDict(
        [("conv", nn.Conv2d(3, 4, 3)), ("act", nn.Tanh()), ("pool", nn.MaxPool2d(2))])),
        x(2, 3, 8, 8)),
]

CONV = [
    Case("Conv1d", lambda nn: nn.Conv1d(3, 4, 3, stride=2, padding=1), x(2, 3, 11)),
    Case("Conv1d-same-dilated", lambda nn: nn.Conv1d(3, 4, 4, padding="same", dilation=2),
         x(2, 3, 11)),
    Case("Conv1d-unbatched", lambda nn: nn.Conv1d(3, 4, 3), x(3, 11)),
    Case("Conv2d", lambda nn: nn.Conv2d(3, 4, 3, padding=1), x(2, 3, 8, 9), train=True),
    Case("Conv2d-groups", lambda nn: nn.Conv2d(4, 6, 3, groups=2, bias=False), x(2, 4, 7, 6)),
    Case("Conv2d-depthwise", lambda nn: nn.Conv2d(3, 6, 3, groups=3, padding=1), x(1, 3, 6, 6)),
    Case("Conv2d-rect", lambda nn: nn.Conv2d(3, 4, (3, 5), stride=(2, 1), padding=(1, 2),
                                               dilation=(1, 2)), x(2, 3, 9, 12)),
    Case("Conv2d-valid", lambda nn: nn.Conv2d(3, 4, 3, padding="valid"), x(2, 3, 7, 7)),
    Case("Conv2d-same", lambda nn: nn.Conv2d(3, 4, (2, 3), padding="same"), x(2, 3, 7, 6)),
    Case("Conv2d-reflect", lambda nn: nn.Conv2d(3, 4, 3, padding=2, padding_mode="reflect"),
         x(2, 3, 7, 7)),
    Case("Conv2d-replicate", lambda nn: nn.Conv2d(3, 4, 3, padding=1, padding_mode="replicate"),
         x(2, 3, 7, 7)),
    Case("Conv2d-circular", lambda nn: nn.Conv2d(3, 4, 3, padding=(1, 2),
                                                   padding_mode="circular"), x(2, 3, 7, 7)),
    Case("Conv3d", lambda nn: nn.Conv3d(2, 3, 3, padding=1, stride=(1, 2, 2)), x(1, 2, 5, 6, 6)),
    Case("ConvTranspose1d", lambda nn: nn.ConvTranspose1d(3, 2, 4, stride=2, padding=1),
         x(2, 3, 7)),
    Case("ConvTranspose2d", lambda nn: nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1,
                                                            output_padding=1), x(2, 4, 5, 6)),
    Case("ConvTranspose2d-groups-dilation", lambda nn: nn.ConvTranspose2d(
        4, 6, 3, stride=(1, 2), groups=2, dilation=2, bias=False), x(2, 4, 5, 5)),
    Case("ConvTranspose2d-output_size", lambda nn: nn.ConvTranspose2d(4, 3, 3, stride=2,
                                                                        padding=1),
         x(2, 4, 5, 6), kwargs={"output_size": [10, 12]}),
    Case("ConvTranspose3d", lambda nn: nn.ConvTranspose3d(2, 3, 3, stride=2), x(1, 2, 3, 4, 3)),
]

NORM = [
    Case("BatchNorm1d-2d", lambda nn: nn.BatchNorm1d(4), x(8, 4), train=True),
    Case("BatchNorm1d-3d", lambda nn: nn.BatchNorm1d(4), x(8, 4, 5), train=True),
    Case("BatchNorm2d", lambda nn: nn.BatchNorm2d(3), x(4, 3, 5, 6), train=True),
    Case("BatchNorm2d-no-affine", lambda nn: nn.BatchNorm2d(3, affine=False, momentum=0.3),
         x(4, 3, 5, 6), train=True),
    Case("BatchNorm2d-cma", lambda nn: nn.BatchNorm2d(3, momentum=None), x(4, 3, 5, 6),
         train=True),
    Case("BatchNorm2d-no-stats", lambda nn: nn.BatchNorm2d(3, track_running_stats=False),
         x(4, 3, 5, 6), train=True),
    Case("BatchNorm3d", lambda nn: nn.BatchNorm3d(2), x(2, 2, 3, 4, 3), train=True),
    Case("LayerNorm", lambda nn: nn.LayerNorm(5), x(3, 4, 5), train=True),
    Case("LayerNorm-2d", lambda nn: nn.LayerNorm((4, 5), eps=1e-3), x(3, 4, 5)),
    Case("LayerNorm-noaffine", lambda nn: nn.LayerNorm(5, elementwise_affine=False), x(3, 5)),
    Case("LayerNorm-nobias", lambda nn: nn.LayerNorm(5, bias=False), x(3, 5)),
    Case("GroupNorm", lambda nn: nn.GroupNorm(2, 4), x(3, 4, 5, 2), train=True),
    Case("RMSNorm", lambda nn: nn.RMSNorm([4], eps=1e-6), x(3, 5, 4)),
    Case("BatchNorm2d-nobias", lambda nn: nn.BatchNorm2d(3, bias=False), x(4, 3, 5, 6),
         train=True),
    Case("GroupNorm-nobias", lambda nn: nn.GroupNorm(3, 6, bias=False), x(2, 6, 4)),
    Case("InstanceNorm1d", lambda nn: nn.InstanceNorm1d(3), x(2, 3, 7), train=True),
    Case("InstanceNorm2d-affine-stats", lambda nn: nn.InstanceNorm2d(
        3, affine=True, track_running_stats=True), x(2, 3, 4, 5), train=True),
    Case("InstanceNorm2d-unbatched", lambda nn: nn.InstanceNorm2d(3, affine=True),
         x(3, 4, 5), train=True),
]

SPARSE = [
    Case("Embedding", lambda nn: nn.Embedding(10, 4), ints(10, 3, 5), train=True),
    Case("Embedding-padding_idx", lambda nn: nn.Embedding(10, 4, padding_idx=0),
         ints(10, 3, 5)),
    Case("Embedding-negative-padding_idx", lambda nn: nn.Embedding(10, 4, padding_idx=-1),
         ints(10, 7)),
    Case("Embedding-max_norm", lambda nn: nn.Embedding(10, 4, max_norm=1.0), ints(10, 3, 5)),
    Case("EmbeddingBag-2d-mean", lambda nn: nn.EmbeddingBag(10, 4), ints(10, 3, 5)),
    Case("EmbeddingBag-offsets-sum", lambda nn: nn.EmbeddingBag(10, 4, mode="sum"),
         lambda rng: (rng.integers(0, 10, 9).astype(np.int64), np.array([0, 2, 2, 7], np.int64))),
    Case("EmbeddingBag-max-padding_idx", lambda nn: nn.EmbeddingBag(10, 4, mode="max", padding_idx=1),
         lambda rng: (rng.integers(0, 10, (4, 3)).astype(np.int64),)),
    Case("EmbeddingBag-weighted-last-offset",
         lambda nn: nn.EmbeddingBag(10, 4, mode="sum", include_last_offset=True),
         lambda rng: (rng.integers(0, 10, 6).astype(np.int64), np.array([0, 3, 6], np.int64),
                      rng.standard_normal(6).astype(np.float32))),
]

POOL = [
    Case("MaxPool1d", lambda nn: nn.MaxPool1d(3, stride=2), x(2, 3, 11)),
    Case("MaxPool2d", lambda nn: nn.MaxPool2d(2), x(2, 3, 8, 7)),
    Case("MaxPool2d-pad-ceil", lambda nn: nn.MaxPool2d(3, 2, padding=1, ceil_mode=True),
         x(2, 3, 8, 7)),
    Case("MaxPool2d-indices", lambda nn: nn.MaxPool2d(2, return_indices=True), x(2, 3, 6, 6)),
    Case("MaxPool3d", lambda nn: nn.MaxPool3d(2), x(1, 2, 4, 4, 6)),
    Case("AvgPool1d", lambda nn: nn.AvgPool1d(3), x(2, 3, 10)),
    Case("AvgPool2d", lambda nn: nn.AvgPool2d(2), x(2, 3, 8, 6)),
    Case("AvgPool2d-pad", lambda nn: nn.AvgPool2d(3, 2, 1, count_include_pad=False),
         x(2, 3, 8, 7)),
    Case("AvgPool2d-divisor", lambda nn: nn.AvgPool2d(2, divisor_override=3), x(2, 3, 4, 4)),
    Case("AdaptiveAvgPool1d", lambda nn: nn.AdaptiveAvgPool1d(4), x(2, 3, 10)),
    Case("AdaptiveAvgPool2d", lambda nn: nn.AdaptiveAvgPool2d((3, 4)), x(2, 3, 8, 10)),
    Case("AdaptiveAvgPool2d-int", lambda nn: nn.AdaptiveAvgPool2d(5), x(2, 3, 8, 10)),
    Case("AdaptiveAvgPool2d-None", lambda nn: nn.AdaptiveAvgPool2d((None, 3)), x(2, 3, 8, 10)),
    Case("AdaptiveMaxPool2d", lambda nn: nn.AdaptiveMaxPool2d(3), x(2, 3, 8, 10)),
    Case("AdaptiveMaxPool1d-indices", lambda nn: nn.AdaptiveMaxPool1d(3, return_indices=True),
         x(2, 3, 8)),
    Case("AdaptiveMaxPool3d-indices",
         lambda nn: nn.AdaptiveMaxPool3d((2, 4, 3), return_indices=True), x(2, 3, 5, 6, 7)),
    Case("MaxPool1d-indices", lambda nn: nn.MaxPool1d(3, 2, return_indices=True), x(2, 3, 9)),
    Case("FractionalMaxPool2d-ratio",
         lambda nn: nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.7), _random_samples=_tensor(
             nn, np.random.default_rng(3).random((2, 3, 2), dtype=np.float32))), x(2, 3, 10, 9)),
    Case("FractionalMaxPool2d-indices",
         lambda nn: nn.FractionalMaxPool2d((2, 3), output_size=4, return_indices=True,
                                           _random_samples=_tensor(nn, np.random.default_rng(
                                               4).random((1, 2, 2), dtype=np.float32))),
         x(2, 7, 8)),
    Case("FractionalMaxPool3d-indices",
         lambda nn: nn.FractionalMaxPool3d(2, output_size=(3, 4, 2), return_indices=True,
                                           _random_samples=_tensor(nn, np.random.default_rng(
                                               5).random((2, 2, 3), dtype=np.float32))),
         x(2, 2, 5, 6, 4)),
]

RESAMPLE = [
    Case("Upsample-nearest", lambda nn: nn.Upsample(scale_factor=2), x(2, 3, 4, 5)),
    Case("Upsample-nearest-size", lambda nn: nn.Upsample(size=(7, 9)), x(2, 3, 4, 5)),
    Case("Upsample-bilinear", lambda nn: nn.Upsample(size=(7, 9), mode="bilinear"),
         x(2, 3, 4, 5)),
    Case("Upsample-bilinear-align", lambda nn: nn.Upsample(scale_factor=1.5, mode="bilinear",
                                                            align_corners=True), x(2, 3, 4, 6)),
    Case("Upsample-linear", lambda nn: nn.Upsample(scale_factor=3, mode="linear"), x(2, 3, 5)),
    Case("Upsample-bicubic", lambda nn: nn.Upsample(size=(6, 8), mode="bicubic"), x(1, 2, 4, 5)),
    Case("UpsamplingNearest2d", lambda nn: nn.UpsamplingNearest2d(scale_factor=2), x(1, 2, 3, 3)),
    Case("UpsamplingBilinear2d", lambda nn: nn.UpsamplingBilinear2d(size=(5, 7)),
         x(1, 2, 3, 4)),
    Case("ZeroPad2d", lambda nn: nn.ZeroPad2d(2), x(2, 3, 4, 5)),
    Case("ZeroPad2d-tuple", lambda nn: nn.ZeroPad2d((1, 2, 3, 0)), x(2, 3, 4, 5)),
    Case("ConstantPad1d", lambda nn: nn.ConstantPad1d(2, 3.5), x(2, 3, 4)),
    Case("ConstantPad2d", lambda nn: nn.ConstantPad2d((1, 0, 2, 1), -1.0), x(2, 3, 4)),
    Case("ReflectionPad2d", lambda nn: nn.ReflectionPad2d(2), x(2, 3, 4, 5)),
    Case("ReplicationPad1d", lambda nn: nn.ReplicationPad1d((3, 1)), x(2, 3, 4)),
    Case("CircularPad2d", lambda nn: nn.CircularPad2d(1), x(2, 3, 4, 5)),
]

_RT = {"rtol": 1e-4, "atol": 2e-5}   # long recurrences accumulate float32 rounding
RNN = [
    Case("RNN", lambda nn: nn.RNN(4, 6), x(7, 3, 4), train=True, **_RT),
    Case("RNN-relu-2layer-bi-bf", lambda nn: nn.RNN(4, 6, 2, nonlinearity="relu",
                                                    bidirectional=True, batch_first=True),
         x(3, 7, 4), **_RT),
    Case("RNN-hx-unbatched", lambda nn: nn.RNN(4, 5), lambda r: (randn(r, 6, 4), randn(r, 1, 5)),
         **_RT),
    Case("LSTM", lambda nn: nn.LSTM(4, 6), x(7, 3, 4), train=True, **_RT),
    Case("LSTM-2layer-bi", lambda nn: nn.LSTM(4, 6, num_layers=2, bidirectional=True),
         x(9, 3, 4), **_RT),
    Case("LSTM-batch_first-hx", lambda nn: nn.LSTM(4, 5, batch_first=True),
         lambda r: (randn(r, 3, 6, 4), (randn(r, 1, 3, 5), randn(r, 1, 3, 5))), **_RT),
    Case("LSTM-nobias", lambda nn: nn.LSTM(4, 5, bias=False), x(6, 2, 4), **_RT),
    Case("LSTM-proj", lambda nn: nn.LSTM(4, 6, num_layers=2, proj_size=3), x(6, 2, 4), **_RT),
    Case("LSTM-unbatched", lambda nn: nn.LSTM(4, 5, 2), x(6, 4), **_RT),
    Case("GRU", lambda nn: nn.GRU(4, 6), x(7, 3, 4), train=True, **_RT),
    Case("GRU-2layer-bi-bf", lambda nn: nn.GRU(4, 6, 2, bidirectional=True, batch_first=True),
         lambda r: (randn(r, 3, 7, 4), randn(r, 4, 3, 6)), **_RT),
    Case("RNNCell", lambda nn: nn.RNNCell(4, 6), lambda r: (randn(r, 3, 4), randn(r, 3, 6))),
    Case("RNNCell-relu-nohx", lambda nn: nn.RNNCell(4, 6, nonlinearity="relu"), x(3, 4)),
    Case("RNNCell-unbatched", lambda nn: nn.RNNCell(4, 6, bias=False), x(4)),
    Case("LSTMCell", lambda nn: nn.LSTMCell(4, 6),
         lambda r: (randn(r, 3, 4), (randn(r, 3, 6), randn(r, 3, 6)))),
    Case("LSTMCell-nohx-unbatched", lambda nn: nn.LSTMCell(4, 6), x(4)),
    Case("GRUCell", lambda nn: nn.GRUCell(4, 6), lambda r: (randn(r, 3, 4), randn(r, 3, 6))),
    Case("GRUCell-nohx", lambda nn: nn.GRUCell(4, 6), x(3, 4)),
]

ATTENTION = [
    Case("MHA-self", lambda nn: nn.MultiheadAttention(8, 2),
         lambda r: (lambda q: (q, q, q))(randn(r, 5, 3, 8)), train=True),
    Case("MHA-cross-masks", lambda nn: nn.MultiheadAttention(8, 4),
         lambda r: (randn(r, 5, 3, 8), randn(r, 6, 3, 8), randn(r, 6, 3, 8)),
         kwargs={"key_padding_mask": _kpm(3, 6),
                 "attn_mask": np.where(np.random.default_rng(3).random((5, 6)) < 0.2,
                                       -np.inf, 0).astype(np.float32),
                 "average_attn_weights": False}),
    Case("MHA-bool-attn-mask", lambda nn: nn.MultiheadAttention(8, 2),
         lambda r: (randn(r, 5, 2, 8), randn(r, 5, 2, 8), randn(r, 5, 2, 8)),
         kwargs={"attn_mask": np.triu(np.ones((5, 5), bool), 1)}),
    Case("MHA-no-weights-3d-mask", lambda nn: nn.MultiheadAttention(8, 2),
         lambda r: (randn(r, 4, 3, 8), randn(r, 6, 3, 8), randn(r, 6, 3, 8)),
         kwargs={"need_weights": False, "attn_mask": randn(np.random.default_rng(4), 6, 4, 6)}),
    Case("MHA-batch_first", lambda nn: nn.MultiheadAttention(8, 2, batch_first=True),
         lambda r: (lambda q: (q, q, q))(randn(r, 3, 5, 8)),
         kwargs={"key_padding_mask": _kpm(3, 5)}),
    Case("MHA-kdim-vdim", lambda nn: nn.MultiheadAttention(8, 2, kdim=5, vdim=3),
         lambda r: (randn(r, 4, 2, 8), randn(r, 6, 2, 5), randn(r, 6, 2, 3))),
    Case("MHA-bias_kv-zero_attn", lambda nn: nn.MultiheadAttention(
        8, 2, add_bias_kv=True, add_zero_attn=True),
        lambda r: (randn(r, 4, 2, 8), randn(r, 5, 2, 8), randn(r, 5, 2, 8)),
        kwargs={"key_padding_mask": _kpm(2, 5)}),
    Case("MHA-nobias-unbatched", lambda nn: nn.MultiheadAttention(6, 3, bias=False),
         lambda r: (randn(r, 4, 6), randn(r, 5, 6), randn(r, 5, 6))),
    Case("MHA-causal-no-weights", lambda nn: nn.MultiheadAttention(8, 2),
         lambda r: (lambda q: (q, q, q))(randn(r, 5, 2, 8)),
         kwargs={"need_weights": False, "attn_mask": _causal(5), "is_causal": True}),
]

_MEM = lambda r: (randn(r, 5, 2, 8), randn(r, 6, 2, 8))  # noqa: E731
TRANSFORMER = [
    Case("TransformerEncoderLayer", lambda nn: nn.TransformerEncoderLayer(8, 2, 16), x(5, 3, 8),
         kwargs={"src_key_padding_mask": _kpm(3, 5)}),
    Case("TransformerEncoderLayer-gelu-normfirst-bf", lambda nn: nn.TransformerEncoderLayer(
        8, 2, 16, activation="gelu", norm_first=True, batch_first=True), x(3, 5, 8),
        kwargs={"src_mask": _causal(5)}),
    Case("TransformerEncoderLayer-module-activation", lambda nn: nn.TransformerEncoderLayer(
        8, 2, 16, dropout=0.0, activation=nn.GELU()), x(5, 3, 8), train=True),
    Case("TransformerEncoder", lambda nn: nn.TransformerEncoder(
        nn.TransformerEncoderLayer(8, 2, 16), 2, norm=nn.LayerNorm(8),
        enable_nested_tensor=False), x(5, 3, 8),
        kwargs={"mask": _causal(5), "src_key_padding_mask": _kpm(3, 5)}),
    Case("TransformerEncoder-causal", lambda nn: nn.TransformerEncoder(
        nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2, enable_nested_tensor=False),
        x(2, 5, 8), kwargs={"mask": _causal(5), "is_causal": True}),
    Case("TransformerDecoderLayer", lambda nn: nn.TransformerDecoderLayer(8, 2, 16), _MEM,
         kwargs={"tgt_mask": _causal(5), "memory_key_padding_mask": _kpm(2, 6)}),
    Case("TransformerDecoder", lambda nn: nn.TransformerDecoder(
        nn.TransformerDecoderLayer(8, 2, 16, norm_first=True), 2, norm=nn.LayerNorm(8)), _MEM,
        kwargs={"tgt_mask": _causal(5)}),
    Case("Transformer", lambda nn: nn.Transformer(8, 2, 2, 2, 16, batch_first=True),
         lambda r: (randn(r, 2, 6, 8), randn(r, 2, 5, 8)), kwargs={"tgt_mask": _causal(5)},
         rtol=1e-4, atol=1e-5),
]

DROPOUT_EVAL = [
    Case("Dropout", lambda nn: nn.Dropout(0.3), x(4, 5)),
    Case("Dropout1d", lambda nn: nn.Dropout1d(0.3), x(4, 5, 3)),
    Case("Dropout2d", lambda nn: nn.Dropout2d(0.3), x(2, 4, 5, 3)),
    Case("AlphaDropout", lambda nn: nn.AlphaDropout(0.3), x(4, 5)),
]

_LOGITS = lambda r: (randn(r, 6, 4), r.integers(0, 4, 6).astype(np.int64))  # noqa: E731
_W = np.array([0.5, 1.0, 2.0, 1.5], np.float32)
LOSSES = [
    Case("L1Loss", lambda nn: nn.L1Loss(), lambda r: (randn(r, 3, 4), randn(r, 3, 4))),
    Case("MSELoss-sum", lambda nn: nn.MSELoss(reduction="sum"),
         lambda r: (randn(r, 3, 4), randn(r, 3, 4))),
    Case("NLLLoss", lambda nn: nn.NLLLoss(ignore_index=2), _LOGITS),
    Case("CrossEntropyLoss", lambda nn: nn.CrossEntropyLoss(label_smoothing=0.1), _LOGITS),
    Case("CrossEntropyLoss-weight", lambda nn: nn.CrossEntropyLoss(
        weight=_tensor(nn, _W), reduction="none"), _LOGITS),
    Case("BCEWithLogitsLoss", lambda nn: nn.BCEWithLogitsLoss(pos_weight=_tensor(nn, _W)),
         lambda r: (randn(r, 3, 4), r.random((3, 4)).astype(np.float32))),
]


def _unpool_idx(r: np.random.Generator, shape: tuple, k: int):
    # valid max-pool indices (kernel = stride = k): one position inside each window
    d = len(shape) - 2
    src = np.indices(shape[2:]) * k + r.integers(0, k, (d,) + shape[2:])
    out = [n * k for n in shape[2:]]
    flat = np.ravel_multi_index(tuple(src), out).astype(np.int64)
    return (randn(r, *shape), np.broadcast_to(flat, shape).copy())


def _pm1(r: np.random.Generator, *shape: int) -> np.ndarray:
    return np.where(r.random(shape) < 0.5, -1.0, 1.0).astype(np.float32)


def _ctc(r: np.random.Generator) -> tuple:
    lp = randn(r, 6, 2, 4)
    lp = lp - np.log(np.exp(lp).sum(-1, keepdims=True))
    return (lp, r.integers(1, 4, (2, 3)).astype(np.int64), np.array([6, 5], np.int64),
            np.array([3, 2], np.int64))


EXTRA_LAYERS = [
    Case("Unfold", lambda nn: nn.Unfold(2, dilation=1, padding=1, stride=2), x(2, 3, 5, 4)),
    Case("Unfold-tuple", lambda nn: nn.Unfold((2, 3)), x(3, 5, 6)),
    Case("Fold", lambda nn: nn.Fold((4, 5), 2, padding=1), x(2, 12, 30)),
    Case("MaxUnpool1d", lambda nn: nn.MaxUnpool1d(2), lambda r: _unpool_idx(r, (2, 3, 4), 2)),
    Case("MaxUnpool2d", lambda nn: nn.MaxUnpool2d(2), lambda r: _unpool_idx(r, (2, 3, 2, 3), 2)),
    Case("MaxUnpool3d", lambda nn: nn.MaxUnpool3d(2),
         lambda r: _unpool_idx(r, (1, 2, 2, 2, 3), 2)),
    Case("LPPool1d", lambda nn: nn.LPPool1d(2, 3, stride=2), x(2, 3, 9)),
    Case("LPPool2d", lambda nn: nn.LPPool2d(1.5, 2), lambda r: (np.abs(randn(r, 2, 3, 6, 5)),)),
    Case("LPPool3d", lambda nn: nn.LPPool3d(3, 2, stride=1), x(1, 2, 3, 4, 4), rtol=1e-4),
    Case("LocalResponseNorm", lambda nn: nn.LocalResponseNorm(3), x(2, 5, 4, 3)),
    Case("LocalResponseNorm-3d", lambda nn: nn.LocalResponseNorm(2, k=2.0), x(2, 5, 7)),
    Case("ChannelShuffle", lambda nn: nn.ChannelShuffle(2), x(2, 6, 3, 3)),
    Case("CosineSimilarity", lambda nn: nn.CosineSimilarity(dim=-1),
         lambda r: (randn(r, 3, 5), randn(r, 3, 5))),
    Case("PairwiseDistance", lambda nn: nn.PairwiseDistance(p=1.5, keepdim=True),
         lambda r: (randn(r, 3, 5), randn(r, 3, 5))),
]

_PAIR = lambda r: (randn(r, 3, 4), randn(r, 3, 4))  # noqa: E731
EXTRA_LOSSES = [
    Case("BCELoss", lambda nn: nn.BCELoss(weight=_tensor(nn, _W)),
         lambda r: (r.random((3, 4)).astype(np.float32), r.random((3, 4)).astype(np.float32))),
    Case("HuberLoss", lambda nn: nn.HuberLoss(delta=0.5), _PAIR),
    Case("KLDivLoss", lambda nn: nn.KLDivLoss(reduction="batchmean", log_target=True), _PAIR),
    Case("SmoothL1Loss", lambda nn: nn.SmoothL1Loss(beta=0.5, reduction="sum"), _PAIR),
    Case("MarginRankingLoss", lambda nn: nn.MarginRankingLoss(0.2),
         lambda r: (randn(r, 5), randn(r, 5), _pm1(r, 5))),
    Case("SoftMarginLoss", lambda nn: nn.SoftMarginLoss(), lambda r: (randn(r, 3, 4),
                                                                     _pm1(r, 3, 4))),
    Case("MultiLabelSoftMarginLoss", lambda nn: nn.MultiLabelSoftMarginLoss(
        weight=_tensor(nn, _W)), lambda r: (randn(r, 3, 4), _pm1(r, 3, 4) * 0.5 + 0.5)),
    Case("MultiLabelMarginLoss", lambda nn: nn.MultiLabelMarginLoss(reduction="none"),
         lambda r: (randn(r, 3, 4), np.array([[3, 0, -1, 1], [0, 1, 2, 3], [-1, 1, 2, 3]]))),
    Case("GaussianNLLLoss", lambda nn: nn.GaussianNLLLoss(full=True),
         lambda r: (randn(r, 3, 4), randn(r, 3, 4), r.random((3, 1)).astype(np.float32))),
    Case("CosineEmbeddingLoss", lambda nn: nn.CosineEmbeddingLoss(0.1),
         lambda r: (randn(r, 3, 4), randn(r, 3, 4), _pm1(r, 3))),
    Case("HingeEmbeddingLoss", lambda nn: nn.HingeEmbeddingLoss(0.5), lambda r: (
        randn(r, 3, 4), _pm1(r, 3, 4))),
    Case("PoissonNLLLoss", lambda nn: nn.PoissonNLLLoss(full=True),
         lambda r: (randn(r, 3, 4), r.integers(0, 5, (3, 4)).astype(np.float32))),
    Case("TripletMarginLoss", lambda nn: nn.TripletMarginLoss(0.5, p=1.0, swap=True),
         lambda r: (randn(r, 3, 4), randn(r, 3, 4), randn(r, 3, 4))),
    Case("MultiMarginLoss", lambda nn: nn.MultiMarginLoss(p=2, weight=_tensor(nn, _W)),
         _LOGITS),
    Case("CTCLoss", lambda nn: nn.CTCLoss(blank=0, zero_infinity=True), _ctc, rtol=1e-4),
    Case("NLLLoss2d", lambda nn: nn.NLLLoss2d(), lambda r: (
        randn(r, 2, 4, 3, 3), r.integers(0, 4, (2, 3, 3)).astype(np.int64))),
]

ALL = (ACTIVATIONS + LINEAR + CONTAINERS + CONV + NORM + SPARSE + POOL + RESAMPLE + RNN
       + ATTENTION + TRANSFORMER + DROPOUT_EVAL + LOSSES + EXTRA_LAYERS + EXTRA_LOSSES)
