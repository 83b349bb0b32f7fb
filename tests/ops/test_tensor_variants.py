"""Concrete examples for the overloads the property tests do not reach: in-place and
Scalar variants, aliases, view-changing in-place ops, metadata prims, random factories and
decompositions (checked by reconstruction where results are only unique up to sign)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.helpers import tensor_oracle as O

from tsjit._tensor import dtypes as D, from_numpy  # noqa: E402

pytestmark = O.requires_torch
rng = np.random.default_rng(7)
F = rng.standard_normal((3, 4)).astype(np.float32)
G = rng.standard_normal((3, 4)).astype(np.float32)
P = (np.abs(F) + 0.5).astype(np.float32)               # positive
U = (np.tanh(F) * 0.9).astype(np.float32)              # in (-1, 1)
I = np.array([[5, -3, 0, 7], [2, 2, -8, 1], [0, 9, 4, -1]], np.int64)
J = np.array([[1, 2, 3, 1], [2, 5, 1, 3], [4, 1, 2, 2]], np.int64)
B = F > 0
V = np.arange(6, dtype=np.float32)
M3 = (rng.standard_normal((3, 3)) / 3 + 2 * np.eye(3)).astype(np.float32)
X4 = rng.standard_normal((1, 2, 4, 5)).astype(np.float32)
X3 = rng.standard_normal((1, 2, 5)).astype(np.float32)
X5 = rng.standard_normal((1, 2, 3, 4, 5)).astype(np.float32)

CASES: list[tuple] = [
    # in-place Scalar / mode variants
    ("aten::add_.Scalar", F, 2, 1), ("aten::sub_.Scalar", F, 2, 3), ("aten::mul_.Scalar", F, 2),
    ("aten::div_.Scalar", F, 2), ("aten::div_.Scalar_mode", F, 2, "floor"),
    ("aten::div_.Tensor_mode", F, G, "trunc"), ("aten::floor_divide_.Scalar", I, 3),
    ("aten::remainder_.Scalar", I, 3), ("aten::fmod_.Scalar", F, 1.5), ("aten::pow_.Scalar", F, 2),
    ("aten::rsub.Tensor", F, G, 2), ("aten::rsub.Scalar", F, 3, 1),
    ("aten::round_.decimals", F, 2), ("aten::threshold_", F, 0.1, -1.0),
    ("aten::rrelu_", F, 0.125, 1 / 3, False, None), ("aten::cumsum_", F, 1, None),
    ("aten::cumprod_", F, 0, None), ("aten::logcumsumexp", F, 1),
    *[(f"aten::{n}_", U) for n in ("acos", "acosh", "asin", "asinh", "atan", "atanh", "cos",
                                   "cosh", "erfc", "exp2", "expm1", "log10", "log1p", "log2",
                                   "rsqrt", "sinh", "tan")],
    ("aten::acosh_", P + 1),
    # comparisons / logical / bitwise in place
    *[(f"aten::{n}_.{k}", F, G if k == "Tensor" else 0.1) for n in ("eq", "ne", "lt", "le", "gt",
                                                                     "ge") for k in
      ("Tensor", "Scalar")],
    ("aten::logical_or_", F, G), ("aten::logical_xor_", F, G), ("aten::logical_not_", F),
    ("aten::bitwise_not_", I),
    *[(f"aten::{n}.{k}", I, J if k == "Tensor" else 3) for n in
      ("bitwise_and_", "bitwise_or_", "bitwise_xor_", "__iand__", "__ior__", "__ixor__",
       "__ilshift__", "__irshift__") for k in ("Tensor", "Scalar")],
    # clamp family
    ("aten::clip.Tensor", F, G, None), ("aten::clip_", F, -0.5, 0.5),
    ("aten::clip_.Tensor", F, G, None), ("aten::clamp_.Tensor", F, None, G),
    ("aten::clamp_max.Tensor", F, G), ("aten::clamp_max_", F, 0.2),
    ("aten::clamp_max_.Tensor", F, G), ("aten::clamp_min_", F, 0.2),
    ("aten::clamp_min_.Tensor", F, G),
    # reductions
    ("aten::nanmean", F, [1], False, None), ("aten::aminmax", F, 1, True),
    ("aten::aminmax", F, None, False), ("aten::var", F, True), ("aten::var_mean", F, False),
    ("aten::var_mean.dim", F, [0], True, True), ("aten::std.dim", F, [1], False, False),
    ("aten::std_mean", F, True), ("aten::std_mean.correction", F, [1], 0, True),
    ("aten::argsort", F, 0, True), ("aten::sort", I, -1, True),
    ("aten::norm.ScalarOpt_dim_dtype", F, 2, [1], False, D.float64),
    ("aten::norm.ScalarOpt_dtype", F, 1, D.float64), ("aten::frobenius_norm.dim", F, [0, 1], True),
    ("aten::nuclear_norm", F, False), ("aten::nuclear_norm.dim", F, [0, 1], True),
    ("aten::renorm", F, 2, 0, 1.0), ("aten::bucketize.Scalar", 0.5, np.sort(V), False, True),
    ("aten::trace", I), ("aten::diag", V, 1), ("aten::_unique", I, True, True),
    # shape aliases and views
    ("aten::concat", [F, G], 1), ("aten::concatenate", [F, G], 0), ("aten::swapdims", F, 0, 1),
    ("aten::moveaxis.int", X4, 0, 3), ("aten::moveaxis.intlist", X4, [0, 1], [3, 2]),
    ("aten::movedim.intlist", X4, [1], [0]), ("aten::ravel", F), ("aten::view_as", F, V[:0]),
    ("aten::view_as", F, F.reshape(2, 6)), ("aten::reshape_as", F, F.reshape(12)),
    ("aten::expand_as", V[:4], F), ("aten::view.dtype", F, D.int32),
    ("aten::view.dtype", I, D.float64), ("aten::narrow.Tensor", F, 1, np.array(1), 2),
    ("aten::hsplit.int", F, 2), ("aten::hsplit.array", F, [1, 3]), ("aten::vsplit.int", F, 3),
    ("aten::vsplit.array", F, [1]), ("aten::dsplit.int", X4[0], 5),
    ("aten::dsplit.array", X4[0], [2]), ("aten::split", F, [1, 3], 1),
    ("aten::unsafe_split.Tensor", F, 2, 1), ("aten::unsafe_chunk", F, 2, 0),
    ("aten::tensor_split.tensor_indices_or_sections", F, np.array([1, 3]), 1),
    ("aten::tensor_split.tensor_indices_or_sections", F, np.array(2), 0),
    ("aten::atleast_1d", np.array(1.0)), ("aten::atleast_2d", V),
    ("aten::atleast_1d.Sequence", [np.array(1.0), V]), ("aten::atleast_2d.Sequence", [V]),
    ("aten::atleast_3d.Sequence", [F, V]), ("aten::numpy_T.a", F), ("aten::mT.a", F),
    ("aten::mH", F), ("aten::mH.a", F), ("aten::matrix_H", F), ("aten::matrix_H.a", F),
    ("aten::as_strided", V, [2, 2], [1, 2], 1), ("aten::as_strided", V, [3], [2], None),
    ("aten::repeat_interleave.self_Tensor", F, np.array([1, 0, 2]), 0, None),
    ("aten::take_along_dim", F, np.argsort(F, 1), 1), ("aten::take_along_dim", F, J, None),
    ("aten::tril_", F, 0), ("aten::triu_", F, -1),
    # indexing variants
    ("aten::index.Tensor_hacked_twin", F, [np.array([0, 2])]),
    ("aten::index_put.hacked_twin", F, [np.array([0, 2])], np.float32(1.0) * np.ones(4,
                                                                                      np.float32),
     False),
    ("aten::index_put_.hacked_twin", F, [np.array([1])], np.zeros(4, np.float32), True),
    ("aten::_index_put_impl_", F, [np.array([1]), None], np.zeros(4, np.float32), False, False),
    ("aten::_index_put_impl_.hacked_twin", F, [np.array([1])], np.zeros(4, np.float32), True,
     False),
    ("aten::index_add_", F, 0, np.array([2, 0]), G[:2], 2),
    ("aten::index_copy_", F, 1, np.array([3, 0]), G[:, :2]),
    ("aten::index_fill.int_Tensor", F, 1, np.array([1]), np.array(5.0, np.float32)),
    ("aten::index_fill_.int_Scalar", F, 0, np.array([0, 2]), -1),
    ("aten::index_fill_.int_Tensor", F, 0, np.array([1]), np.array(2.0, np.float32)),
    ("aten::masked_fill_.Tensor", F, B, np.array(3.0, np.float32)),
    ("aten::masked_scatter_", F, B, G), ("aten::scatter.src", F, 0, np.array([[2, 1, 0, 1]]), G),
    ("aten::scatter.reduce", F, 1, np.array([[0], [3], [1]]), G, "multiply"),
    ("aten::scatter_.src", F, 0, np.array([[2, 1, 0, 1]]), G),
    ("aten::scatter_.value", F, 1, np.array([[0], [3], [1]]), 7.0),
    ("aten::scatter_.reduce", F, 1, np.array([[0], [3], [1]]), G, "add"),
    ("aten::scatter_.value_reduce", F, 1, np.array([[0], [3], [1]]), 2.0, "multiply"),
    ("aten::scatter_add_", F, 0, np.array([[2, 1, 0, 1]]), G),
    ("aten::scatter_reduce_.two", F, 0, np.array([[2, 1, 0, 1]]), G, "mean", False),
    ("aten::put_", F, np.array([0, 5, 11]), np.ones(3, np.float32), True),
    ("aten::copy_.Tensor", F, G), ("aten::copy_.int", F, 3), ("aten::copy_.float", I, 2.5),
    # linear algebra aliases
    ("aten::vdot", V, V), ("aten::ger", V, V[:3]), ("aten::inverse", M3),
    ("aten::matrix_power", M3, 2), ("aten::slogdet", M3), ("aten::cholesky", M3 @ M3.T, True),
    ("aten::addmm_", F[:, :3], F, G.T, 0.5, 2), ("aten::baddbmm_", X4[0, :, :, :4],
                                                  X4[0, :, :, :3], X4[0, :, :3, :4], 1, 1),
    # conversions and metadata
    ("aten::to.device", F, "cpu", D.float64, False, False, None),
    ("aten::to.dtype_layout", F, D.int32, None, None, None, False, False, None),
    *[(f"aten::_cast_{n}", F, False) for n in ("Byte", "Char", "Double", "Float", "Half", "Int",
                                                "Long", "Short")],
    ("aten::ComplexImplicit", np.array(2.5)), ("aten::requires_grad_", F, False),
    ("aten::detach_", F), ("aten::data", F), ("aten::sym_numel", F), ("aten::sym_size", F),
    ("aten::sym_size.int", F, 1), ("aten::is_contiguous.memory_format", F, 0),
    ("aten::linspace.Tensor_Tensor", np.array(0.0), np.array(1.0), 5, None, None, None, None),
    ("aten::linspace.Tensor_Scalar", np.array(0.0), 2, 3, None, None, None, None),
    ("aten::linspace.Scalar_Tensor", -1, np.array(1.0), 4, D.float64, None, None, None),
    # nn variants
    ("aten::_adaptive_avg_pool2d", X4, [2, 3]), ("aten::_pad_circular", X4, [1, 2]),
    ("aten::_pad_enum", X4, [1, 1, 1, 0], 1, None), ("aten::_pad_enum", X4, [2, 1], 0, None),
    ("aten::_pad_enum", X4, [2, 1], 3, 2.5), ("aten::_pad_enum", X4, [2, 1], 2, None),
    *[(f"aten::{k}_pad{n}d", x, [1, 2] * n) for k in ("reflection", "replication")
      for n, x in ((1, X3), (2, X4), (3, X5))],
    ("aten::upsample_nearest1d", X3, [8], None), ("aten::upsample_nearest2d", X4, [7, 3], 2.0, None),
    ("aten::upsample_nearest3d", X5, [4, 5, 6], None, None, None),
    ("aten::_upsample_nearest_exact1d", X3, [7], None),
    ("aten::_upsample_nearest_exact1d.vec", X3, None, [1.7]),
    ("aten::_upsample_nearest_exact2d", X4, [5, 9], None, None),
    ("aten::_upsample_nearest_exact3d", X5, [2, 7, 3], None, None, None),
    ("aten::_upsample_nearest_exact3d.vec", X5, [2, 7, 3], None),
    ("aten::upsample_linear1d", X3, [9], False, None),
    ("aten::upsample_bilinear2d", X4, [7, 9], True, None, None),
    ("aten::upsample_trilinear3d", X5, [4, 4, 4], False, None, None, None),
    ("aten::upsample_bicubic2d", X4, [6, 3], False, None, None),
    ("aten::_upsample_bilinear2d_aa", X4, [2, 3], False, None, None),
    ("aten::_upsample_bicubic2d_aa", X4, [3, 2], False, None, None),
    ("aten::_upsample_lanczos2d_aa", X4, [2, 2], False, None, None),
    ("aten::_convolution", X4, rng.standard_normal((3, 2, 2, 2)).astype(np.float32), None,
     [1, 1], [0, 0], [1, 1], False, [0, 0], 1, False, False, False, False),
    ("aten::conv_transpose3d.input", X5, rng.standard_normal((2, 1, 2, 2, 2)).astype(np.float32),
     None, [1, 1, 1], [0, 0, 0], [0, 0, 0], 1, [1, 1, 1]),
    ("aten::_native_batch_norm_legit_no_training", X4, None, None, np.zeros(2, np.float32),
     np.ones(2, np.float32), 0.1, 1e-5),
    ("aten::native_batch_norm", X4, None, None, None, None, True, 0.1, 1e-5),
    ("aten::native_channel_shuffle", X4, 2),
    ("aten::nll_loss2d", np.log(np.abs(X4) + 0.1), np.zeros((1, 4, 5), np.int64), None, 1, -100),
    ("aten::dropout_", F, 0.5, False), ("aten::feature_dropout_", X4, 0.5, False),
    ("aten::alpha_dropout_", F, 0.5, False), ("aten::feature_alpha_dropout", X4, 0.5, False),
    ("prim::abs", F), ("aten::diag", F, -1),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0])
def test_variant(case: tuple) -> None:
    q, *args = case
    O.diff(q, *args, rtol=1e-4, atol=1e-5)


def test_einsum_sublist_and_to_prim_other() -> None:
    import torch
    r = O.kernel("aten::einsum.sublist")(from_numpy(F), [0, 1], from_numpy(G), [0, 1], [1])
    O.compare(r, torch.einsum(torch.from_numpy(F), [0, 1], torch.from_numpy(G), [0, 1], [1]),
              rtol=1e-5, atol=1e-5)
    x = from_numpy(F)
    assert O.kernel("aten::to.prim_other")(x, False, False) is x
    c = O.kernel("aten::to.prim_other")(x, False, True)
    assert c is not x and c.tolist() == x.tolist()


def test_inplace_view_ops_and_resize() -> None:
    k = O.kernel
    x = from_numpy(np.zeros((2, 1, 3), np.float32))
    assert k("aten::squeeze_")(x) is x and x.shape == (2, 3)
    assert k("aten::unsqueeze_")(x, 1).shape == (2, 1, 3)
    assert k("aten::squeeze_.dim")(x, 1).shape == (2, 3)
    assert k("aten::squeeze_.dims")(k("aten::unsqueeze_")(x, 0), [0]).shape == (2, 3)
    assert k("aten::t_")(x).shape == (3, 2) and k("aten::transpose_")(x, 0, 1).shape == (2, 3)
    r = k("aten::resize_")(from_numpy(np.arange(6.0)), [2, 2], None)
    assert r.tolist() == [[0.0, 1.0], [2.0, 3.0]]


def test_complex_and_prims() -> None:
    k = O.kernel
    t = from_numpy(np.array(2.0))
    assert k("aten::Complex.Tensor_float")(t, 1.0) == 2 + 1j
    assert k("aten::Complex.float_Tensor")(1.0, t) == 1 + 2j
    assert k("aten::Complex.Tensor_int")(t, 3) == 2 + 3j
    assert k("aten::Complex.int_Tensor")(3, t) == 3 + 2j
    assert k("aten::Complex.Tensor_bool")(t, True) == 2 + 1j
    assert k("aten::Complex.bool_Tensor")(False, t) == 2j
    for n in ("is_cuda", "is_ipu", "is_maia", "is_meta", "is_mkldnn", "is_mps", "is_mtia",
              "is_quantized", "is_sparse", "is_sparse_csr", "is_vulkan", "is_xla", "is_xpu"):
        assert k(f"prim::{n}")(t) is False
    assert k("prim::layout")(t) == 0 and k("prim::name")(t) is None
    assert k("prim::type")(k("prim::device")(t)) == "cpu"
    d = k("prim::data")(t)
    assert d.tolist() == 2.0 and np.shares_memory(d.numpy(), t.numpy())
    assert k("aten::tensor.complex")(1 + 2j, None, None, False).dtype == D.complex64
    for q, v in (("aten::as_tensor.int", 3), ("aten::as_tensor.float", 2.5),
                 ("aten::as_tensor.bool", True), ("aten::as_tensor.complex", 1j),
                 ("aten::as_tensor.list", [1, 2])):
        assert k(q)(v, None, None).tolist() == (v if not isinstance(v, complex) else v)
    x = from_numpy(np.zeros(2, np.float32))
    assert k("aten::empty.memory_format")([2, 3], D.int64, None, None, None, None).shape == (2, 3)
    assert k("aten::empty_strided")([2], [1], None, None, None, None).dtype == D.float32
    assert k("aten::mm.dtype")(from_numpy(F), from_numpy(G.T), D.float64).dtype == D.float64
    assert k("aten::bmm.dtype")(from_numpy(X4[0]), from_numpy(X4[0].transpose(0, 2, 1)),
                                D.float32).shape == (2, 4, 4)
    assert k("aten::addmm.dtype")(x, from_numpy(F[:2]), from_numpy(G[:2].T), D.float32, 1,
                                  1).shape == (2, 2)
    assert k("aten::baddbmm.dtype")(from_numpy(np.zeros((2, 4, 4), np.float32)),
                                    from_numpy(X4[0]), from_numpy(X4[0].transpose(0, 2, 1)),
                                    D.float32, 1, 1).shape == (2, 4, 4)


def test_decompositions_reconstruct() -> None:
    k = O.kernel
    a = from_numpy(F)
    u, s, vh = k("aten::linalg_svd")(a, False, None)
    assert np.allclose((u.numpy() * s.numpy()) @ vh.numpy(), F, atol=1e-5)
    u, s, v = k("aten::svd")(a, True, True)
    assert np.allclose((u.numpy() * s.numpy()) @ v.numpy().T, F, atol=1e-5)
    q, r = k("aten::linalg_qr")(a, "reduced")
    assert np.allclose(q.numpy() @ r.numpy(), F, atol=1e-5)
    sym = M3 + M3.T
    w, vec = k("aten::linalg_eigh")(from_numpy(sym), "L")
    assert np.allclose(vec.numpy() @ np.diag(w.numpy()) @ vec.numpy().T, sym, atol=1e-4)
    p = k("aten::linalg_pinv.atol_rtol_float")(a, None, None, False).numpy()
    assert np.allclose(F @ p @ F, F, atol=1e-4)


def test_random_kernels() -> None:
    k = O.kernel
    from tsjit._tensor import manual_seed
    manual_seed(1)
    x = from_numpy(np.zeros((2, 3), np.float32))
    for q, args in (("aten::randn", ([2, 3], None, None, None, None)),
                    ("aten::randn.generator", ([2, 3], None, None, None, None, None)),
                    ("aten::rand.generator", ([2, 3], None, None, None, None, None)),
                    ("aten::rand_like", (x, None, None, None, None, None)),
                    ("aten::randint", (5, [2, 3], 4, None, None, None)),
                    ("aten::randint_like", (x, 4, None, None, None, None, None)),
                    ("aten::randint_like.low_dtype", (x, 2, 4, D.int64, None, None, None, None)),
                    ("aten::normal.Tensor_float", (x, 1.0, None)),
                    ("aten::normal.float_Tensor", (0.0, from_numpy(np.ones((2, 3), np.float32)),
                                                   None)),
                    ("aten::normal.Tensor_Tensor", (x, from_numpy(np.ones((2, 3), np.float32)),
                                                    None)),
                    ("aten::normal.float_float", (0.0, 1.0, [2, 3], None, None, None, None,
                                                  None)),
                    ("aten::bernoulli", (from_numpy(np.full((2, 3), 0.5, np.float32)), None)),
                    ("aten::bernoulli.p", (x, 0.3, None))):
        r = k(q)(*args)
        assert r.shape == (2, 3), q
    assert k("aten::randint_like.low_dtype")(x, 2, 4, D.int64).numpy().min() >= 2
    for q, args in (("aten::normal_", (x, 0.0, 1.0, None)), ("aten::uniform_", (x, 2.0, 3.0, None)),
                    ("aten::bernoulli_.float", (x, 0.5, None)),
                    ("aten::random_.from", (x, 1, 5, None)), ("aten::random_.to", (x, 3, None))):
        assert k(q)(*args) is x
    assert k("aten::multinomial")(from_numpy(np.array([[0.0, 1.0, 0.0]])), 2, True,
                                  None).tolist() == [[1, 1]]
    out, mask = k("aten::native_dropout")(x, 0.5, False)
    assert out.tolist() == x.tolist() and mask.dtype == D.bool_
    k("aten::manual_seed")(3)
    a = k("aten::randn")([4], None, None, None, None).tolist()
    k("aten::manual_seed")(3)
    assert k("aten::randn")([4], None, None, None, None).tolist() == a


OUT_CASES = [("aten::add.out", F, G, 2), ("aten::add.Scalar_out", F, 2, 1),
             ("aten::div.out_mode", F, G, "floor"), ("aten::div.out", I, J),
             ("aten::tensordot.out", F, G, [1], [1]), ("aten::mm.out", F, G.T),
             ("aten::sum.IntList_out", F, [1], False, None), ("aten::cat.out", [F, G], 0),
             ("aten::eq.Tensor_out", F, G), ("aten::clamp.out", F, -0.5, 0.5),
             ("aten::exp.out", F), ("aten::index_select.out", F, 0, np.array([2, 0])),
             ("aten::softmax.int_out", F, 1, None), ("aten::linear.out", F, G, None),
             ("aten::where.self_out", B, F, G), ("aten::matmul.out", F, G.T)]


@pytest.mark.parametrize("case", OUT_CASES, ids=lambda c: c[0])
@pytest.mark.parametrize("out_kind", ["same", "resize", "int"])
def test_out_variants(case: tuple, out_kind: str) -> None:
    q, *args = case
    from tsjit.ops.kernels.tensor_out import _OUT_FORMS
    base = {f"aten::{b.split('.')[0]}.{ov}": "aten::" + b for b, ov in _OUT_FORMS}[q]
    ref = O.run_both(base, *args)[1]           # PyTorch's functional result: shape and dtype
    dt = str(ref.dtype).replace("torch.", "")
    if out_kind == "resize":
        # torch cannot resize tensors made by from_numpy: give it one of its own
        import torch
        mine = O.kernel(q)(*O._to_tsjit(list(args)), from_numpy(np.zeros((1,), dt)))
        theirs = O.call_torch(q, *args, torch.zeros(1, dtype=ref.dtype))
        O.compare(mine, theirs, rtol=1e-5, atol=1e-6)
        return
    out = np.zeros(tuple(ref.shape), dt if out_kind == "same" else np.int64)
    mine, theirs = O.run_both(q, *args, out)
    O.compare(mine, theirs, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("q,args", [
    ("aten::max.dim_max", (F, 1, False)), ("aten::min.dim_min", (F, 0, True)),
    ("aten::kthvalue.values", (F, 2, 1, False)), ("aten::median.dim_values", (F, 1, False)),
    ("aten::nanmedian.dim_values", (F, 0, False)), ("aten::mode.values", (I, 1, False)),
    ("aten::sort.values", (F, 1, True)), ("aten::sort.values_stable", (F, True, 0, False)),
    ("aten::topk.values", (F, 2, 1, True, True)), ("aten::cummax.out", (F, 1)),
    ("aten::cummin.out", (F, 0)), ("aten::aminmax.out", (F, 1, False))])
def test_two_result_out_forms(q: str, args: tuple) -> None:
    from tsjit.ops.kernels.tensor_out import _OUT_PAIRS
    base = "aten::" + dict((s.split("(")[0], b) for b, s in _OUT_PAIRS)[q]
    ref = O.run_both(base, *args)[1]
    outs = [np.zeros(tuple(r.shape), str(r.dtype).replace("torch.", "")) for r in ref]
    O.diff(q, *args, *outs)


def test_out_writes_into_the_given_tensor() -> None:
    x = from_numpy(np.zeros(4, np.float32))
    view = x[1:3]
    r = O.kernel("aten::add.out")(from_numpy(V[:4]), from_numpy(V[:4]), 1, x)
    assert r is x and x.tolist() == [0.0, 2.0, 4.0, 6.0] and view.tolist() == [2.0, 4.0]


@pytest.mark.parametrize("name,args", [
    ("relu", ()), ("relu6", ()), ("hardtanh", (-0.5, 2)), ("hardtanh", (0, 6.0)),
    ("hardtanh", (-1, 1 << 40)), ("silu", ()), ("hardsigmoid", ()), ("hardswish", ()),
])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_inplace_activation_paths_agree(name: str, args: tuple, dt: type) -> None:
    # a contiguous float tensor is computed in its own memory (`inplace(fn, into)`); a
    # strided one takes the general compute-then-write path: both equal the out-of-place
    # kernel, and PyTorch's in-place one
    x = np.concatenate([rng.standard_normal(40) * 5, [np.nan, np.inf, -np.inf, 0, -0.0]])
    x = x.astype(dt).reshape(5, 9)
    want = O.kernel(f"aten::{name}")(from_numpy(x.copy()), *args).numpy()
    for layout in (x.copy(), np.asfortranarray(x)):
        t = from_numpy(layout)
        got = O.kernel(f"aten::{name}_")(t, *args)
        assert got is t
        np.testing.assert_array_equal(t.numpy(), want)
    O.diff(f"aten::{name}_", x, *args)
