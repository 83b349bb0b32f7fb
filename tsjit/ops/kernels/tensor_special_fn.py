"""Special functions without scipy: erfinv / ndtri (Newton on math-accurate erf and erfcx),
erfcx, log_ndtr, digamma, polygamma, the Hurwitz zeta, i0e, multigammaln and
spherical_bessel_j0, with their `special_*` spellings.

Single-precision inputs are computed in double precision and rounded, so results can
differ from PyTorch's single-precision kernels by an ulp or two.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from ..._tensor import dtypes as D
from ..registry import op
from ..._tensor.kernel_util import float_result, not_implemented, quiet, to_np, wrap
from ..._tensor.tensor import Tensor
from .tensor_arith import inplace, prep
from .tensor_special import _lgamma
from .tensor_unary import erf_array, erfc_array

_SQRT_PI = math.sqrt(math.pi)
_TWO_OVER_SQRT_PI = 2 / _SQRT_PI


def _real64(name: str, self: Tensor) -> tuple[np.ndarray, np.dtype]:
    """self's values in float64 and the dtype of the result (integers give float32)."""
    if self.dtype.kind == "c":
        raise not_implemented(name, self.dtype)
    out = D.to_numpy_dtype(float_result(self.dtype))
    return self._a.astype(np.float64), out


def _unary(name: str, fn: Callable[[np.ndarray], np.ndarray], cpu_name: str) -> Callable:
    @quiet
    def kernel(self: Tensor) -> Tensor:
        a, out = _real64(cpu_name, self)
        return wrap(np.asarray(fn(a)).astype(out, copy=False))
    kernel.__name__ = name
    kernel.__doc__ = f"Elementwise {name} of a real tensor (integers and bools give floats)."
    return kernel


# --- erfcx, erfinv, ndtri, log_ndtr --------------------------------------------------------------
_CF_TERMS = 60


def _erfcx(x: np.ndarray) -> np.ndarray:
    """exp(x^2) erfc(x) in double precision."""
    ax = np.abs(x)
    small = ax < 2
    # |x| >= 2: the continued fraction erfc(x) = exp(-x^2)/sqrt(pi) / (x + 1/2 / (x + 1 / (x +
    # 3/2 / ...))), evaluated backwards; it avoids exp(x^2) erfc(x)'s overflow and underflow
    big = np.where(small, 2.0, np.where(np.isnan(ax), 2.0, ax))
    f = big.copy()
    for k in range(_CF_TERMS, 0, -1):
        f = big + (k / 2) / f
    tail = np.where(np.isinf(big), 0.0, 1 / (_SQRT_PI * f))
    s = np.where(small, x, 0.0)
    pos = np.where(small, np.exp(s * s) * erfc_array(np.abs(s)), tail)   # erfcx(|x|)
    # erfcx(-y) = 2 exp(y^2) - erfcx(y), which overflows to inf past y ~ 26.6
    neg = 2 * np.exp(x * x) - pos
    return np.where(np.isnan(x), x, np.where(x >= 0, pos, neg))


def _erfcinv(t: np.ndarray) -> np.ndarray:
    """The x with erfc(x) = t, for t in (0, 1] (t = 0 gives inf)."""
    # Giles's single-precision approximation of erfinv(1 - t), written in terms of t so
    # that it keeps its accuracy for tiny t, then Newton steps on log erfc(x) = log t,
    # with log erfc(x) = log erfcx(x) - x^2 (no underflow)
    tt = np.where(t > 0, t, 1.0)
    w = -np.log(tt * (2 - tt))
    x0 = np.where(w < 5, _giles_central(w - 2.5), _giles_tail(np.sqrt(w) - 3)) * (1 - tt)
    # beyond Giles's single-precision range: erfc(x) ~ exp(-x^2) / (x sqrt(pi)) = t
    far = np.sqrt(-np.log(tt * _SQRT_PI))
    for _ in range(2):
        far = np.sqrt(-np.log(tt * _SQRT_PI * far))
    x = np.where(w > 16, far, np.maximum(x0, 0.0))
    lt = np.log(tt)
    for _ in range(6):
        ex = _erfcx(x)
        x = x + (np.log(ex) - x * x - lt) * ex / _TWO_OVER_SQRT_PI
    return np.where(t == 0, np.inf, np.where(t == 1, 0.0, x))


def _giles_central(w: np.ndarray) -> np.ndarray:
    p = 2.81022636e-08
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
              -0.00417768164, 0.246640727, 1.50140941):
        p = c + p * w
    return p


def _giles_tail(w: np.ndarray) -> np.ndarray:
    p = -0.000200214257
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
              0.00943887047, 1.00167406, 2.83297682):
        p = c + p * w
    return p


def _erfinv(y: np.ndarray) -> np.ndarray:
    ay = np.abs(y)
    central = ay <= 0.5
    # |y| <= 0.5: Newton on erf itself
    yc = np.where(central, y, 0.0)
    x = yc * _giles_central(-np.log((1 - yc) * (1 + yc)) - 2.5)
    for _ in range(3):
        x = x - (erf_array(x) - yc) / (_TWO_OVER_SQRT_PI * np.exp(-x * x))
    # |y| > 0.5: erfinv(y) = sign(y) erfcinv(1 - |y|), and 1 - |y| is exact there
    tail = np.sign(y) * _erfcinv(np.where(central | (ay > 1), 1.0, 1 - ay))
    r = np.where(central, x, tail)
    return np.where(ay > 1, np.nan, np.where(np.isnan(y), y, r))


def _ndtri(p: np.ndarray) -> np.ndarray:
    lower = p < 0.5
    t = np.where((p < 0) | (p > 1) | np.isnan(p), 1.0, np.where(lower, 2 * p, 2 * (1 - p)))
    r = np.where(lower, -math.sqrt(2), math.sqrt(2)) * _erfcinv(t)
    return np.where((p < 0) | (p > 1) | np.isnan(p), np.nan, r)


def _log_ndtr(x: np.ndarray) -> np.ndarray:
    z = x / math.sqrt(2)
    # far left, log(erfc(-z) / 2) with erfc written as erfcx * exp(-z^2) to avoid underflow
    left = np.log(_erfcx(-np.minimum(z, 0)) / 2) - z * z
    right = np.log1p(-erfc_array(np.maximum(z, 0)) / 2)
    return np.where(x < -1, left, np.where(x < 0, np.log(erfc_array(-z) / 2), right))


# --- digamma, trigamma, Hurwitz zeta, polygamma --------------------------------------------------
def _digamma(x: np.ndarray) -> np.ndarray:
    neg = x < 0
    is_int = x == np.trunc(x)
    # reflection for x < 0: psi(x) = psi(1 - x) - pi / tan(pi x), tan from x's fraction
    frac = x - np.trunc(x)
    refl = np.where(neg, -math.pi / np.tan(math.pi * np.where(neg, frac, 0.5)), 0.0)
    y = np.where(neg, 1 - x, x)
    acc = np.zeros_like(y)
    for _ in range(10):      # psi(y) = psi(y + 1) - 1 / y until y >= 10
        lt = y < 10
        acc -= np.where(lt, 1 / np.where(lt, y, 1.0), 0.0)
        y = np.where(lt, y + 1, y)
    z = 1 / (y * y)
    series = z * (1 / 12 - z * (1 / 120 - z * (1 / 252 - z * (1 / 240 - z * (1 / 132 - z * (
        691 / 32760 - z / 12))))))
    r = acc + np.log(y) - 0.5 / y - np.where(y < 1e17, series, 0.0) + refl
    r = np.where(neg & is_int, np.nan, r)
    return np.where(x == 0, np.copysign(np.inf, -x), r)


def _trigamma(x: np.ndarray) -> np.ndarray:
    small = x < 0.5
    # reflection: psi1(x) = pi^2 / sin^2(pi x) - psi1(1 - x)
    s = np.sin(math.pi * x)
    refl = np.where(small, (math.pi * math.pi) / (s * s), 0.0)
    y = np.where(small, 1 - x, x)
    acc = np.zeros_like(y)
    for _ in range(6):
        acc += 1 / (y * y)
        y = y + 1
    iyy = 1 / (y * y)
    acc += (1 + 1 / (2 * y) + iyy * (1 / 6 - iyy * (1 / 30 - iyy / 42))) / y
    return np.where(small, refl - acc, acc)


# B_2j / (2j)! for the Euler-Maclaurin tail of the zeta sum
_BERNOULLI = [Fraction(1, 6), Fraction(-1, 30), Fraction(1, 42), Fraction(-1, 30),
              Fraction(5, 66), Fraction(-691, 2730), Fraction(7, 6), Fraction(-3617, 510),
              Fraction(43867, 798), Fraction(-174611, 330), Fraction(854513, 138),
              Fraction(-236364091, 2730)]
_EM = [float(b / math.factorial(2 * j + 2)) for j, b in enumerate(_BERNOULLI)]


def _zeta(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The Hurwitz zeta function sum_k (q + k) ** -x, with Cephes's domain conventions."""
    x, q = np.broadcast_arrays(x, q)
    q_int = q == np.floor(q)
    nan = (x < 1) | ((q <= 0) & ~q_int & (x != np.floor(x)))
    inf = (x == 1) | ((q <= 0) & q_int)
    ok = ~(nan | inf | np.isnan(x) | np.isnan(q))
    xs, qs = np.where(ok, x, 2.0), np.where(ok, q, 1.0)
    # sum the first terms directly until q + n >= 10 (at least 10 of them) ...
    n = np.maximum(10, np.ceil(10 - qs))
    s = np.zeros_like(xs)
    for k in range(int(n.max()) if n.size else 0):
        s += np.where(k < n, np.power(qs + k, -xs), 0.0)
    # ... then the Euler-Maclaurin tail from w = q + n
    w = qs + n
    b = np.power(w, -xs)
    s += w * b / (xs - 1) + b / 2
    t = xs * b / w
    for j, c in enumerate(_EM):
        term = np.where(b == 0, 0.0, c * t)
        s += term
        t = t * (xs + 2 * j + 1) * (xs + 2 * j + 2) / (w * w)
    # x = inf: 1 ** -inf = 1, and a term (q + k) ** -inf is inf when q < 1; for q > 1
    # Cephes's sum (which PyTorch uses) gives NaN, its series never starting to converge
    s = np.where(np.isposinf(x), np.where(q < 1, np.inf, np.where(q == 1, 1.0, np.nan)),
                 s)
    return np.where(nan, np.nan, np.where(inf, np.inf, np.where(ok, s, np.nan)))


def _polygamma(n: int, x: np.ndarray) -> np.ndarray:
    if n == 0:
        return _digamma(x)
    if n == 1:
        # in x's own precision: sin(pi x) near the poles decides the result's magnitude
        return _trigamma(x)
    sign = 1.0 if n % 2 else -1.0
    return sign * math.exp(math.lgamma(n + 1.0)) * _zeta(np.full_like(x, n + 1.0), x)


# --- Bessel-type ---------------------------------------------------------------------------------
def _i0e(x: np.ndarray) -> np.ndarray:
    ax = np.abs(x)
    big = ax > 700
    direct = np.i0(np.where(big, 0.0, ax)) * np.exp(-np.where(big, 0.0, ax))
    # large |x|: the asymptotic series 1 / sqrt(2 pi x) (1 + 1/(8x) + 9/(2 (8x)^2) + ...)
    u = 1 / (8 * np.where(big, ax, 1.0))
    asym = (1 + u * (1 + u * (9 / 2 + u * (225 / 6 + u * (11025 / 24))))) / \
        np.sqrt(2 * math.pi * np.where(big, ax, 1.0))
    return np.where(np.isnan(x), x, np.where(big, np.where(np.isinf(ax), 0.0, asym), direct))


def _spherical_j0(x: np.ndarray) -> np.ndarray:
    small = np.abs(x) < 0.5
    z = x * x
    series = 1 - z / 6 * (1 - z / 20 * (1 - z / 42 * (1 - z / 72 * (1 - z / 110 * (
        1 - z / 156)))))
    big = np.sin(x) / np.where(small, 1.0, x)
    return np.where(np.isinf(x), 0.0, np.where(small, series, big))


# --- registration --------------------------------------------------------------------------------
_UNARY = {
    "erfinv": (_erfinv, "erfinv_cpu", ["special_erfinv"], True),
    "digamma": (_digamma, "digamma", ["special_digamma", "special_psi"], True),
    "special_erfcx": (_erfcx, "erfcx_cpu", [], False),
    "special_ndtri": (_ndtri, "ndtri_cpu", [], False),
    "special_log_ndtr": (_log_ndtr, "log_ndtr_cpu", [], False),
    "special_i0e": (_i0e, "i0e_cpu", [], False),
}
for _name, (_fn, _cpu, _aliases, _has_inplace) in _UNARY.items():
    _k = _unary(_name, _fn, _cpu)
    op(f"aten::{_name}(Tensor self) -> Tensor",
       *(f"aten::{a}(Tensor self) -> Tensor" for a in _aliases))(_k)
    globals()[_name] = _k
    if _has_inplace:
        globals()[_name + "_"] = op(f"aten::{_name}_(Tensor(a!) self) -> Tensor(a!)")(
            inplace(_k))
del _name, _fn, _cpu, _aliases, _has_inplace, _k

special_spherical_bessel_j0 = op("aten::special_spherical_bessel_j0(Tensor x) -> Tensor")(
    _unary("special_spherical_bessel_j0", _spherical_j0, "spherical_bessel_j0_cpu"))


@op("aten::polygamma(int n, Tensor self) -> Tensor",
    "aten::special_polygamma(int n, Tensor self) -> Tensor")
@quiet
def polygamma(n: int, self: Tensor) -> Tensor:
    """The n-th derivative of digamma."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    a, out = _real64("polygamma", self)
    return wrap(np.asarray(_polygamma(n, a.astype(out) if n == 1 else a)).astype(out,
                                                                                copy=False))


@op("aten::polygamma_(Tensor(a!) self, int n) -> Tensor(a!)")
def polygamma_(self: Tensor, n: int) -> Tensor:
    """In-place polygamma (note the argument order: self first)."""
    return inplace(lambda s, k: polygamma(k, s))(self, n)


@op("aten::special_zeta(Tensor self, Tensor other) -> Tensor",
    "aten::special_zeta.other_scalar(Tensor self, Scalar other) -> Tensor",
    "aten::special_zeta.self_scalar(Scalar self, Tensor other) -> Tensor")
@quiet
def special_zeta(self: Any, other: Any) -> Tensor:
    """The Hurwitz zeta function zeta(self, other) = sum_k (other + k) ** -self."""
    dt = float_result(D.result_type(self, other))
    if dt.kind == "c":
        raise not_implemented("zeta_cpu", dt)
    _, x, q = prep(self, other, dt)
    return wrap(np.asarray(_zeta(x.astype(np.float64), q.astype(np.float64))).astype(
        D.to_numpy_dtype(dt)))


@op("aten::mvlgamma(Tensor self, int p) -> Tensor",
    "aten::special_multigammaln(Tensor self, int p) -> Tensor")
@quiet
def mvlgamma(self: Tensor, p: int) -> Tensor:
    """The multivariate log-gamma function of dimension p."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    a, out = _real64("mvlgamma", self)
    j = np.arange(p, dtype=np.float64) / 2
    r = _lgamma(a[..., None] - j).sum(-1) + p * (p - 1) / 4 * math.log(math.pi)
    return wrap(np.asarray(r).astype(out, copy=False))


mvlgamma_ = op("aten::mvlgamma_(Tensor(a!) self, int p) -> Tensor(a!)")(inplace(mvlgamma))
