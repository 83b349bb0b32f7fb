"""The table of tensor-rebuilding calls (tsjit/serialize/tensor_records.py): it agrees with
PyTorch's functions, and decodes arguments and storage ids by it."""
from __future__ import annotations

import inspect

import pytest

from tsjit.serialize.pickle_format import REBUILD_TENSOR_V2, REBUILD_TENSOR_V3, Global
from tsjit.serialize.tensor_records import (
    REBUILD_PARAMETER, TENSOR_CALLS, storage_ref, tensor_args)


@pytest.mark.parametrize("func", list(TENSOR_CALLS), ids=lambda g: g.name)
def test_the_table_matches_pytorchs_functions(func):
    torch = pytest.importorskip("torch")
    assert func.module == "torch._utils"
    params = list(inspect.signature(getattr(torch._utils, func.name)).parameters)
    call = TENSOR_CALLS[func]
    assert call.max_args == len(params)
    assert call.parameter == (params[0] == "data")
    if not call.parameter:
        assert params[:4] == ["storage", "storage_offset", "size", "stride"]
    assert call.requires_grad == (params.index("requires_grad") if "requires_grad" in params else None)
    assert call.dtype == (params.index("dtype") if "dtype" in params else None)
    required = [p for p in inspect.signature(getattr(torch._utils, func.name)).parameters.values()
                if p.default is inspect.Parameter.empty]
    assert call.min_args <= len(required)   # (tsjit reads v2's first four alone too)


def test_arguments_by_meaning():
    v2, v3 = TENSOR_CALLS[REBUILD_TENSOR_V2], TENSOR_CALLS[REBUILD_TENSOR_V3]
    assert tensor_args(v2, ("s", 1, (2,), (1,), True, None)) == ("s", 1, (2,), (1,), True, None)
    assert tensor_args(v2, ("s", 1, (2,), (1,)))[4] is False                # requires_grad
    assert tensor_args(v3, ("s", 0, (), (), False, None, "dt"))[5] == "dt"  # dtype
    assert tensor_args(v2, ("s", 1, (2,))) is None                      # too few
    assert tensor_args(v2, ("s", 1, (2,), (1,), True, None, None, 0)) is None   # too many
    assert tensor_args(TENSOR_CALLS[REBUILD_PARAMETER], ("t", True, None)) is None


def test_storage_ids():
    cls = Global("torch", "FloatStorage")
    assert storage_ref(("storage", cls, "0", "cpu", 4)) == (cls, "0", "cpu", 4)
    for bad in (("storage", cls, "0", "cpu"), ("module", cls, "0", "cpu", 4),
                ("storage", "FloatStorage", "0", "cpu", 4), ["storage", cls, "0", "cpu", 4]):
        assert storage_ref(bad) is None
