"""Shape, view and slicing kernels (tensor_shape, tensor_slice) against PyTorch, plus the
aliasing guarantees of views."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

from tests.helpers import tensor_oracle as O

pytestmark = O.requires_torch
SET = O.SETTINGS
dims = st.integers(-4, 3)


@st.composite
def arr_dim(draw: st.DrawFn, min_dims: int = 0) -> tuple:
    a = draw(O.arrays(min_dims=min_dims, max_side=4))
    return a, draw(st.integers(-a.ndim - 1, max(a.ndim, 1)))


@st.composite
def reshape_target(draw: st.DrawFn) -> tuple:
    a = draw(O.arrays(max_side=4))
    n = a.size
    divisors = [d for d in range(1, n + 1) if n % d == 0] or [1]
    d = draw(st.sampled_from(divisors))
    shape = draw(st.sampled_from([[n], [d, n // d] if n else [0, 3], [-1], [d, -1], [-1, d],
                                  [n, 1, 1], [2, -1], [-1, -1], [n + 1]]))
    return a, shape


@SET
@given(at=reshape_target(), transpose=st.booleans())
def test_view_reshape(at: tuple, transpose: bool) -> None:
    a, shape = at
    if transpose and a.ndim >= 2:
        a = np.ascontiguousarray(a)
    O.diff("aten::reshape", a, shape)
    O.diff("aten::view", a, shape)
    O.diff("aten::flatten.using_ints", a, 0, -1)


def test_view_of_non_contiguous_fails_like_torch() -> None:
    import torch
    from tsjit._tensor import tensor
    x = tensor([[1, 2, 3], [4, 5, 6]]).t()
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        x.view(6)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        torch.tensor([[1, 2, 3], [4, 5, 6]]).t().view(6)
    assert x.reshape(6).tolist() == [1, 4, 2, 5, 3, 6]


@SET
@given(ad=arr_dim(), d2=dims)
def test_squeeze_unsqueeze_transpose(ad: tuple, d2: int) -> None:
    a, d = ad
    O.diff("aten::squeeze", a)
    O.diff("aten::squeeze.dim", a, d)
    O.diff("aten::squeeze.dims", a, [d])
    O.diff("aten::unsqueeze", a, d)
    O.diff("aten::transpose.int", a, d, d2)
    O.diff("aten::swapaxes", a, d, d2)
    O.diff("aten::t", a)
    O.diff("aten::numpy_T", a)
    O.diff("aten::mT", a)
    O.diff("aten::flatten.using_ints", a, d, d2)
    O.diff("aten::movedim.int", a, d, d2)


@SET
@given(a=O.arrays(max_side=3), perm=st.permutations(range(3)))
def test_permute(a: np.ndarray, perm: list) -> None:
    O.diff("aten::permute", a, [p for p in perm if p < a.ndim])
    O.diff("aten::permute", a, list(perm))


@SET
@given(a=O.arrays(max_side=3, max_dims=2), extra=st.lists(st.integers(0, 3), max_size=3))
def test_expand_repeat(a: np.ndarray, extra: list) -> None:
    size = extra + [(-1 if s == 1 and i % 2 else s if s != 1 else 3) for i, s in
                    enumerate(a.shape)]
    O.diff("aten::expand", a, size, False)
    O.diff("aten::expand", a, [2] * len(size), False)
    O.diff("aten::repeat", a, [abs(x) for x in extra] + [2] * a.ndim)
    O.diff("aten::repeat", a, [2])
    O.diff("aten::tile", a, [2])


@SET
@given(a=O.arrays(max_side=4, min_dims=1), d=dims, sizes=st.lists(st.integers(-1, 4),
                                                                   min_size=1, max_size=3))
def test_unflatten(a: np.ndarray, d: int, sizes: list) -> None:
    O.diff("aten::unflatten.int", a, d, sizes)


@st.composite
def tensor_lists(draw: st.DrawFn) -> list:
    base = draw(O.shapes(max_dims=3, max_side=3))
    n = draw(st.integers(1, 3))
    out = []
    for _ in range(n):
        shape = list(base)
        if shape and draw(st.booleans()):
            shape[draw(st.integers(0, len(shape) - 1))] = draw(st.integers(0, 3))
        if draw(st.integers(0, 5)) == 0:
            shape = [0]
        out.append(draw(O.arrays(shape=tuple(shape))))
    return out


@SET
@given(ts=tensor_lists(), d=dims)
def test_cat_stack(ts: list, d: int) -> None:
    O.diff("aten::cat", ts, d)
    O.diff("aten::stack", ts, d)
    O.diff("aten::hstack", ts)
    O.diff("aten::vstack", ts)
    O.diff("aten::dstack", ts)
    O.diff("aten::column_stack", ts)


@SET
@given(ad=arr_dim(min_dims=0), size=st.integers(-1, 4), chunks=st.integers(-1, 4))
def test_split_chunk_unbind(ad: tuple, size: int, chunks: int) -> None:
    a, d = ad
    O.diff("aten::split.Tensor", a, size, d)
    O.diff("aten::chunk", a, chunks, d)
    O.diff("aten::unbind.int", a, d)
    O.diff("aten::tensor_split.sections", a, max(chunks, 1), d)
    O.diff("aten::tensor_split.indices", a, [1, size], d)
    if a.ndim:
        n = a.shape[d] if -a.ndim <= d < a.ndim else 0
        O.diff("aten::split_with_sizes", a, [n // 2, n - n // 2], d)
        O.diff("aten::split.sizes", a, [n, 0], d)


@SET
@given(ad=arr_dim(min_dims=0), i=st.integers(-5, 5), j=st.one_of(st.none(), st.integers(-6, 6)),
       step=st.integers(1, 3))
def test_select_slice_narrow(ad: tuple, i: int, j: object, step: int) -> None:
    a, d = ad
    O.diff("aten::select.int", a, d, i)
    O.diff("aten::slice.Tensor", a, d, i, j, step)
    O.diff("aten::slice.Tensor", a, d, None, None, 1)
    O.diff("aten::narrow", a, d, i, 2)


@SET
@given(a=O.arrays(min_dims=2, max_side=4), off=st.integers(-3, 3), d1=st.integers(-2, 1),
       d2=st.integers(-2, 1))
def test_diagonal_tri(a: np.ndarray, off: int, d1: int, d2: int) -> None:
    O.diff("aten::diagonal", a, off, d1, d2)
    O.diff("aten::tril", a, off)
    O.diff("aten::triu", a, off)
    O.diff("aten::diag_embed", a, off, -2, -1)
    if a.ndim == 2:
        O.diff("aten::diag", a, off)
        O.diff("aten::trace", a)
    if all(a.shape[:-1]):
        O.diff("aten::diag", a[(0,) * (a.ndim - 1)], off)


@SET
@given(ad=arr_dim(min_dims=1), shifts=st.integers(-5, 5), k=st.integers(-2, 5))
def test_flip_roll_rot(ad: tuple, shifts: int, k: int) -> None:
    a, d = ad
    O.diff("aten::flip", a, [d])
    O.diff("aten::flip", a, list(range(a.ndim)))
    O.diff("aten::roll", a, [shifts], [d])
    O.diff("aten::roll", a, [shifts], [])
    O.diff("aten::rot90", a, k, [0, 1])
    O.diff("aten::fliplr", a)
    O.diff("aten::flipud", a)


@SET
@given(ad=arr_dim(min_dims=1), size=st.integers(0, 3), step=st.integers(1, 3))
def test_unfold(ad: tuple, size: int, step: int) -> None:
    a, d = ad
    O.diff("aten::unfold", a, d, size, step)


@SET
@given(a=O.arrays(shape=(2, 8, 3, 2)), r=st.integers(1, 2))
def test_pixel_shuffle(a: np.ndarray, r: int) -> None:
    O.diff("aten::pixel_shuffle", a, r)
    O.diff("aten::pixel_unshuffle", a, r)
    O.diff("aten::channel_shuffle", a, 2)


@SET
@given(a=O.arrays(max_side=3), reps=st.integers(0, 3), d=st.one_of(st.none(), dims))
def test_repeat_interleave(a: np.ndarray, reps: int, d: object) -> None:
    O.diff("aten::repeat_interleave.self_int", a, reps, d, None)


def test_broadcast_and_meshgrid() -> None:
    a, b = np.arange(3.0), np.arange(2.0).reshape(2, 1)
    O.diff("aten::broadcast_tensors", [a, b])
    O.diff("aten::broadcast_to", a, [4, 3])
    O.diff("aten::meshgrid.indexing", [a, np.arange(4.0)], "xy")
    O.diff("aten::meshgrid", [a, np.arange(4.0)])
    O.diff("aten::meshgrid", [a, np.arange(4)])
    O.diff("aten::atleast_3d", a)
    O.diff("aten::repeat_interleave.Tensor", np.array([1, 0, 2]), None)


# --- aliasing: views share memory with their base --------------------------------------------
def test_views_write_through() -> None:
    from tsjit._tensor import zeros
    x = zeros(3, 4)
    x.select(0, 1).fill_(1.0)
    x.t()[2].add_(5.0)
    x[:, 3] = 7.0
    x.view(12)[0] = -1.0
    x.narrow(1, 1, 1).mul_(0)
    x.diagonal().sub_(100)
    x.unsqueeze(0).squeeze(0)[2, 2] = 9
    import torch
    y = torch.zeros(3, 4)
    y.select(0, 1).fill_(1.0)
    y.t()[2].add_(5.0)
    y[:, 3] = 7.0
    y.view(12)[0] = -1.0
    y.narrow(1, 1, 1).mul_(0)
    y.diagonal().sub_(100)
    y.unsqueeze(0).squeeze(0)[2, 2] = 9
    assert x.tolist() == y.tolist()


def test_expand_is_a_view_and_split_pieces_alias() -> None:
    from tsjit._tensor import tensor
    x = tensor([1.0, 2.0])
    e = x.expand(3, 2)
    assert e.stride() == (0, 1) and e.tolist() == [[1.0, 2.0]] * 3
    parts = tensor([1, 2, 3, 4]).split(2)
    parts[1][0] = 30
    base = parts[0]._a.base
    assert base is not None and list(base.reshape(-1)) == [1, 2, 30, 4]


def test_inplace_view_ops_change_shape() -> None:
    from tsjit._tensor import zeros
    x = zeros(2, 1, 3)
    assert x.squeeze_().shape == (2, 3)
    assert x.unsqueeze_(0).shape == (1, 2, 3)
    assert x.transpose_(0, 2).shape == (3, 2, 1)
