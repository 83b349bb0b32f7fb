"""grid_sampler, affine_grid_generator (tensor_sampling), im2col / col2im, max_unpool2d /
max_unpool3d (tensor_fold) and embedding_bag.padding_idx against PyTorch."""
from __future__ import annotations

import numpy as np
from hypothesis import given, strategies as st

from tests.helpers import tensor_oracle as O

pytestmark = O.requires_torch
SET = O.SETTINGS
TOL = dict(rtol=1e-4, atol=1e-5)


@SET
@given(data=st.data(), mode=st.integers(0, 2), pad=st.integers(0, 2), ac=st.booleans(),
       vol=st.booleans(), nan=st.booleans())
def test_grid_sampler(data: st.DataObject, mode: int, pad: int, ac: bool, vol: bool,
                      nan: bool) -> None:
    d = 3 if vol and mode != 2 else 2
    dt = data.draw(st.sampled_from(O.FLOATS))
    size = tuple(data.draw(st.integers(1, 4)) for _ in range(d))
    out = tuple(data.draw(st.integers(0, 3)) for _ in range(d))
    x = data.draw(O.arrays([dt], shape=(2, 2) + size, special=False))
    g = data.draw(O.arrays([dt], shape=(2,) + out + (d,), special=False)) / 60
    if nan and g.size and d == 2:
        g.reshape(-1)[0] = np.nan
    O.diff("aten::grid_sampler", x, g, mode, pad, ac, **TOL)
    O.diff("aten::grid_sampler", x, g[:1], mode, pad, ac)          # batch mismatch
    if g.size:   # PyTorch checks nothing more when the grid is empty
        O.diff("aten::grid_sampler", x, g.astype(np.float16), mode, pad, ac)


@SET
@given(data=st.data(), ac=st.booleans(), vol=st.booleans())
def test_affine_grid_generator(data: st.DataObject, ac: bool, vol: bool) -> None:
    d = 3 if vol else 2
    n = data.draw(st.integers(1, 2))
    theta = data.draw(O.arrays(O.FLOATS, shape=(n, d, d + 1), special=False))
    size = [n, 1] + [data.draw(st.integers(1, 4)) for _ in range(d)]
    O.diff("aten::affine_grid_generator", theta, size, ac, **TOL)


@SET
@given(data=st.data(), batched=st.booleans())
def test_im2col_col2im(data: st.DataObject, batched: bool) -> None:
    k = [data.draw(st.integers(1, 3)) for _ in range(2)]
    dil = [data.draw(st.integers(1, 2)) for _ in range(2)]
    pad = [data.draw(st.integers(0, 1)) for _ in range(2)]
    st_ = [data.draw(st.integers(1, 2)) for _ in range(2)]
    hw = tuple(data.draw(st.integers(1, 6)) for _ in range(2))
    x = data.draw(O.arrays(O.REAL, shape=((2,) if batched else ()) + (2,) + hw))
    cols = O.diff("aten::im2col", x, k, dil, pad, st_, **TOL)
    O.diff("aten::im2col", x.astype(np.float64), k, dil, pad, st_, **TOL)
    if not isinstance(cols, Exception):
        O.diff("aten::col2im", cols.numpy(), list(hw), k, dil, pad, st_, **TOL)
    O.diff("aten::col2im", x.reshape(x.shape[:-2] + (-1,)).astype(np.float32), list(hw), k,
           dil, pad, st_, **TOL)


@SET
@given(data=st.data(), batched=st.booleans(), vol=st.booleans())
def test_max_unpool(data: st.DataObject, batched: bool, vol: bool) -> None:
    d = 3 if vol else 2
    out = [data.draw(st.integers(1, 4)) for _ in range(d)]
    src = tuple(data.draw(st.integers(0, 2)) for _ in range(d))
    lead = (2, 1) if batched else (1,)
    x = data.draw(O.arrays(O.FLOATS, shape=lead + src))
    plane = int(np.prod(out))
    flat = data.draw(st.lists(st.integers(0, plane - 1), min_size=int(np.prod(src)) * 0 +
                              x.size // max(int(np.prod(lead)), 1),
                              max_size=x.size // max(int(np.prod(lead)), 1), unique=True)
                     ) if x.size // max(int(np.prod(lead)), 1) <= plane else None
    if flat is None:
        return
    idx = np.broadcast_to(np.asarray(flat, np.int64).reshape(src), x.shape).copy()
    if d == 2:
        O.diff("aten::max_unpool2d", x, idx, out)
        O.diff("aten::max_unpool2d", x, idx + plane, out)         # invalid index
    else:
        O.diff("aten::max_unpool3d", x, idx, out, [1, 1, 1], [0, 0, 0])


@SET
@given(data=st.data(), mode=st.integers(0, 2), pad=st.one_of(st.none(), st.integers(-4, 3)),
       weighted=st.booleans())
def test_embedding_bag_padding_idx(data: st.DataObject, mode: int, pad: object,
                                   weighted: bool) -> None:
    w = data.draw(O.arrays([np.float32], shape=(4, 3), special=False))
    idx = np.asarray(data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=6)), np.int64)
    cuts = sorted(data.draw(st.lists(st.integers(0, idx.size), min_size=1, max_size=3)))
    offs = np.asarray([0] + cuts[1:], np.int64)
    psw = data.draw(O.arrays([np.float32], shape=idx.shape, special=False)) \
        if weighted and mode == 0 else None
    mine, theirs = O.run_both("aten::embedding_bag.padding_idx", w, idx, offs, False, mode,
                              False, psw, False, pad)
    O.compare(mine[0], theirs[0], **TOL)    # the other three results are bookkeeping


@SET
@given(data=st.data(), pad=st.integers(0, 2), ac=st.booleans(), c=st.sampled_from([1, 3]))
def test_grid_sampler_bilinear_2d(data: st.DataObject, pad: int, ac: bool, c: int) -> None:
    """bilinear_2d (the 4-d bilinear path, corners read from a zero-bordered copy) on grids
    reaching far outside the input, with NaN and infinite coordinates."""
    x = data.draw(O.arrays([np.float32, np.float64], shape=(3, c, 5, 7), special=False))
    g = data.draw(O.arrays([x.dtype], shape=(3, 6, 4, 2), special=False)) / 20
    for i, v in zip(data.draw(st.lists(st.integers(0, g.size - 1), max_size=4)),
                    (np.nan, np.inf, -np.inf, 1e30)):
        g.reshape(-1)[i] = v
    O.diff("aten::grid_sampler", x, g, 0, pad, ac, **TOL)
