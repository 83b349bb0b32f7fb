"""Spectral operators: the `torch.fft` family (`aten::fft_*`) over numpy's FFT, and the window
functions (`hann_window`, `hamming_window`, `blackman_window`, `bartlett_window`,
`kaiser_window`). Results have PyTorch's dtypes: a float32 (or integer) input gives complex64,
float64 gives complex128, and the inverse real transforms give the matching real type.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from ..._tensor import dtypes as D
from ..._tensor.kernel_util import wrap
from ..._tensor.tensor import Tensor
from ..registry import op

_NORMS = (None, "backward", "ortho", "forward")
_OPTS = "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None"


def _single(a: np.ndarray) -> bool:
    return a.dtype not in (np.float64, np.complex128)


def _checked_norm(norm: Optional[str]) -> Optional[str]:
    if norm not in _NORMS:
        raise RuntimeError(f"Invalid normalization mode: \"{norm}\"")
    return norm


def _complex_out(r: np.ndarray, single: bool) -> Tensor:
    return wrap(np.ascontiguousarray(r.astype(np.complex64 if single else np.complex128)))


def _real_out(r: np.ndarray, single: bool) -> Tensor:
    return wrap(np.ascontiguousarray(r.astype(np.float32 if single else np.float64)))


def _one_dim(name: str, fn: Any, real_in: bool, real_out: bool) -> None:
    @op(f"aten::fft_{name}(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor")
    def kernel(self: Tensor, n: Optional[int] = None, dim: int = -1,
               norm: Optional[str] = None) -> Tensor:
        a = self._a
        if real_in and a.dtype.kind == "c":
            raise RuntimeError(f"{name} expects a real input tensor, but got {D.from_numpy_dtype(a.dtype)}")
        if n is not None and n < 1:
            raise RuntimeError(f"Invalid number of data points ({n}) specified")
        r = fn(a, n=n, axis=dim, norm=_checked_norm(norm))
        return (_real_out if real_out else _complex_out)(r, _single(a))
    kernel.__name__ = f"fft_{name}"
    kernel.__doc__ = f"torch.fft.{name}: numpy.fft.{fn.__name__} in PyTorch's dtypes."


def _n_dim(name: str, fn: Any, real_in: bool, real_out: bool, default_dim: str) -> None:
    @op(f"aten::fft_{name}(Tensor self, SymInt[1]? s=None, int[1]{default_dim} dim, "
        "str? norm=None) -> Tensor".replace("int[1]? dim", "int[1]? dim=None")
        .replace("int[1] dim", "int[1] dim=[-2,-1]"))
    def kernel(self: Tensor, s: Optional[Sequence[int]] = None, dim: Any = None,
               norm: Optional[str] = None) -> Tensor:
        a = self._a
        if real_in and a.dtype.kind == "c":
            raise RuntimeError(f"{name} expects a real input tensor")
        axes = None if dim is None else list(dim)
        if axes is None and s is not None:
            axes = list(range(a.ndim - len(s), a.ndim))
        r = fn(a, s=None if s is None else list(s), axes=axes, norm=_checked_norm(norm))
        return (_real_out if real_out else _complex_out)(r, _single(a))
    kernel.__name__ = f"fft_{name}"
    kernel.__doc__ = f"torch.fft.{name}: numpy.fft.{fn.__name__} in PyTorch's dtypes."


for _name, _fn, _ri, _ro in (("fft", np.fft.fft, False, False), ("ifft", np.fft.ifft, False, False),
                             ("rfft", np.fft.rfft, True, False), ("irfft", np.fft.irfft, False, True),
                             ("hfft", np.fft.hfft, False, True), ("ihfft", np.fft.ihfft, True, False)):
    _one_dim(_name, _fn, _ri, _ro)
for _name, _fn, _ri, _ro in (("fft", np.fft.fftn, False, False), ("ifft", np.fft.ifftn, False, False),
                             ("rfft", np.fft.rfftn, True, False),
                             ("irfft", np.fft.irfftn, False, True)):
    _n_dim(_name + "2", _fn, _ri, _ro, "")
    _n_dim(_name + "n", _fn, _ri, _ro, "?")


@op("aten::fft_fftshift(Tensor self, int[1]? dim=None) -> Tensor")
def fft_fftshift(self: Tensor, dim: Optional[Sequence[int]] = None) -> Tensor:
    """The zero frequency moved to the centre (along `dim`, all dims by default)."""
    return wrap(np.ascontiguousarray(np.fft.fftshift(self._a, axes=dim)))


@op("aten::fft_ifftshift(Tensor self, int[1]? dim=None) -> Tensor")
def fft_ifftshift(self: Tensor, dim: Optional[Sequence[int]] = None) -> Tensor:
    """The inverse of fftshift."""
    return wrap(np.ascontiguousarray(np.fft.ifftshift(self._a, axes=dim)))


def _float_dtype(dtype: Any) -> np.dtype:
    d = D.get_default_dtype() if dtype is None else D.as_dtype(dtype)
    nd = D.to_numpy_dtype(d)
    if nd.kind not in "fc":
        raise RuntimeError(f"window and frequency functions expect a floating point dtype, "
                           f"got {d}")
    return nd


@op(f"aten::fft_fftfreq(int n, float d=1.0, *, {_OPTS}) -> Tensor")
def fft_fftfreq(n: int, d: float = 1.0, dtype: Any = None, layout: Any = None,
                device: Any = None, pin_memory: Any = None) -> Tensor:
    """The sample frequencies of an n-point FFT with sample spacing d."""
    return wrap(np.fft.fftfreq(n, d).astype(_float_dtype(dtype)))


@op(f"aten::fft_rfftfreq(int n, float d=1.0, *, {_OPTS}) -> Tensor")
def fft_rfftfreq(n: int, d: float = 1.0, dtype: Any = None, layout: Any = None,
                 device: Any = None, pin_memory: Any = None) -> Tensor:
    """The sample frequencies of an n-point real FFT with sample spacing d."""
    return wrap(np.fft.rfftfreq(n, d).astype(_float_dtype(dtype)))


# --- windows ---------------------------------------------------------------------------------
def _window(n: int, periodic: bool, dtype: Any, f: Any) -> Tensor:
    """f(k, m) over k = 0..m-1 where m is n (+1 when periodic, the last point dropped)."""
    nd = _float_dtype(dtype)
    if n < 0:
        raise RuntimeError(f"window_length must be non-negative, got {n}")
    if n == 0:
        return wrap(np.zeros(0, nd))
    if n == 1:
        return wrap(np.ones(1, nd))
    m = n + 1 if periodic else n
    w = f(np.arange(m, dtype=np.float64), m)
    return wrap(np.ascontiguousarray(w[:n].astype(nd)))


def _cosine(alpha: float, beta: float):
    return lambda k, m: alpha - beta * np.cos(2 * np.pi * k / (m - 1))


def _register_windows() -> None:
    forms = {
        "hann": (_cosine(0.5, 0.5), []),
        "blackman": (lambda k, m: 0.42 - 0.5 * np.cos(2 * np.pi * k / (m - 1))
                     + 0.08 * np.cos(4 * np.pi * k / (m - 1)), []),
        "bartlett": (lambda k, m: 1 - np.abs(2 * k / (m - 1) - 1), []),
    }
    for name, (f, _) in forms.items():
        def kernel(n: int, *rest: Any, f: Any = f) -> Tensor:
            periodic = rest[0] if len(rest) == 5 else True
            return _window(n, periodic, rest[-4], f)
        kernel.__name__ = f"{name}_window"
        kernel.__doc__ = f"torch.{name}_window: periodic by default."
        op(f"aten::{name}_window(int window_length, *, {_OPTS}) -> Tensor",
           f"aten::{name}_window.periodic(int window_length, bool periodic, *, {_OPTS}) "
           "-> Tensor")(kernel)


_register_windows()


@op(f"aten::hamming_window(int window_length, *, {_OPTS}) -> Tensor",
    f"aten::hamming_window.periodic(int window_length, bool periodic, *, {_OPTS}) -> Tensor",
    f"aten::hamming_window.periodic_alpha(int window_length, bool periodic, float alpha, *, "
    f"{_OPTS}) -> Tensor",
    f"aten::hamming_window.periodic_alpha_beta(int window_length, bool periodic, float alpha, "
    f"float beta, *, {_OPTS}) -> Tensor")
def hamming_window(n: int, *rest: Any) -> Tensor:
    """alpha - beta cos(2 pi k / (N - 1)), alpha 0.54 and beta 0.46 by default."""
    head = rest[:-4]
    periodic = head[0] if head else True
    alpha = head[1] if len(head) > 1 else 0.54
    beta = head[2] if len(head) > 2 else 0.46
    return _window(n, periodic, rest[-4], _cosine(alpha, beta))


@op(f"aten::kaiser_window(int window_length, *, {_OPTS}) -> Tensor",
    f"aten::kaiser_window.periodic(int window_length, bool periodic, *, {_OPTS}) -> Tensor",
    f"aten::kaiser_window.beta(int window_length, bool periodic, float beta, *, {_OPTS}) "
    "-> Tensor")
def kaiser_window(n: int, *rest: Any) -> Tensor:
    """I0(beta sqrt(1 - ((k - c) / c)^2)) / I0(beta), c = (N - 1) / 2; beta 12 by default."""
    head = rest[:-4]
    periodic = head[0] if head else True
    beta = head[1] if len(head) > 1 else 12.0

    def f(k: np.ndarray, m: int) -> np.ndarray:
        c = (m - 1) / 2
        return np.i0(beta * np.sqrt(np.clip(1 - ((k - c) / c) ** 2, 0, None))) / np.i0(beta)
    return _window(n, periodic, rest[-4], f)
