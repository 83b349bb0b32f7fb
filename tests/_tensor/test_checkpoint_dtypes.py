"""The dtypes checkpoints hold (bfloat16, float8, float4_e2m1fn_x2, complex32, uint16/32/64):
conversion, byte views, printing and promotion, against PyTorch where it is installed."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tsjit
from tsjit._tensor import dtypes as D

NEW = ["bfloat16", "float8_e5m2", "float8_e4m3fn", "float8_e5m2fnuz", "float8_e4m3fnuz",
       "float8_e8m0fnu", "float4_e2m1fn_x2", "complex32", "uint16", "uint32", "uint64"]
ALL = [d.name for d in D.ALL_DTYPES]


def _torch():
    torch = pytest.importorskip("torch")
    warnings.filterwarnings("ignore", message="ComplexHalf support is experimental")
    return torch


def _outcome(fn):
    try:
        return repr(fn())
    except Exception as e:  # noqa: BLE001 - the outcome compared is the error itself
        return f"{type(e).__name__}: {e}"


def _from_bytes(lib, raw: bytes, name: str):
    u8 = lib.from_numpy(np.frombuffer(bytearray(raw), np.uint8))
    return u8.view(getattr(lib, name))


@pytest.mark.parametrize("name", NEW)
def test_dtype_codes_and_flags_match_torch(name):
    torch = _torch()
    d, td = getattr(tsjit, name), getattr(torch, name)
    assert str(d) == str(td)
    assert d.itemsize == td.itemsize
    assert d.is_floating_point == td.is_floating_point
    assert d.is_complex == td.is_complex
    assert d.is_signed == td.is_signed


def test_scalar_type_codes_match_torch():
    torch = _torch()
    code = torch.jit.CompilationUnit("def code(x: Tensor) -> int:\n    return x.dtype\n").code
    for d in D.ALL_DTYPES:
        assert int(d) == code(torch.empty(0, dtype=getattr(torch, d.name))), d


def test_storage_table_names_torch_storage_classes():
    torch = _torch()
    for cls, d in D.STORAGE_TYPES.items():
        assert getattr(torch, cls).dtype == getattr(torch, d.name)
    assert D.STORAGE_TYPES["BFloat16Storage"] is tsjit.bfloat16
    assert D.float8_e4m3fn.storage is None      # saved as UntypedStorage + the dtype


def test_promotion_matches_torch_for_every_pair():
    torch = _torch()
    for a in ALL:
        for b in ALL:
            want = _outcome(lambda: str(torch.promote_types(getattr(torch, a), getattr(torch, b))))
            got = _outcome(lambda: str(tsjit.promote_types(getattr(tsjit, a), getattr(tsjit, b))))
            if "INTERNAL ASSERT" in want:       # PyTorch fails its own check: any refusal
                assert got.startswith("RuntimeError: Promotion for"), (a, b, got)
            else:
                assert got == want, (a, b)


@pytest.mark.parametrize("name", [n for n in NEW if n != "float4_e2m1fn_x2"])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_float_conversion_matches_torch_bit_for_bit(name, data):
    torch = _torch()
    size = getattr(tsjit, name).itemsize
    raw = data.draw(st.binary(min_size=size * 6, max_size=size * 6))
    for conv in ("float", "double"):
        want = getattr(_from_bytes(torch, raw, name), conv)().numpy()
        got = getattr(_from_bytes(tsjit, raw, name), conv)().numpy()
        assert got.dtype == want.dtype and got.shape == want.shape
        same = (got == want) | (np.isnan(got) & np.isnan(want))
        assert same.all(), (name, raw.hex(), got, want)


@pytest.mark.parametrize("name", ["bfloat16", "float8_e5m2", "float8_e4m3fn", "complex32"])
def test_conversion_from_float32_matches_torch(name):
    torch = _torch()
    vals = [0.0, -0.0, 1.0, 1.5, -2.25, 3.1415926, 1e-3, 300.0, 65504.0, -1e-8]
    want = torch.tensor(vals).to(getattr(torch, name))
    got = tsjit.tensor(vals).to(getattr(tsjit, name))
    assert got.view(tsjit.uint8).numpy().tobytes() == want.view(torch.uint8).numpy().tobytes()


@pytest.mark.parametrize("name", NEW)
def test_repr_matches_torch(name):
    torch = _torch()
    raw = bytes([0x3F, 0x40, 0x41, 0x3C, 0x00, 0x80, 0x12, 0x3E] * 2)
    for n in (8, 2) if getattr(tsjit, name).itemsize <= 2 else (16,):
        want = repr(_from_bytes(torch, raw[:n], name))
        got = repr(_from_bytes(tsjit, raw[:n], name))
        assert got == want


VIEW_CASES = {
    "grow": lambda L: L.arange(6, dtype=L.uint8).view(L.bfloat16),
    "grow, odd size": lambda L: L.arange(5, dtype=L.uint8).view(L.bfloat16),
    "grow, rows": lambda L: L.arange(16, dtype=L.uint8).reshape(2, 8).view(L.float32),
    "grow, offset 1": lambda L: L.arange(9, dtype=L.uint8)[1:].view(L.int16),
    "grow, offset 2": lambda L: L.arange(10, dtype=L.uint8)[2:].view(L.int16),
    "grow, columns": lambda L: L.zeros(3, 4)[:, 1:3].view(L.float64),
    "step": lambda L: L.arange(8, dtype=L.uint8)[::2].view(L.int16),
    "transposed": lambda L: L.zeros(2, 3).t().view(L.uint8),
    "0-dim": lambda L: L.tensor(1.0).view(L.uint8),
    "0-dim, same size": lambda L: L.tensor(1.0).view(L.int32),
    "shrink": lambda L: L.zeros(3, dtype=L.complex32).view(L.float16),
    "to complex32": lambda L: L.zeros(4, dtype=L.float16).view(L.complex32),
    "expanded": lambda L: L.zeros(3, 1).expand(3, 4).view(L.uint8),
    "to float4 pairs": lambda L: L.zeros(3, dtype=L.uint8).view(L.float4_e2m1fn_x2),
}


@pytest.mark.parametrize("case", sorted(VIEW_CASES))
def test_view_dtype_matches_torch(case):
    torch = _torch()

    def describe(lib):
        t = VIEW_CASES[case](lib)
        return (list(t.shape), list(t.stride()), t.storage_offset(), str(t.dtype))
    assert _outcome(lambda: describe(tsjit)) == _outcome(lambda: describe(torch))


OPS = {
    "bfloat16 + float16": lambda L: L.ones(2, dtype=L.bfloat16) + L.ones(2, dtype=L.float16),
    "bfloat16 + int": lambda L: L.ones(2, dtype=L.bfloat16) + 1,
    "bfloat16 + int64": lambda L: L.ones(2, dtype=L.bfloat16) + L.ones(2, dtype=L.int64),
    "bfloat16 * 2.5": lambda L: L.tensor([1.5, -3.0]).to(L.bfloat16) * 2.5,
    "float8 + float32": lambda L: L.ones(2).to(L.float8_e4m3fn) + L.ones(2),
    "float8 + float16": lambda L: L.ones(2).to(L.float8_e5m2) + L.ones(2, dtype=L.float16),
    "complex32 + float32": lambda L: L.ones(2, dtype=L.complex32) + L.ones(2),
    "complex32 + bfloat16": lambda L: L.ones(2, dtype=L.complex32) + L.ones(2, dtype=L.bfloat16),
    "uint16 + float": lambda L: L.tensor([1, 2], dtype=L.uint16) + 1.5,
    "uint16 + int64": lambda L: L.tensor([1, 2], dtype=L.uint16) + L.tensor([1, 2]),
    "float4 to float": lambda L: L.zeros(2, dtype=L.uint8).view(L.float4_e2m1fn_x2).float(),
    "float4 item": lambda L: L.zeros(2, dtype=L.uint8).view(L.float4_e2m1fn_x2)[0].item(),
    "float4 clone": lambda L: L.arange(3, dtype=L.uint8).view(L.float4_e2m1fn_x2).clone(),
    "float4 cat": lambda L: L.cat([L.arange(2, dtype=L.uint8).view(L.float4_e2m1fn_x2)] * 2),
    "bfloat16 item": lambda L: L.tensor([1.7]).to(L.bfloat16)[0].item(),
    "float8 tolist": lambda L: L.tensor([1.7, -3.0]).to(L.float8_e4m3fnuz).tolist(),
}


@pytest.mark.parametrize("case", sorted(OPS))
def test_operations_match_torch(case):
    torch = _torch()
    want = _outcome(lambda: OPS[case](torch))
    got = _outcome(lambda: OPS[case](tsjit))
    assert got == want.replace("copy_kernel", "copy_")


@pytest.mark.parametrize("name", NEW)
def test_byte_round_trip_without_torch(name):
    raw = bytes(range(16))
    t = _from_bytes(tsjit, raw, name)
    assert str(t.dtype) == f"torch.{name}"
    assert t.view(tsjit.uint8).numpy().tobytes() == raw
    assert t.clone().view(tsjit.uint8).numpy().tobytes() == raw


@pytest.mark.parametrize("op", ["add", "mul", "add_int", "sub_float"])
def test_float4_pairs_have_no_arithmetic(op):
    t = tsjit.arange(4, dtype=tsjit.uint8).view(tsjit.float4_e2m1fn_x2)
    other = {"add": t, "mul": t, "add_int": 1, "sub_float": 1.5}[op]
    fn = {"add": lambda: t + other, "mul": lambda: t * other, "add_int": lambda: t + other,
          "sub_float": lambda: t - other}[op]
    with pytest.raises(NotImplementedError, match="not implemented for 'Float4_e2m1fn_x2'"):
        fn()
