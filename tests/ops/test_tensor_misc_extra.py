"""diff, block_diag, cartesian_prod, heaviside, float_power, isin, result_type, addcmul /
addcdiv, the complex views and exponential_ (tensor_misc_extra) against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

from tests.helpers import tensor_oracle as O

pytestmark = O.requires_torch
SET = O.SETTINGS


@SET
@given(a=O.arrays(O.ALL, min_dims=0), n=st.integers(-1, 4), dim=st.integers(-3, 2),
       data=st.data())
def test_diff(a: np.ndarray, n: int, dim: int, data: st.DataObject) -> None:
    O.diff("aten::diff", a, n, dim, None, None)
    if a.ndim:
        d = dim % a.ndim if -a.ndim <= dim < a.ndim else 0
        shape = list(a.shape)
        shape[d] = data.draw(st.integers(0, 2))
        pre = data.draw(O.arrays(O.ALL, shape=tuple(shape)))
        O.diff("aten::diff", a, n, d, pre, None)
        O.diff("aten::diff", a, n, d, None, pre)
        O.diff("aten::diff", a, n, d, pre, a)
        O.diff("aten::diff", a, n, d, pre[..., None], None)   # rank mismatch is an error


@SET
@given(ts=st.lists(O.arrays(O.ALL + [np.complex64], max_dims=3), max_size=3))
def test_block_diag(ts: list) -> None:
    O.diff("aten::block_diag", ts)


@SET
@given(ts=st.lists(O.arrays([np.int64], max_dims=1), max_size=3), mixed=st.booleans())
def test_cartesian_prod(ts: list, mixed: bool) -> None:
    O.diff("aten::cartesian_prod", ts)
    if mixed and ts:
        O.diff("aten::cartesian_prod", ts + [np.zeros(2, np.float32)])
    O.diff("aten::cartesian_prod", [np.zeros((2, 2))])


@SET
@given(pair=O.broadcast_pair(O.ALL), same=st.booleans())
def test_heaviside(pair: tuple, same: bool) -> None:
    a, b = pair
    if same:
        b = b.astype(a.dtype)
    O.diff("aten::heaviside", a, b)
    O.diff("aten::heaviside_", a, b)
    O.diff("aten::heaviside", a.astype(np.complex64), b.astype(np.complex64))


@SET
@given(pair=O.broadcast_pair(O.ALL + [np.complex64]), s=O.scalars("bif"))
def test_float_power(pair: tuple, s: object) -> None:
    a, b = pair
    O.diff("aten::float_power.Tensor_Tensor", a, b, rtol=1e-7)
    O.diff("aten::float_power.Tensor_Scalar", a, s, rtol=1e-7)
    O.diff("aten::float_power.Scalar", s, b, rtol=1e-7)
    O.diff("aten::float_power_.Tensor", a, b, rtol=1e-7)
    O.diff("aten::float_power_.Tensor", a.astype(np.float64), b, rtol=1e-7)
    O.diff("aten::float_power_.Scalar", a.astype(np.float64), s, rtol=1e-7)


@SET
@given(three=st.tuples(O.broadcast_pair(O.ALL), O.arrays(O.ALL, max_dims=1)),
       value=O.scalars("bif"))
def test_addcmul_addcdiv(three: tuple, value: object) -> None:
    (a, b), c = three
    for name in ("addcmul", "addcdiv"):
        O.diff(f"aten::{name}", a, b, c, value, rtol=1e-4, atol=1e-5)
        O.diff(f"aten::{name}_", a, b, c, value, rtol=1e-4, atol=1e-5)
        f = a.astype(np.float64)
        O.diff(f"aten::{name}", f, b.astype(np.float64), c, value, rtol=1e-6)


@SET
@given(pair=O.broadcast_pair(O.ALL), s=O.scalars("bif"), inv=st.booleans(),
       uniq=st.booleans())
def test_isin(pair: tuple, s: object, inv: bool, uniq: bool) -> None:
    a, b = pair
    O.diff("aten::isin.Tensor_Tensor", a, b, uniq, inv)
    O.diff("aten::isin.Tensor_Scalar", a, s, False, inv)
    O.diff("aten::isin.Scalar_Tensor", s, b, False, inv)
    O.diff("aten::isin.Tensor_Tensor", a.astype(np.complex64), b, False, inv)


@SET
@given(pair=O.broadcast_pair(O.ALL + [np.complex128]), s=O.scalars("bif"),
       s2=O.scalars("bif"))
def test_result_type(pair: tuple, s: object, s2: object) -> None:
    a, b = pair
    for name, args in [("Tensor", (a, b)), ("Scalar", (a, s)), ("Scalar_Tensor", (s, b)),
                       ("Scalar_Scalar", (s, s2))]:
        mine, theirs = O.run_both(f"aten::result_type.{name}", *args)
        # torch.ops returns the ScalarType code; tsjit's dtype is an int subclass
        assert int(mine) == int(theirs), (name, mine, theirs)


def test_storage_offset_and_views() -> None:
    from tsjit._tensor import from_numpy
    import torch
    O.kernel("aten::storage_offset")
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    mine, theirs = from_numpy(base.copy()), torch.from_numpy(base.copy())
    for idx in [(slice(1, 3), slice(2, 6)), (2,), (slice(None), 4)]:
        assert O.kernel("aten::storage_offset")(mine[idx]) == theirs[idx].storage_offset()
    # views of a complex tensor share its memory and count offsets in reals
    c = from_numpy((base[:, 0::2] + 1j * base[:, 1::2]).astype(np.complex64))
    r = O.kernel("aten::view_as_real")(c)
    r[0, 0, 1] = 100.0
    assert c.numpy()[0, 0] == 0 + 100j
    im = O.kernel("aten::imag")(c[1:])
    assert im.storage_offset() == 7
    back = O.kernel("aten::view_as_complex")(r)
    back[1, 1] = 5 + 6j
    assert c.numpy()[1, 1] == 5 + 6j


@SET
@given(a=O.arrays(O.ALL + [np.complex64, np.complex128]))
def test_complex_views(a: np.ndarray) -> None:
    O.diff("aten::real", a)
    O.diff("aten::imag", a)
    O.diff("aten::view_as_real", a)
    O.diff("aten::view_as_complex", a)
    if a.ndim:
        pairs = np.stack([a, a], -1)
        O.diff("aten::view_as_complex", pairs)
        O.diff("aten::view_as_complex", np.swapaxes(pairs, 0, -1))


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("lambd", [0.5, 2.0, 0.0, -1.0])
def test_exponential(dt: type, lambd: float) -> None:
    x = np.zeros(20000, dt)
    mine, theirs = O.run_both("aten::exponential_", x, lambd, None)
    if isinstance(theirs, Exception):
        assert str(mine) == str(theirs)
        return
    m = mine.numpy()
    assert mine.dtype.name == str(theirs.dtype).replace("torch.", "")
    assert m.min() >= 0 and abs(m.mean() - 1 / lambd) < 0.05 / lambd


@SET
@given(a=O.arrays([np.float32, np.float64, np.int64], max_dims=3), data=st.data())
def test_complex_and_polar(a: np.ndarray, data: st.DataObject) -> None:
    b = data.draw(O.arrays([a.dtype, np.float32, np.float64], shape=st.sampled_from(
        [a.shape, a.shape[1:], (1,) + a.shape[1:], (2,)])))
    O.diff("aten::complex", a, b)
    O.diff("aten::polar", a, b, rtol=1e-5, atol=1e-6)
