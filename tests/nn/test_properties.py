"""Randomised layer configurations (hypothesis) against torch.nn."""
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tsjit
import tsjit.nn as jnn
from tests.helpers.nn_util import copy_state, needs_torch, tnn, torch

pytestmark = needs_torch
SETTINGS = settings(max_examples=20, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _check(build, x, rtol=1e-4, atol=1e-5):
    torch.manual_seed(0)
    t, j = build(tnn).eval(), build(jnn).eval()
    copy_state(t, j)
    want = t(torch.from_numpy(x.copy()))
    got = j(tsjit.from_numpy(x.copy()))
    if isinstance(want, tuple):
        want, got = want[0], got[0]
    np.testing.assert_allclose(got.numpy(), want.detach().numpy(), rtol=rtol, atol=atol)


@st.composite
def conv_configs(draw):
    groups = draw(st.sampled_from([1, 2]))
    cin, cout = groups * draw(st.integers(1, 3)), groups * draw(st.integers(1, 3))
    k = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    mode = draw(st.sampled_from(["zeros", "reflect", "replicate", "circular"]))
    if draw(st.booleans()):
        padding, stride = draw(st.sampled_from(["same", "valid"])), (1, 1)
    else:
        padding = (draw(st.integers(0, 2)), draw(st.integers(0, 2)))
        stride = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    h = draw(st.integers(max(k[0] * dilation[0], 3), 9))
    w = draw(st.integers(max(k[1] * dilation[1], 3), 9))
    return dict(in_channels=cin, out_channels=cout, kernel_size=k, stride=stride,
                padding=padding, dilation=dilation, groups=groups, padding_mode=mode,
                bias=draw(st.booleans())), (2, cin, h, w)


@SETTINGS
@given(conv_configs(), st.integers(0, 2 ** 31))
def test_conv2d_configurations(cfg, seed):
    kw, shape = cfg
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    _check(lambda nn: nn.Conv2d(**kw), x)


@SETTINGS
@given(st.integers(1, 3), st.integers(1, 3), st.integers(0, 1), st.booleans(), st.booleans(),
       st.integers(4, 9), st.integers(0, 2 ** 31))
def test_pool2d_configurations(k, s, p, ceil, count_pad, size, seed):
    p = min(p, k // 2)
    x = np.random.default_rng(seed).standard_normal((2, 3, size, size + 1)).astype(np.float32)
    _check(lambda nn: nn.MaxPool2d(k, s, p, ceil_mode=ceil), x)
    _check(lambda nn: nn.AvgPool2d(k, s, p, ceil_mode=ceil, count_include_pad=count_pad), x)


@SETTINGS
@given(st.sampled_from(["nearest", "bilinear", "bicubic", "nearest-exact", "area"]),
       st.booleans(), st.integers(2, 6), st.integers(2, 6), st.integers(2, 9), st.integers(2, 9),
       st.integers(0, 2 ** 31))
def test_upsample_sizes(mode, align, h, w, oh, ow, seed):
    align = align if mode in ("bilinear", "bicubic") else None
    x = np.random.default_rng(seed).standard_normal((1, 2, h, w)).astype(np.float32)
    _check(lambda nn: nn.Upsample(size=(oh, ow), mode=mode, align_corners=align), x)


@SETTINGS
@given(st.sampled_from(["LSTM", "GRU", "RNN"]), st.integers(1, 2), st.booleans(), st.booleans(),
       st.booleans(), st.integers(1, 6), st.integers(0, 2 ** 31))
def test_recurrent_configurations(kind, layers, bidirectional, batch_first, bias, steps, seed):
    x = np.random.default_rng(seed).standard_normal(
        (2, steps, 3) if batch_first else (steps, 2, 3)).astype(np.float32)
    _check(lambda nn: getattr(nn, kind)(3, 4, layers, bias=bias, batch_first=batch_first,
                                        bidirectional=bidirectional), x)
