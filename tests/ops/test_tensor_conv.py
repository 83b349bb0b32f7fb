"""Convolution windows (im2col without a padded copy, bias inside the matrix product) and
separable max pooling against PyTorch: per-dimension kernel, stride, padding larger than
the kernel, dilation, asymmetric 'same' padding, groups, strided inputs, NaN and integers."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st

from tests.helpers import tensor_oracle as O

from tsjit.ops.kernels.tensor_conv import (conv_band, conv_depthwise, conv_flat,  # noqa: E402
                                           conv_im2col, conv_pointwise, im2col)
from tsjit._tensor import from_numpy  # noqa: E402

pytestmark = O.requires_torch
SET = O.SETTINGS
TOL = dict(rtol=1e-4, atol=1e-4)


def per_dim(nd: int, lo: int, hi: int) -> st.SearchStrategy:
    """One int per spatial dimension, each drawn on its own."""
    return st.lists(st.integers(lo, hi), min_size=nd, max_size=nd)


@st.composite
def conv_case(draw: st.DrawFn, nd: int) -> dict:
    groups = draw(st.integers(1, 3))
    cin, cout = groups * draw(st.integers(1, 2)), groups * draw(st.integers(1, 2))
    k = draw(per_dim(nd, 1, 4))
    size = draw(per_dim(nd, 1, 7))
    batch = [draw(st.integers(1, 2))] if draw(st.booleans()) else []
    dt = draw(st.sampled_from([np.float32, np.float64]))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    bias = None
    if draw(st.booleans()):
        bias = rng.standard_normal(cout).astype(dt)
        if draw(st.booleans()):     # non-finite biases pass through the product unchanged
            bias[0] = draw(st.sampled_from([math.nan, math.inf, -math.inf]))
    return dict(x=rng.standard_normal(batch + [cin] + size).astype(dt),
                w=rng.standard_normal([cout, cin // groups] + k).astype(dt), b=bias,
                stride=draw(per_dim(nd, 1, 3)), padding=draw(per_dim(nd, 0, 4)),
                dilation=draw(per_dim(nd, 1, 2)), groups=groups)


@SET
@given(data=st.data())
def test_conv_windows(data: st.DataObject) -> None:
    nd = data.draw(st.integers(1, 3), label="spatial dimensions")
    c, name = data.draw(conv_case(nd)), f"aten::conv{nd}d"
    args = (c["x"], c["w"], c["b"])
    mine = O.diff(name, *args, c["stride"], c["padding"], c["dilation"], c["groups"], **TOL)
    if not isinstance(mine, BaseException):
        assert mine.numpy().flags.c_contiguous
    # even kernels make 'same' pad one more element after than before
    O.diff(name + ".padding", *args, [1] * nd, "same", c["dilation"], c["groups"], **TOL)


@pytest.mark.parametrize("size,k,pad,stride,dilation,groups", [
    (2, 7, 3, 1, 1, 4),     # depthwise 7x7 over 2x2: the 3x3 middle of the kernel reads it
    (2, 5, 2, 1, 1, 4),     # the first and last positions read only padding
    (3, 5, 6, 1, 3, 1),     # dilated: the dropped positions shift the input instead
    (2, 4, 5, 2, 2, 2),
    (1, 1, 1, 2, 1, 2),     # every window steps over the input: zeros and the bias
])
@pytest.mark.parametrize("bias", [False, True])
def test_conv_drops_positions_reading_only_padding(size: int, k: int, pad: int, stride: int,
                                                   dilation: int, groups: int,
                                                   bias: bool) -> None:
    from tsjit.ops.kernels.tensor_conv import _drop_padding_positions
    rng = np.random.default_rng(size * k + pad)
    x = rng.standard_normal((1, 4, size, size + 1)).astype(np.float32)
    w = rng.standard_normal((4, 4 // groups, k, k)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32) if bias else None
    outs = tuple((s + 2 * pad - dilation * (k - 1) - 1) // stride + 1 for s in x.shape[2:])
    _, cut, _ = _drop_padding_positions(x.shape, w.shape, [stride] * 2, [(pad, pad)] * 2,
                                        [dilation] * 2, outs)
    assert k == 1 or w[cut].shape[2] < k      # the case drops something
    O.diff("aten::conv2d", x, w, b, [stride] * 2, [pad] * 2, [dilation] * 2, groups, **TOL)


@SET
@given(data=st.data())
def test_conv_strided_and_half_inputs(data: st.DataObject) -> None:
    c = data.draw(conv_case(2))
    x = c["x"] if c["x"].ndim == 4 else c["x"][None]
    # a transposed, step-2 view of a bigger array: windows are read through its strides
    big = np.repeat(x.swapaxes(2, 3), 2, axis=3)
    view = big[:, :, :, ::2].swapaxes(2, 3)
    assert np.array_equal(view, x)
    b = None if c["b"] is None else np.nan_to_num(c["b"])
    kernel = O.kernel("aten::conv2d")
    for dt in (x.dtype, np.float16):
        xs, w = view.astype(dt) if dt != x.dtype else view, c["w"].astype(dt)
        bs = None if b is None else b.astype(dt)
        params = (c["stride"], c["padding"], c["dilation"], c["groups"])
        try:
            mine = kernel(from_numpy(xs), from_numpy(w),
                          None if bs is None else from_numpy(bs), *params)
        except RuntimeError as e:
            mine = e
        try:
            theirs = O.torch.nn.functional.conv2d(
                O.torch.from_numpy(np.ascontiguousarray(xs)), O.torch.from_numpy(w),
                None if bs is None else O.torch.from_numpy(bs), *params)
        except RuntimeError as e:
            theirs = e
        tol = dict(rtol=1e-2, atol=1e-2) if dt == np.float16 else TOL
        O.compare(mine, theirs, **tol)


@st.composite
def depthwise_case(draw: st.DrawFn, nd: int) -> dict:
    """groups == input channels (an output-channel multiplier of 1-2) or a few channels per
    group, with kernels up to 7 wide so that both convolution paths are taken."""
    groups = draw(st.integers(1, 6))
    cg, og = draw(st.sampled_from([1, 1, 2])), draw(st.integers(1, 2))
    k = draw(per_dim(nd, 1, 7))
    dilation = draw(per_dim(nd, 1, 3))
    size = [draw(st.integers(d * (kk - 1) + 1, d * (kk - 1) + 9)) for d, kk in zip(dilation, k)]
    dt = draw(st.sampled_from([np.float32, np.float64]))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    bias = rng.standard_normal(groups * og).astype(dt) if draw(st.booleans()) else None
    return dict(x=rng.standard_normal([draw(st.integers(1, 2)), groups * cg] + size).astype(dt),
                w=rng.standard_normal([groups * og, cg] + k).astype(dt), b=bias,
                stride=draw(per_dim(nd, 1, 3)), padding=draw(per_dim(nd, 0, 3)),
                dilation=dilation, groups=groups)


@SET
@given(data=st.data())
def test_depthwise_and_grouped_against_torch(data: st.DataObject) -> None:
    nd = data.draw(st.integers(1, 3), label="spatial dimensions")
    c, name = data.draw(depthwise_case(nd)), f"aten::conv{nd}d"
    params = (c["stride"], c["padding"], c["dilation"], c["groups"])
    mine = O.diff(name, c["x"], c["w"], c["b"], *params, **TOL)
    assert not isinstance(mine, BaseException)
    assert mine.numpy().flags.c_contiguous


@SET
@given(data=st.data())
def test_depthwise_path_matches_im2col_path(data: st.DataObject) -> None:
    # the depthwise einsum and the band product are second paths: they must agree with
    # the general one
    nd = data.draw(st.integers(1, 3), label="spatial dimensions")
    c = data.draw(depthwise_case(nd))
    x, w = c["x"], c["w"][:, :1]
    x = x[:, :c["groups"]]
    if data.draw(st.booleans(), label="channels-last input"):
        x = np.moveaxis(np.ascontiguousarray(np.moveaxis(x, 1, -1)), -1, 1)
    pads = [(p, p + data.draw(st.integers(0, 1))) for p in c["padding"]]
    padded = [s + lo + hi for s, (lo, hi) in zip(x.shape[2:], pads)]
    outs = tuple((p - d * (kk - 1) - 1) // s + 1 for p, d, kk, s in
                 zip(padded, c["dilation"], w.shape[2:], c["stride"]))
    for dt in (x.dtype, np.float16):
        xs, ws = x.astype(dt), w.astype(dt)
        bs = None if c["b"] is None else c["b"].astype(dt)
        args = (xs, ws, bs, c["stride"], pads, c["dilation"])
        want = conv_im2col(*args, c["groups"], outs)
        for path in (conv_depthwise, conv_band):
            got = path(*args, outs)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@SET
@given(data=st.data())
def test_flat_path_matches_im2col_path(data: st.DataObject) -> None:
    # the flattened-input product (stride 1, one group) is a second path: it must agree
    # with the general one, on strided inputs, asymmetric padding and half precision too
    nd = data.draw(st.integers(1, 3), label="spatial dimensions")
    c = data.draw(conv_case(nd))
    x = c["x"] if c["x"].ndim == nd + 2 else c["x"][None]
    w = c["w"][:, :1].repeat(x.shape[1], axis=1)
    if data.draw(st.booleans(), label="reversed input"):
        x = x[..., ::-1]
    pads = [(p, p + data.draw(st.integers(0, 1))) for p in c["padding"]]
    padded = [s + lo + hi for s, (lo, hi) in zip(x.shape[2:], pads)]
    eff = [d * (kk - 1) + 1 for d, kk in zip(c["dilation"], w.shape[2:])]
    assume(all(e <= p for e, p in zip(eff, padded)))
    outs = tuple(p - e + 1 for p, e in zip(padded, eff))
    for dt in (x.dtype, np.float16):
        xs, ws = x.astype(dt), w.astype(dt)
        bs = None if c["b"] is None else c["b"].astype(dt)
        with np.errstate(all="ignore"):     # (non-finite biases)
            want = conv_im2col(xs, ws, bs, [1] * nd, pads, c["dilation"], 1, outs)
            got = conv_flat(xs, ws, bs, pads, c["dilation"], outs)
        assert got.dtype == want.dtype and got.shape == want.shape and got.flags.c_contiguous
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("x_shape,w_shape,padding,dilation", [
    ((2, 128, 5, 6), (4, 128, 3, 3), [1, 2], [1, 1]),     # densenet's shape, smaller
    ((1, 8, 2, 3), (2, 8, 7, 7), [3, 3], [1, 1]),         # positions reading only padding
    ((1, 8, 6, 5), (2, 8, 3, 3), [3, 1], [2, 1]),         # dilated, uneven padding
])
def test_flat_path_in_the_plan(x_shape: tuple, w_shape: tuple, padding: list,
                               dilation: list) -> None:
    # convolutions with few outputs against their columns take the flat path (the plan's
    # choice, after any kernel positions reading only padding are dropped) and match PyTorch
    rng = np.random.default_rng(7)
    x = rng.standard_normal(x_shape).astype(np.float32)
    w = rng.standard_normal(w_shape).astype(np.float32)
    O.diff("aten::conv2d", x, w, rng.standard_normal(w_shape[0]).astype(np.float32), [1, 1],
           padding, dilation, 1, **TOL)


@pytest.mark.parametrize("groups,n,bias", [(1, 1, False), (1, 2, True), (3, 1, True),
                                           (3, 2, False), (6, 1, True), (1, 0, True),
                                           (3, 0, False)])
@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("layout", ["contiguous", "reversed"])
def test_pointwise_path_matches_im2col_path(groups: int, n: int, bias: bool, dt: type,
                                            layout: str) -> None:
    # 1x1 without stride or padding: the input as its own columns, against im2col's copy
    rng = np.random.default_rng(groups * 10 + n)
    x = rng.standard_normal((n, 6, 5, 7)).astype(dt)
    if layout == "reversed":
        x = x[..., ::-1]
    w = rng.standard_normal((12, 6 // groups, 1, 1)).astype(dt)
    b = rng.standard_normal(12).astype(dt) if bias else None
    want = conv_im2col(x, w, b, [1, 1], [(0, 0)] * 2, [1, 1], groups, (5, 7))
    got = conv_pointwise(x, w, b, groups)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("where", ["input", "weight"])
def test_depthwise_non_finite_stays_in_its_windows(bad: float, where: str) -> None:
    # the band product reads whole spans: non-finite values must not reach the outputs
    # whose windows do not hold them (PyTorch's results there stay finite)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 3, 9, 40)).astype(np.float32)
    w = rng.standard_normal((3, 1, 5, 5)).astype(np.float32)     # 5 wide: the band's
    if where == "input":
        x[0, 1, 4, 20] = bad
    else:       # the centre: it reads no padding, so every path agrees on every output
        w[1, 0, 2, 2] = bad
    for dt in (np.float32, np.float16):
        O.diff("aten::conv2d", x.astype(dt), w.astype(dt), None, [1, 1], [2, 2], [1, 1], 3,
               **TOL)


def test_im2col_zero_padding_wider_than_input() -> None:
    x = np.arange(1, 7, dtype=np.float32).reshape(1, 2, 3)
    cols = np.full((1, 2, 3, 3, 2), np.nan, np.float32)
    im2col(x, cols, (2, 3), [2, 2], [(3, 1), (2, 3)], [1, 2])
    # cols[..., k, o] = x[o * stride + k * dilation - pad_before], 0 outside x
    want = np.zeros_like(cols)
    for k0, k1, o0, o1 in np.ndindex(2, 3, 3, 2):
        i, j = o0 * 2 + k0 - 3, o1 * 2 + k1 * 2 - 2
        if 0 <= i < 2 and 0 <= j < 3:
            want[0, k0, k1, o0, o1] = x[0, i, j]
    np.testing.assert_array_equal(cols, want)


@st.composite
def pool_case(draw: st.DrawFn, nd: int) -> dict:
    k = draw(per_dim(nd, 1, 3))
    dt = draw(st.sampled_from([np.float32, np.float64, np.int32, np.int64, np.uint8]))
    size = draw(per_dim(nd, 1, 7))
    x = draw(O.arrays([dt], [2, 3] + size, big=False))
    return dict(x=x, k=k, stride=draw(st.one_of(st.just([]), per_dim(nd, 1, 3))),
                padding=[draw(st.integers(0, ki // 2)) for ki in k],
                dilation=draw(per_dim(nd, 1, 2)), ceil=draw(st.booleans()))


@pytest.mark.parametrize("nd", [1, 2, 3])
@SET
@given(data=st.data())
def test_max_pool_separable(nd: int, data: st.DataObject) -> None:
    c = data.draw(pool_case(nd))
    mine = O.diff(f"aten::max_pool{nd}d", c["x"], c["k"], c["stride"], c["padding"],
                  c["dilation"], c["ceil"])
    if not isinstance(mine, BaseException):
        assert mine.numpy().flags.c_contiguous


def test_max_pool_nan_and_fresh_result() -> None:
    x = np.array([[[[1.0, np.nan, 2.0, 3.0], [-np.inf, 0.0, 5.0, np.nan]]]], np.float32)
    y = O.diff("aten::max_pool2d", x, [2, 2], [2, 2], [0, 0], [1, 1], False)
    assert np.isnan(y.numpy()).all()
    # a 1x1 window selects input elements; the result is still a tensor of its own
    src = from_numpy(x.copy())
    r = O.kernel("aten::max_pool2d")(src, [1, 1], [1, 1], [0, 0], [1, 1], False)
    assert not np.shares_memory(r.numpy(), src.numpy())


def test_conv_plans_are_kept_per_shape_and_parameters() -> None:
    # a plan is made once per shapes, dtypes and parameters, and reused: each call still
    # computes on its own arrays, and a failing check is raised each time (never kept)
    from tsjit.ops.kernels import tensor_conv
    rng = np.random.default_rng(5)
    w = rng.standard_normal((6, 3, 3, 3)).astype(np.float32)
    tensor_conv._PLANS.clear()
    for shape, padding in [((1, 3, 8, 8), [1, 1]), ((1, 3, 8, 8), [1, 1]),
                           ((2, 3, 5, 9), [1, 1]), ((1, 3, 8, 8), [0, 2]), ((3, 4, 4), [1, 1])]:
        x = rng.standard_normal(shape).astype(np.float32)
        O.diff("aten::conv2d", x, w, None, [1, 1], padding, [1, 1], 1, **TOL)
    assert len(tensor_conv._PLANS) == 4
    bad = from_numpy(rng.standard_normal((1, 4, 8, 8)).astype(np.float32))
    for _ in range(2):
        with pytest.raises(RuntimeError, match="expected input"):
            tensor_conv.conv2d(bad, from_numpy(w), None, [1, 1], [1, 1], [1, 1], 1)
    assert len(tensor_conv._PLANS) == 4
