"""cosine / hinge embedding, poisson nll, triplet margin, multi margin and CTC losses
(tensor_loss_extra) against PyTorch."""
from __future__ import annotations

import numpy as np
from hypothesis import given, strategies as st

from tests.helpers import tensor_oracle as O

pytestmark = O.requires_torch
SET = O.SETTINGS
TOL = dict(rtol=1e-4, atol=1e-5)
RED = st.integers(0, 2)


def _signs(draw: st.DrawFn, shape: tuple) -> np.ndarray:
    return draw(O.arrays([np.int64], shape=shape, big=False, special=False)).clip(-1, 1)


@SET
@given(data=st.data(), n=st.integers(0, 3), d=st.integers(0, 4), red=RED,
       margin=st.floats(-1, 1), batched=st.booleans())
def test_embedding_losses(data: st.DataObject, n: int, d: int, red: int, margin: float,
                          batched: bool) -> None:
    shape = (n, d) if batched else (d,)
    x1 = data.draw(O.arrays(O.FLOATS, shape=shape, special=False))
    x2 = data.draw(O.arrays([x1.dtype], shape=shape, special=False))
    y = _signs(data.draw, shape[:-1])
    O.diff("aten::cosine_embedding_loss", x1, x2, y, margin, red, **TOL)
    O.diff("aten::cosine_embedding_loss", x1, x2[None], y, margin, red, **TOL)
    O.diff("aten::hinge_embedding_loss", x1, _signs(data.draw, shape), margin, red, **TOL)
    O.diff("aten::hinge_embedding_loss", x1, np.ones(shape[-1:]), margin, red, **TOL)


@SET
@given(data=st.data(), red=RED, log_input=st.booleans(), full=st.booleans())
def test_poisson_nll_loss(data: st.DataObject, red: int, log_input: bool, full: bool) -> None:
    x = data.draw(O.arrays(O.FLOATS, special=False))
    t = np.abs(data.draw(O.arrays([x.dtype], shape=x.shape, special=False)))
    if not log_input:
        x = np.abs(x)
    O.diff("aten::poisson_nll_loss", x, t, log_input, full, 1e-8, red, rtol=1e-4, atol=1e-4)


@SET
@given(data=st.data(), red=RED, p=st.sampled_from([1.0, 2.0, 3.0, 0.0, float("inf")]),
       swap=st.booleans(), margin=st.floats(0, 2), batched=st.booleans())
def test_triplet_margin_loss(data: st.DataObject, red: int, p: float, swap: bool,
                             margin: float, batched: bool) -> None:
    shape = data.draw(O.shapes(min_dims=2 if batched else 1, max_dims=2, min_side=1))
    a, b, c = (data.draw(O.arrays([np.float64], shape=shape, special=False)) for _ in range(3))
    O.diff("aten::triplet_margin_loss", a, b, c, margin, p, 1e-6, swap, red, **TOL)
    O.diff("aten::triplet_margin_loss", a, b, c[0], margin, p, 1e-6, swap, red, **TOL)


@SET
@given(data=st.data(), red=RED, p=st.integers(0, 3), margin=st.floats(-1, 2),
       weighted=st.booleans(), batched=st.booleans())
def test_multi_margin_loss(data: st.DataObject, red: int, p: int, margin: float,
                           weighted: bool, batched: bool) -> None:
    n, c = data.draw(st.integers(0, 3)), data.draw(st.integers(1, 4))
    x = data.draw(O.arrays(O.FLOATS, shape=(n, c) if batched else (c,), special=False))
    y = np.asarray(data.draw(st.lists(st.integers(0, c - 1), min_size=n, max_size=n)) if
                   batched else data.draw(st.integers(0, c - 1)), np.int64)
    w = data.draw(O.arrays([x.dtype], shape=(c,), special=False)) if weighted else None
    if batched and n == 0 and red != 0:
        return    # PyTorch reduces no samples into uninitialised memory
    O.diff("aten::multi_margin_loss", x, y, p, margin, w, red, **TOL)
    O.diff("aten::multi_margin_loss", x, y + c, 1, margin, w, red)   # out of range


@st.composite
def ctc_case(draw: st.DrawFn) -> tuple:
    nb, t, c = draw(st.integers(1, 3)), draw(st.integers(1, 6)), draw(st.integers(2, 5))
    logits = draw(O.arrays([np.float32, np.float64], shape=(t, nb, c), special=False))
    lp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    blank = draw(st.integers(0, c - 1))
    labels = [b for b in range(c) if b != blank]
    tl = [draw(st.integers(0, t)) for _ in range(nb)]
    il = [draw(st.integers(0, t)) for _ in range(nb)]
    seqs = [draw(st.lists(st.sampled_from(labels), min_size=n, max_size=n)) for n in tl]
    return lp, blank, il, tl, seqs


@SET
@given(case=ctc_case(), red=RED, zero_inf=st.booleans(), padded=st.booleans())
def test_ctc_loss(case: tuple, red: int, zero_inf: bool, padded: bool) -> None:
    lp, blank, il, tl, seqs = case
    if padded:
        s = max(tl)
        tg = np.array([q + [blank] * (s - len(q)) for q in seqs], np.int64).reshape(len(tl), s)
    else:
        tg = np.array([v for q in seqs for v in q], np.int64)
    tol = dict(rtol=1e-4, atol=1e-4)
    O.diff("aten::ctc_loss.IntList", lp, tg, il, tl, blank, red, zero_inf, **tol)
    O.diff("aten::ctc_loss.Tensor", lp, tg, np.asarray(il), np.asarray(tl), blank, red,
           zero_inf, **tol)
    # unbatched: one sequence, (T, C) log-probabilities
    O.diff("aten::ctc_loss.IntList", lp[:, 0], np.asarray(seqs[0], np.int64), il[:1], tl[:1],
           blank, red, zero_inf, **tol)
    O.diff("aten::ctc_loss.IntList", lp, tg, [lp.shape[0] + 1] * len(il), tl, blank, red,
           zero_inf)
