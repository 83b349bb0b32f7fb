"""Boolean-dispatched functionals (`F.max_pool2d(..., return_indices=...)`): scripting
compiles the implementation the constant flag chooses (its default when omitted), as
PyTorch's boolean_dispatch does, so each call has one return type."""
from typing import Tuple

import numpy as np
import pytest

import tsjit
import tsjit.nn.functional as F
from tsjit import Tensor


class _Pools(tsjit.nn.Module):
    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
        plain = F.max_pool2d(x, 2)                                  # default: values only
        values, indices = F.max_pool2d(x, 2, 2, 0, 1, False, True)  # positional flag
        a, ai = F.adaptive_max_pool2d(x, 3, return_indices=True)
        b = F.adaptive_max_pool1d(x.flatten(2), 4, False)
        return plain + values, indices, a, ai, b


def test_scripted_dispatch_matches_eager():
    x = tsjit.randn(2, 3, 6, 8)
    scripted = tsjit.script(_Pools())
    for got, want in zip(scripted(x), _Pools()(x)):
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    code = scripted.code
    assert "max_pool2d_with_indices" in code and "_max_pool2d" in code


def test_each_dispatch_has_its_own_return_type():
    class Wrong(tsjit.nn.Module):
        def forward(self, x: Tensor) -> Tensor:
            return F.max_pool1d(x, 2, return_indices=True)

    with pytest.raises(tsjit.CompileError, match="Tuple"):
        tsjit.script(Wrong())


def test_flag_must_be_a_constant():
    class NotConstant(tsjit.nn.Module):
        def forward(self, x: Tensor, flag: bool) -> Tensor:
            return F.max_pool2d(x, 2, return_indices=flag)[0]

    with pytest.raises(tsjit.CompileError) as err:
        tsjit.script(NotConstant())
    assert "'return_indices' must be a constant bool" in str(err.value)
    assert "^" in str(err.value)   # points at the source


class _Fractional(tsjit.nn.Module):
    def forward(self, x: Tensor, samples: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
        plain = F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=samples)
        values, indices = F.fractional_max_pool2d(x, 2, [3, 3], None, True, samples)
        return plain, values, indices


def test_fractional_pool_dispatch_and_indices():
    x, samples = tsjit.randn(2, 3, 7, 8), tsjit.rand(2, 3, 2)
    plain, values, indices = tsjit.script(_Fractional())(x, samples)
    np.testing.assert_array_equal(plain.numpy(), values.numpy())
    # each index points at its maximum in the flattened (h * W + w) plane
    flat = x.numpy().reshape(2, 3, -1)
    picked = np.take_along_axis(flat, indices.numpy().reshape(2, 3, -1), axis=2)
    np.testing.assert_array_equal(picked.reshape(values.shape), values.numpy())
    assert values.shape == (2, 3, 3, 3)
