"""state_dict keys, shapes and dtypes, constants and plain attributes match torch.nn."""
import numpy as np
import pytest

import tsjit
import tsjit.nn as jnn
from tests.helpers.nn_cases import ALL
from tests.helpers.nn_util import copy_state, needs_torch, tnn, to_numpy, torch

pytestmark = needs_torch

EXTRA = [
    ("ModuleList", lambda nn: nn.ModuleList([nn.Linear(2, 3), nn.Conv1d(1, 2, 3)])),
    ("ModuleDict", lambda nn: nn.ModuleDict({"b": nn.Linear(2, 3), "a": nn.LayerNorm(4)})),
    ("ParameterList", lambda nn: nn.ParameterList([nn.Parameter(_t(nn, 2, 3)),
                                                   nn.Parameter(_t(nn, 4))])),
    ("ParameterDict", lambda nn: nn.ParameterDict({"w": nn.Parameter(_t(nn, 2)),
                                                   "a": nn.Parameter(_t(nn, 3))})),
    ("Transformer-default", lambda nn: nn.Transformer(16, 2, 1, 1, 32)),
    ("LSTM-3layer-bi-proj-nobias", lambda nn: nn.LSTM(3, 8, 3, bias=False, bidirectional=True,
                                                      proj_size=2)),
    ("GRU-2layer", lambda nn: nn.GRU(3, 5, 2, dropout=0.2)),
    ("MHA-kdim", lambda nn: nn.MultiheadAttention(8, 2, kdim=4, vdim=6, add_bias_kv=True)),
    ("BatchNorm1d-no-stats", lambda nn: nn.BatchNorm1d(3, track_running_stats=False)),
    ("InstanceNorm3d", lambda nn: nn.InstanceNorm3d(4)),
    ("Embedding-from_pretrained", lambda nn: nn.Embedding.from_pretrained(
        _t(nn, 4, 3) + 1, padding_idx=1)),
    ("Sequential-nested", lambda nn: nn.Sequential(nn.Sequential(nn.Linear(2, 2), nn.ReLU()),
                                                   nn.ModuleList([nn.Identity(), nn.Tanh()]))),
]


def _t(nn, *shape):
    return (torch.zeros if nn is tnn else tsjit.zeros)(*shape)


BUILDERS = [(c.id, c.build) for c in ALL] + EXTRA


@pytest.mark.parametrize("build", [b for _, b in BUILDERS], ids=[i for i, _ in BUILDERS])
def test_state_dict_keys_shapes_dtypes(build):
    t, j = build(tnn), build(jnn)
    ts, js = t.state_dict(), j.state_dict()
    assert list(js.keys()) == list(ts.keys())
    for k in ts:
        assert tuple(js[k].shape) == tuple(ts[k].shape), k
        assert str(js[k].dtype) == str(ts[k].dtype), k
    assert [n for n, _ in j.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in j.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert [n for n, _ in j.named_modules()] == [n for n, _ in t.named_modules()]
    copy_state(t, j)     # loading the torch state is exact
    for k, v in t.state_dict().items():
        np.testing.assert_array_equal(j.state_dict()[k].numpy(), to_numpy(v))


_SIMPLE = (bool, int, float, str, tuple, type(None))


@pytest.mark.parametrize("build", [b for _, b in BUILDERS], ids=[i for i, _ in BUILDERS])
def test_constants_and_attributes(build):
    t, j = build(tnn), build(jnn)
    for tm, jm in zip(t.modules(), j.modules()):
        assert type(jm).__name__ == type(tm).__name__
        assert sorted(getattr(type(jm), "__constants__", [])) == \
            sorted(getattr(type(tm), "__constants__", []))
        # every plain (scriptable) attribute PyTorch sets is there, with the same value
        for name, value in vars(tm).items():
            if name.startswith("_") and name not in ("_qkv_same_embed_dim",
                                                     "_reversed_padding_repeated_twice",
                                                     "_flat_weights_names", "_all_weights"):
                continue
            if name in ("training",) or not isinstance(value, _SIMPLE + (list,)):
                continue
            assert name in vars(jm), f"{type(tm).__name__}.{name} missing"
            got = vars(jm)[name]
            if name == "_reversed_padding_repeated_twice":
                got, value = list(got), list(value)
            assert got == value, f"{type(tm).__name__}.{name}: {got!r} != {value!r}"


def test_torch_names_exported():
    """Every layer class and functional of the brief exists under its torch.nn name."""
    for name in ["ReLU", "ReLU6", "LeakyReLU", "ELU", "CELU", "SELU", "GELU", "SiLU", "Mish",
                 "Sigmoid", "Tanh", "Softplus", "Softshrink", "Hardshrink", "Hardtanh",
                 "Hardsigmoid", "Hardswish", "Threshold", "LogSigmoid", "PReLU", "GLU",
                 "Softmax", "LogSoftmax", "Softmin", "Tanhshrink", "Softsign", "Sequential",
                 "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "Dropout",
                 "Dropout1d", "Dropout2d", "Conv1d", "Conv2d", "ConvTranspose2d", "BatchNorm1d",
                 "BatchNorm2d", "LayerNorm", "GroupNorm", "Embedding", "MaxPool1d", "MaxPool2d",
                 "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "Upsample",
                 "PixelShuffle", "Flatten", "Unflatten", "ZeroPad2d", "ConstantPad2d",
                 "Identity", "Bilinear", "RNN", "LSTM", "GRU", "RNNCell", "LSTMCell",
                 "GRUCell", "MultiheadAttention", "TransformerEncoderLayer",
                 "TransformerEncoder", "Linear", "Module", "Parameter"]:
        assert hasattr(jnn, name), name
        assert name in jnn.__all__, name
    F = jnn.functional
    for name in ["relu", "gelu", "softmax", "log_softmax", "softmin", "dropout", "layer_norm",
                 "batch_norm", "embedding", "conv1d", "conv2d", "conv_transpose2d", "pad",
                 "interpolate", "max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d",
                 "adaptive_avg_pool1d", "adaptive_avg_pool2d", "linear",
                 "multi_head_attention_forward", "scaled_dot_product_attention", "normalize",
                 "one_hot", "cross_entropy", "logsigmoid", "group_norm", "pixel_shuffle"]:
        assert callable(getattr(F, name)), name


def test_scripted_names_follow_torch():
    """Layer classes are defined in modules named like torch.nn's (archive class names)."""
    for cls, mod in [(jnn.Conv2d, "conv"), (jnn.MultiheadAttention, "activation"),
                     (jnn.LSTM, "rnn"), (jnn.Embedding, "sparse"), (jnn.LayerNorm,
                                                                   "normalization"),
                     (jnn.BatchNorm2d, "batchnorm"), (jnn.Sequential, "container"),
                     (jnn.ZeroPad2d, "padding"), (jnn.Upsample, "upsampling"),
                     (jnn.TransformerEncoderLayer, "transformer"), (jnn.Identity, "linear")]:
        assert cls.__module__ == f"tsjit.nn.modules.{mod}"
        assert getattr(tnn, cls.__name__).__module__ == f"torch.nn.modules.{mod}"
    assert jnn.MultiheadAttention(4, 2).out_proj.__class__.__name__ == \
        "NonDynamicallyQuantizableLinear"
    assert isinstance(jnn.MultiheadAttention(4, 2).out_proj, jnn.Linear)
    F = jnn.functional
    for name in ["interpolate", "multi_head_attention_forward", "cross_entropy", "relu"]:
        assert getattr(F, name).__module__ == "tsjit.nn.functional"


@pytest.mark.parametrize("build", [b for _, b in BUILDERS], ids=[i for i, _ in BUILDERS])
def test_repr_matches_torch(build):
    assert repr(build(jnn)) == repr(build(tnn))
