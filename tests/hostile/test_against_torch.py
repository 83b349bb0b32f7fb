"""Edited archives PyTorch wrote, loaded by torch.jit.load and by tsjit: where PyTorch
refuses at load, tsjit refuses at load; where it loads, tsjit gives the same numbers (or
refuses a value the declared types forbid, which PyTorch would misuse at the first call)."""
import io
import warnings

import numpy as np
import pytest

import tsjit
from tests.helpers import hostile_archives as H
from tsjit.serialize import ArchiveError

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def torch_archive():
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.ones(2, 3))
            self.register_buffer("idx", torch.arange(4))
            self.flag = True

        def forward(self, x):
            if self.flag:
                return x + self.w.sum() + self.idx.sum()
            return x
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.jit.save(torch.jit.script(M()), buf)
    return buf.getvalue()


def _torch_load(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.jit.load(io.BytesIO(data))


def _storage(attribute, **changes):
    def change(root):
        r = H.tensor_record(root, attribute)
        H.with_args(r, pid=H.storage_pid(r, **changes))
    return change


def _requires_grad(value):
    return lambda root: H.with_args(H.tensor_record(root, "w"), requires_grad=value)


@pytest.mark.parametrize("change", [
    _requires_grad("yes"), _requires_grad(1),
    _storage("w", location="cuda:999"), _storage("w", location="cuda"),
    _storage("w", location="mps"), _storage("w", location="garbage"), _storage("w", location=3),
], ids=["grad-str", "grad-int", "cuda999", "cuda", "mps", "garbage", "int-device"])
def test_what_pytorch_refuses_at_load_tsjit_refuses(torch_archive, change):
    edited = H.edit_data(torch_archive, change)
    with pytest.raises(Exception):
        _torch_load(edited)
    with pytest.raises(ArchiveError):
        tsjit.load(edited)


def test_a_storage_named_with_two_dtypes_gives_pytorchs_numbers(torch_archive):
    def change(root):
        w, idx = H.tensor_record(root, "w"), H.tensor_record(root, "idx")
        H.with_args(w, pid=H.storage_pid(w, key=idx.args[0].pid[2], numel=8), size=(2, 3),
                    stride=(3, 1))
    edited = H.edit_data(torch_archive, change)
    x = np.zeros(1, np.float32)
    expected = _torch_load(edited)(torch.from_numpy(x)).detach().numpy()
    assert tsjit.load(edited)(tsjit.from_numpy(x)).numpy().tolist() == expected.tolist()


def test_a_bool_attribute_holding_a_str_is_refused_at_load(torch_archive):
    def change(root):
        root.state["flag"] = "not a bool"
    edited = H.edit_data(torch_archive, change)
    m = _torch_load(edited)                 # PyTorch loads it, and fails at the call
    with pytest.raises(Exception):
        m(torch.zeros(1))
    with pytest.raises(ArchiveError, match="attribute 'flag' .* is declared bool but holds a str"):
        tsjit.load(edited)


def test_cuda_tensors_load_with_map_location_cpu_in_both(torch_archive):
    edited = H.edit_data(torch_archive, _storage("w", location="cuda:999"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = torch.jit.load(io.BytesIO(edited), map_location="cpu")(torch.zeros(1))
    assert tsjit.load(edited, map_location="cpu")(tsjit.zeros(1)).item() == expected.item()
