"""Operators met in archives from the wild (tensor_wild.py, tensor_spectral.py) against PyTorch,
directly and through archives PyTorch scripted (torch.fft, windows, optimize_for_inference)."""
from __future__ import annotations

import numpy as np
import pytest

import tsjit
from tests.helpers import tensor_oracle as O

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 8)).astype(np.float32)


def k(q):
    return O.kernel(q)          # recorded as exercised (tests/helpers/oracle_coverage.py)


def t(a):
    return tsjit.from_numpy(np.ascontiguousarray(a))


def close(got, ref, tol=1e-5):
    ref = ref.resolve_conj().numpy() if isinstance(ref, torch.Tensor) else ref
    got = got.numpy()
    assert got.dtype == ref.dtype and got.shape == ref.shape
    np.testing.assert_allclose(got, ref, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "ihfft"])
@pytest.mark.parametrize("n, norm", [(None, None), (6, "ortho"), (11, "forward")])
def test_fft_1d(name, n, norm):
    close(k(f"aten::fft_{name}")(t(X), n, -1, norm),
          getattr(torch.fft, name)(torch.from_numpy(X), n=n, norm=norm))


@pytest.mark.parametrize("name", ["irfft", "hfft"])
def test_fft_inverse_real(name):
    c = torch.fft.rfft(torch.from_numpy(X.astype(np.float64)))
    close(k(f"aten::fft_{name}")(t(c.numpy()), None, 1, "backward"),
          getattr(torch.fft, name)(c, dim=1))


@pytest.mark.parametrize("name, s, dim", [("fft2", None, [-2, -1]), ("rfftn", [2, 6], None),
                                          ("ifftn", None, [0]), ("irfft2", [3, 8], [-2, -1])])
def test_fft_nd(name, s, dim):
    kwargs = {} if dim is None else {"dim": dim}
    close(k(f"aten::fft_{name}")(t(X), s, dim, None),
          getattr(torch.fft, name)(torch.from_numpy(X), s=s, **kwargs))


def test_fft_shift_and_freq():
    close(k("aten::fft_fftshift")(t(X), None), torch.fft.fftshift(torch.from_numpy(X)))
    close(k("aten::fft_ifftshift")(t(X), [1]), torch.fft.ifftshift(torch.from_numpy(X), dim=[1]))
    close(k("aten::fft_fftfreq")(7, 0.1, None, None, None, None), torch.fft.fftfreq(7, 0.1))
    close(k("aten::fft_rfftfreq")(8, 1.0, 7, None, None, None),
          torch.fft.rfftfreq(8, dtype=torch.float64))


@pytest.mark.parametrize("name", ["hann", "hamming", "blackman", "bartlett", "kaiser"])
@pytest.mark.parametrize("n", [0, 1, 2, 9])
def test_windows(name, n):
    for periodic in (True, False):
        close(k(f"aten::{name}_window.periodic")(n, periodic, None, None, None, None),
              getattr(torch, f"{name}_window")(n, periodic), 1e-6)
    close(k("aten::hamming_window.periodic_alpha_beta")(n, False, 0.6, 0.3, 7, None, None, None),
          torch.hamming_window(n, False, alpha=0.6, beta=0.3, dtype=torch.float64), 1e-6)
    close(k("aten::kaiser_window.beta")(n, True, 5.0, None, None, None, None),
          torch.kaiser_window(n, True, beta=5.0), 1e-6)


def test_tri_indices_and_shape_ops():
    for row, col, off in [(3, 4, 0), (4, 3, -1), (5, 5, 2), (0, 3, 0)]:
        close(k("aten::tril_indices")(row, col, off, 4, None, None, None),
              torch.tril_indices(row, col, off))
        close(k("aten::triu_indices")(row, col, off, 3, None, None, None),
              torch.triu_indices(row, col, off, dtype=torch.int32))
    close(k("aten::_shape_as_tensor")(t(X)), torch._shape_as_tensor(torch.from_numpy(X)))
    close(k("aten::_unsafe_view")(t(X), [4, 6]), torch.from_numpy(X).view(4, 6))


def test_lerp_inplace_and_conj():
    a, b = RNG.random(4).astype(np.float32), RNG.random(4).astype(np.float32)
    ta, ra = t(a.copy()), torch.from_numpy(a.copy())
    assert k("aten::lerp_.Scalar")(ta, t(b), 0.3) is ta
    close(ta, ra.lerp_(torch.from_numpy(b), 0.3))
    w = RNG.random(4).astype(np.float32)
    close(k("aten::lerp_.Tensor")(ta, t(b), t(w)), ra.lerp_(torch.from_numpy(b), torch.from_numpy(w)))
    z = (a + 1j * b).astype(np.complex64)
    close(k("aten::conj")(t(z)), torch.from_numpy(z).conj())
    assert k("aten::conj")(ta) is ta and k("aten::resolve_conj")(ta) is ta
    assert k("aten::is_conj")(ta) is False


def test_scripted_spectral_archive(tmp_path):
    class Spectrum(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            w = torch.hann_window(x.shape[-1])
            return torch.fft.rfft(x * w).abs()
    path = str(tmp_path / "s.pt")
    torch.jit.save(torch.jit.script(Spectrum()), path)
    close(tsjit.load(path)(t(X)), Spectrum()(torch.from_numpy(X)))


def test_mkldnn_layout_conversions_in_an_archive(tmp_path):
    """to_mkldnn / to_dense (what optimize_for_inference inserts around convolutions) are
    copies in tsjit, which has one layout."""
    class Convert(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.relu(x.to_mkldnn()).to_dense() + 1
    path = str(tmp_path / "c.pt")
    torch.jit.save(torch.jit.script(Convert()), path)
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    close(tsjit.load(path)(t(x)), Convert()(torch.from_numpy(x)))


def test_optimize_for_inference_weights_are_not_in_the_archive(tmp_path):
    """optimize_for_inference folds weights into prim::ConstantMKLDNNTensor nodes whose values
    torch.jit.save does not write: PyTorch cannot load such an archive either; tsjit names
    the operator and the place."""
    net = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU()).eval()
    path = str(tmp_path / "o.pt")
    torch.jit.save(torch.jit.optimize_for_inference(torch.jit.script(net)), path)
    with pytest.raises(RuntimeError):
        torch.jit.load(path)
    with pytest.raises(tsjit.CompileError, match=r"prim::ConstantMKLDNNTensor(.|\n)*o/code/"):
        tsjit.load(path)(t(RNG.random((1, 3, 8, 8)).astype(np.float32)))


@pytest.mark.parametrize("q, args", [("aten::full.out", ([2, 3], 1.5)),
                                     ("aten::linspace.out", (0.0, 1.0, 5)),
                                     ("aten::logspace.out", (0.0, 2.0, 4, 10.0))])
def test_creation_out_forms_write_into_out(q, args):
    out = tsjit.zeros(1, dtype=tsjit.float64)
    got = O.kernel(q)(*args, out)
    ref = O.torch_op(q)(*args, out=torch.zeros(1, dtype=torch.float64))
    assert got is out               # the result is `out`, resized
    close(got, ref)


_GRID = RNG.uniform(-1.1, 1.1, (1, 3, 5, 2))


@pytest.mark.parametrize("q, args", [
    ("aten::bartlett_window", (8, None, None, None, None)),
    ("aten::blackman_window", (8, None, None, None, None)),
    ("aten::hann_window", (9, None, None, None, None)),
    ("aten::hamming_window", (9, None, None, None, None)),
    ("aten::hamming_window.periodic_alpha", (9, False, 0.6, None, None, None, None)),
    ("aten::kaiser_window", (7, None, None, None, None)),
    ("aten::fft_fftn", (X, None, None, None)),
    ("aten::fft_ifft2", (X, [2, 4], [-2, -1], "ortho")),
    ("aten::fft_irfftn", (X, None, None, None)),
    ("aten::fft_rfft2", (X, None, [-2, -1], "forward")),
    ("aten::is_neg", (X,)),
    ("aten::resolve_neg", (X,)),
    ("aten::grid_sampler_2d", (X.reshape(1, 1, 3, 8), _GRID, 0, 0, False)),
    ("aten::grid_sampler_2d", (X.reshape(1, 1, 3, 8), _GRID, 1, 1, True)),
])
def test_overloads_against_pytorch(q, args):
    O.diff(q, *args)


def test_mkldnn_layout_conversions_keep_values():
    # tsjit has one (strided) layout: both conversions are the values themselves
    x = t(X)
    assert np.array_equal(O.kernel("aten::to_mkldnn")(x, None).numpy(), X)
    assert np.array_equal(O.kernel("aten::to_dense")(x, None, None).numpy(), X)
