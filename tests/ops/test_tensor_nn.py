"""Neural-network kernels against PyTorch: convolutions, pooling, padding, resampling,
normalisation, embedding, dropout, losses, recurrent layers and attention."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st

from tests.helpers import tensor_oracle as O

pytestmark = O.requires_torch
SET = O.SETTINGS
TOL = dict(rtol=1e-4, atol=1e-5)
rng = np.random.default_rng(0)


def randn(*shape: int, dtype: type = np.float32) -> np.ndarray:
    return rng.standard_normal(shape).astype(dtype)


@st.composite
def conv_case(draw: st.DrawFn, nd: int) -> dict:
    groups = draw(st.sampled_from([1, 2]))
    cin = groups * draw(st.integers(1, 2))
    cout = groups * draw(st.integers(1, 2))
    k = [draw(st.integers(1, 3)) for _ in range(nd)]
    size = [draw(st.integers(1, 6)) for _ in range(nd)]
    return dict(x=randn(*([draw(st.integers(1, 2))] if draw(st.booleans()) else []), cin, *size),
                w=randn(cout, cin // groups, *k), b=randn(cout) if draw(st.booleans()) else None,
                stride=[draw(st.integers(1, 2))] * nd, padding=[draw(st.integers(0, 1))] * nd,
                dilation=[draw(st.integers(1, 2))] * nd, groups=groups)


@pytest.mark.parametrize("nd", [1, 2, 3])
@SET
@given(data=st.data())
def test_conv(nd: int, data: st.DataObject) -> None:
    c = data.draw(conv_case(nd))
    name = f"aten::conv{nd}d"
    O.diff(name, c["x"], c["w"], c["b"], c["stride"], c["padding"], c["dilation"], c["groups"],
           **TOL)
    O.diff(name + ".padding", c["x"], c["w"], c["b"], [1] * nd, "same", c["dilation"],
           c["groups"], **TOL)
    O.diff(name + ".padding", c["x"], c["w"], c["b"], c["stride"], "valid", c["dilation"],
           c["groups"], **TOL)


@pytest.mark.parametrize("nd", [1, 2])
@SET
@given(data=st.data())
def test_conv_transpose(nd: int, data: st.DataObject) -> None:
    c = data.draw(conv_case(nd))
    cin = c["x"].shape[-nd - 1]
    w = randn(cin, c["w"].shape[0] // c["groups"], *c["w"].shape[2:])
    b = None if c["b"] is None else randn(w.shape[1] * c["groups"])
    outpad = [data.draw(st.integers(0, 1))] * nd
    k, size = c["w"].shape[-1], c["x"].shape[-1]
    out = (size - 1) * c["stride"][0] - 2 * c["padding"][0] + c["dilation"][0] * (k - 1) + \
        outpad[0] + 1
    # PyTorch's backends disagree among themselves about empty outputs; skip those
    assume(out > 0)
    name = "aten::conv_transpose1d" if nd == 1 else "aten::conv_transpose2d.input"
    O.diff(name, c["x"], w, b, c["stride"], c["padding"], outpad, c["groups"], c["dilation"],
           **TOL)
    O.diff("aten::convolution", c["x"], w, b, c["stride"], c["padding"], c["dilation"], True,
           outpad, c["groups"], **TOL)


@pytest.mark.parametrize("nd", [1, 2, 3])
@SET
@given(k=st.integers(1, 3), s=st.integers(0, 2), p=st.integers(0, 1), d=st.integers(1, 2),
       ceil=st.booleans(), cip=st.booleans(), size=st.integers(1, 6))
def test_pooling(nd: int, k: int, s: int, p: int, d: int, ceil: bool, cip: bool,
                 size: int) -> None:
    x = randn(2, 3, *([size] * nd))
    stride = [] if s == 0 else [s] * nd
    O.diff(f"aten::max_pool{nd}d", x, [k] * nd, stride, [p] * nd, [d] * nd, ceil)
    O.diff(f"aten::max_pool{nd}d_with_indices", x, [k] * nd, stride, [p] * nd, [d] * nd, ceil)
    extra = (None,) if nd > 1 else ()
    O.diff(f"aten::avg_pool{nd}d", x, [k] * nd, stride, [p] * nd, ceil, cip, *extra, **TOL)


@pytest.mark.parametrize("nd", [1, 2, 3])
@SET
@given(size=st.integers(1, 7), out=st.integers(1, 5))
def test_adaptive_pooling(nd: int, size: int, out: int) -> None:
    x = randn(2, *([size] * nd))
    O.diff(f"aten::adaptive_avg_pool{nd}d", x, [out] * nd, **TOL)
    O.diff(f"aten::adaptive_max_pool{nd}d", x, [out] * nd)


@SET
@given(pad=st.lists(st.integers(-1, 2), min_size=2, max_size=4).filter(lambda p: len(p) % 2 == 0),
       mode=st.sampled_from(["constant", "reflect", "replicate", "circular"]),
       value=st.one_of(st.none(), st.floats(-2, 2)))
def test_pad(pad: list, mode: str, value: object) -> None:
    x = randn(1, 2, 3, 4)
    if mode == "circular":
        pad = [abs(p) for p in pad]      # negative circular padding is not specified
    O.diff("aten::pad", x, pad, mode, value if mode == "constant" else None)
    O.diff("aten::constant_pad_nd", x, pad, 1.5)


@pytest.mark.parametrize("name,nd,ac", [
    ("upsample_nearest1d", 1, None), ("upsample_nearest2d", 2, None),
    ("upsample_nearest3d", 3, None), ("_upsample_nearest_exact2d", 2, None),
    ("upsample_linear1d", 1, True), ("upsample_bilinear2d", 2, True),
    ("upsample_trilinear3d", 3, True), ("upsample_bicubic2d", 2, True),
    ("_upsample_bilinear2d_aa", 2, True), ("_upsample_bicubic2d_aa", 2, True),
    ("_upsample_lanczos2d_aa", 2, False)])
@SET
@given(size=st.integers(1, 5), out=st.integers(1, 9), scale=st.floats(0.3, 3.0),
       align=st.booleans())
def test_upsample(name: str, nd: int, ac: object, size: int, out: int, scale: float,
                  align: bool) -> None:
    x = randn(1, 2, *([size] * nd))
    flags = [] if ac is None else [align]
    O.diff(f"aten::{name}.vec", x, [out] * nd, *flags, None, **TOL)
    O.diff(f"aten::{name}.vec", x, None, *flags, [scale] * nd, **TOL)


@SET
@given(shape=st.sampled_from([(2, 3), (2, 3, 4), (1, 2, 3, 4)]), affine=st.booleans(),
       k=st.integers(1, 2))
def test_layer_group_rms_norm(shape: tuple, affine: bool, k: int) -> None:
    x = randn(*shape)
    ns = list(shape[-k:])
    w, b = (randn(*ns), randn(*ns)) if affine else (None, None)
    O.diff("aten::layer_norm", x, ns, w, b, 1e-5, True, **TOL)
    O.diff("aten::native_layer_norm", x, ns, w, b, 1e-5, **TOL)
    O.diff("aten::rms_norm", x, ns, w, None, **TOL)
    c = shape[1]
    O.diff("aten::group_norm", x, 1, randn(c) if affine else None,
           randn(c) if affine else None, 1e-5, True, **TOL)


@SET
@given(shape=st.sampled_from([(4, 3), (2, 3, 5), (2, 3, 2, 2)]), training=st.booleans(),
       affine=st.booleans(), momentum=st.floats(0, 1))
def test_batch_instance_norm(shape: tuple, training: bool, affine: bool,
                             momentum: float) -> None:
    import torch
    from tsjit._tensor import from_numpy
    x = randn(*shape)
    c = shape[1]
    w, b = (randn(c), randn(c)) if affine else (None, None)
    rm, rv = randn(c), np.abs(randn(c)) + 0.5
    mine_rm, mine_rv = from_numpy(rm.copy()), from_numpy(rv.copy())
    their_rm, their_rv = torch.from_numpy(rm.copy()), torch.from_numpy(rv.copy())
    mine = O.kernel("aten::batch_norm")(from_numpy(x), None if w is None else from_numpy(w),
                                        None if b is None else from_numpy(b), mine_rm, mine_rv,
                                        training, momentum, 1e-5, False)
    theirs = torch.batch_norm(torch.from_numpy(x), None if w is None else torch.from_numpy(w),
                              None if b is None else torch.from_numpy(b), their_rm, their_rv,
                              training, momentum, 1e-5, False)
    O.compare(mine, theirs, **TOL)
    O.compare(mine_rm, their_rm, **TOL)        # running statistics are updated in place
    O.compare(mine_rv, their_rv, **TOL)
    if len(shape) > 2:
        O.diff("aten::instance_norm", x, w, b, None, None, True, momentum, 1e-5, False, **TOL)


@SET
@given(n=st.integers(1, 2), groups=st.sampled_from([1, 2, 4]), per_group=st.integers(1, 3),
       spatial=st.sampled_from([(5,), (3, 7), (16, 16), (2, 3, 4)]), affine=st.booleans(),
       offset=st.sampled_from([0.0, 100.0]), dtype=st.sampled_from([np.float32, np.float64]))
def test_group_instance_norm_rows(n: int, groups: int, per_group: int, spatial: tuple,
                                  affine: bool, offset: float, dtype: type) -> None:
    """Group and instance norm over long rows with a large mean (the statistics' precision),
    and instance norm's running statistics, against PyTorch."""
    import torch
    from tsjit._tensor import from_numpy
    c = groups * per_group
    x = randn(n, c, *spatial, dtype=dtype) + dtype(offset)
    w, b = (randn(c, dtype=dtype), randn(c, dtype=dtype)) if affine else (None, None)
    O.diff("aten::group_norm", x, groups, w, b, 1e-5, True, **TOL)
    rm, rv = randn(c, dtype=dtype), np.abs(randn(c, dtype=dtype)) + 0.5
    mine_rm, mine_rv = from_numpy(rm.copy()), from_numpy(rv.copy())
    their_rm, their_rv = torch.from_numpy(rm.copy()), torch.from_numpy(rv.copy())
    opt = (lambda v, f: None if v is None else f(v))
    mine = O.kernel("aten::instance_norm")(from_numpy(x), opt(w, from_numpy), opt(b, from_numpy),
                                           mine_rm, mine_rv, True, 0.1, 1e-5, False)
    theirs = torch.instance_norm(torch.from_numpy(x), opt(w, torch.from_numpy),
                                 opt(b, torch.from_numpy), their_rm, their_rv, True, 0.1, 1e-5,
                                 False)
    O.compare(mine, theirs, **TOL)
    O.compare(mine_rm, their_rm, **TOL)
    O.compare(mine_rv, their_rv, **TOL)


@SET
@given(idx=O.arrays([np.int64], max_side=3).map(lambda a: np.abs(a) % 5),
       pad=st.sampled_from([-1, 0, 2]))
def test_embedding_one_hot(idx: np.ndarray, pad: int) -> None:
    w = randn(5, 3)
    O.diff("aten::embedding", w, idx, pad, False, False)
    O.diff("aten::one_hot", idx, -1 if idx.size else 5)
    O.diff("aten::one_hot", idx, 6)


def test_embedding_errors() -> None:
    w = randn(5, 3)
    O.diff("aten::embedding", w, np.array([5]), -1, False, False)
    O.diff("aten::embedding", w, np.array([1.0]), -1, False, False)


def test_embedding_bag() -> None:
    w = randn(6, 3)
    for mode in (0, 1, 2):
        mine, theirs = O.run_both("aten::embedding_bag", w, np.array([0, 2, 4, 5, 1]),
                                  np.array([0, 2, 2]), False, mode, False, None, False)
        O.compare(mine[0], theirs[0], **TOL)


def test_dropout_eval_and_train() -> None:
    x = randn(3, 4)
    for q in ("aten::dropout", "aten::feature_dropout", "aten::alpha_dropout"):
        O.diff(q, x, 0.5, False)
    from tsjit._tensor import from_numpy
    t = from_numpy(x)
    assert O.kernel("aten::dropout")(t, 0.5, False) is t
    y = O.kernel("aten::dropout")(t, 0.5, True).numpy()
    kept = y != 0
    assert np.allclose(y[kept], 2 * x[kept])
    assert np.all(O.kernel("aten::dropout")(t, 1.0, True).numpy() == 0)
    O.diff("aten::dropout", x, 1.5, True)


@SET
@given(pair=O.broadcast_pair(O.FLOATS, special=False), dim=st.integers(-1, 0))
def test_similarity_distances(pair: tuple, dim: int) -> None:
    a, b = pair
    b = b.astype(a.dtype)
    O.diff("aten::cosine_similarity", a, b, dim, 1e-8, **TOL)
    O.diff("aten::pairwise_distance", a, b, 2.0, 1e-6, False, **TOL)
    O.diff("aten::pairwise_distance", a, b, 1.0, 1e-6, True, **TOL)


def test_pdist() -> None:
    O.diff("aten::pdist", randn(4, 3), 2.0, **TOL)


@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_losses(reduction: int) -> None:
    x, y = randn(4, 3), randn(4, 3)
    p = 1 / (1 + np.exp(-x))
    t = (y > 0).astype(np.float32)
    for q, args in (("mse_loss", (x, y, reduction)), ("l1_loss", (x, y, reduction)),
                    ("smooth_l1_loss", (x, y, reduction, 0.5)),
                    ("huber_loss", (x, y, reduction, 0.7)),
                    ("binary_cross_entropy", (p, t, None, reduction)),
                    ("binary_cross_entropy_with_logits", (x, t, randn(3), np.abs(randn(3)),
                                                          reduction)),
                    ("kl_div", (x, np.abs(y), reduction, False)),
                    ("kl_div", (x, y, reduction, True)),
                    ("soft_margin_loss", (x, np.sign(y), reduction)),
                    ("margin_ranking_loss", (x, y, np.sign(y), 0.1, reduction))):
        O.diff(f"aten::{q}", *args, **TOL)
    logp = np.log(p / p.sum(1, keepdims=True))
    tgt = np.array([0, 2, 1, -100])
    w = np.abs(randn(3))
    O.diff("aten::nll_loss", logp, tgt, None, reduction, -100, **TOL)
    O.diff("aten::nll_loss", logp, tgt, w, reduction, -100, **TOL)
    O.diff("aten::nll_loss_nd", randn(2, 3, 4), np.array([[0, 1, 2, 1], [2, 2, 0, 0]]), w,
           reduction, 1, **TOL)
    for ls in (0.0, 0.2):
        O.diff("aten::cross_entropy_loss", x, tgt, None, reduction, -100, ls, **TOL)
        O.diff("aten::cross_entropy_loss", x, tgt, w, reduction, -100, ls, **TOL)
        O.diff("aten::cross_entropy_loss", x, p, w, reduction, -100, ls, **TOL)
        O.diff("aten::cross_entropy_loss", randn(2, 3, 4),
               np.array([[0, 1, 2, 1], [2, 2, 0, 0]]), None, reduction, 2, ls, **TOL)


def _rnn_params(kind: str, inp: int, hid: int, layers: int, bidir: bool, bias: bool,
                proj: int = 0) -> list:
    gates = {"lstm": 4, "gru": 3}.get(kind, 1)
    out = []
    for layer in range(layers):
        for _ in range(2 if bidir else 1):
            isz = inp if layer == 0 else (proj or hid) * (2 if bidir else 1)
            out += [randn(gates * hid, isz) * 0.5, randn(gates * hid, proj or hid) * 0.5]
            if bias:
                out += [randn(gates * hid) * 0.1, randn(gates * hid) * 0.1]
            if proj:
                out.append(randn(proj, hid) * 0.5)
    return out


@pytest.mark.parametrize("kind", ["lstm", "gru", "rnn_tanh", "rnn_relu"])
@pytest.mark.parametrize("layers,bidir,bias,batch_first",
                         [(1, False, True, False), (2, True, True, True),
                          (1, False, False, True)])
def test_rnn(kind: str, layers: int, bidir: bool, bias: bool, batch_first: bool) -> None:
    inp, hid, seq, batch = 3, 4, 5, 2
    x = randn(batch, seq, inp) if batch_first else randn(seq, batch, inp)
    h0 = randn(layers * (2 if bidir else 1), batch, hid)
    params = _rnn_params(kind, inp, hid, layers, bidir, bias)
    if kind == "lstm":
        O.diff("aten::lstm.input", x, [h0, randn(*h0.shape)], params, bias, layers, 0.0, False,
               bidir, batch_first, **TOL)
    else:
        O.diff(f"aten::{kind}.input", x, h0, params, bias, layers, 0.0, False, bidir,
               batch_first, **TOL)


@pytest.mark.parametrize("kind", ["lstm", "gru", "rnn_tanh", "rnn_relu"])
@pytest.mark.parametrize("layers,bidir,bias,proj", [(1, False, True, 0), (2, True, True, 0),
                                                    (1, True, False, 0), (2, False, True, 2)])
@O.SETTINGS
@given(lengths=st.lists(st.integers(1, 5), min_size=1, max_size=4),
       dt=st.sampled_from([np.float32, np.float64]))
def test_rnn_packed(kind: str, layers: int, bidir: bool, bias: bool, proj: int,
                    lengths: list, dt: type) -> None:
    """The `.data` overloads on a packed sequence (sequences sorted by length)."""
    if proj and kind != "lstm":
        return
    lengths = sorted(lengths, reverse=True)
    sizes = np.array([sum(n > t for n in lengths) for t in range(lengths[0])], np.int64)
    inp, hid = 3, 4
    data = randn(int(sizes.sum()), inp, dtype=dt)
    dirs = 2 if bidir else 1
    h0 = randn(layers * dirs, len(lengths), proj or hid, dtype=dt)
    params = [p.astype(dt) for p in _rnn_params(kind, inp, hid, layers, bidir, bias, proj)]
    if kind == "lstm":
        c0 = randn(layers * dirs, len(lengths), hid, dtype=dt)
        O.diff("aten::lstm.data", data, sizes, [h0, c0], params, bias, layers, 0.0, False,
               bidir, **TOL)
    else:
        O.diff(f"aten::{kind}.data", data, sizes, h0, params, bias, layers, 0.0, False, bidir,
               **TOL)


def test_rnn_packed_errors() -> None:
    params = _rnn_params("gru", 3, 4, 1, False, True)
    h0 = randn(1, 2, 4)
    for sizes in (np.array([2, 1], np.int32), np.array([2, 2], np.int64)):  # int32, total
        O.diff("aten::gru.data", randn(3, 3), sizes, h0, params, True, 1, 0.0, False, False)
    O.diff("aten::gru.data", randn(3, 3), np.array([2, 1], np.int64), randn(1, 3, 4), params,
           True, 1, 0.0, False, False)                   # hidden batch is not batch_sizes[0]
    # PyTorch does not check these (it reads past the data or crashes); tsjit says why
    kernel = O.kernel("aten::gru.data")
    for sizes, rows, msg in (([1, 2], 3, "non-increasing"), ([2, 0, 1], 3, "positive"),
                             ([2, 2], 5, "sum")):
        with pytest.raises(RuntimeError, match=msg):
            kernel(O.t(randn(rows, 3)), O.t(sizes), O.t(h0), [O.t(p) for p in params], True, 1,
                   0.0, False, False)


def test_rnn_cells_and_unbatched() -> None:
    x, h = randn(2, 3), randn(2, 4)
    for kind, g in (("gru_cell", 3), ("rnn_tanh_cell", 1), ("rnn_relu_cell", 1)):
        O.diff(f"aten::{kind}", x, h, randn(g * 4, 3), randn(g * 4, 4), randn(g * 4),
               randn(g * 4), **TOL)
    O.diff("aten::lstm_cell", x, [h, randn(2, 4)], randn(16, 3), randn(16, 4), None, None,
           **TOL)
    params = _rnn_params("gru", 3, 4, 1, False, True)
    O.diff("aten::gru.input", randn(5, 3), randn(1, 4), params, True, 1, 0.0, False, False,
           False, **TOL)
    proj = _rnn_params("lstm", 3, 4, 1, False, True, proj=2)
    O.diff("aten::lstm.input", randn(5, 1, 3), [randn(1, 1, 2), randn(1, 1, 4)], proj, True, 1,
           0.0, False, False, False, **TOL)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("mask", [None, "bool", "float"])
def test_scaled_dot_product_attention(causal: bool, mask: object) -> None:
    q, k, v = randn(2, 2, 3, 4), randn(2, 2, 5, 4), randn(2, 2, 5, 4)
    m = None
    if mask == "bool":
        m = rng.random((3, 5)) > 0.3
        m[:, 0] = True
    elif mask == "float":
        m = randn(3, 5)
    if causal and mask is not None:
        return
    O.diff("aten::scaled_dot_product_attention", q, k, v, m, 0.0, causal, None, False, **TOL)
    O.diff("aten::scaled_dot_product_attention", q, k, v, m, 0.0, causal, 0.3, False, **TOL)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mask", ["bool", "float"])
def test_scaled_dot_product_attention_fully_masked_rows_give_zero(dtype, mask) -> None:
    # PyTorch 2.13's math attention (`_safe_softmax`): a query that sees no key gives 0
    q, k, v = randn(2, 3, 4, dtype=dtype), randn(2, 5, 4, dtype=dtype), randn(2, 5, 4, dtype=dtype)
    m = rng.random((3, 5)) > 0.3
    m[:, 0] = True
    m[1] = False
    if mask != "bool":
        m = np.where(m, randn(3, 5, dtype=dtype), -np.inf).astype(dtype)
    r = O.diff("aten::scaled_dot_product_attention", q, k, v, m, 0.0, False, None, False, **TOL)
    assert np.isfinite(r.numpy()).all()
    O.diff("aten::scaled_dot_product_attention", q, k, v, m, 0.0, False, 0.7, False, **TOL)


@pytest.mark.parametrize("mask", [np.ones((2, 1, 3, 5), bool), np.zeros((2, 1, 3, 5), np.float32),
                                  np.zeros((3, 5), np.float64), np.zeros((3, 5), np.float16)])
def test_scaled_dot_product_attention_mask_errors(mask: np.ndarray) -> None:
    # a mask may not broadcast the scores larger, nor be a float of another dtype than float
    # and the query's
    q, k, v = randn(2, 3, 4), randn(2, 5, 4), randn(2, 5, 4)
    O.diff("aten::scaled_dot_product_attention", q, k, v, mask, 0.0, False, None, False, **TOL)


@pytest.mark.parametrize("L,S", [(3, 5), (5, 3), (4, 4)])
def test_scaled_dot_product_attention_causal_shapes(L: int, S: int) -> None:
    q, k, v = randn(2, L, 4), randn(2, S, 4), randn(2, S, 3)
    O.diff("aten::scaled_dot_product_attention", q, k, v, None, 0.0, True, None, False, **TOL)


@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("mask_kind", [None, "key_padding", "attn"])
def test_native_multi_head_attention(need_weights: bool, average: bool, mask_kind: object) -> None:
    import torch
    e, h, n, L = 8, 2, 2, 4
    x = randn(n, L, e)
    qkv_w, qkv_b, pw, pb = randn(3 * e, e) * 0.3, randn(3 * e) * 0.1, randn(e, e) * 0.3, randn(e)
    mask, mtype = None, None
    if mask_kind == "key_padding":
        mask, mtype = np.array([[False, False, False, True], [False, False, True, True]]), 1
    elif mask_kind == "attn":
        mask, mtype = np.triu(np.ones((L, L), bool), 1), 0
    mine, theirs = O.run_both("aten::_native_multi_head_attention", x, x, x, e, h, qkv_w, qkv_b,
                              pw, pb, mask, need_weights, average, mtype)
    O.compare(mine[0], theirs[0], **TOL)
    if need_weights:
        O.compare(mine[1], theirs[1], **TOL)
    else:
        assert mine[1] is None


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("use_gelu", [False, True])
def test_transformer_encoder_layer(norm_first: bool, use_gelu: bool) -> None:
    e, h, ff = 8, 2, 16
    x = randn(2, 5, e)
    args = [x, e, h, randn(3 * e, e) * 0.3, randn(3 * e) * 0.1, randn(e, e) * 0.3, randn(e),
            use_gelu, norm_first, 1e-5, randn(e), randn(e), randn(e), randn(e),
            randn(ff, e) * 0.3, randn(ff), randn(e, ff) * 0.3, randn(e), None, None]
    O.diff("aten::_transformer_encoder_layer_fwd", *args, **TOL)


def test_masked_softmax_and_nested_stand_ins() -> None:
    x = randn(2, 3, 4)
    mask = rng.random((2, 3, 4)) > 0.5
    O.diff("aten::_masked_softmax", x, mask, None, None, **TOL)
    k = O.kernel
    from tsjit._tensor import from_numpy
    m = from_numpy(np.array([[True, True, False], [True, False, False]]))
    assert k("aten::_nested_tensor_from_mask_left_aligned")(from_numpy(x), m) is True
    nt = k("aten::_nested_tensor_from_mask")(from_numpy(x[:, :, :2].copy()), m, True)
    padded = k("aten::to_padded_tensor")(nt, 0.0, None).numpy()
    assert np.all(padded[0, 2] == 0) and np.all(padded[1, 1:] == 0)


@SET
@given(shape=st.sampled_from([(2, 3, 33, 17), (1, 4, 7), (3, 2, 2, 3, 5)]),
       offset=st.sampled_from([0.0, 100.0, -3000.0]), affine=st.booleans())
def test_instance_norm_float32_rows(shape: tuple, offset: float, affine: bool) -> None:
    """instance_norm's float32 path (row_stats32: float32 row sums with a corrected mean)
    against PyTorch's float64-accumulated statistics, on rows whose mean is far from 0."""
    x = randn(*shape) * 3 + np.float32(offset)
    c = shape[1]
    w, b = (randn(c), randn(c)) if affine else (None, None)
    O.diff("aten::instance_norm", x, w, b, None, None, True, 0.1, 1e-5, False,
           rtol=1e-4, atol=1e-4 * max(1.0, abs(offset) / 100))
