"""Archives of older format versions: each of PyTorch 2.13's 19 operator upgraders, checked
against torch.jit.load of the same archive.

Each case is a module whose `forward(x, y, o)` returns one expression in archive code; the
archive is written by torch.jit.save, then its code is replaced by that expression and its
version record by the version just before the operator changed (debug records dropped, as
the code moved). PyTorch and tsjit load it and must agree (value and dtype); where the old
behaviour differs from today's, the case also checks that the archive at today's version
gives the other result (so the upgrade is what made them agree). tsjit's re-save runs in
PyTorch with the old behaviour kept.
"""
from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest

import tsjit
from tsjit.frontend.upgraders import UPGRADERS
from tsjit.ir.diagnostics import TsjitError

torch = pytest.importorskip("torch")

X = np.array([7, -7, 5, -5], np.int64)
Y = np.array([2, 2, -2, 3], np.int64)

# operator -> (expression returned by forward(x, y, o), whether the old result differs or
# the expression is an error today);
# `o` is an empty int64 tensor (a fresh one each call) for the out= forms
CASES = {
    "aten::div.Tensor": ("torch.div(x, y)", True),
    "aten::div.Tensor_mode": ("torch.div(x, y, rounding_mode=\"floor\")", False),
    "aten::div.Scalar": ("torch.div(x, 2)", True),
    "aten::div.Scalar_mode": ("torch.div(x, 2, rounding_mode=\"floor\")", False),
    "aten::div.out": ("torch.div(x, y, out=o)", True),
    "aten::div.out_mode": ("torch.div(x, y, rounding_mode=\"trunc\", out=o)", False),
    "aten::div_.Tensor": ("torch.div_(x, y)", True),
    "aten::div_.Tensor_mode": ("torch.div_(x, y, rounding_mode=\"floor\")", False),
    "aten::div_.Scalar": ("torch.div_(x, 2)", True),
    "aten::div_.Scalar_mode": ("torch.div_(x, 2, rounding_mode=\"floor\")", False),
    "aten::full": ("torch.full([2], 3)", True),
    "aten::full.names": ("torch.full([2], 3, names=None)", True),
    "aten::full.out": ("torch.full([2], 3, out=o)", False),
    # steps omitted: 100 before the change, not compiling after it
    "aten::linspace": ("torch.linspace(0, 1)", True),
    "aten::linspace.out": ("torch.linspace(0, 1, out=torch.to(o, 6))", True),
    "aten::logspace": ("torch.logspace(0, 1)", True),
    "aten::logspace.out": ("torch.logspace(0, 1, out=torch.to(o, 6))", True),
    "aten::gelu": ("torch.gelu(torch.to(x, 6))", False),
    "aten::gelu.out": ("torch.gelu(torch.to(x, 6), out=torch.to(o, 6))", False),
}
class Template(torch.nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor, o: torch.Tensor) -> torch.Tensor:
        return x


def _archive(expr: str, version: int) -> bytes:
    """A torch.jit.save archive of Template with forward returning `expr`, at `version`."""
    buf = io.BytesIO()
    torch.jit.save(torch.jit.script(Template()), buf)
    src = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for info in src.infolist():
            name, data = info.filename, src.read(info.filename)
            top, _, rel = name.partition("/")
            if rel.endswith(".debug_pkl") or rel in ("version", ".data/version"):
                continue
            if rel.startswith("code/") and rel.endswith(".py"):
                text = data.decode()
                assert "    return x\n" in text
                data = text.replace("    return x\n", f"    return {expr}\n").encode()
            z.writestr(info, data)
        z.writestr(f"{top}/{'.data/version' if version >= 6 else 'version'}", f"{version}\n")
    return out.getvalue()


def _inputs(lib):
    if lib is torch:   # (a tensor over a numpy array cannot be resized by out=)
        return torch.tensor(X), torch.tensor(Y), torch.zeros(0, dtype=torch.int64)
    return tsjit.from_numpy(X.copy()), tsjit.from_numpy(Y.copy()), tsjit.zeros(0, dtype=tsjit.int64)


def _run_torch(data: bytes):
    return torch.jit.load(io.BytesIO(data))(*_inputs(torch)).numpy()


def _run_torch_or_error(data: bytes):
    try:
        return _run_torch(data)
    except RuntimeError as e:    # today's in-place true division of ints is an error, and so
        #                          is linspace without steps
        return str(e)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and np.allclose(a, b, rtol=1e-6, atol=1e-6)


def test_every_upgrader_has_a_case():
    assert sorted(CASES) == sorted(u.operator for u in UPGRADERS) and len(UPGRADERS) == 19


@pytest.mark.slow
@pytest.mark.parametrize("up", UPGRADERS, ids=lambda u: u.operator)
def test_upgrader_matches_pytorch(up, tmp_path):
    expr, differs = CASES[up.operator]
    if up.operator == "aten::full.names":
        # TorchScript has no named tensors: PyTorch cannot compile the call the upgrader
        # would replace, nor can tsjit (the upgrader's body needs aten::full.names)
        old = _archive(expr, up.below - 1)
        assert isinstance(_run_torch_or_error(old), str)
        with pytest.raises(TsjitError, match="full"):
            tsjit.load(old)(*_inputs(tsjit))
        return
    old = _archive(expr, up.below - 1)
    ref = _run_torch(old)
    got = tsjit.load(old)(*_inputs(tsjit)).numpy()
    assert _same(got, ref), f"{up.operator}: tsjit {got!r} != PyTorch {ref!r}"
    if differs:   # at today's version the same call means something else
        now = _run_torch_or_error(_archive(expr, up.below))
        assert isinstance(now, str) or not _same(now, ref), f"{up.operator}: the case does not show the change"
    # the re-save keeps the old behaviour, in today's operators
    path = str(tmp_path / "resaved.pt")
    tsjit.save(tsjit.load(old), path)
    assert _same(torch.jit.load(path)(*_inputs(torch)).numpy(), ref)


def test_current_archives_are_not_upgraded():
    data = _archive("torch.div(x, y)", 4)
    got = tsjit.load(data)(*_inputs(tsjit)).numpy()
    assert got.dtype == np.float32 and _same(got, _run_torch(data))


def test_archive_newer_than_known_is_refused_naming_both_versions():
    data = _archive("x", 3)
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for info in src.infolist():
            if info.filename.endswith("/version"):
                z.writestr(info.filename.rsplit("/", 1)[0] + "/.data/version", "11\n")
            else:
                z.writestr(info, src.read(info.filename))
    with pytest.raises(TsjitError, match=r"version 11.*10"):
        tsjit.load(out.getvalue())
