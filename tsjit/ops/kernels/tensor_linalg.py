"""Matrix products and linear algebra: matmul, mm, bmm, addmm, baddbmm, linear, dot, mv,
outer, einsum, tensordot, kron, det, solve, inv, norms, svd ...

Products of floats are float32 (half precision through float32) or float64 BLAS calls, as in
PyTorch: float64 accumulation of float32 operands would double the work and add a conversion
each way on the hot path of attention and linear layers. A stack of matrices times one matrix
is one 2-D product (numpy's stacked matmul is several times slower, and falls to a loop
without BLAS on permuted operands). Complex products accumulate in complex128. Operands must
share a dtype, like PyTorch.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from ..._tensor import dtypes as D
from ..registry import op
from ..._tensor.kernel_util import (NATIVE_FLOATS, fmt_shape, fp_ignored, native_float, not_implemented, quiet, scalar_to_np,
                                    wrap)
from ..._tensor.tensor import Tensor, wrap_dim
from .tensor_reduce import acc

_CNAMES = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
           "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
           "bool": "bool", "float16": "c10::Half", "complex64": "c10::complex<float>",
           "complex128": "c10::complex<double>"}


def _same_dtype(x: Tensor, y: Tensor) -> D.dtype:
    nd = x._a.dtype
    if nd is y._a.dtype and nd in NATIVE_FLOATS:      # the usual operands, checked at once
        return D.from_numpy_dtype(nd)
    if x.dtype != y.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{_CNAMES.get(x.dtype.name)} != {_CNAMES.get(y.dtype.name)}")
    if x.dtype == D.bool_:
        raise not_implemented("addmm_impl_cpu_", x.dtype)
    return x.dtype


def _compute(a: np.ndarray) -> np.ndarray:
    return acc(a) if a.dtype.kind == "c" else native_float(a) if a.dtype.kind == "f" else a


def _few_rows(a: np.ndarray, b: np.ndarray) -> int:
    """How a (M, K) @ b (K, N), b the transpose of a C-ordered weight, runs fastest: 0 as it
    is, else as (b.T @ a.T).T, with a.T copied contiguous first when 2 (FEW_ROWS_COPY).
    OpenBLAS's single-threaded sgemm/dgemm is up to 6x slower with a few rows against a
    large transposed operand (measured on M x K x N grids, docs/design.md): up to 48 rows
    the weight-first product on a contiguous copy of a.T is within 10% of the best where it
    is not the best (2 x 192 x 768: 5.9x faster than as it is, 3.2x than on a.T's view),
    except for tiny products and 2-5 rows of a narrow output; 49-64 rows take a.T's view
    for large weights."""
    m, k = a.shape
    n = b.shape[1]
    if not (2 <= m <= 64 and k * n >= 1 << 14 and b.flags.f_contiguous and
            a.dtype.kind == "f"):
        return 0
    if m <= 48:
        return FEW_ROWS_COPY if m >= 8 or m * n >= 1536 else 0
    return 1 if k * n >= 1 << 16 and m * k * n >= 1 << 19 else 0


FEW_ROWS_COPY = 2


def _matmul2(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a (M, K) @ b (K, N), C-ordered."""
    form = _few_rows(a, b)
    if form:
        at = np.ascontiguousarray(a.T) if form == FEW_ROWS_COPY else a.T
        return np.ascontiguousarray(np.matmul(b.T, at).T)
    return np.matmul(a, b)


@quiet
def product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """np.matmul(a, b) in the compute type (module doc); (*, K) @ (K, O) as one 2-D product."""
    if a.dtype not in NATIVE_FLOATS or b.dtype not in NATIVE_FLOATS:
        a, b = _compute(a), _compute(b)
    if a.ndim > 2 and b.ndim == 2:
        return _matmul2(a.reshape(-1, a.shape[-1]), b).reshape(a.shape[:-1] + b.shape[1:])
    if a.ndim == 2 and b.ndim == 2:
        return _matmul2(a, b)
    return np.matmul(a, b)


def _mm(a: np.ndarray, b: np.ndarray, dt: D.dtype) -> np.ndarray:
    """a @ b in the compute type, rounded to dt."""
    return _rounded(product(a, b), dt)


def _rounded(r: Any, dt: D.dtype) -> np.ndarray:
    """A product's result as an array of dt (itself when it already is one)."""
    nd = dt.np
    return r if r.__class__ is np.ndarray and r.dtype is nd else np.asarray(r).astype(nd, copy=False)


@op("aten::matmul(Tensor self, Tensor other) -> Tensor")
def matmul(self: Tensor, other: Tensor) -> Tensor:
    """Matrix product with numpy/PyTorch rules for 1-D and batched operands."""
    a, b = self._a, other._a
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{a.ndim}D and {b.ndim}D")
    dt = _same_dtype(self, other)
    if a.ndim == 1 and b.ndim == 1:
        return dot(self, other)
    if a.ndim == 2 and b.ndim == 2:
        return mm(self, other)
    if a.ndim == 2 and b.ndim == 1:
        return mv(self, other)
    ka = a.shape[-1]
    kb = b.shape[-2] if b.ndim > 1 else b.shape[0]
    if ka != kb:
        sa = "x".join(map(str, a.shape[-2:])) if a.ndim > 1 else str(a.shape[0])
        sb = "x".join(map(str, b.shape[-2:])) if b.ndim > 1 else str(b.shape[0])
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({sa} and {sb})")
    try:
        if a.shape[:-2] != b.shape[:-2]:
            np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({a.shape[-3] if a.ndim > 2 else 1}) must "
                           f"match the size of tensor b ({b.shape[-3] if b.ndim > 2 else 1}) at "
                           "non-singleton dimension 0") from None
    return wrap(_mm(a, b, dt))


@op("aten::mm(Tensor self, Tensor mat2) -> Tensor")
def mm(self: Tensor, mat2: Tensor) -> Tensor:
    """Product of two matrices."""
    a, b = self._a, mat2._a
    if a.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    dt = _same_dtype(self, mat2)
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} "
                           f"and {b.shape[0]}x{b.shape[1]})")
    return wrap(_mm(a, b, dt))


@op("aten::mm.dtype(Tensor self, Tensor mat2, ScalarType out_dtype) -> Tensor",
    "aten::bmm.dtype(Tensor self, Tensor mat2, ScalarType out_dtype) -> Tensor")
def mm_dtype(self: Tensor, mat2: Tensor, out_dtype: int) -> Tensor:
    """mm / bmm with the result in out_dtype."""
    r = bmm(self, mat2) if self._a.ndim == 3 else mm(self, mat2)
    return wrap(r._a.astype(D.to_numpy_dtype(out_dtype)))


@op("aten::bmm(Tensor self, Tensor mat2) -> Tensor")
def bmm(self: Tensor, mat2: Tensor) -> Tensor:
    """Batched matrix product of (b, n, m) and (b, m, p) tensors."""
    a, b = self._a, mat2._a
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    dt = _same_dtype(self, mat2)
    if b.shape[0] != a.shape[0] or b.shape[1] != a.shape[2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    return wrap(_mm(a, b, dt))


@op("aten::mv(Tensor self, Tensor vec) -> Tensor")
def mv(self: Tensor, vec: Tensor) -> Tensor:
    """Matrix-vector product."""
    a, v = self._a, vec._a
    if a.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.ndim}, {v.ndim}")
    dt = _same_dtype(self, vec)
    if a.shape[1] != v.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat "
                           f"({a.shape[0]}x{a.shape[1]}), vec ({v.shape[0]})")
    return wrap(_mm(a, v, dt))


@op("aten::dot(Tensor self, Tensor tensor) -> Tensor")
def dot(self: Tensor, tensor: Tensor) -> Tensor:
    """Inner product of two 1-D tensors."""
    a, b = self._a, tensor._a
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if self.dtype != tensor.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{self.dtype.cname} and {tensor.dtype.cname}")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
                           f"[{b.shape[0]}] to have the same number of elements, but got "
                           f"{a.shape[0]} and {b.shape[0]} elements respectively")
    if self.dtype == D.bool_:
        raise not_implemented("dot", self.dtype)
    return wrap(_mm(a, b, self.dtype))


@op("aten::vdot(Tensor self, Tensor other) -> Tensor")
def vdot(self: Tensor, other: Tensor) -> Tensor:
    """dot with the first argument conjugated."""
    return dot(wrap(np.conj(self._a)) if self.is_complex() else self, other)


@op("aten::outer(Tensor self, Tensor vec2) -> Tensor", "aten::ger(Tensor self, Tensor vec2) -> Tensor")
def outer(self: Tensor, vec2: Tensor) -> Tensor:
    """Outer product of two vectors (dtypes promote)."""
    if self._a.ndim != 1 or vec2._a.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {self._a.ndim}-D")
    dt = D.promote_types(self.dtype, vec2.dtype)
    with fp_ignored():
        return wrap(np.multiply.outer(self._a.astype(dt.np), vec2._a.astype(dt.np)))


def _add_scaled(base: Tensor, prod: np.ndarray, beta: Any, alpha: Any, dt: D.dtype) -> Tensor:
    b = base._a
    if alpha.__class__ is int and beta.__class__ is int and alpha == beta == 1 and \
            b.dtype is prod.dtype and prod.dtype in NATIVE_FLOATS and \
            (b.shape == prod.shape or b.ndim == 1 and b.shape[0] == prod.shape[-1]):
        # the usual bias: a sum of two floats rounded once, which float64 accumulation then
        # rounding gives too (53 >= 2 * 24 + 2 bits)
        return wrap(prod + b)
    out_shape = np.broadcast_shapes(b.shape, prod.shape)
    if out_shape != prod.shape:
        raise RuntimeError(f"The expanded size of the tensor ({prod.shape[-1]}) must match the "
                           f"existing size ({base._a.shape[-1]}) at non-singleton dimension "
                           f"{len(out_shape) - 1}.  Target sizes: {fmt_shape(prod.shape)}.  "
                           f"Tensor sizes: {fmt_shape(base._a.shape)}")
    p = acc(prod)
    if alpha != 1:
        p = p * acc(scalar_to_np(alpha, dt))
    if beta == 0:
        r = p   # beta == 0 ignores self entirely (NaN and inf included)
    else:
        b = acc(base._a.astype(dt.np, copy=False))
        r = p + (b if beta == 1 else b * acc(scalar_to_np(beta, dt)))
    with fp_ignored():
        return wrap(np.broadcast_to(r, prod.shape).astype(dt.np))


@op("aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> "
    "Tensor")
@quiet
def addmm(self: Tensor, mat1: Tensor, mat2: Tensor, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """beta * self + alpha * (mat1 @ mat2)."""
    a, b, c = mat1._a, mat2._a, self._a
    nd = a.dtype
    # the layers' case first (GPT-2's Conv1D): float matrices of one dtype, a plain bias,
    # beta = alpha = 1; the bias added in place into the fresh product (the sum of two
    # floats rounded once, as float64 accumulation then rounding gives too)
    if nd is b.dtype and nd is c.dtype and nd in NATIVE_FLOATS and a.ndim == 2 and \
            b.ndim == 2 and a.shape[1] == b.shape[0] and alpha.__class__ is int and \
            beta.__class__ is int and alpha == beta == 1 and \
            (c.shape == b.shape[1:] or c.shape == (a.shape[0], b.shape[1])):
        r = _matmul2(a, b)
        r += c
        return wrap(r)
    p = mm(mat1, mat2)
    return _add_scaled(self, p._a, beta, alpha, p.dtype)


@op("aten::baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, "
    "Scalar alpha=1) -> Tensor")
@quiet
def baddbmm(self: Tensor, batch1: Tensor, batch2: Tensor, beta: Any = 1,
            alpha: Any = 1) -> Tensor:
    """beta * self + alpha * bmm(batch1, batch2)."""
    p = bmm(batch1, batch2)
    return _add_scaled(self, p._a, beta, alpha, p.dtype)


@op("aten::addmm.dtype(Tensor self, Tensor mat1, Tensor mat2, ScalarType out_dtype, *, "
    "Scalar beta=1, Scalar alpha=1) -> Tensor",
    "aten::baddbmm.dtype(Tensor self, Tensor batch1, Tensor batch2, ScalarType out_dtype, *, "
    "Scalar beta=1, Scalar alpha=1) -> Tensor")
def addmm_dtype(self: Tensor, m1: Tensor, m2: Tensor, out_dtype: int, beta: Any = 1,
                alpha: Any = 1) -> Tensor:
    """addmm / baddbmm with the result in out_dtype."""
    r = baddbmm(self, m1, m2, beta, alpha) if m1._a.ndim == 3 else \
        addmm(self, m1, m2, beta, alpha)
    return wrap(r._a.astype(D.to_numpy_dtype(out_dtype)))


@op("aten::addmm_(Tensor(a!) self, Tensor mat1, Tensor mat2, *, Scalar beta=1, "
    "Scalar alpha=1) -> Tensor(a!)")
def addmm_(self: Tensor, mat1: Tensor, mat2: Tensor, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """addmm in place."""
    self._writable()[...] = addmm(self, mat1, mat2, beta, alpha)._a
    return self


@op("aten::baddbmm_(Tensor(a!) self, Tensor batch1, Tensor batch2, *, Scalar beta=1, "
    "Scalar alpha=1) -> Tensor(a!)")
def baddbmm_(self: Tensor, batch1: Tensor, batch2: Tensor, beta: Any = 1,
             alpha: Any = 1) -> Tensor:
    """baddbmm in place."""
    self._writable()[...] = baddbmm(self, batch1, batch2, beta, alpha)._a
    return self


@op("aten::addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> "
    "Tensor")
@quiet
def addmv(self: Tensor, mat: Tensor, vec: Tensor, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """beta * self + alpha * (mat @ vec)."""
    p = mv(mat, vec)
    return _add_scaled(self, p._a, beta, alpha, p.dtype)


@op("aten::addbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, "
    "Scalar alpha=1) -> Tensor")
@quiet
def addbmm(self: Tensor, batch1: Tensor, batch2: Tensor, beta: Any = 1,
           alpha: Any = 1) -> Tensor:
    """beta * self + alpha * sum_b(batch1[b] @ batch2[b])."""
    p = bmm(batch1, batch2)
    s = acc(p._a).sum(axis=0)
    return _add_scaled(self, s, beta, alpha, p.dtype)


@op("aten::addr(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) -> "
    "Tensor")
@quiet
def addr(self: Tensor, vec1: Tensor, vec2: Tensor, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """beta * self + alpha * outer(vec1, vec2)."""
    p = outer(vec1, vec2)
    return _add_scaled(self, p._a, beta, alpha, p.dtype)


@op("aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor")
@quiet
def linear(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor:
    """input @ weight.T + bias."""
    x, w = input._a, weight._a
    nd = x.dtype
    # the layers' case first, checked at once: float32/float64 operands of one dtype, a
    # matrix weight, a plain bias; one 2-D product with the bias added in place
    if nd is w.dtype and nd in NATIVE_FLOATS and w.ndim == 2 and x.ndim >= 2 and \
            x.shape[-1] == w.shape[1] and (bias is None or (bias._a.dtype is nd and
                                                            bias._a.shape == w.shape[:1])):
        r = _matmul2(x if x.ndim == 2 else x.reshape(-1, w.shape[1]), w.T)
        if bias is not None:
            r += bias._a
        return wrap(r if x.ndim == 2 else r.reshape(x.shape[:-1] + w.shape[:1]))
    if x.ndim == 0 or w.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"{x.ndim}D and {w.ndim}D")
    dt = _same_dtype(input, weight)
    if x.ndim == 2 and bias is not None and w.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {w.ndim}-D tensor")
    wt = w.T if w.ndim == 2 else w
    k = wt.shape[0]
    if x.shape[-1] != k:
        rows = int(np.prod(x.shape[:-1])) if x.ndim > 1 else 1
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{x.shape[-1]} "
                           f"and {wt.shape[0]}x{wt.shape[1] if wt.ndim > 1 else 1})")
    if bias is not None and bias._a.dtype != x.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{_CNAMES.get(bias.dtype.name)} != {_CNAMES.get(dt.name)}")
    r = product(x, wt)
    if bias is not None:
        b = bias._a
        if isinstance(r, np.ndarray) and b.ndim == 1 and r.ndim and b.shape[0] == r.shape[-1]:
            r += b          # the usual bias: in place, no second output-sized temporary
        else:
            r = r + bias._a
    return wrap(_rounded(r, dt))


@op("aten::bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None) -> Tensor")
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor,
             bias: Optional[Tensor] = None) -> Tensor:
    """y_k = x1 W_k x2 + b_k."""
    r = np.einsum("...i,kij,...j->...k", acc(input1._a), acc(weight._a), acc(input2._a))
    if bias is not None:
        r = r + acc(bias._a)
    return wrap(r.astype(input1._a.dtype))


_MATMUL_FORMS: dict[str, Optional[tuple[bool, bool, str]]] = {}


def _matmul_form(eq: str) -> Optional[tuple[bool, bool, str]]:
    """For an einsum of two operands that is a batched matrix product (`bhid,bhjd->bhij`:
    the same batch letters leading every term, one letter contracted), whether each operand
    is transposed and the output's letters; else None. Memoised per equation."""
    if eq in _MATMUL_FORMS:
        return _MATMUL_FORMS[eq]
    form = None
    lhs, _, out = eq.partition("->")
    x, _, y = lhs.partition(",")
    n = len(out)
    if "." not in eq and "," not in y and n >= 2 and len(x) == len(y) == n and \
            len(set(out)) == n and x[:-2] == y[:-2] == out[:-2]:
        i, j = out[-2:]
        k = set(x[-2:]) & set(y[-2:])
        if len(k) == 1 and i != j and {i, j}.isdisjoint(k):
            (k,) = k
            if k not in out and sorted(x[-2:]) == sorted(i + k) and sorted(y[-2:]) == sorted(k + j):
                form = (x[-2:] == k + i, y[-2:] == j + k, out)
    _MATMUL_FORMS[eq] = form
    return form


@op("aten::einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor")
@quiet
def einsum(equation: str, tensors: Sequence[Tensor], path: Any = None) -> Tensor:
    """Einstein summation (numpy's notation, which PyTorch shares)."""
    if not tensors:
        raise RuntimeError("einsum(): must provide at least one operand")
    dt = tensors[0].dtype
    for t in tensors[1:]:
        if t.dtype != dt:
            raise RuntimeError("einsum(): operands do not have the same dtype")
    eq = equation.replace(" ", "")
    if len(tensors) == 2 and dt.np in NATIVE_FLOATS:
        a, b = tensors[0]._a, tensors[1]._a
        form = _matmul_form(eq)
        if form is not None and a.ndim == b.ndim == len(form[2]) and \
                a.shape[:-2] == b.shape[:-2]:
            return wrap(np.matmul(a.swapaxes(-1, -2) if form[0] else a,
                                  b.swapaxes(-1, -2) if form[1] else b))
    try:
        r = np.einsum(eq, *(acc(t._a) for t in tensors), optimize=len(tensors) > 2)
    except ValueError as e:
        raise RuntimeError(f"einsum(): {e}") from None
    return wrap(np.asarray(r).astype(dt.np))


@op("aten::einsum.sublist(Tensor a, ...) -> Tensor")
def einsum_sublist(a: Tensor, *rest: Any) -> Tensor:
    """einsum(op0, sublist0, op1, sublist1, ..., [sublist_out])."""
    args: list[Any] = [acc(a._a)]
    for x in rest:
        args.append(acc(x._a) if isinstance(x, Tensor) else list(x))
    return wrap(np.asarray(np.einsum(*args)).astype(a._a.dtype))


@op("aten::tensordot(Tensor self, Tensor other, int[] dims_self, int[] dims_other) -> Tensor")
def tensordot(self: Tensor, other: Tensor, dims_self: Sequence[int],
              dims_other: Sequence[int]) -> Tensor:
    """Contract dims_self of self with dims_other of other."""
    if len(dims_self) != len(dims_other):
        raise RuntimeError("both dimension lists should have same length")
    dt = _same_dtype(self, other)
    ds = [wrap_dim(d, self._a.ndim) for d in dims_self]
    do = [wrap_dim(d, other._a.ndim) for d in dims_other]
    for x, y in zip(ds, do):
        if self._a.shape[x] != other._a.shape[y]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{self._a.shape[x]} in dim {x} and second has size "
                               f"{other._a.shape[y]} in dim {y}")
    r = np.tensordot(acc(self._a), acc(other._a), axes=(ds, do))
    return wrap(np.asarray(r).astype(dt.np))


@op("aten::kron(Tensor self, Tensor other) -> Tensor")
def kron(self: Tensor, other: Tensor) -> Tensor:
    """Kronecker product (dtypes promote)."""
    dt = D.promote_types(self.dtype, other.dtype)
    return wrap(np.kron(self._a.astype(dt.np), other._a.astype(dt.np)))


@op("aten::chain_matmul(Tensor[] matrices) -> Tensor",
    "aten::linalg_multi_dot(Tensor[] tensors) -> Tensor")
def multi_dot(tensors: Sequence[Tensor]) -> Tensor:
    """The product of a chain of matrices."""
    if not tensors:
        raise RuntimeError("multi_dot(): expected at least 2 tensors but got 0")
    r = tensors[0]
    for t in tensors[1:]:
        r = matmul(r, t)
    return r


# --- decompositions and solvers -----------------------------------------------------------------
def _float_input(t: Tensor, name: str) -> np.ndarray:
    if t.dtype.kind not in "fc":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{t.dtype.cname}")
    if t._a.ndim < 2 or t._a.shape[-1] != t._a.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{t._a.shape[-2] if t._a.ndim > 1 else 1} by {t._a.shape[-1]} "
                           "matrices")
    return t._a


@op("aten::linalg_det(Tensor A) -> Tensor", "aten::det(Tensor self) -> Tensor")
def det(A: Tensor) -> Tensor:
    """Determinant of (batches of) square matrices."""
    a = _float_input(A, "linalg.det")
    return wrap(np.asarray(np.linalg.det(acc(a))).astype(a.dtype))


@op("aten::linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet)",
    "aten::slogdet(Tensor self) -> (Tensor sign, Tensor logabsdet)")
def slogdet(A: Tensor) -> tuple[Tensor, Tensor]:
    """(sign, log|det|)."""
    a = _float_input(A, "linalg.slogdet")
    s, l = np.linalg.slogdet(acc(a))
    return wrap(np.asarray(s).astype(a.dtype)), wrap(np.asarray(l).astype(A.dtype.to_real().np))


@op("aten::logdet(Tensor self) -> Tensor")
@quiet
def logdet(self: Tensor) -> Tensor:
    """log(det) (NaN for a negative determinant)."""
    a = _float_input(self, "linalg.logdet")
    s, l = np.linalg.slogdet(acc(a))
    return wrap(np.asarray(np.where(s < 0, np.nan, l)).astype(a.dtype))


@op("aten::linalg_inv(Tensor A) -> Tensor", "aten::inverse(Tensor self) -> Tensor")
def inv(A: Tensor) -> Tensor:
    """Matrix inverse."""
    a = _float_input(A, "linalg.inv")
    try:
        return wrap(np.linalg.inv(acc(a)).astype(a.dtype))
    except np.linalg.LinAlgError:
        raise RuntimeError("linalg.inv: The diagonal element 1 is zero, the inversion could not "
                           "be completed because the input matrix is singular.") from None


@op("aten::linalg_solve(Tensor A, Tensor B, *, bool left=True) -> Tensor")
def solve(A: Tensor, B: Tensor, left: bool = True) -> Tensor:
    """X with A X = B (X A = B when left=False)."""
    a = _float_input(A, "linalg.solve")
    b = B._a
    dt = D.promote_types(A.dtype, B.dtype)
    vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
    try:
        if not left:
            x = np.swapaxes(np.linalg.solve(np.swapaxes(acc(a), -1, -2),
                                            np.swapaxes(acc(b), -1, -2)), -1, -2)
        elif vector:
            x = np.linalg.solve(acc(a), acc(b)[..., None])[..., 0]
        else:
            x = np.linalg.solve(acc(a), acc(b))
    except np.linalg.LinAlgError:
        raise RuntimeError("torch.linalg.solve: The solver failed because the input matrix is "
                           "singular.") from None
    return wrap(x.astype(dt.np))


@op("aten::linalg_matrix_power(Tensor self, int n) -> Tensor",
    "aten::matrix_power(Tensor self, int n) -> Tensor")
def matrix_power(self: Tensor, n: int) -> Tensor:
    """The n-th power of square matrices (negative n inverts)."""
    a = self._a
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise RuntimeError("linalg.matrix_power: A must be batches of square matrices")
    src = acc(a) if a.dtype.kind in "fc" else a
    return wrap(np.linalg.matrix_power(src, n).astype(a.dtype))


@op("aten::linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None) -> "
    "(Tensor U, Tensor S, Tensor Vh)")
def linalg_svd(A: Tensor, full_matrices: bool = True, driver: Optional[str] = None) -> tuple:
    """Singular value decomposition A = U diag(S) Vh."""
    a = A._a
    u, s, vh = np.linalg.svd(acc(a), full_matrices=full_matrices)
    return (wrap(u.astype(a.dtype)), wrap(s.astype(A.dtype.to_real().np)),
            wrap(vh.astype(a.dtype)))


@op("aten::svd(Tensor self, bool some=True, bool compute_uv=True) -> "
    "(Tensor U, Tensor S, Tensor V)")
def svd(self: Tensor, some: bool = True, compute_uv: bool = True) -> tuple:
    """Singular value decomposition A = U diag(S) V^H."""
    u, s, vh = linalg_svd(self, not some)
    return u, s, wrap(np.conj(np.swapaxes(vh._a, -1, -2)))


@op("aten::linalg_qr(Tensor A, str mode=\"reduced\") -> (Tensor Q, Tensor R)")
def linalg_qr(A: Tensor, mode: str = "reduced") -> tuple[Tensor, Tensor]:
    """QR decomposition."""
    q, r = np.linalg.qr(acc(A._a), mode="complete" if mode == "complete" else "reduced")
    return wrap(q.astype(A._a.dtype)), wrap(r.astype(A._a.dtype))


@op("aten::linalg_eigh(Tensor self, str UPLO=\"L\") -> "
    "(Tensor eigenvalues, Tensor eigenvectors)")
def linalg_eigh(self: Tensor, UPLO: str = "L") -> tuple[Tensor, Tensor]:
    """Eigen-decomposition of a symmetric / Hermitian matrix."""
    w, v = np.linalg.eigh(acc(self._a), UPLO=UPLO)
    return wrap(w.astype(self.dtype.to_real().np)), wrap(v.astype(self._a.dtype))


@op("aten::linalg_cholesky(Tensor self, *, bool upper=False) -> Tensor",
    "aten::cholesky(Tensor self, bool upper=False) -> Tensor")
def cholesky(self: Tensor, upper: bool = False) -> Tensor:
    """Cholesky factor (lower, or upper when asked)."""
    try:
        l = np.linalg.cholesky(acc(self._a))
    except np.linalg.LinAlgError:
        raise RuntimeError("linalg.cholesky: The factorization could not be completed because "
                           "the input is not positive-definite.") from None
    if upper:
        l = np.conj(np.swapaxes(l, -1, -2))
    return wrap(l.astype(self._a.dtype))


@op("aten::linalg_pinv.atol_rtol_float(Tensor self, *, float? atol=None, float? rtol=None, "
    "bool hermitian=False) -> Tensor")
def pinv(self: Tensor, atol: Optional[float] = None, rtol: Optional[float] = None,
         hermitian: bool = False) -> Tensor:
    """Moore-Penrose pseudo-inverse."""
    a = self._a
    rc = rtol if rtol is not None else (max(a.shape[-2:]) * np.finfo(a.dtype).eps
                                        if atol is None else 0.0)
    return wrap(np.linalg.pinv(acc(a), rcond=rc, hermitian=hermitian).astype(a.dtype))


@op("aten::linalg_cross(Tensor self, Tensor other, *, int dim=-1) -> Tensor")
def linalg_cross(self: Tensor, other: Tensor, dim: int = -1) -> Tensor:
    """Cross product of 3-vectors along dim."""
    d = wrap_dim(dim, self._a.ndim)
    if self._a.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{self._a.shape[d]} and {other._a.shape[wrap_dim(dim, other._a.ndim)]}")
    dt = D.promote_types(self.dtype, other.dtype)
    return wrap(np.cross(self._a.astype(dt.np), other._a.astype(dt.np), axis=d))


@op("aten::cross(Tensor self, Tensor other, int? dim=None) -> Tensor")
def cross(self: Tensor, other: Tensor, dim: Optional[int] = None) -> Tensor:
    """Cross product along dim (the first dimension of size 3 when None)."""
    if dim is None:
        dim = next((i for i, s in enumerate(self._a.shape) if s == 3), -1)
    return linalg_cross(self, other, dim)


@op("aten::cdist(Tensor x1, Tensor x2, float p=2., int? compute_mode=None) -> Tensor")
@quiet
def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: Optional[int] = None) -> Tensor:
    """p-norm distances between each pair of rows of x1 and x2 (batched)."""
    a, b = acc(x1._a), acc(x2._a)
    diff = np.abs(a[..., :, None, :] - b[..., None, :, :])
    if p == 0:
        r = np.count_nonzero(diff, axis=-1).astype(np.float64)
    elif np.isinf(p):
        r = diff.max(axis=-1) if diff.shape[-1] else np.zeros(diff.shape[:-1])
    else:
        r = np.sum(diff ** p, axis=-1) ** (1.0 / p)
    return wrap(r.astype(x1._a.dtype))
