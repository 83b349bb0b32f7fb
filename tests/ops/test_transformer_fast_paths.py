"""The transformer kernels' fast paths (layer norm's matrix-vector statistics, softmax over the
last dim, attention, few-row linear, einsum as matmul, roll as block copies) against numpy
references in float64: odd shapes, non-contiguous inputs, float32 and float64, masks."""
from __future__ import annotations

import numpy as np
import pytest

import tsjit
from tsjit._tensor.kernel_util import fp_ignored, in_region
from tsjit.ops import registry

rng = np.random.default_rng(7)


def kernel(qualified: str):
    return in_region(registry.find(qualified).kernel)


def run(qualified: str, *args):
    with fp_ignored():
        return kernel(qualified)(*args)


def T(a: np.ndarray) -> tsjit.Tensor:
    return tsjit.from_numpy(a)


def noncontig(a: np.ndarray) -> np.ndarray:
    """`a`'s values in a non-contiguous array (a transposed copy's transpose)."""
    return np.ascontiguousarray(a.swapaxes(0, -1)).swapaxes(0, -1)


def tol(dt) -> dict:
    return dict(rtol=2e-5, atol=2e-5) if dt == np.float32 else dict(rtol=1e-12, atol=1e-12)


def ref_layer_norm(x, k, w, b, eps):
    axes = tuple(range(x.ndim - k, x.ndim))
    x = x.astype(np.float64)
    m = x.mean(axis=axes, keepdims=True)
    v = ((x - m) ** 2).mean(axis=axes, keepdims=True)
    y = (x - m) / np.sqrt(v + eps)
    return y * (1 if w is None else w) + (0 if b is None else b), m, 1 / np.sqrt(v + eps)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("shape,k", [((12, 32), 1), ((1, 7, 33), 1), ((3, 5, 4), 2),
                                     ((5,), 1), ((2, 0, 3), 1), ((4, 1), 1)])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("layout", ["c", "noncontig"])
def test_layer_norm(dt, shape, k, affine, layout):
    x = (rng.standard_normal(shape) * 3 + 5).astype(dt)
    if layout == "noncontig" and x.ndim > 1:
        x = noncontig(x)
    ns = list(shape[len(shape) - k:])
    w = rng.standard_normal(ns).astype(dt) if affine else None
    b = rng.standard_normal(ns).astype(dt) if affine else None
    y, m, r = run("aten::native_layer_norm", T(x), ns, w if w is None else T(w),
                  b if b is None else T(b), 1e-5)
    ey, em, er = ref_layer_norm(x, k, w, b, 1e-5)
    assert y.numpy().dtype == dt and y.shape == tuple(shape)
    np.testing.assert_allclose(y.numpy(), ey, **tol(dt))
    np.testing.assert_allclose(m.numpy(), em, **tol(dt))
    np.testing.assert_allclose(r.numpy(), er, rtol=1e-4 if dt == np.float32 else 1e-10)


def test_layer_norm_of_half_is_computed_in_float32():
    x = rng.standard_normal((3, 8)).astype(np.float16)
    y = run("aten::layer_norm", T(x), [8], None, None, 1e-5, True).numpy()
    assert y.dtype == np.float16
    np.testing.assert_allclose(y, ref_layer_norm(x, 1, None, None, 1e-5)[0], atol=4e-3)
