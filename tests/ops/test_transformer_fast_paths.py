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
                                     ((5,), 1), ((2, 0, 3), 1), ((4, 1), 1),
                                     ((2, 3, 0), 2)])
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


def ref_softmax(x, safe=False):
    x = x.astype(np.float64)
    if x.size == 0:
        return x
    with np.errstate(all="ignore"):
        m = np.max(x, axis=-1, keepdims=True)
        e = np.exp(x - m)
        r = e / e.sum(axis=-1, keepdims=True)
    if safe and x.ndim:
        r[np.all(x == -np.inf, axis=-1)] = 0
    return r


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (1,), (7,), (3, 1), (2, 3, 12), (1, 3, 197, 19), (4, 0)])
@pytest.mark.parametrize("safe", [False, True])
def test_softmax_last(dt, shape, safe):
    from tsjit.ops.kernels.row_math import softmax_last
    x = np.asarray(rng.standard_normal(shape) * 30, dt)
    if x.ndim >= 2 and x.size:
        x.reshape(-1, x.shape[-1])[0] = -np.inf                  # a fully masked row
        x.reshape(-1, x.shape[-1])[-1, 0] = -np.inf              # a partly masked one
        x.reshape(-1, x.shape[-1])[-1, -1] = np.finfo(dt).min    # masks as HF writes them
    with fp_ignored():
        r = softmax_last(x.copy(), safe)
    assert r.dtype == dt and r.shape == x.shape
    np.testing.assert_allclose(r, ref_softmax(x, safe), **tol(dt))


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_softmax_last_nan_and_inf_rows_are_nan(bad):
    from tsjit.ops.kernels.row_math import softmax_last
    x = np.array([[1.0, bad, 2.0], [1.0, 2.0, 3.0]], np.float32)
    for safe in (False, True):
        with fp_ignored():
            r = softmax_last(x.copy(), safe)
        assert np.isnan(r[0]).all() and np.isfinite(r[1]).all()


def ref_attention(q, k, v, mask, causal, scale):
    q, k, v = (a.astype(np.float64) for a in (q, k, v))
    s = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    w = q @ np.swapaxes(k, -1, -2) * s
    if causal:
        w = np.where(np.tril(np.ones(w.shape[-2:], bool)), w, -np.inf)
    if mask is not None:
        w = np.where(mask, w, -np.inf) if mask.dtype == np.bool_ else w + mask
    return ref_softmax(w, safe=True) @ v


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("mask", [None, "bool", "float", "bool_rows"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("layout", ["c", "noncontig"])
def test_attention(dt, mask, causal, layout):
    q = rng.standard_normal((2, 3, 7, 5)).astype(dt)
    k = rng.standard_normal((2, 3, 6, 5)).astype(dt)
    v = rng.standard_normal((2, 3, 6, 4)).astype(dt)
    if layout == "noncontig":
        q, k, v = noncontig(q), k.swapaxes(1, 2).copy().swapaxes(1, 2), noncontig(v)
    m = None
    if mask == "bool":
        m = rng.random((7, 6)) > 0.4
        m[2] = False
    elif mask == "bool_rows":       # a key-padding mask broadcast over heads and queries
        m = np.broadcast_to(np.array([True] * 4 + [False] * 2), (2, 1, 7, 6))
    elif mask == "float":
        m = np.where(rng.random((3, 7, 6)) > 0.4, rng.standard_normal((3, 7, 6)),
                     -np.inf).astype(dt)
    r = run("aten::scaled_dot_product_attention", T(q), T(k), T(v),
            None if m is None else T(m), 0.0, causal, None, False).numpy()
    assert r.dtype == dt and r.shape == (2, 3, 7, 4)
    np.testing.assert_allclose(r, ref_attention(q, k, v, m, causal, None), **tol(dt))


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("xs,n", [((12, 32), 32), ((1, 12, 32), 64), ((2, 3, 5), 7), ((0, 4), 3),
                                  ((8, 300), 260), ((1, 300), 260), ((5,), 3)])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("layout", ["c", "noncontig"])
def test_linear(dt, xs, n, bias, layout):
    x = rng.standard_normal(xs).astype(dt)
    w = rng.standard_normal((n, xs[-1])).astype(dt)
    b = rng.standard_normal(n).astype(dt) if bias else None
    if layout == "noncontig":
        x, w = noncontig(x), noncontig(w)
    r = run("aten::linear", T(x), T(w), None if b is None else T(b)).numpy()
    e = x.astype(np.float64) @ w.T.astype(np.float64) + (0 if b is None else b)
    assert r.dtype == dt and r.shape == e.shape
    np.testing.assert_allclose(r, e, rtol=1e-4 if dt == np.float32 else 1e-12,
                               atol=1e-4 if dt == np.float32 else 1e-12)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("m,k,n", [(12, 32, 96), (3, 5, 7), (8, 300, 260)])
@pytest.mark.parametrize("bias", ["row", "full", "column"])
@pytest.mark.parametrize("scale", [(1, 1), (0.5, 2), (1.0, 1)])
def test_addmm(dt, m, k, n, bias, scale):
    a, b = rng.standard_normal((m, k)).astype(dt), noncontig(rng.standard_normal((k, n)).astype(dt))
    c = rng.standard_normal({"row": (n,), "full": (m, n), "column": (m, 1)}[bias]).astype(dt)
    beta, alpha = scale
    r = run("aten::addmm", T(c), T(a), T(b), beta, alpha).numpy()
    e = beta * c.astype(np.float64) + alpha * (a.astype(np.float64) @ b)
    assert r.dtype == dt and r.shape == (m, n)
    np.testing.assert_allclose(r, e, rtol=1e-4 if dt == np.float32 else 1e-12,
                               atol=1e-4 if dt == np.float32 else 1e-12)


def test_linear_and_addmm_reject_mixed_dtypes():
    x, w = T(np.ones((2, 3), np.float32)), T(np.ones((4, 3), np.float64))
    with pytest.raises(RuntimeError, match="same dtype"):
        run("aten::linear", x, w, None)
    with pytest.raises(RuntimeError, match="same dtype"):
        run("aten::linear", x, T(np.ones((4, 3), np.float32)), T(np.ones(4, np.float64)))
    with pytest.raises(RuntimeError, match="same dtype"):
        run("aten::addmm", T(np.ones(4, np.float32)), x, T(np.ones((3, 4), np.float64)), 1, 1)


@pytest.mark.parametrize("name", ["add", "sub", "mul"])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("other", [0.1, 3, -7.5e30, 2 ** 40, "f64_0d", "f32_0d", "i64_0d",
                                   "f16_0d", "bool_0d", "same_shape", "row"])
def test_arith_fast_paths_match_the_checked_kernels(name, dt, other):
    from tsjit.ops.kernels import tensor_arith as A
    slow = {"add": A._add_checked, "sub": A._sub_checked, "mul": A._mul_checked}[name]
    x = noncontig(rng.standard_normal((3, 4)).astype(dt))
    o = {"f64_0d": np.array(0.3), "f32_0d": np.array(0.3, np.float32),
         "i64_0d": np.array(5), "f16_0d": np.array(0.3, np.float16),
         "bool_0d": np.array(True), "same_shape": rng.standard_normal((3, 4)).astype(dt),
         "row": rng.standard_normal(4).astype(dt)}.get(other, other)
    o = T(o) if isinstance(o, np.ndarray) else o
    if name == "sub" and other == "bool_0d":
        with pytest.raises(RuntimeError):
            run(f"aten::{name}.Tensor", T(x), o, 1)
        return
    args = (T(x), o) + ((1,) if name != "mul" else ())
    with fp_ignored():
        fast = getattr(A, name)(*args).numpy()
        plain = slow(*args).numpy()
    assert fast.dtype == plain.dtype == dt
    np.testing.assert_array_equal(fast, plain)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("eq", ["B G H I D, B G H J D -> B G H I J", "bhij,bhjd->bhid",
                                "ij,jk->ik", "ji,jk->ik", "ij,kj->ik", "ji,kj->ik", "bij,bjk->bki",
                                "kik,kkj->kij", "bij,bkj->bij", "bij,bjk->bik"])
@pytest.mark.parametrize("layout", ["c", "noncontig"])
def test_einsum_matrix_products(dt, eq, layout):
    letters = {c: n for c, n in zip("BGHIJDbhijdk", (2, 3, 2, 4, 5, 3, 2, 3, 4, 5, 3, 4))}
    if eq == "kik,kkj->kij":
        letters.update(k=3, i=3)
    lhs = eq.replace(" ", "").split("->")[0].split(",")
    ops = [(rng.standard_normal([letters[c] for c in term]) * 4).astype(dt) for term in lhs]
    if layout == "noncontig":
        ops = [noncontig(o) for o in ops]
    r = run("aten::einsum", eq, [T(o) for o in ops], None).numpy()
    e = np.einsum(eq.replace(" ", ""), *(o.astype(np.float64) for o in ops))
    assert r.dtype == dt and r.shape == e.shape
    np.testing.assert_allclose(r, e, **tol(dt if dt != np.int64 else np.float64))


def test_einsum_matrix_form_is_found_only_for_matrix_products():
    from tsjit.ops.kernels.tensor_linalg import _matmul_form
    assert _matmul_form("BGHID,BGHJD->BGHIJ") == (False, True, "BGHIJ")
    assert _matmul_form("ji,jk->ik") == (True, False, "ik")
    for eq in ["ii,ij->ij", "bij,bjk->bki", "ij,jk->i", "bij,cjk->bik", "ij,ij->ij", "i,i->",
               "kik,kkj->kij", "...ij,...jk->...ik", "ij,jk"]:
        assert _matmul_form(eq) is None, eq


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("shape", [(7,), (3, 1), (2, 3, 49), (2, 0, 4)])
@pytest.mark.parametrize("layout", ["c", "noncontig"])
def test_softmax_kernel_over_the_last_dim(dt, shape, layout):
    x = (rng.standard_normal(shape) * 10).astype(dt)
    if x.ndim >= 2 and x.size:
        x[0, 0] = -np.inf
    if layout == "noncontig":
        x = noncontig(x)
    for dim in (-1, x.ndim - 1):
        r = run("aten::softmax.int", T(x), dim, None).numpy()
        assert r.dtype == dt and r.shape == x.shape
        np.testing.assert_allclose(r, ref_softmax(x), **(tol(dt) if dt != np.float16 else
                                                         dict(rtol=2e-3, atol=1e-3)))
    r64 = run("aten::softmax.int", T(x), -1, tsjit.float64).numpy()
    assert r64.dtype == np.float64
    np.testing.assert_allclose(r64, ref_softmax(x), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1, 12, 64), (5,), (3, 70000), (2,)])
@pytest.mark.parametrize("layout", ["c", "noncontig"])
def test_gelu_fast_path_matches_the_generic_kernel(dt, shape, layout):
    from tsjit.ops.kernels import tensor_activation as A
    x = (rng.standard_normal(shape) * 4).astype(dt)
    x.reshape(-1)[:3] = [np.inf, -np.inf, np.nan][:x.size]
    if layout == "noncontig":
        x = noncontig(x)
    fast = run("aten::gelu", T(x), "none").numpy()
    plain = A._gelu_f(T(x), "none").numpy()
    assert fast.dtype == dt and fast.shape == x.shape
    np.testing.assert_array_equal(fast, plain)
    if dt == np.float32:      # PyTorch's vectorised kernel: +inf gives NaN
        assert np.isnan(fast.reshape(-1)[0])
    import scipy.special
    x64 = x.astype(np.float64)
    ok = np.isfinite(x64)
    np.testing.assert_allclose(fast[ok], 0.5 * x64[ok] * scipy.special.erfc(-x64[ok] / np.sqrt(2)),
                               rtol=1e-5 if dt == np.float32 else 1e-12, atol=1e-6)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_gelu_of_one_infinite_element_is_infinite(dt):
    assert run("aten::gelu", T(np.array([np.inf], dt)), "none").numpy()[0] == np.inf


@pytest.mark.parametrize("shifts,dims", [([-3, -3], [1, 2]), ([3], [0]), ([0, 5], [1, 2]),
                                         ([7, -11, 2], [0, 1, 2]), ([2, 2], [1, 1]),
                                         ([1, 1, 1, 1], [0, 1, 2, 3]), ([4], [-1]), ([13], [])])
@pytest.mark.parametrize("layout", ["c", "noncontig"])
def test_roll_matches_numpy(shifts, dims, layout):
    x = rng.standard_normal((3, 5, 4, 2)).astype(np.float32)
    if layout == "noncontig":
        x = noncontig(x)
    r = run("aten::roll", T(x), shifts, dims).numpy()
    e = np.roll(x.reshape(-1), shifts[0]).reshape(x.shape) if not dims else \
        np.roll(x, shifts, dims)
    np.testing.assert_array_equal(r, e)
    if 0 < len(dims) <= 3 and len(set(dims)) == len(dims):     # the block copies' result
        assert r.flags.c_contiguous


@pytest.mark.parametrize("pad", [[0, 0, 0, 0, 0, 0], [0, 0], [0, 0, 0, 0, 0, 0, 0, 0],
                                 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0]])
@pytest.mark.parametrize("layout", ["c", "noncontig"])
def test_pad_by_nothing_is_a_copy_like_the_general_path(pad, layout):
    from tsjit.ops.kernels import tensor_pool as P
    x = rng.standard_normal((1, 4, 4, 3)).astype(np.float32)
    if layout == "noncontig":
        x = noncontig(x)
    try:
        plain = P.constant_pad_nd(T(x), pad, 0).numpy()
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match=str(e)[:30]):
            run("aten::pad", T(x), pad, "constant", None)
        return
    t = T(x)
    r = run("aten::pad", t, pad, "constant", None)
    np.testing.assert_array_equal(r.numpy(), plain)
    assert r.numpy().flags.c_contiguous and not np.shares_memory(r.numpy(), x)


_OTHERS = ["same", "row", "bad_shape", 0.1, 3, -2 ** 62, True, "f64_0d", "i64", "bool"]


def _operand(kind, x):
    if not isinstance(kind, str):
        return kind
    return {"same": lambda: T((rng.standard_normal(x.shape) * 3).astype(x.dtype)),
            "row": lambda: T(x[0].copy()),
            "bad_shape": lambda: T(np.ones((2, 7), x.dtype)),
            "f64_0d": lambda: T(np.array(0.25)),
            "i64": lambda: T(rng.integers(-3, 3, x.shape)),
            "bool": lambda: T(rng.random(x.shape) > 0.5)}[kind]()


def _outcome(fn, *args):
    try:
        with fp_ignored():
            return fn(*args).numpy()
    except RuntimeError as e:
        return f"RuntimeError: {e}"


@pytest.mark.parametrize("name", ["eq", "ne", "lt", "le", "gt", "ge"])
@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int64, np.int32, np.bool_])
@pytest.mark.parametrize("other", _OTHERS)
def test_compare_direct_path_matches_the_promoting_path(name, dt, other):
    from tsjit.ops.kernels import tensor_arith as A, tensor_compare as C
    x = noncontig((rng.standard_normal((3, 4)) * 3).astype(dt))
    o = _operand(other, x)
    fn = getattr(np, {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
                      "gt": "greater", "ge": "greater_equal"}[name])

    def plain(a, b):
        _, p, q = A.prep(a, b)
        return tsjit.from_numpy(fn(p, q))
    r, e = _outcome(kernel(f"aten::{name}.Tensor"), T(x), o), _outcome(plain, T(x), o)
    if isinstance(e, str):
        assert r == e
    else:
        np.testing.assert_array_equal(r, e)


@pytest.mark.parametrize("name", ["__and__", "__or__", "__xor__"])
@pytest.mark.parametrize("dt", [np.bool_, np.int64, np.uint8])
@pytest.mark.parametrize("other", ["same", "row", "bad_shape", "bool"])
def test_bitwise_direct_path_matches_numpy(name, dt, other):
    x = rng.integers(0, 5, (3, 4)).astype(dt)
    o = _operand(other, x) if other != "same" else T(rng.integers(0, 5, (3, 4)).astype(dt))
    r = _outcome(kernel(f"aten::{name}.Tensor"), T(x), o)
    if other == "bad_shape":
        assert isinstance(r, str) and "must match" in r
        return
    fn = {"__and__": np.bitwise_and, "__or__": np.bitwise_or, "__xor__": np.bitwise_xor}[name]
    ob = o.numpy()
    if ob.dtype != x.dtype:
        ob = ob.astype(np.result_type(x.dtype, ob.dtype))
    np.testing.assert_array_equal(r, fn(x.astype(ob.dtype), ob))


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("value", [-np.inf, float(np.finfo(np.float32).min), 0, -1e300])
@pytest.mark.parametrize("cond", ["full", "broadcast", "bad"])
def test_where_with_a_number_matches_the_promoting_path(dt, value, cond):
    from tsjit.ops.kernels import tensor_arith as A
    x = noncontig(rng.standard_normal((2, 3, 4)).astype(dt))
    c = {"full": rng.random((2, 3, 4)) > 0.5, "broadcast": rng.random((3, 1)) > 0.5,
         "bad": np.ones((5,), bool)}[cond]

    def plain(cc, a, b):
        _, p, q = A.prep(a, b)
        try:
            return tsjit.from_numpy(np.where(cc._a, p, q))
        except ValueError:
            raise RuntimeError("shape") from None
    r = _outcome(kernel("aten::where.ScalarOther"), T(c), T(x), value)
    e = _outcome(plain, T(c), T(x), value)
    if isinstance(e, str):
        assert isinstance(r, str)
    else:
        assert r.dtype == e.dtype == dt
        np.testing.assert_array_equal(r, e)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("e", [2, 3, -1, -2, -0.5, 2.0, 0.5])
def test_pow_forms_take_the_direct_path(dt, e):
    x = noncontig(np.abs(rng.standard_normal((3, 4))).astype(dt) + 0.1)
    r = run("aten::pow.Tensor_Scalar", T(x), e).numpy()
    assert r.dtype == dt
    np.testing.assert_allclose(r, x.astype(np.float64) ** e, **tol(dt))


@pytest.mark.parametrize("case", ["rows", "two", "broadcast", "negative", "out_of_bounds",
                                  "bad_broadcast", "0d", "int32", "mask", "none"])
def test_index_direct_path_matches_the_checked_path(case):
    from tsjit.ops.kernels import tensor_index as I
    x = noncontig(rng.standard_normal((5, 4, 3)).astype(np.float32))
    idx = {"rows": [rng.integers(0, 5, (7,))],
           "two": [rng.integers(0, 5, (2, 3)), rng.integers(0, 4, (2, 3))],
           "broadcast": [rng.integers(0, 5, (1, 1, 3, 1)), rng.integers(0, 4, (1, 1, 1, 4))],
           "negative": [rng.integers(-5, 0, (6,))],
           "out_of_bounds": [np.array([0, 5])],
           "bad_broadcast": [np.zeros(2, np.int64), np.zeros(3, np.int64)],
           "0d": [np.array(2), np.array(-1), np.array(0)],
           "int32": [rng.integers(0, 5, (4,)).astype(np.int32)],
           "mask": [rng.random(5) > 0.5],
           "none": [None, rng.integers(0, 4, (3,))]}[case]
    ts = [None if i is None else T(np.asarray(i)) for i in idx]
    try:
        r = run("aten::index.Tensor", T(x), ts).numpy()
    except IndexError as err:
        r = f"IndexError: {err}"
    try:
        e = x[I.index_tuple(T(x), ts)]
    except IndexError as err:
        assert r == f"IndexError: {err}"
    else:
        np.testing.assert_array_equal(r, e)
        assert not np.shares_memory(r, x)


@pytest.mark.parametrize("shape,size", [((6,), [2, 3]), ((6,), [-1, 3]), ((6,), [-2, 3]),
                                        ((6,), [-1, -1]), ((6,), [0, -1]), ((0,), [5, -1]),
                                        ((0,), [0, -1]), ((1,), []), ((6,), [4, -1]),
                                        ((2, 3), [3, 2]), ((2, 3), [6])])
@pytest.mark.parametrize("layout", ["c", "transposed"])
def test_view_direct_path_matches_the_checked_path(shape, size, layout):
    from tsjit.ops.kernels import tensor_shape as S
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    if layout == "transposed":
        x = x.T
    try:
        r = run("aten::view", T(x), size).numpy()
    except RuntimeError as err:
        r = str(err)
    try:
        e = S._view_array(x, S.infer_size(size, x.size))
        if e is None:
            raise RuntimeError("view size is not compatible")
    except RuntimeError as err:
        assert isinstance(r, str) and str(err)[:20] == r[:20]
    else:
        assert r.shape == e.shape and np.shares_memory(r, x) or r.size == 0
        np.testing.assert_array_equal(r, e)


@pytest.mark.parametrize("target", ["c", "slice", "expanded", "readonly"])
@pytest.mark.parametrize("src", ["0d", "0d_f64", "full"])
def test_copy_into_fast_path_matches_numpy(target, src):
    base = np.zeros((4, 5), np.float32)
    t = T(base)
    dst = {"c": lambda: t, "slice": lambda: run("aten::slice.Tensor", t, 1, 1, 4, 1),
           "expanded": lambda: run("aten::expand", T(np.zeros((1, 3), np.float32)), [2, 3], False),
           "readonly": lambda: T(np.broadcast_to(np.zeros(3, np.float32), (3,)))}[target]()
    shape = dst.numpy().shape
    s = {"0d": np.array(2.5, np.float32), "0d_f64": np.array(2.5),
         "full": np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)}[src]
    try:
        run("aten::copy_", dst, T(s), False)
    except RuntimeError as err:
        assert target == "expanded" and "more than one element" in str(err)
        return
    np.testing.assert_array_equal(dst.numpy(), np.broadcast_to(s, shape))
    if target == "slice":
        np.testing.assert_array_equal(base[:, 1:4], np.broadcast_to(s, shape))
        assert (base[:, 0] == 0).all() and (base[:, 4] == 0).all()


@pytest.mark.parametrize("m,k,n,form", [(5, 192, 576, 2), (2, 192, 768, 2), (12, 128, 128, 2),
                                        (5, 192, 192, 0), (12, 32, 32, 0), (64, 512, 512, 1),
                                        (64, 128, 128, 0), (1, 768, 768, 0)])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["c", "noncontig"])
def test_few_rows_products(m, k, n, form, dt, layout):
    from tsjit.ops.kernels.tensor_linalg import _few_rows, _matmul2
    x = rng.standard_normal((m, k)).astype(dt)
    if layout == "noncontig":
        x = noncontig(x)
    w = rng.standard_normal((n, k)).astype(dt)
    assert _few_rows(np.ascontiguousarray(x), w.T) == form
    r = _matmul2(x, w.T)
    assert r.flags.c_contiguous and r.dtype == dt
    np.testing.assert_allclose(r, x.astype(np.float64) @ w.T.astype(np.float64),
                               rtol=1e-4 if dt == np.float32 else 1e-12,
                               atol=1e-3 if dt == np.float32 else 1e-12)
