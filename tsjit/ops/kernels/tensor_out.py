"""The `out=` overloads (`aten::add.out`, `aten::div.out_mode`, `aten::tensordot.out` ...):
each runs the functional kernel of the same arguments and stores the result into `out`.

Like PyTorch, `out` is resized when its shape differs and the result is converted to
out's dtype, which may not be of a lower category ("result type Float can't be cast to
the desired output type Long").
"""
from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from ..registry import find, op, register
from ..._tensor import dtypes as D
from ..._tensor.tensor import Tensor

# (functional overload, overload name of its out= form); the out= schema is the functional
# one with `*, Tensor(a!) out` appended and `-> Tensor(a!)`.
_OUT_FORMS: list[tuple[str, str]] = [
    ("column_stack", "out"), ("to_padded_tensor", "out"), ("put", "out"),
    ("masked_scatter", "out"), ("_upsample_lanczos2d_aa", "out"), ("take", "out"),
    ("_transformer_encoder_layer_fwd", "out"), ("histc", "out"), ("bincount", "out"),
    ("linalg_matrix_power", "out"), ("linalg_pinv.atol_rtol_float", "atol_rtol_float_out"),
    ("linalg_norm", "out"), ("linalg_norm.ord_str", "ord_str_out"),
    ("less.Scalar", "Scalar_out"), ("less.Tensor", "Tensor_out"),
    ("less_equal.Scalar", "Scalar_out"), ("less_equal.Tensor", "Tensor_out"),
    ("scatter_reduce.two", "two_out"), ("concatenate", "out"),
    ("greater.Scalar", "Scalar_out"), ("greater.Tensor", "Tensor_out"),
    ("greater_equal.Scalar", "Scalar_out"), ("greater_equal.Tensor", "Tensor_out"),
    ("ger", "out"), ("fix", "out"), ("arctanh", "out"), ("max", "unary_out"),
    ("max.other", "out"), ("arctan", "out"), ("arcsinh", "out"), ("arccosh", "out"),
    ("arccos", "out"), ("adaptive_avg_pool2d", "out"), ("adaptive_avg_pool1d", "out"),
    ("log_sigmoid", "out"), ("avg_pool1d", "out"), ("matrix_power", "out"), ("arctan2", "out"),
    ("arcsin", "out"), ("masked_select", "out"), ("logical_and", "out"), ("logical_or", "out"),
    ("xlogy.Tensor", "OutTensor"), ("xlogy.Scalar_Self", "OutScalar_Self"),
    ("xlogy.Scalar_Other", "OutScalar_Other"), ("remainder.Tensor", "Tensor_out"),
    ("remainder.Scalar", "Scalar_out"), ("remainder.Scalar_Tensor", "Scalar_Tensor_out"),
    ("maximum", "out"), ("lerp.Scalar", "Scalar_out"), ("lerp.Tensor", "Tensor_out"),
    ("gcd", "out"), ("hypot", "out"), ("fmod.Tensor", "Tensor_out"),
    ("fmod.Scalar", "Scalar_out"), ("fmin", "out"), ("fmax", "out"),
    ("copysign.Tensor", "out"), ("copysign.Scalar", "Scalar_out"), ("concat", "out"),
    ("bitwise_left_shift.Tensor", "Tensor_out"),
    ("bitwise_left_shift.Tensor_Scalar", "Tensor_Scalar_out"),
    ("bitwise_left_shift.Scalar_Tensor", "Scalar_Tensor_out"),
    ("__lshift__.Scalar", "Scalar_out"), ("__lshift__.Tensor", "Tensor_out"),
    ("argsort.stable", "stable_out"), ("glu", "out"), ("linalg_det", "out"),
    ("linalg_inv", "out"), ("linalg_solve", "out"), ("replication_pad3d", "out"),
    ("replication_pad1d", "out"), ("reflection_pad1d", "out"), ("adaptive_avg_pool3d", "out"),
    ("cholesky", "out"), ("inverse", "out"), ("avg_pool3d", "out"),
    ("binary_cross_entropy", "out"), ("scatter_add", "out"), ("lcm", "out"),
    ("tensordot", "out"), ("index_put", "out"), ("atan2", "out"), ("where.self", "self_out"),
    ("linalg_matrix_norm", "out"), ("linalg_matrix_norm.str_ord", "str_ord_out"),
    ("linalg_vector_norm", "out"), ("cumsum", "out"), ("cumprod", "out"),
    ("softmax.int", "int_out"), ("prod.dim_int", "int_out"), ("prod", "out"),
    ("_upsample_bicubic2d_aa", "out"), ("upsample_bicubic2d", "out"),
    ("_upsample_bilinear2d_aa", "out"), ("upsample_bilinear2d", "out"),
    ("upsample_bilinear2d.vec", "vec_out"), ("_upsample_nearest_exact2d", "out"),
    ("upsample_nearest2d", "out"), ("upsample_nearest2d.vec", "vec_out"),
    ("_upsample_nearest_exact1d", "out"), ("logsumexp", "out"), ("renorm", "out"),
    ("atan", "out"), ("__rshift__.Scalar", "Scalar_out"), ("__rshift__.Tensor", "Tensor_out"),
    ("asin", "out"), ("acos", "out"), ("replication_pad2d", "out"), ("abs", "out"),
    ("clamp_max", "out"), ("clamp_max.Tensor", "Tensor_out"), ("clamp", "out"),
    ("clamp.Tensor", "Tensor_out"), ("clamp_min", "out"), ("clamp_min.Tensor", "Tensor_out"),
    ("log_softmax.int", "int_out"), ("rsqrt", "out"), ("trace", "out"),
    ("lt.Scalar", "Scalar_out"), ("lt.Tensor", "Tensor_out"), ("scatter.src", "src_out"),
    ("scatter.value", "value_out"), ("scatter.reduce", "reduce_out"),
    ("scatter.value_reduce", "value_reduce_out"), ("log2", "out"),
    ("bitwise_xor.Tensor", "Tensor_out"), ("bitwise_xor.Scalar", "Scalar_out"),
    ("bitwise_xor.Scalar_Tensor", "Scalar_Tensor_out"), ("minimum", "out"),
    ("_upsample_nearest_exact3d", "out"), ("absolute", "out"), ("log", "out"),
    ("eq.Scalar", "Scalar_out"), ("eq.Tensor", "Tensor_out"),
    ("_nested_tensor_from_mask", "out"), ("linalg_multi_dot", "out"), ("floor_divide", "out"),
    ("floor_divide.Scalar", "Scalar_out"), ("sigmoid", "out"), ("index_copy", "out"),
    ("multinomial", "out"), ("_convolution", "out"), ("sum.dim_IntList", "IntList_out"),
    ("sum", "out"), ("_softmax", "out"), ("huber_loss", "out"), ("softshrink", "out"),
    ("sin", "out"), ("floor", "out"), ("reflection_pad2d", "out"), ("dot", "out"),
    ("index.Tensor", "Tensor_out"), ("baddbmm", "out"), ("baddbmm.dtype", "dtype_out"),
    ("logical_xor", "out"), ("trunc", "out"), ("upsample_nearest1d", "out"), ("linear", "out"),
    ("searchsorted.Tensor", "Tensor_out"), ("searchsorted.Scalar", "Scalar_out"),
    ("pow.Tensor_Tensor", "Tensor_Tensor_out"), ("pow.Scalar", "Scalar_out"),
    ("pow.Tensor_Scalar", "Tensor_Scalar_out"), ("linalg_cholesky", "out"), ("exp", "out"),
    ("vdot", "out"), ("bmm", "out"), ("bmm.dtype", "dtype_out"), ("addmm", "out"),
    ("addmm.dtype", "dtype_out"), ("clone", "out"), ("dstack", "out"), ("relu", "out"),
    ("addbmm", "out"), ("bitwise_and.Tensor", "Tensor_out"),
    ("bitwise_and.Scalar", "Scalar_out"), ("bitwise_and.Scalar_Tensor", "Scalar_Tensor_out"),
    ("gt.Scalar", "Scalar_out"), ("gt.Tensor", "Tensor_out"),
    ("repeat_interleave.Tensor", "Tensor_out"), ("hstack", "out"), ("nansum", "out"),
    ("mm", "out"), ("mm.dtype", "dtype_out"), ("binary_cross_entropy_with_logits", "out"),
    ("ceil", "out"), ("cosh", "out"), ("frac", "out"), ("upsample_nearest3d", "out"),
    ("log10", "out"), ("upsample_trilinear3d", "out"), ("log1p", "out"), ("neg", "out"),
    ("dist", "out"), ("reciprocal", "out"), ("round", "out"),
    ("round.decimals", "decimals_out"), ("sign", "out"), ("sinh", "out"),
    ("ge.Scalar", "Scalar_out"), ("ge.Tensor", "Tensor_out"), ("sqrt", "out"), ("tan", "out"),
    ("kron", "out"), ("tanh", "out"), ("true_divide.Tensor", "out"), ("add.Tensor", "out"),
    ("add.Scalar", "Scalar_out"), ("sub.Tensor", "out"), ("sub.Scalar", "Scalar_out"),
    ("rsub.Tensor", "Tensor_out"), ("rsub.Scalar", "Scalar_out"),
    ("bitwise_or.Tensor", "Tensor_out"), ("bitwise_or.Scalar", "Scalar_out"),
    ("bitwise_or.Scalar_Tensor", "Scalar_Tensor_out"), ("mul.Tensor", "out"),
    ("mul.Scalar", "Scalar_out"), ("div.Tensor", "out"), ("div.Tensor_mode", "out_mode"),
    ("div.Scalar", "Scalar_out"), ("div.Scalar_mode", "Scalar_mode_out"), ("mv", "out"),
    ("cat", "out"), ("stack", "out"), ("addr", "out"), ("clip", "out"),
    ("clip.Tensor", "Tensor_out"), ("le.Scalar", "Scalar_out"), ("le.Tensor", "Tensor_out"),
    ("ne.Scalar", "Scalar_out"), ("ne.Tensor", "Tensor_out"), ("bernoulli", "out"),
    ("normal.Tensor_float", "Tensor_float_out"), ("normal.float_Tensor", "float_Tensor_out"),
    ("normal.Tensor_Tensor", "Tensor_Tensor_out"), ("triu", "out"), ("diag", "out"),
    ("norm.ScalarOpt_dim_dtype", "dtype_out"), ("norm.ScalarOpt_dim", "out"),
    ("norm.ScalarOpt_dtype", "ScalarOpt_dtype_out"), ("norm.Scalar", "Scalar_out"),
    ("nuclear_norm", "out"), ("nuclear_norm.dim", "dim_out"), ("convolution", "out"),
    ("addmv", "out"), ("matmul", "out"), ("upsample_linear1d", "out"), ("chain_matmul", "out"),
    ("mse_loss", "out"), ("expm1", "out"), ("index_fill.int_Scalar", "int_Scalar_out"),
    ("index_fill.int_Tensor", "int_Tensor_out"), ("softplus", "out"), ("cross", "out"),
    ("nll_loss", "out"), ("nll_loss2d", "out"), ("smooth_l1_loss", "out"),
    ("frobenius_norm.dim", "out"), ("soft_margin_loss", "out"),
    ("bitwise_right_shift.Tensor", "Tensor_out"),
    ("bitwise_right_shift.Tensor_Scalar", "Tensor_Scalar_out"),
    ("bitwise_right_shift.Scalar_Tensor", "Scalar_Tensor_out"), ("cos", "out"),
    ("min", "unary_out"), ("min.other", "out"), ("msort", "out"), ("nanmean", "out"),
    ("negative", "out"), ("not_equal.Scalar", "Scalar_out"),
    ("not_equal.Tensor", "Tensor_out"), ("outer", "out"), ("square", "out"),
    ("std.correction", "correction_out"), ("std.dim", "out"), ("take_along_dim", "out"),
    ("var.correction", "correction_out"), ("var.dim", "out"), ("vstack", "out"),
    ("nonzero", "out"), ("linalg_cross", "out"), ("embedding", "out"),
    ("pixel_shuffle", "out"), ("pixel_unshuffle", "out"), ("channel_shuffle", "out"),
    ("constant_pad_nd", "out"), ("reflection_pad3d", "out"), ("_adaptive_avg_pool2d", "out"),
    ("avg_pool2d", "out"), ("amax", "out"), ("amin", "out"), ("all.dim", "out"),
    ("all.dims", "dims_out"), ("all", "all_out"), ("any.dim", "out"), ("any.dims", "dims_out"),
    ("any", "all_out"), ("argmax", "out"), ("argmin", "out"),
    ("bucketize.Tensor", "Tensor_out"), ("bucketize.Scalar", "Scalar_out"),
    ("count_nonzero.dim_IntList", "dim_IntList_out"), ("count_nonzero", "out"),
    ("logcumsumexp", "out"), ("mean.dim", "out"), ("mean", "dtype_out"), ("median", "out"),
    ("nanmedian", "out"), ("rot90", "out"), ("silu", "out"), ("index_select", "out"),
    ("masked_fill.Scalar", "Scalar_out"), ("masked_fill.Tensor", "Tensor_out"),
    ("index_add", "out"), ("gather", "out"), ("acosh", "out"), ("asinh", "out"),
    ("atanh", "out"), ("bitwise_not", "out"), ("deg2rad", "out"), ("erf", "out"),
    ("isnan", "out"), ("isinf", "out"), ("isposinf", "out"), ("isneginf", "out"),
    ("logical_not", "out"), ("logit", "out"), ("mish", "out"), ("nan_to_num", "out"),
    ("rad2deg", "out"), ("sgn", "out"), ("signbit", "out"), ("_log_softmax", "out"),
    ("threshold", "out"), ("erfc", "out"), ("exp2", "out"), ("elu", "out"),
    ("hardshrink", "out"), ("hardsigmoid", "out"), ("hardtanh", "out"), ("hardswish", "out"),
    ("leaky_relu", "out"), ("celu", "out"), ("gelu", "out"), ("flip", "out"), ("tril", "out"),
    ("repeat", "out"), ("roll", "out"), ("diag_embed", "out"), ("_masked_softmax", "out"),
]


# reductions convert their result to any out dtype; other ops refuse a lower category
_FREE_CAST = {"sum", "nansum", "prod", "amax", "amin", "cumsum", "cumprod", "count_nonzero",
              "any", "all"}


def store_out(r: Any, out: Tensor, checked: bool = True) -> Tensor:
    """Write result r into out (resizing it, converting the dtype) and return out."""
    if not isinstance(r, Tensor):
        raise RuntimeError("out= needs an operator with a single tensor result")
    if checked:
        D.check_inplace_cast(r.dtype, out.dtype)
    src = r._a
    with np.errstate(all="ignore"):
        if out._a.shape != src.shape:
            # PyTorch resizes out (old views of it no longer see the data)
            out._a = src.astype(out._a.dtype, copy=True)
        else:
            np.copyto(out._writable(), src, casting="unsafe")
    return out


def _out_schema(base: str, overload: str) -> str:
    raw = find(base).text
    head, rest = raw.split("(", 1)
    args = rest.rsplit(") -> ", 1)[0]
    star = args.startswith("*") or ", *" in args
    return (f"{head.split('.')[0]}.{overload}({args}"
            f"{', Tensor(a!) out' if star else ', *, Tensor(a!) out'}) -> Tensor(a!)")


@functools.lru_cache(maxsize=None)
def _dtype_position(qualified: str) -> int:
    """Where operator `qualified` takes `dtype`, or -1 (asked at the first call: parsing
    every schema at start-up costs more than the few calls need)."""
    names = [a.name for a in find(qualified).schema.arguments]
    return names.index("dtype") if "dtype" in names else -1


def _out_kernel(qualified: str, name: str) -> Callable:
    checked = name.split(".")[0] not in _FREE_CAST

    def kernel(*args: Any) -> Tensor:
        *rest, out = args
        dtype_pos = -1 if checked else _dtype_position(qualified)
        if dtype_pos >= 0 and rest[dtype_pos] is None and not checked:
            rest[dtype_pos] = out.dtype        # a reduction computes in out's dtype
        return store_out(find(qualified).kernel(*rest), out, checked)
    kernel.__name__ = name
    kernel.__doc__ = f"{name.split('.')[0]} storing into out."
    kernel.wraps = qualified        # type: ignore[attr-defined]  (docs/operators.md lists it there)
    return kernel


# two-result forms: (functional overload, full out= schema)
_OUT_PAIRS: list[tuple[str, str]] = [
    ("max.dim", "aten::max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, "
                "Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)"),
    ("min.dim", "aten::min.dim_min(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) min, "
                "Tensor(b!) min_indices) -> (Tensor(a!) values, Tensor(b!) indices)"),
    ("kthvalue", "aten::kthvalue.values(Tensor self, SymInt k, int dim=-1, bool keepdim=False, *, "
                 "Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, "
                 "Tensor(b!) indices)"),
    ("median.dim", "aten::median.dim_values(Tensor self, int dim, bool keepdim=False, *, "
                   "Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, "
                   "Tensor(b!) indices)"),
    ("nanmedian.dim", "aten::nanmedian.dim_values(Tensor self, int dim, bool keepdim=False, *, "
                      "Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, "
                      "Tensor(b!) indices)"),
    ("mode", "aten::mode.values(Tensor self, int dim=-1, bool keepdim=False, *, "
             "Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)"),
    ("sort", "aten::sort.values(Tensor self, int dim=-1, bool descending=False, *, "
             "Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)"),
    ("sort.stable", "aten::sort.values_stable(Tensor self, *, bool? stable, int dim=-1, "
                    "bool descending=False, Tensor(a!) values, Tensor(b!) indices) -> "
                    "(Tensor(a!) values, Tensor(b!) indices)"),
    ("topk", "aten::topk.values(Tensor self, SymInt k, int dim=-1, bool largest=True, "
             "bool sorted=True, *, Tensor(a!) values, Tensor(b!) indices) -> "
             "(Tensor(a!) values, Tensor(b!) indices)"),
    ("cummax", "aten::cummax.out(Tensor self, int dim, *, Tensor(a!) values, Tensor(b!) indices) "
               "-> (Tensor(a!) values, Tensor(b!) indices)"),
    ("cummin", "aten::cummin.out(Tensor self, int dim, *, Tensor(a!) values, Tensor(b!) indices) "
               "-> (Tensor(a!) values, Tensor(b!) indices)"),
    ("aminmax", "aten::aminmax.out(Tensor self, *, int? dim=None, bool keepdim=False, "
                "Tensor(a!) min, Tensor(b!) max) -> (Tensor(a!) min, Tensor(b!) max)"),
]


def _pair_kernel(qualified: str, name: str) -> Callable:
    def kernel(*args: Any) -> tuple[Tensor, Tensor]:
        *rest, o1, o2 = args
        r1, r2 = find(qualified).kernel(*rest)
        return store_out(r1, o1), store_out(r2, o2)
    kernel.__name__ = name
    kernel.__doc__ = f"{name.split('.')[0]} storing both results into the given tensors."
    kernel.wraps = qualified        # type: ignore[attr-defined]
    return kernel


def _register() -> None:
    # the functional overloads are looked up when first needed (a schema asked for, a kernel
    # called): importing their modules here would import most of the library with any one
    for base, overload in _OUT_FORMS:
        q = "aten::" + base
        register(functools.partial(_out_schema, q, overload),
                 _out_kernel(q, f"{base.split('.')[0]}.{overload}"),
                 qualified=f"aten::{base.split('.')[0]}.{overload}")
    for base, schema in _OUT_PAIRS:
        op(schema)(_pair_kernel("aten::" + base, base))


_register()
