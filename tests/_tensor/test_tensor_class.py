"""The Tensor class: metadata, views and aliasing, conversions, printing, numpy interop."""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from tsjit._tensor import Size, Tensor, dtypes as D, from_numpy, tensor, zeros

torch = pytest.importorskip("torch", reason="PyTorch is the oracle for Tensor semantics")
SET = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

DTYPES = ["float32", "float64", "int64", "int32", "int16", "int8", "uint8", "bool", "float16"]


@st.composite
def np_arrays(draw: st.DrawFn, dtypes: list = DTYPES, max_side: int = 5) -> np.ndarray:
    dt = np.dtype(draw(st.sampled_from(dtypes)))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=max_side))
    if dt.kind == "f":
        el = st.one_of(st.floats(-1e4, 1e4, width=16 if dt.itemsize == 2 else 32),
                       st.sampled_from([float("nan"), float("inf"), -0.0, 1e-6, 123456.0]))
    elif dt.kind == "b":
        el = st.booleans()
    else:
        info = np.iinfo(dt)
        el = st.integers(int(info.min), int(info.max))
    return draw(hnp.arrays(dt, shape, elements=el))


def both(a: np.ndarray) -> tuple[Tensor, "torch.Tensor"]:
    return from_numpy(a.copy()), torch.from_numpy(a.copy())


# --- printing ---------------------------------------------------------------------------------
@SET
@given(a=np_arrays())
def test_repr_matches_torch(a: np.ndarray) -> None:
    m, t = both(a)
    assert repr(m) == repr(t)


@pytest.mark.parametrize("expr", [
    "torch.arange(2000.)", "torch.arange(24).reshape(2, 3, 4)", "torch.zeros(2, 0, 3)",
    "torch.tensor([1e-10, 0.])", "torch.tensor([123456789., 1.])", "torch.ones(40, 40)",
    "torch.arange(40.).reshape(2, 20) * 1.5", "torch.tensor([1.5, 2.25], dtype=torch.float64)",
    "torch.tensor([], dtype=torch.int64)", "torch.tensor(3.)", "torch.tensor(True)",
    "torch.arange(1200).reshape(30, 40)", "torch.tensor([1+2j, 3-1j])",
    "torch.full((3, 100), -7.25)", "torch.linspace(-1, 1, 1500).reshape(3, 500)"])
def test_repr_fixed_cases(expr: str) -> None:
    t = eval(expr)
    m = from_numpy(t.numpy().copy())
    assert repr(m) == repr(t)


def test_repr_requires_grad_and_str() -> None:
    m = tensor([1.0, 2.0], requires_grad=True)
    assert repr(m) == repr(torch.tensor([1.0, 2.0], requires_grad=True))
    assert str(tensor([1, 2])) == "tensor([1, 2])"
    assert repr(Size([2, 3])) == repr(torch.Size([2, 3])) and repr(Size([])) == "torch.Size([])"
    assert f"{tensor(2.5):.2f}" == "2.50"


# --- metadata and views --------------------------------------------------------------------------
def _view_ops() -> list:
    return [lambda x: x, lambda x: x.t() if x.dim() <= 2 else x.transpose(0, 1),
            lambda x: x[1:], lambda x: x[:, ::2], lambda x: x.unsqueeze(1),
            lambda x: x.permute(2, 0, 1), lambda x: x.expand(2, 3, 4, 5),
            lambda x: x.diagonal(), lambda x: x.narrow(2, 1, 2), lambda x: x.select(1, 2),
            lambda x: x.unfold(2, 2, 1), lambda x: x[..., None, 0]]


@pytest.mark.parametrize("k", range(12))
def test_view_metadata_matches_torch(k: int) -> None:
    a = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    m, t = both(a)
    f = _view_ops()[k]
    vm, vt = f(m), f(t)
    assert tuple(vm.shape) == tuple(vt.shape)
    assert vm.storage_offset() == vt.storage_offset()
    assert vm.is_contiguous() == vt.is_contiguous()
    assert vm.tolist() == vt.tolist()
    if vt.numel() > 1:
        nontrivial = [i for i, s in enumerate(vt.shape) if s > 1]
        assert [vm.stride()[i] for i in nontrivial] == [vt.stride()[i] for i in nontrivial]


def test_size_dim_numel() -> None:
    x = zeros(2, 3, 4)
    assert x.size() == Size([2, 3, 4]) and x.size(-1) == 4 and x.shape[1] == 3
    assert x.dim() == 3 and x.ndim == 3 and x.numel() == 24 and len(x) == 2
    assert x.element_size() == 4 and x.dtype == D.float32 and str(x.device) == "cpu"
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of "
                                         r"\[-3, 2\], but got 3\)"):
        x.size(3)
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(tensor(1.0))


def test_numpy_is_zero_copy_and_from_numpy_aliases() -> None:
    a = np.zeros(3, np.float32)
    t = from_numpy(a)
    t[0] = 5
    assert a[0] == 5 and t.numpy() is a
    t.add_(1)
    assert a.tolist() == [6, 1, 1]
    assert np.asarray(t) is a


def test_read_only_arrays() -> None:
    a = np.zeros(3)
    a.flags.writeable = False
    t = from_numpy(a)
    assert t.sum().item() == 0.0           # reading works
    ro = np.frombuffer(b"\x00" * 24, dtype=np.float64)
    t2 = from_numpy(ro)
    with pytest.raises(RuntimeError, match="read-only"):
        t2.add_(1)
    c = t2.clone()
    c.add_(1)
    assert c.tolist() == [1.0, 1.0, 1.0]


def test_expanded_tensors_refuse_inplace_writes_with_overlap() -> None:
    x = tensor([1.0, 2.0]).expand(3, 2)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        x.add_(1)


# --- conversions -----------------------------------------------------------------------------------
def test_scalar_conversions_and_errors() -> None:
    assert tensor([3.7]).item() == pytest.approx(3.7) and isinstance(tensor(3).item(), int)
    assert isinstance(tensor(True).item(), bool) and int(tensor(-2.9)) == -2
    assert float(tensor([5])) == 5.0 and bool(tensor([0.0])) is False
    assert [1, 2, 3][tensor(1)] == 2
    for fn, exc, msg in (
            (lambda: bool(tensor([1, 2])), RuntimeError,
             "Boolean value of Tensor with more than one value is ambiguous"),
            (lambda: bool(tensor([])), RuntimeError,
             "Boolean value of Tensor with no values is ambiguous"),
            (lambda: tensor([1, 2]).item(), RuntimeError,
             "a Tensor with 2 elements cannot be converted to Scalar"),
            (lambda: int(tensor([1, 2])), ValueError,
             "only one element tensors can be converted to Python scalars"),
            (lambda: [1][tensor(0.0)], TypeError,
             "only integer tensors of a single element can be converted to an index")):
        with pytest.raises(exc, match=msg):
            fn()


@SET
@given(a=np_arrays(max_side=3))
def test_tolist_iteration_contains(a: np.ndarray) -> None:
    m, t = both(a)
    assert _same_list(m.tolist(), t.tolist())
    if a.ndim:
        assert [_same_list(x.tolist(), y.tolist()) for x, y in zip(m, t)] == [True] * len(t)
        assert len(m) == len(t)
    if a.size:
        v = a.reshape(-1)[0].item()
        assert (v in m) == (v in t)


def _same_list(x: object, y: object) -> bool:
    if isinstance(x, list):
        return isinstance(y, list) and len(x) == len(y) and all(_same_list(p, q)
                                                                for p, q in zip(x, y))
    if isinstance(x, float) and x != x:
        return isinstance(y, float) and y != y
    return type(x) is type(y) and x == y


def test_clone_contiguous_detach_copy_pickle() -> None:
    x = tensor([[1, 2], [3, 4]])
    tt = x.t()
    c = tt.contiguous()
    assert c.is_contiguous() and not tt.is_contiguous() and c.tolist() == tt.tolist()
    assert x.contiguous() is x
    cl = x.clone()
    cl[0, 0] = 9
    assert x[0, 0].item() == 1
    d = x.detach()
    d[0, 0] = 7
    assert x[0, 0].item() == 7
    y = copy.deepcopy(x)
    y[0, 0] = 0
    assert x[0, 0].item() == 7
    z = pickle.loads(pickle.dumps(x))
    assert z.tolist() == x.tolist() and z.dtype == x.dtype
    assert hash(x) != hash(y) and x is not y


def test_requires_grad_flag() -> None:
    x = tensor([1.0])
    assert x.requires_grad is False
    assert x.requires_grad_() is x and x.requires_grad
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        tensor([1]).requires_grad_()
    assert x.numpy() is x._a      # tsjit has no autograd, so numpy() never refuses


def test_legacy_constructor() -> None:
    assert Tensor(2, 3).shape == (2, 3) and Tensor(2, 3).dtype == D.float32
    assert Tensor([1, 2]).tolist() == [1.0, 2.0]
    a = np.arange(3)
    assert Tensor(a).numpy() is a


def test_dtype_method_shorthands() -> None:
    x = tensor([1.7, -2.2])
    assert x.long().tolist() == [1, -2] and x.int().dtype == D.int32
    assert x.double().dtype == D.float64 and x.bool().tolist() == [True, True]
    assert x.half().dtype == D.float16 and x.byte().dtype == D.uint8
    assert x.type() == "torch.FloatTensor" and x.type(D.int16).dtype == D.int16
    assert x.float() is x
