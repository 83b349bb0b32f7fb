"""Factory kernels (tensor_create) and conversion / metadata kernels (tensor_convert)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st

from tests.helpers import tensor_oracle as O

from tsjit._tensor import dtypes as D  # noqa: E402

pytestmark = O.requires_torch
SET = O.SETTINGS
DTYPES = [None, D.float32, D.float64, D.int64, D.int32, D.int8, D.uint8, D.bool_]
size = st.lists(st.integers(0, 3), max_size=3)


@SET
@given(s=size, dt=st.sampled_from(DTYPES), v=O.scalars())
def test_factories(s: list, dt: object, v: object) -> None:
    O.diff("aten::zeros", s, dt, None, None, None)
    O.diff("aten::ones", s, dt, None, None, None)
    O.diff("aten::full", s, v, dt, None, None, None)
    O.diff("aten::scalar_tensor", v, dt, None, None, None)


@SET
@given(a=O.arrays(), dt=st.sampled_from(DTYPES), v=O.scalars(), s=size)
def test_like_and_new(a: np.ndarray, dt: object, v: object, s: list) -> None:
    O.diff("aten::zeros_like", a, dt, None, None, None, None)
    O.diff("aten::ones_like", a, dt, None, None, None, None)
    O.diff("aten::full_like", a, v, dt, None, None, None, None)
    O.diff("aten::new_zeros", a, s, dt, None, None, None)
    O.diff("aten::new_ones", a, s, dt, None, None, None)
    O.diff("aten::new_full", a, s, v, dt, None, None, None)
    for q in ("aten::empty_like", "aten::new_empty"):
        r = O.kernel(q)(*O._to_tsjit([a] + ([s] if "new" in q else []) +
                                      [dt, None, None, None] + ([None] if "like" in q else [])))
        assert r.dtype == (dt if dt is not None else D.from_numpy_dtype(a.dtype))


@SET
@given(start=st.one_of(st.integers(-5, 5), st.floats(-5, 5)),
       end=st.one_of(st.integers(-5, 20), st.floats(-5, 20)),
       step=st.one_of(st.integers(-3, 3), st.floats(-3, 3)),
       dt=st.sampled_from([None, D.float64, D.int64, D.float32]))
def test_arange(start: object, end: object, step: object, dt: object) -> None:
    O.diff("aten::arange.start_step", start, end, step, dt, None, None, None)
    O.diff("aten::arange.start", start, end, dt, None, None, None)
    O.diff("aten::arange", end, dt, None, None, None)


@SET
@given(start=st.floats(-10, 10), end=st.floats(-10, 10), steps=st.integers(0, 7),
       dt=st.sampled_from([None, D.float64, D.int64]))
def test_linspace_logspace(start: float, end: float, steps: int, dt: object) -> None:
    O.diff("aten::linspace", start, end, steps, dt, None, None, None)
    O.diff("aten::logspace", start / 5, end / 5, steps, 10.0, dt, None, None, None,
           rtol=1e-4)


@SET
@given(n=st.integers(0, 4), m=st.integers(0, 4), dt=st.sampled_from(DTYPES))
def test_eye(n: int, m: int, dt: object) -> None:
    O.diff("aten::eye", n, dt, None, None, None)
    O.diff("aten::eye.m", n, m, dt, None, None, None)


@st.composite
def nested(draw: st.DrawFn) -> object:
    kind = draw(st.sampled_from("bif"))
    el = O.scalars(kind) if kind != "f" else st.floats(-10, 10)
    shape = draw(O.shapes(max_dims=3, max_side=3))

    def build(depth: int) -> object:
        if depth == len(shape):
            return draw(el)
        return [build(depth + 1) for _ in range(shape[depth])]
    return build(0)


@SET
@given(data=nested(), dt=st.sampled_from(DTYPES))
def test_tensor_from_data(data: object, dt: object) -> None:
    import torch
    from tsjit._tensor import tensor
    try:
        mine: object = tensor(data, dtype=dt)
    except Exception as e:  # noqa: BLE001
        mine = e
    try:
        theirs: object = torch.tensor(data, dtype=None if dt is None else getattr(torch, dt.name))
    except Exception as e:  # noqa: BLE001
        theirs = e
    O.compare(mine, theirs)


def test_tensor_kernel_overloads() -> None:
    O.diff("aten::tensor.float", 2.5, None, None, False)
    O.diff("aten::tensor.int", 7, D.float64, None, False)
    O.diff("aten::tensor.bool", True, None, None, False)
    import torch
    k = O.kernel("aten::tensor")
    O.compare(k([[1, 2], [3, 4]], None, None, False), torch.tensor([[1, 2], [3, 4]]))
    O.compare(k([1.5, 2], D.int32, None, False), torch.tensor([1.5, 2], dtype=torch.int32))
    O.compare(k([], None, None, False), torch.tensor([]))
    O.diff("aten::as_tensor", np.arange(3), D.float64, None)


def test_random_factories_shapes_dtypes_and_seed() -> None:
    from tsjit._tensor import manual_seed
    manual_seed(3)
    a = O.kernel("aten::rand")([2, 3], None, None, None, None)
    manual_seed(3)
    b = O.kernel("aten::rand")([2, 3], None, None, None, None)
    assert a.dtype == D.float32 and a.shape == (2, 3) and a.tolist() == b.tolist()
    assert ((a.numpy() >= 0) & (a.numpy() < 1)).all()
    r = O.kernel("aten::randint.low")(3, 7, [100], 4, None, None, None)
    assert r.dtype == D.int64 and 3 <= r.numpy().min() and r.numpy().max() < 7
    p = O.kernel("aten::randperm")(10, 4, None, None, None)
    assert sorted(p.tolist()) == list(range(10))
    n = O.kernel("aten::randn_like")(a, D.float64, None, None, None, None)
    assert n.dtype == D.float64 and n.shape == (2, 3)


# --- conversions and metadata ---------------------------------------------------------------
@SET
@given(a=O.arrays(big=True), dt=st.sampled_from(DTYPES[1:]), copy=st.booleans())
def test_to(a: np.ndarray, dt: object, copy: bool) -> None:
    if dt.kind == "i" and a.dtype.kind == "f":
        # out-of-range float -> int conversions are undefined behaviour in C++
        info = np.iinfo(dt.np)
        assume(bool(np.all(np.isfinite(a) & (a >= info.min) & (a <= info.max))))
    O.diff("aten::to.dtype", a, dt, False, copy, None)
    O.diff("aten::to.other", a, np.zeros(1, dt.np), False, copy, None)
    O.diff("aten::type_as", a, np.zeros(1, dt.np))
    O.diff("aten::to.prim_dtype", a, dt, False, copy)


def test_to_returns_self_when_nothing_changes() -> None:
    x = O.t([1.0, 2.0])
    assert O.kernel("aten::to.dtype")(x, D.float32, False, False, None) is x
    assert O.kernel("aten::to.dtype")(x, D.float32, False, True, None) is not x
    assert O.kernel("aten::to.prim_Device")(x, None, None, False, False) is x
    assert O.kernel("aten::cpu")(x) is x           # every tsjit tensor is on the CPU


def test_cpu_is_the_tensor_itself_on_cpu() -> None:
    x = O.t([1.0, 2.0])
    assert O.kernel("aten::cpu")(x) is x      # PyTorch returns self when already on the CPU
    O.diff("aten::cpu", np.arange(6.0).reshape(2, 3))


@SET
@given(a=O.arrays(max_side=2, max_dims=1))
def test_scalar_conversions(a: np.ndarray) -> None:
    for q in ("aten::Int.Tensor", "aten::Float.Tensor", "aten::Bool.Tensor", "aten::item",
              "aten::ScalarImplicit", "aten::IntImplicit", "aten::FloatImplicit"):
        mine, theirs = O.run_both(q, a)
        O.compare(mine, theirs)


@SET
@given(a=O.arrays(), d=st.integers(-3, 2))
def test_metadata(a: np.ndarray, d: int) -> None:
    for q in ("aten::dim", "aten::numel", "aten::size", "aten::is_floating_point",
              "aten::is_complex", "aten::is_signed", "aten::is_contiguous", "aten::stride",
              "aten::element_size", "aten::len.Tensor", "aten::is_nonzero"):
        O.diff(q, a)
    O.diff("aten::size.int", a, d)
    O.diff("aten::stride.int", a, d)
    O.diff("aten::is_same_size", a, a)
    O.diff("aten::clone", a, None)
    O.diff("aten::contiguous", a, 0)
    O.diff("aten::detach", a)


def test_prim_ops() -> None:
    from tsjit._tensor import Device
    k = O.kernel
    x = O.t([1.5, 2.5], "float64")
    assert k("prim::dtype")(x) == 7 and repr(k("prim::dtype")(x)) == "torch.float64"
    assert k("prim::device")(x) == Device("cpu")
    assert k("prim::requires_grad")(x) is False
    assert k("prim::is_nested")(x) is False and k("prim::is_cpu")(x) is True
    assert k("aten::is_leaf")(x) is True and k("prim::grad")(x) is None   # no autograd
    t = k("prim::NumToTensor.Scalar")(2.5)
    assert t.dtype == D.float64 and t.dim() == 0
    assert k("prim::NumToTensor.Scalar")(3).dtype == D.int64
    assert k("prim::NumToTensor.bool")(True).dtype == D.bool_
    assert k("aten::Complex.Tensor_Tensor")(O.t(1.0), O.t(2.0)) == 1 + 2j
    assert k("prim::itemsize")(x) == 8 and k("prim::nbytes")(x) == 16
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted"):
        k("aten::Int.Tensor")(x)


def test_grad_mode_ops() -> None:
    from tsjit._tensor import is_grad_enabled
    from tsjit.autograd import no_grad
    k = O.kernel
    assert k("aten::is_grad_enabled")() is True
    with no_grad():
        assert k("aten::is_grad_enabled")() is False and not is_grad_enabled()
    k("aten::set_grad_enabled")(False)
    assert not is_grad_enabled()
    k("aten::set_grad_enabled")(True)
    assert k("aten::is_autocast_enabled")() is False
