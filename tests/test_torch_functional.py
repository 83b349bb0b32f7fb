"""tsjit.functional (torch.functional): unique and tensordot, eagerly and scripted,
against PyTorch."""
from __future__ import annotations

from typing import Tuple

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import tsjit
import tsjit as torch_like

try:  # PyTorch is only an oracle
    import torch
except ImportError:  # pragma: no cover - depends on the environment
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed; the "
                                 "differential oracle is unavailable")
SET = settings(max_examples=30, deadline=None)


def _np(r):
    return [x.numpy() for x in r] if isinstance(r, tuple) else r.numpy()


def _same(mine, theirs) -> None:
    mine, theirs = _np(mine), _np(theirs)
    if isinstance(theirs, list):
        assert isinstance(mine, list) and len(mine) == len(theirs)
        for a, b in zip(mine, theirs):
            _same_array(a, b)
    else:
        _same_array(mine, theirs)


def _same_array(a: np.ndarray, b: np.ndarray) -> None:
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=1e-6, equal_nan=True)


@needs_torch
@SET
@given(a=hnp.arrays(st.sampled_from([np.float32, np.int64]),
                    hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
                    elements=st.integers(-3, 3)),
       inverse=st.booleans(), counts=st.booleans(), use_dim=st.booleans())
def test_unique_eager(a: np.ndarray, inverse: bool, counts: bool, use_dim: bool) -> None:
    dim = 0 if use_dim and a.ndim else None
    try:
        theirs = torch.unique(torch.from_numpy(a.copy()), return_inverse=inverse,
                              return_counts=counts, dim=dim)
    except RuntimeError as e:   # e.g. zero-sized dimensions not selected by dim
        with pytest.raises(RuntimeError, match=str(e).strip()[:30]):
            tsjit.unique(tsjit.from_numpy(a.copy()), return_inverse=inverse,
                         return_counts=counts, dim=dim)
        return
    mine = tsjit.unique(tsjit.from_numpy(a.copy()), return_inverse=inverse,
                        return_counts=counts, dim=dim)
    _same(mine, theirs)


class _Unique(torch_like.nn.Module):
    def forward(self, x: torch_like.Tensor) -> Tuple[torch_like.Tensor, torch_like.Tensor,
                                                     torch_like.Tensor, torch_like.Tensor]:
        u = torch_like.unique(x)
        v, inv = torch_like.unique(x, sorted=True, return_inverse=True)
        w, inv2, cnt = torch_like.unique(x, return_inverse=True, return_counts=True)
        return u, inv, cnt, torch_like.unique(x.view(2, -1), dim=1)


def test_unique_scripted_picks_the_implementation_by_the_flags() -> None:
    s = tsjit.script(_Unique())
    code = s.code
    assert "__torch__.torch.functional._return_output" in code
    assert "__torch__.torch.functional._return_inverse" in code
    assert "__torch__.torch.functional._unique_impl" in code
    x = tsjit.tensor([3.0, 1.0, 3.0, 2.0])
    for got, want in zip(s(x), _Unique()(x)):
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_unique_flag_must_be_constant() -> None:
    class NotConstant(torch_like.nn.Module):
        def forward(self, x: torch_like.Tensor, flag: bool) -> torch_like.Tensor:
            return torch_like.unique(x, return_counts=flag)[0]

    with pytest.raises(tsjit.CompileError, match="'return_counts' must be a constant bool"):
        tsjit.script(NotConstant())


@needs_torch
@pytest.mark.parametrize("dims", [0, 1, ([1, 0], [0, 1]), ([1], [0])])
def test_tensordot_eager(dims) -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(6, dtype=np.float32).reshape(3, 2)
    _same(tsjit.tensordot(tsjit.from_numpy(a), tsjit.from_numpy(b), dims=dims),
          torch.tensordot(torch.from_numpy(a), torch.from_numpy(b), dims=dims))


def test_tensordot_bad_dims() -> None:
    a = tsjit.ones(2, 3)
    with pytest.raises(RuntimeError, match="tensordot expects dims >= 0"):
        tsjit.tensordot(a, a, dims=-1)
    with pytest.raises(RuntimeError, match="tensordot expects dims < ndim_a or ndim_b"):
        tsjit.tensordot(a, a, dims=3)
    with pytest.raises(RuntimeError, match="tensordot expects dims to be int or"):
        tsjit.tensordot(a, a, dims="2")
    with pytest.raises(RuntimeError, match="contracted dimensions need to match"):
        tsjit.tensordot(a, tsjit.ones(3, 2), dims=2)


class _Dot(torch_like.nn.Module):
    def forward(self, a: torch_like.Tensor, b: torch_like.Tensor) -> torch_like.Tensor:
        return torch_like.tensordot(a, b, dims=1)


def test_tensordot_scripted() -> None:
    s = tsjit.script(_Dot())
    assert "__torch__.torch.functional.tensordot" in s.code
    a, b = tsjit.randn(2, 3), tsjit.randn(3, 4)
    np.testing.assert_allclose(s(a, b).numpy(), a.numpy() @ b.numpy(), rtol=1e-5)
