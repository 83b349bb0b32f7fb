"""The eager API: tensor() inference, factories, the schema-binding dispatcher behind
`tsjit.ops.eager` and Tensor methods, operators, grad mode and random numbers."""
from __future__ import annotations

import numpy as np
import pytest

from tsjit._tensor import (Size, Tensor, arange, dtypes as D, eye, from_numpy, full,
                          is_grad_enabled, linspace, manual_seed, ones, rand, randint,
                          randn, tensor, zeros, zeros_like)
from tsjit.autograd import enable_grad, no_grad, set_grad_enabled
from tsjit.ops import eager
from tsjit.ops import functions as F

torch = pytest.importorskip("torch", reason="PyTorch is the oracle for the eager API")


def same(m: Tensor, t: "torch.Tensor") -> bool:
    return str(m.dtype) == str(t.dtype) and tuple(m.shape) == tuple(t.shape) and \
        np.allclose(m.numpy(), t.numpy(), equal_nan=True, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("data", [
    1, 2.5, True, 1 + 2j, [1, 2], [1.0, 2], [True, False], [True, 2], [[1, 2], [3, 4]], [],
    [[]], [[], []], [1, 2.5, True], [[1.5], [2]], np.float64(2.0), np.int32(3),
    [np.float64(1.0)], np.arange(3, dtype=np.int16), [2 ** 62]])
def test_tensor_inference(data: object) -> None:
    assert same(tensor(data), torch.tensor(data))


def test_tensor_from_tensors_and_errors() -> None:
    assert same(tensor([tensor(1.5), tensor(2.5)]), torch.tensor([1.5, 2.5]))
    with pytest.raises(ValueError, match="expected sequence of length 2 at dim 1 \\(got 1\\)"):
        tensor([[1, 2], [3]])
    with pytest.raises(TypeError):
        tensor(["a"])
    with pytest.raises(RuntimeError, match="Overflow"):
        tensor([2 ** 64])
    x = tensor([1, 2])
    y = tensor(x, dtype=D.float64)
    assert y.dtype == D.float64 and not np.shares_memory(y.numpy(), x.numpy())


def test_factories_accept_python_forms() -> None:
    assert same(zeros(2, 3), torch.zeros(2, 3)) and same(zeros((2, 3)), torch.zeros((2, 3)))
    assert same(zeros([2], dtype=D.int64), torch.zeros([2], dtype=torch.int64))
    assert same(ones(Size([3])), torch.ones(3))
    assert same(full((2,), 7), torch.full((2,), 7)) and same(full((2,), 1.5), torch.full((2,), 1.5))
    assert same(full((1,), True), torch.full((1,), True))
    assert same(arange(5), torch.arange(5)) and same(arange(1, 2, 0.25), torch.arange(1, 2, 0.25))
    assert same(arange(0, 10, 3, dtype=D.float64), torch.arange(0, 10, 3, dtype=torch.float64))
    assert same(linspace(0, 1, 5), torch.linspace(0, 1, 5))
    assert same(eye(2, 3), torch.eye(2, 3))
    assert same(zeros_like(tensor([1, 2])), torch.zeros_like(torch.tensor([1, 2])))
    assert zeros(2, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="negative dimension"):
        zeros(-1)


def test_random_numbers_are_seeded_numpy_generators() -> None:
    manual_seed(0)
    a = rand(3)
    manual_seed(0)
    assert rand(3).tolist() == a.tolist()
    assert randn(2, 2).dtype == D.float32 and randint(0, 5, (4,)).dtype == D.int64
    assert randint(3, (10,)).numpy().max() < 3


def test_dispatcher_binds_overloads_like_pytorch() -> None:
    x = tensor([[1.0, -2.0], [3.0, 4.0]])
    t = torch.tensor([[1.0, -2.0], [3.0, 4.0]])
    cases = [
        (lambda m: F.add(m, m, alpha=2), lambda q: torch.add(q, q, alpha=2)),
        (lambda m: F.add(m, 1), lambda q: torch.add(q, 1)),
        (lambda m: F.sum(m), lambda q: torch.sum(q)),
        (lambda m: F.sum(m, 1, keepdim=True), lambda q: torch.sum(q, 1, keepdim=True)),
        (lambda m: F.sum(m, dim=(0, 1)), lambda q: torch.sum(q, dim=(0, 1))),
        (lambda m: F.sum(m, dtype=D.float64), lambda q: torch.sum(q, dtype=torch.float64)),
        (lambda m: m.view(4), lambda q: q.view(4)),
        (lambda m: m.view(1, 4), lambda q: q.view(1, 4)),
        (lambda m: m.view(-1), lambda q: q.view(-1)),
        (lambda m: m.reshape((4, 1)), lambda q: q.reshape((4, 1))),
        (lambda m: m.permute(1, 0), lambda q: q.permute(1, 0)),
        (lambda m: m.repeat(2, 1), lambda q: q.repeat(2, 1)),
        (lambda m: m.expand(3, 2, 2), lambda q: q.expand(3, 2, 2)),
        (lambda m: m.flip(0), lambda q: q.flip(0)),
        (lambda m: m.transpose(0, 1), lambda q: q.transpose(0, 1)),
        (lambda m: m.std(0), lambda q: q.std(0)),
        (lambda m: m.std(unbiased=False), lambda q: q.std(unbiased=False)),
        (lambda m: m.max(), lambda q: q.max()),
        (lambda m: m.max(1).values, lambda q: q.max(1).values),
        (lambda m: m.max(dim=0)[1], lambda q: q.max(dim=0)[1]),
        (lambda m: F.max(m, m), lambda q: torch.max(q, q)),
        (lambda m: m.to(D.int64), lambda q: q.to(torch.int64)),
        (lambda m: m.to("cpu"), lambda q: q.to("cpu")),
        (lambda m: m.to(dtype=D.float64), lambda q: q.to(dtype=torch.float64)),
        (lambda m: m.to(m.long()), lambda q: q.to(q.long())),
        (lambda m: F.clamp(m, min=0), lambda q: torch.clamp(q, min=0)),
        (lambda m: F.clamp(m, max=m[0]), lambda q: torch.clamp(q, max=q[0])),
        (lambda m: F.where(m > 0, m, 0.0), lambda q: torch.where(q > 0, q, 0.0)),
        (lambda m: F.softmax(m, -1), lambda q: torch.softmax(q, -1)),
        (lambda m: F.cat([m, m], 1), lambda q: torch.cat([q, q], 1)),
        (lambda m: F.split(m, 1)[1], lambda q: torch.split(q, 1)[1]),
        (lambda m: m.split([1, 1], dim=1)[0], lambda q: q.split([1, 1], dim=1)[0]),
        (lambda m: F.conv2d(m[None, None], m[None, None], padding=1),
         lambda q: torch.conv2d(q[None, None], q[None, None], padding=1)),
        (lambda m: F.div(m, 3, rounding_mode="floor"),
         lambda q: torch.div(q, 3, rounding_mode="floor")),
        (lambda m: m.new_zeros(2, 3), lambda q: q.new_zeros(2, 3)),
        (lambda m: F.norm(m), lambda q: torch.norm(q)),
        (lambda m: m.squeeze(), lambda q: q.squeeze()),
        (lambda m: m.unsqueeze(-1), lambda q: q.unsqueeze(-1)),
        (lambda m: m.masked_fill(m > 0, -1.0), lambda q: q.masked_fill(q > 0, -1.0)),
        (lambda m: m.sort(descending=True).values, lambda q: q.sort(descending=True).values),
    ]
    for i, (fm, ft) in enumerate(cases):
        assert same(fm(x), ft(t)), i


def test_dispatcher_errors_and_out() -> None:
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        F.add(tensor([1]), "x")
    with pytest.raises(AttributeError):
        tensor([1]).no_such_method()
    out = zeros(2)
    r = F.add(tensor([1.0, 2.0]), 1, out=out)
    assert r is out and out.tolist() == [2.0, 3.0]
    assert "values" in F.max(tensor([[1, 2]]), 1)._fields


def test_operators_reflected_and_inplace() -> None:
    x = tensor([1, 2, 3])
    t = torch.tensor([1, 2, 3])
    for fm, ft in ((lambda a: 2 - a, lambda a: 2 - a), (lambda a: 7 // a, lambda a: 7 // a),
                   (lambda a: 2 ** a, lambda a: 2 ** a), (lambda a: 1.5 / a, lambda a: 1.5 / a),
                   (lambda a: -a, lambda a: -a), (lambda a: ~a, lambda a: ~a),
                   (lambda a: a @ a, lambda a: a @ a), (lambda a: 5 % a, lambda a: 5 % a),
                   (lambda a: 1 << a, lambda a: 1 << a), (lambda a: a == 2, lambda a: a == 2),
                   (lambda a: abs(-a), lambda a: abs(-a)), (lambda a: 3 & a, lambda a: 3 & a)):
        assert same(fm(x), ft(t))
    y = x
    y += 1
    y *= 2
    y -= tensor([1, 1, 1])
    assert y is x and x.tolist() == [3, 5, 7]
    assert (x == None) is False and (x != "a") is True  # noqa: E711
    arr = np.array([1, 1, 1])
    r = arr + x
    assert isinstance(r, Tensor) and r.tolist() == [4, 6, 8]


def test_grad_mode() -> None:
    assert is_grad_enabled()
    with no_grad():
        assert not is_grad_enabled()
        with enable_grad():
            assert is_grad_enabled()
        assert not is_grad_enabled()
    assert is_grad_enabled()

    @no_grad()
    def f() -> bool:
        return is_grad_enabled()
    assert f() is False and is_grad_enabled()
    with set_grad_enabled(False):
        assert not is_grad_enabled()
    assert is_grad_enabled()


def test_operator_names_cover_histogram_tensor_ops() -> None:
    names = set(eager.operator_names())
    for n in ("add", "matmul", "conv2d", "softmax", "layer_norm", "index_put_", "zeros",
              "tensor", "upsample_bilinear2d", "lstm", "scaled_dot_product_attention"):
        assert n in names


def test_from_numpy_shares_and_methods_chain() -> None:
    a = np.arange(6, dtype=np.float32)
    x = from_numpy(a).view(2, 3).t().contiguous().sum(0)
    assert x.tolist() == [3.0, 12.0]


def test_operators_named_like_builtins_shadow_no_code() -> None:
    # `tsjit.all` is kept on tsjit.ops.functions, not on the module whose code calls all()
    import tsjit
    x = tsjit.ones(2, 2)
    assert bool(tsjit.all(x)) and bool(tsjit.any(x)) and float(tsjit.sum(x)) == 4.0
    assert tsjit.max(x).item() == 1.0
    assert tsjit.zeros((2, 3)).shape == (2, 3)                   # binding calls all()
    assert eager.is_eager(eager.lookup("all").overloads()[0])   # is_eager calls any()
    with pytest.raises(AttributeError, match="module 'tsjit' has no attribute 'np'"):
        tsjit.np  # noqa: B018  (eager's own imports are no tsjit attributes)


def test_a_zero_dim_tensor_stands_for_a_scalar_argument():
    import tsjit as _t
    x = _t.zeros(3)
    t = _t.tensor(1.5)
    assert _t.equal(x.addcmul(t, t, value=t), _t.full((3,), 3.375))
    # ... but not a one-element tensor of higher rank, and not where a Tensor fits
    import pytest as _pytest
    with _pytest.raises(TypeError):
        x.addcmul(t, t, value=_t.tensor([2.0]))
    assert (_t.ones(2, dtype=_t.int32) * _t.tensor(2.0, dtype=_t.float64)).dtype == _t.float64


def test_an_int_argument_takes_a_zero_dim_integral_tensor_only():
    import tsjit as _t
    import pytest as _pytest
    x = _t.zeros(4)
    assert list(x.unsqueeze(_t.tensor(0)).shape) == [1, 4]
    for bad in (_t.tensor([0]), _t.tensor(1.1)):
        with _pytest.raises(TypeError):
            x.unsqueeze(bad)


def test_tensor_list_results_are_tuples():
    import tsjit as _t
    a = _t.arange(6.).reshape(2, 3)
    for r in (a.split(1), _t.chunk(a, 2), a.unbind(0), _t.where(a > 2),
              _t.split(a, split_size_or_sections=[1, 1])):
        assert type(r) is tuple


def test_python_api_argument_forms():
    import tsjit as _t
    a = _t.arange(6.).reshape(2, 3)
    assert _t.equal(_t.einsum("ij,jk->ik", a, a.t()), a @ a.t())
    assert _t.equal(_t.exp(input=a), a.exp())
    assert _t.allclose(a.norm(dim=1), _t.tensor([5.0 ** 0.5, 50.0 ** 0.5]))
    assert _t.allclose(a.norm(p="fro"), _t.tensor(55.0 ** 0.5)) and float(a.norm(1)) == 15.0
    assert _t.allclose(_t.norm(a, p="nuc"), _t.linalg.svdvals(a).sum())
    assert _t.equal(_t.ones(3).lerp_(_t.zeros(3), 0.5), _t.full((3,), 0.5))


def test_dtype_limits_generators_and_autocast():
    import tsjit as _t
    assert _t.finfo(_t.float32).eps == 2.0 ** -23 and _t.iinfo(_t.int8).min == -128
    g = _t.Generator().manual_seed(5)
    assert g.initial_seed() == 5
    state = g.get_state()
    assert _t.equal(g.set_state(state).get_state(), state)
    with _t.autocast("cpu", dtype=_t.bfloat16):
        assert (_t.ones(2) * 2).dtype == _t.float32     # no mixed precision on CPU


def test_buffer_registers_when_assigned():
    import tsjit as _t

    class M(_t.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.kept = _t.nn.Buffer(_t.ones(2))
            self.scratch = _t.nn.Buffer(_t.zeros(1), persistent=False)

        def forward(self, x):
            return x + self.kept

    m = M()
    assert list(m.state_dict()) == ["kept"] and sorted(dict(m.named_buffers())) == ["kept", "scratch"]
    assert _t.equal(_t.jit.script(m)(_t.ones(2)), _t.full((2,), 2.0))
