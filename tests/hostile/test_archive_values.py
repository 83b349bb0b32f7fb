"""Values in data.pkl that PyTorch refuses at load, or that code compiled against the
archive's declarations would misuse: refused at load with a clear tsjit error naming the
record, never a numpy or Python error and never a wrong number."""
import numpy as np
import pytest

import tsjit
from tests.helpers import hostile_archives as H
from tsjit.ir.limits import LimitError
from tsjit.serialize import ArchiveError
from tsjit.serialize import pickle_format as P

WHERE = f"{H.TOP}/data.pkl"


@pytest.fixture(scope="module")
def base():
    return H.base_archive()


def _edit_tensor(base, attribute="t", **changes):
    return H.edit_data(base, lambda root: H.with_args(H.tensor_record(root, attribute), **changes))


# ------------------------------------------------------------------ tensor geometry

@pytest.mark.parametrize("changes,error,message", [
    (dict(size=(1,) * 70, stride=(1,) * 70), ArchiveError,
     f"a tensor in {WHERE} has 70 dimensions; tsjit's tensors have at most 64"),
    (dict(size=(2 ** 40, 2 ** 40), stride=(0, 0)), LimitError,
     rf"a tensor of size \(1099511627776, 1099511627776\) in {WHERE} \(4835703278458516698824704 "
     r"> 68719476736\): exceeds Limits.max_tensor_bytes"),
    (dict(size=(-3,)), ArchiveError, f"negative tensor geometry in {WHERE}"),
    (dict(size=(3,), stride=(-1,)), ArchiveError, f"negative tensor geometry in {WHERE}"),
    (dict(offset=10 ** 6), ArchiveError, f"a tensor in {WHERE} needs storage element 1000002"),
    (dict(offset=-1), ArchiveError, f"negative tensor geometry in {WHERE}"),
    (dict(size=(2, 2), stride=(2 ** 62, 1)), ArchiveError, "needs storage element"),
])
def test_bad_tensor_geometry(base, changes, error, message):
    with pytest.raises(error, match=message):
        tsjit.load(_edit_tensor(base, **changes))


def test_an_empty_tensor_may_lie_past_its_storage(base):
    # (PyTorch checks no offset of a tensor without elements)
    m = tsjit.load(_edit_tensor(base, offset=10 ** 6, size=(0,), stride=(1,)))
    assert tuple(m.t.shape) == (0,)


def test_max_tensor_bytes_is_the_one_given(base):
    with pytest.raises(LimitError, match=r"a tensor of size \(1000, 1000\) .*\(4000000 > 1000\)"):
        tsjit.load(_edit_tensor(base, size=(1000, 1000), stride=(0, 0)),
                   limits=tsjit.Limits(max_tensor_bytes=1000))


# ------------------------------------------------------------------ storages

def test_one_storage_named_with_two_dtypes_views_its_bytes_both_ways(base):
    # PyTorch's storages are bytes: a reference naming another dtype views them as it.
    def change(root):
        t, idx = H.tensor_record(root, "t"), H.tensor_record(root, "idx")
        long_key = idx.args[0].pid[2]
        H.with_args(t, pid=H.storage_pid(t, key=long_key, numel=8), size=(8,))
    m = tsjit.load(H.edit_data(base, change))
    expected = np.arange(4, dtype=np.int64).view(np.float32)
    assert m.t.numpy().tolist() == expected.tolist() and m.t.dtype == tsjit.float32
    assert m.idx.numpy().tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("location,message", [
    ("cuda:999", f"storage {H.TOP}/data/1 of a tensor in {WHERE} is on device cuda:999, and tsjit runs on the CPU only: "
                 "load with map_location='cpu'"),
    ("mps", "is on device mps, and tsjit runs on the CPU only"),
    ("garbage", f"storage {H.TOP}/data/1 of a tensor in {WHERE} is on device 'garbage': Expected one of cpu, cuda"),
    ("cuda:x", "Invalid device string: 'cuda:x'"),
    ("cuda:" + "9" * 5000, "Invalid device string: 'cuda:9999"),
    (3, "names its device with 3, not a device string"),
    ("meta", "is on the meta device: meta tensors hold no data"),
])
def test_storage_devices(base, location, message):
    def change(root):
        r = H.tensor_record(root, "t")
        H.with_args(r, pid=H.storage_pid(r, location=location))
    edited = H.edit_data(base, change)
    with pytest.raises(ArchiveError, match=message):
        tsjit.load(edited)
    if location in ("cuda:999", "mps"):     # map_location="cpu" loads them there, as PyTorch
        assert tsjit.load(edited, map_location="cpu")(tsjit.zeros(1)) == 16
        assert tsjit.jit.load(edited, map_location="cpu").t.device.type == "cpu"


def test_a_storage_on_cpu_1_loads(base):
    def change(root):
        r = H.tensor_record(root, "t")
        H.with_args(r, pid=H.storage_pid(r, location="cpu:1"))
    assert tsjit.load(H.edit_data(base, change))(tsjit.zeros(1)) == 16


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_requires_grad_must_be_a_bool(base, value):
    with pytest.raises(ArchiveError, match=f"a tensor in {WHERE} has requires_grad="
                       f"{value!r}, not a bool"):
        tsjit.load(_edit_tensor(base, requires_grad=value))


# ------------------------------------------------------------------ declared attribute types

@pytest.mark.parametrize("attribute,value,declared,holds", [
    ("flag", "not a bool", "bool", "a str"),
    ("flag", 1, "bool", "an int"),
    ("name", 5, "str", "an int"),
    ("t", 5, "Tensor", "an int"),
    ("t", None, "Tensor", "None"),
    ("training", [True], "bool", "a list"),
])
def test_attribute_values_must_fit_their_declared_types(base, attribute, value, declared, holds):
    def change(root):
        root.state[attribute] = value
    with pytest.raises(ArchiveError, match=f"attribute '{attribute}' of a "
                       r"__torch__\.tests\.helpers\.hostile_archives\.Base object in "
                       f"{WHERE} is declared {declared} but holds {holds}"):
        tsjit.load(H.edit_data(base, change))


def test_device_attribute_values_are_checked(base):
    class WithDevice(tsjit.nn.Module):
        def __init__(self):
            super().__init__()
            self.d = tsjit.device("cpu")

        def forward(self, x: tsjit.Tensor) -> tsjit.Tensor:
            return x.to(self.d)
    import io
    buf = io.BytesIO()
    tsjit.save(tsjit.script(WithDevice()), buf)

    def change(root):
        root.state["d"] = P.Reduce(P.TORCH_DEVICE, ("garbage",))
    with pytest.raises(ArchiveError, match="bad device 'garbage' in .*data.pkl: Expected one of"):
        tsjit.load(H.edit_data(buf.getvalue(), change))

    def cuda(root):
        root.state["d"] = P.Reduce(P.TORCH_DEVICE, ("cuda:999",))
    assert tsjit.load(H.edit_data(buf.getvalue(), cuda)).d.type == "cuda"   # (as PyTorch)
