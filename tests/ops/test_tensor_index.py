"""Indexing and writing kernels (tensor_index) against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

from tests.helpers import tensor_oracle as O

pytestmark = O.requires_torch
SET = O.SETTINGS


@st.composite
def indexed(draw: st.DrawFn) -> tuple:
    """An array and an aten::index index list (None, int tensors, bool masks)."""
    a = draw(O.arrays(min_dims=1, max_side=4))
    idx: list = []
    d = 0
    n_idx = draw(st.integers(1, a.ndim))
    while d < a.ndim and len(idx) < n_idx:
        kind = draw(st.sampled_from(["none", "int", "mask", "int"]))
        size = a.shape[d]
        if kind == "none":
            idx.append(None)
            d += 1
        elif kind == "int":
            shape = draw(st.sampled_from([(), (2,), (1, 2), (3,)]))
            idx.append(draw(O.arrays([np.int64], shape=shape, big=False)).clip(-size, size - 1)
                       if size else np.zeros((0,), np.int64))
            d += 1
        else:
            k = draw(st.integers(1, a.ndim - d))
            idx.append(draw(O.arrays([np.bool_], shape=a.shape[d:d + k])))
            d += k
    if all(i is None for i in idx):      # PyTorch trips an internal assert on these
        idx.append(np.zeros((), np.int64))
    return a, idx


@SET
@given(ai=indexed())
def test_index(ai: tuple) -> None:
    a, idx = ai
    O.diff("aten::index.Tensor", a, idx)


@SET
@given(ai=indexed(), acc=st.booleans(), scalar_value=st.booleans())
def test_index_put(ai: tuple, acc: bool, scalar_value: bool) -> None:
    a, idx = ai
    mine, theirs = O.run_both("aten::index.Tensor", a, idx)
    if isinstance(theirs, BaseException):
        return
    shape = () if scalar_value else tuple(theirs.shape)
    v = np.arange(int(np.prod(shape))).reshape(shape).astype(a.dtype)
    if acc and a.dtype.kind in "iu":
        # duplicate indices accumulate in any order; integers keep that exact
        O.diff("aten::index_put_", a, idx, v, True)
    elif not acc:
        O.diff("aten::index_put", a, idx, v, False)
    if a.size:      # PyTorch's checks on empty tensors depend on the index kind
        O.diff("aten::index_put_", a, idx, v.astype(np.float64), False)


@SET
@given(a=O.arrays(min_dims=0, max_side=4, min_side=1), d=st.integers(-2, 1),
       idx=st.lists(st.integers(-4, 4), max_size=4))
def test_index_select_add_copy_fill(a: np.ndarray, d: int, idx: list) -> None:
    i = np.array(idx, np.int64)
    O.diff("aten::index_select", a, d, i)
    if a.ndim:
        dd = d % a.ndim if -a.ndim <= d < a.ndim else d
        src_shape = list(a.shape)
        if -a.ndim <= d < a.ndim:
            src_shape[dd] = len(idx)
        src = np.ones(src_shape, a.dtype)
        O.diff("aten::index_add", a, d, np.unique(i), src[tuple(
            slice(0, len(np.unique(i))) if k == dd else slice(None)
            for k in range(a.ndim))] if -a.ndim <= d < a.ndim else src, 2)
        O.diff("aten::index_fill.int_Scalar", a, d, i, 3)
        O.diff("aten::index_copy", a, d, np.unique(i) % max(a.shape[dd], 1)
               if -a.ndim <= d < a.ndim else i, src)


@SET
@given(pair=O.broadcast_pair(O.ALL, [np.bool_]), v=O.scalars("bif"))
def test_masked(pair: tuple, v: object) -> None:
    a, m = pair
    O.diff("aten::masked_fill.Scalar", a, m, v)
    O.diff("aten::masked_fill.Tensor", a, m, np.asarray(v))
    O.diff("aten::masked_fill_.Scalar", a, m, v)
    O.diff("aten::masked_select", a, m)
    O.diff("aten::masked_scatter", a, m, np.arange(a.size + m.size).astype(a.dtype))


@st.composite
def gather_args(draw: st.DrawFn) -> tuple:
    a = draw(O.arrays(min_dims=1, max_side=4))
    d = draw(st.integers(-a.ndim, a.ndim - 1))
    shape = tuple(draw(st.integers(0, s)) if k != d % a.ndim else draw(st.integers(0, 4))
                  for k, s in enumerate(a.shape))
    hi = max(a.shape[d % a.ndim] - 1, 0)
    idx = draw(O.arrays([np.int64], shape=shape)).clip(0, hi)
    return a, d, idx


@SET
@given(g=gather_args(), reduce=st.sampled_from([None, "add", "multiply"]))
def test_gather_scatter(g: tuple, reduce: object) -> None:
    a, d, idx = g
    O.diff("aten::gather", a, d, idx, False)
    src = np.arange(idx.size).reshape(idx.shape).astype(a.dtype)
    if reduce is None:
        # duplicate targets are written in an unspecified order: use unique rows only
        O.diff("aten::scatter.value", a, d, idx, 5)
    else:
        O.diff("aten::scatter.value_reduce", a, d, idx, 2, reduce)
    if a.dtype.kind in "iub":
        O.diff("aten::scatter_add", a, d, idx, src)
        O.diff("aten::scatter_reduce.two", a, d, idx, src, "amax", True)
        O.diff("aten::scatter_reduce.two", a, d, idx, src, "sum", False)


@SET
@given(a=O.arrays(max_side=4), idx=st.lists(st.integers(-30, 30), max_size=5))
def test_take_put(a: np.ndarray, idx: list) -> None:
    i = np.array(idx, np.int64)
    O.diff("aten::take", a, i)
    if a.size:
        i = np.unique(i % a.size)
        O.diff("aten::put", a, i, np.ones(i.shape, a.dtype), False)


@SET
@given(a=O.arrays(max_side=4))
def test_nonzero(a: np.ndarray) -> None:
    O.diff("aten::nonzero", a)
    O.diff("aten::argwhere", a)
    O.diff("aten::nonzero_numpy", a)


@SET
@given(pair=O.broadcast_pair(), v=O.scalars(big=True))
def test_copy_fill_zero(pair: tuple, v: object) -> None:
    a, b = pair
    O.diff("aten::copy_", a, b, False)
    O.diff("aten::fill_.Scalar", a, v)
    O.diff("aten::fill_.Tensor", a, b)
    O.diff("aten::zero_", a)


@SET
@given(a=O.arrays(min_dims=2, max_dims=2, max_side=4), v=O.scalars("if"), w=st.booleans())
def test_fill_diagonal(a: np.ndarray, v: object, w: bool) -> None:
    O.diff("aten::fill_diagonal_", a, v, w)


def test_checked_fills_overflow_like_torch() -> None:
    O.diff("aten::fill_.Scalar", np.zeros(2, np.int8), 300)
    O.diff("aten::fill_.Scalar", np.zeros(2, np.uint8), -1)
    O.diff("aten::masked_fill.Scalar", np.zeros(2, np.int64), np.array([True, False]),
           float("-inf"))
    O.diff("aten::full", [2], 300, 1, None, None, None)


def test_index_put_requires_matching_dtype() -> None:
    O.diff("aten::index_put_", np.zeros(3, np.float32), [np.array([0])],
           np.array([1.0], np.float64), False)
