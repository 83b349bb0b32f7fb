"""dtypes, devices and PyTorch's type promotion, checked against the installed PyTorch."""
from __future__ import annotations

import copy
import itertools
import pickle

import numpy as np
import pytest

from tsjit._tensor import Device, dtypes as D, tensor

torch = pytest.importorskip("torch", reason="PyTorch is the oracle for promotion rules")

REAL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
        "complex64", "complex128"]


def test_codes_names_and_attributes() -> None:
    for name in REAL + ["bfloat16", "uint16", "uint32", "uint64", "complex32"]:
        d = D.as_dtype(name)
        t = getattr(torch, name)
        assert repr(d) == str(t) == f"torch.{name}"
        assert d.is_floating_point == t.is_floating_point
        assert d.is_complex == t.is_complex
        assert d.itemsize == t.itemsize
        assert d.is_signed == t.is_signed
    # the int value is PyTorch's ScalarType code (what TorchScript passes around)
    assert [int(D.as_dtype(n)) for n in ("uint8", "int8", "int16", "int32", "int64", "float16",
                                         "float32", "float64", "complex64", "complex128",
                                         "bool", "bfloat16")] == [0, 1, 2, 3, 4, 5, 6, 7, 9, 10,
                                                                   11, 15]
    assert D.dtype(6) is D.float32 and D.float32 == 6
    assert copy.deepcopy(D.float64) is D.float64
    assert pickle.loads(pickle.dumps(D.int16)) is D.int16


def test_aliases_and_numpy_mapping() -> None:
    import sys
    mod = sys.modules["tsjit._tensor"]      # `tsjit.tensor` the attribute is the function
    assert mod.float is D.float32 and mod.double is D.float64 and mod.long is D.int64
    assert mod.int is D.int32 and mod.half is D.float16 and mod.bool is D.bool_
    for name in REAL:
        d = D.as_dtype(name)
        assert D.from_numpy_dtype(d.np) is d
        assert D.to_numpy_dtype(d) == np.dtype(name if name != "bool" else "bool")
    assert D.as_dtype(float) is D.float32 and D.as_dtype(int) is D.int64
    assert D.as_dtype(np.float64) is D.float64 and D.as_dtype("torch.int8") is D.int8
    with pytest.raises(TypeError):
        D.from_numpy_dtype(np.dtype("U3"))


def test_device() -> None:
    d = Device("cpu")
    assert repr(d) == repr(torch.device("cpu")) and str(d) == "cpu"
    assert Device("cuda:1").index == 1 and repr(Device("cuda:1")) == repr(torch.device("cuda:1"))
    assert d == "cpu" and d == Device("cpu") and hash(d) == hash(Device("cpu"))
    with pytest.raises(RuntimeError):
        Device("nope")


@pytest.mark.parametrize("a,b", list(itertools.product(REAL, REAL)))
def test_promote_types(a: str, b: str) -> None:
    assert repr(D.promote_types(D.as_dtype(a), D.as_dtype(b))) == \
        str(torch.promote_types(getattr(torch, a), getattr(torch, b)))


def _pair(dt: str, zero_dim: bool) -> tuple:
    mine = tensor(1 if dt != "bool" else True, dtype=D.as_dtype(dt))
    theirs = torch.tensor(1 if dt != "bool" else True, dtype=getattr(torch, dt))
    if not zero_dim:
        mine, theirs = mine.reshape(1), theirs.reshape(1)
    return mine, theirs


@pytest.mark.parametrize("a,b", list(itertools.product(REAL, REAL)))
def test_result_type_dim_vs_zero_dim(a: str, b: str) -> None:
    for za, zb in ((False, True), (True, False), (True, True), (False, False)):
        ma, ta = _pair(a, za)
        mb, tb = _pair(b, zb)
        assert repr(D.result_type(ma, mb)) == str(torch.result_type(ta, tb)), (a, za, b, zb)


SCALARS = [True, 3, -2, 2.5, float("nan"), 1 + 2j]


@pytest.mark.parametrize("a", REAL)
def test_result_type_with_python_scalars(a: str) -> None:
    for z in (False, True):
        m, t = _pair(a, z)
        for s in SCALARS:
            assert repr(D.result_type(m, s)) == str(torch.result_type(t, s)), (a, z, s)


@pytest.mark.parametrize("a,b", list(itertools.product(REAL, REAL)))
def test_can_cast(a: str, b: str) -> None:
    assert D.can_cast(D.as_dtype(a), D.as_dtype(b)) == \
        torch.can_cast(getattr(torch, a), getattr(torch, b))


OPS = ["__add__", "__sub__", "__mul__", "__truediv__", "__floordiv__", "__mod__", "__pow__",
       "__and__", "__eq__", "__lt__"]


@pytest.mark.parametrize("a", ["bool", "uint8", "int8", "int32", "int64", "float32", "float64"])
@pytest.mark.parametrize("opname", OPS)
def test_operator_result_dtypes(a: str, opname: str) -> None:
    """Result dtypes (or errors) of Python operators with every scalar kind."""
    vals = [1, 2] if a != "bool" else [True, False]
    mine = tensor(vals, dtype=D.as_dtype(a))
    theirs = torch.tensor(vals, dtype=getattr(torch, a))
    for other in (True, 3, 2.5, tensor(2), tensor([2.0]), tensor(2.0, dtype=D.float64)):
        t_other = torch.tensor(other.tolist(), dtype=getattr(torch, other.dtype.name)) \
            if hasattr(other, "dtype") else other
        try:
            r = getattr(mine, opname)(other)
            got = repr(r.dtype)
        except Exception:  # noqa: BLE001
            got = "error"
        try:
            exp = str(getattr(theirs, opname)(t_other).dtype)
        except Exception:  # noqa: BLE001
            exp = "error"
        assert got == exp, (a, opname, other)


def test_inplace_category_rule() -> None:
    x = tensor([1, 2], dtype=D.int32)
    x += tensor([1], dtype=D.int64)          # same category: allowed, keeps int32
    assert x.dtype == D.int32 and x.tolist() == [2, 3]
    b = tensor([True])
    with pytest.raises(RuntimeError, match="result type Long can't be cast to the desired "
                                           "output type Bool"):
        b += 1
    f = tensor([1.0], dtype=D.float16)
    f *= 2.5                                 # Python float never promotes a float tensor
    assert f.dtype == D.float16 and f.tolist() == [2.5]
