"""tsjit.nn.functional against torch.nn.functional on the same inputs."""
import warnings

import numpy as np
import pytest

import tsjit
import tsjit.nn.functional as JF
from tests.helpers.nn_util import needs_torch, torch

pytestmark = needs_torch
TF = torch.nn.functional if torch is not None else None


def _x(*shape, seed=0, scale=1.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)


def _cmp(name, args, kwargs=None, rtol=1e-5, atol=1e-6):
    """Call F.<name> in both libraries with numpy arrays converted; compare results."""
    kwargs = kwargs or {}
    conv_t = lambda v: torch.from_numpy(v.copy()) if isinstance(v, np.ndarray) else v  # noqa: E731
    conv_j = lambda v: tsjit.from_numpy(v.copy()) if isinstance(v, np.ndarray) else v  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(TF, name)(*map(conv_t, args), **{k: conv_t(v) for k, v in kwargs.items()})
        got = getattr(JF, name)(*map(conv_j, args), **{k: conv_j(v) for k, v in kwargs.items()})
    if isinstance(want, tuple):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=rtol, atol=atol)
    else:
        assert got.dtype.__str__() == str(want.dtype)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=rtol, atol=atol)


ACT = [("relu", {}), ("relu6", {}), ("elu", {"alpha": 0.5}), ("selu", {}),
       ("celu", {"alpha": 2.0}), ("leaky_relu", {"negative_slope": 0.3}),
       ("hardtanh", {"min_val": -0.2, "max_val": 0.4}), ("silu", {}), ("mish", {}),
       ("hardswish", {}), ("hardsigmoid", {}), ("gelu", {"approximate": "tanh"}),
       ("logsigmoid", {}), ("softplus", {"beta": 0.5}), ("softshrink", {"lambd": 0.2}),
       ("hardshrink", {}), ("tanhshrink", {}), ("softsign", {}), ("sigmoid", {}),
       ("tanh", {}), ("glu", {"dim": 0})]


@pytest.mark.parametrize("name,kw", ACT, ids=[a for a, _ in ACT])
def test_activation_functionals(name, kw):
    _cmp(name, (_x(4, 6, scale=3),), kw)


@pytest.mark.parametrize("name", ["relu", "relu6", "elu", "selu", "celu", "leaky_relu",
                                  "hardtanh", "silu", "mish", "hardswish", "hardsigmoid"])
def test_inplace_flag_writes_the_input(name):
    x = tsjit.from_numpy(_x(3, 5, scale=3))
    ref = getattr(TF, name)(torch.from_numpy(x.numpy().copy()))
    y = getattr(JF, name)(x, inplace=True)
    np.testing.assert_allclose(x.numpy(), ref.numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(y.numpy(), ref.numpy(), rtol=1e-6, atol=1e-7)


def test_threshold_rrelu_prelu():
    _cmp("threshold", (_x(3, 4), 0.2, -5.0))
    _cmp("rrelu", (_x(3, 4),), {"training": False})
    _cmp("prelu", (_x(2, 3, 4), np.array([0.1, 0.2, 0.3], np.float32)))


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
def test_softmax_family(name):
    for shape in [(5,), (3, 4), (2, 3, 4), (2, 3, 4, 5)]:
        _cmp(name, (_x(*shape),), {})           # implicit dim (with a warning)
    _cmp(name, (_x(2, 3, 4),), {"dim": -1})
    _cmp(name, (_x(2, 3, 4),), {"dim": 1})
    got = getattr(JF, name)(tsjit.from_numpy(_x(2, 3)), dim=1, dtype=tsjit.float64)
    assert got.dtype == tsjit.float64
    with pytest.warns(UserWarning, match="Implicit dimension choice"):
        getattr(JF, name)(tsjit.from_numpy(_x(2, 3)))


def test_normalize_one_hot_linear_bilinear():
    _cmp("normalize", (_x(4, 5),), {})
    _cmp("normalize", (_x(4, 5, 3),), {"p": 1.0, "dim": 2})
    _cmp("one_hot", (np.array([0, 3, 1], np.int64),), {"num_classes": 5})
    _cmp("one_hot", (np.array([[0, 2], [1, 1]], np.int64),))
    _cmp("linear", (_x(3, 4), _x(5, 4, seed=1), _x(5, seed=2)))
    _cmp("bilinear", (_x(3, 4), _x(3, 2, seed=1), _x(5, 4, 2, seed=2)))


def test_dropout_functionals_in_eval():
    x = _x(2, 3, 4, 5)
    for name in ["dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d",
                 "dropout2d", "dropout3d"]:
        args = (x[0],) if name == "dropout1d" else (x,)
        _cmp(name, args, {"p": 0.4, "training": False})


def test_norm_functionals():
    x = _x(4, 6, 5)
    rm, rv = _x(6, seed=1), np.abs(_x(6, seed=2)) + 0.5
    w, b = _x(6, seed=3), _x(6, seed=4)
    _cmp("batch_norm", (x, rm, rv), {"weight": w, "bias": b, "training": False})
    _cmp("batch_norm", (x, None, None), {"training": True})
    _cmp("layer_norm", (x, [6, 5]), {"eps": 1e-3})
    _cmp("layer_norm", (x, [5], _x(5, seed=5), _x(5, seed=6)))
    _cmp("group_norm", (x, 3, w, b))
    _cmp("instance_norm", (x,), {"weight": w, "bias": b})
    _cmp("rms_norm", (x, [5]), {"eps": 1e-5})
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        JF.batch_norm(tsjit.ones(1, 3), None, None, training=True)


def test_embedding_functional_and_renorm():
    idx = np.array([[0, 2, 4], [4, 3, 9]], np.int64)
    table = _x(10, 3, scale=3)
    _cmp("embedding", (idx, table), {"padding_idx": -1})
    wt, wj = torch.from_numpy(table.copy()), tsjit.from_numpy(table.copy())
    TF.embedding(torch.from_numpy(idx), wt, max_norm=1.5, norm_type=1.0)
    JF.embedding(tsjit.from_numpy(idx), wj, max_norm=1.5, norm_type=1.0)
    np.testing.assert_allclose(wj.numpy(), wt.numpy(), rtol=1e-6)   # rows renormed in place


def test_conv_and_pad_functionals():
    x, w = _x(2, 4, 7, 6), _x(6, 2, 3, 3, seed=1)
    _cmp("conv2d", (x, w), {"stride": 2, "padding": 1, "groups": 2})
    _cmp("conv2d", (x, w), {"padding": "same", "groups": 2})
    _cmp("conv1d", (_x(2, 3, 9), _x(4, 3, 2, seed=2)), {"padding": "valid", "dilation": 2})
    _cmp("conv_transpose2d", (x, _x(4, 3, 3, 3, seed=3)), {"stride": 2, "output_padding": 1})
    for mode, pad in [("constant", (1, 2, 0, 3)), ("reflect", (2, 1, 0, 1)),
                      ("replicate", (1, 1, 2, 2)), ("circular", (1, 2, 3, 1))]:
        _cmp("pad", (x, pad), {"mode": mode})
    _cmp("pad", (x, (1, 1)), {"value": 2.5})


def test_pool_functionals():
    x = _x(2, 3, 9, 8)
    _cmp("max_pool2d", (x, 3), {"stride": 2, "padding": 1, "ceil_mode": True})
    _cmp("max_pool2d", (x, (2, 3)), {"return_indices": True})
    _cmp("max_pool2d", (x, 2, None, 0, 1, False, True))          # positional return_indices
    _cmp("max_pool1d", (x[0], 2), {"dilation": 2})
    _cmp("max_pool3d", (x[None], 2), {"return_indices": True})
    _cmp("avg_pool2d", (x, 3, 2, 1), {"count_include_pad": False})
    _cmp("avg_pool1d", (x[0], 3))
    _cmp("adaptive_avg_pool2d", (x, (4, None)))
    _cmp("adaptive_avg_pool2d", (x, 3))
    _cmp("adaptive_avg_pool1d", (x[0], 5))
    _cmp("adaptive_max_pool2d", (x, (2, 3)), {"return_indices": True})
    _cmp("adaptive_max_pool1d", (x[0], 4))


INTERP = [({"scale_factor": 2}, 4), ({"size": 5}, 3), ({"size": (5, 7)}, 4),
          ({"scale_factor": (1.5, 2.0), "mode": "bilinear"}, 4),
          ({"scale_factor": 0.6, "mode": "bilinear", "align_corners": True}, 4),
          ({"size": (6, 9), "mode": "bicubic"}, 4), ({"scale_factor": 1.7, "mode": "linear"}, 3),
          ({"size": (3, 4, 5), "mode": "trilinear"}, 5), ({"size": (3, 5), "mode": "area"}, 4),
          ({"scale_factor": 0.5, "mode": "area"}, 4),
          ({"scale_factor": 1.3, "mode": "nearest-exact"}, 4),
          ({"scale_factor": 1.5, "mode": "bilinear", "recompute_scale_factor": True}, 4),
          ({"size": (3, 10), "mode": "bilinear", "antialias": True}, 4)]


@pytest.mark.parametrize("kw,ndim", INTERP, ids=[str(k) for k, _ in INTERP])
def test_interpolate(kw, ndim):
    _cmp("interpolate", (_x(*[2, 3, 6, 5, 4][:ndim]),), kw, atol=2e-6)


def test_interpolate_argument_errors():
    x = tsjit.zeros(1, 1, 4, 4)
    with pytest.raises(ValueError, match="only one of size or scale_factor"):
        JF.interpolate(x, size=2, scale_factor=2.0)
    with pytest.raises(ValueError, match="align_corners option can only be set"):
        JF.interpolate(x, scale_factor=2.0, align_corners=True)
    with pytest.raises(ValueError, match="either size or scale_factor"):
        JF.interpolate(x)
    with pytest.raises(NotImplementedError, match="Got 4D input, but linear mode"):
        JF.interpolate(x, scale_factor=2.0, mode="linear")


def test_losses():
    logits, target = _x(5, 4), np.array([0, 3, 1, 1, 2], np.int64)
    _cmp("cross_entropy", (logits, target))
    _cmp("cross_entropy", (logits, target), {"reduction": "none", "label_smoothing": 0.1})
    _cmp("cross_entropy", (logits, np.abs(_x(5, 4, seed=1))), {"reduction": "sum"})
    _cmp("nll_loss", (logits, target), {"ignore_index": 1})
    _cmp("mse_loss", (_x(3, 4), _x(3, 4, seed=2)))
    _cmp("l1_loss", (_x(3, 4), _x(1, 4, seed=2)), {"reduction": "sum"})
    _cmp("binary_cross_entropy_with_logits", (_x(3, 4), np.abs(_x(3, 4, seed=1)) % 1),
         {"pos_weight": np.full(4, 2.0, np.float32)})
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        JF.mse_loss(tsjit.zeros(2), tsjit.zeros(2), reduction="avg")


def test_attention_functionals():
    q, k, v = _x(2, 3, 5, 4), _x(2, 3, 6, 4, seed=1), _x(2, 3, 6, 4, seed=2)
    _cmp("scaled_dot_product_attention", (q, k, v))
    _cmp("scaled_dot_product_attention", (q, q, q), {"is_causal": True})
    E, H = 8, 2
    w_in, b_in, w_out, b_out = (_x(3 * E, E, seed=3), _x(3 * E, seed=4), _x(E, E, seed=5),
                                _x(E, seed=6))
    query = _x(5, 2, E, seed=7)
    _cmp("multi_head_attention_forward",
         (query, query, query, E, H, w_in, b_in, None, None, False, 0.0, w_out, b_out),
         {"training": False, "average_attn_weights": False}, atol=1e-5)


def test_mha_self_attention_packed_path():
    """q is k is v (one packed projection) and the batch_first transposes keep identity."""
    torch.manual_seed(0)
    for batch_first in (False, True):
        t = torch.nn.MultiheadAttention(8, 2, batch_first=batch_first)
        j = tsjit.nn.MultiheadAttention(8, 2, batch_first=batch_first)
        j.load_state_dict({k: tsjit.from_numpy(v.detach().numpy().copy())
                           for k, v in t.state_dict().items()})
        x = _x(3, 5, 8)
        xt, xj = torch.from_numpy(x), tsjit.from_numpy(x)
        want, got = t(xt, xt, xt), j(xj, xj, xj)
        np.testing.assert_allclose(got[0].numpy(), want[0].detach().numpy(), rtol=1e-5,
                                   atol=1e-5)
        np.testing.assert_allclose(got[1].numpy(), want[1].detach().numpy(), rtol=1e-5,
                                   atol=1e-6)
        y = _x(3, 5, 8, seed=3)
        yt, yj = torch.from_numpy(y), tsjit.from_numpy(y)       # key is value, query differs
        np.testing.assert_allclose(j(xj, yj, yj)[0].numpy(), t(xt, yt, yt)[0].detach().numpy(),
                                   rtol=1e-5, atol=1e-5)
