"""Every registered tensor operator is exercised by some differential or plain test.

Runs last (tests/conftest.py moves it there) and uses the names the oracle recorded during the session; it skips
itself when only part of the tensor tests ran (e.g. with -k)."""
from __future__ import annotations

import pytest

from tests.helpers import tensor_oracle as O


def test_every_tensor_operator_is_exercised() -> None:
    from tsjit.ops import eager as F
    from tsjit.ops.registry import all_operators
    # the tensor kernels' overloads (the list and dict builtins specialised for tensors,
    # also eager, are the list and dict tests' to exercise)
    eager = {o.qualified for o in all_operators() if F.is_eager(o.schema)
             and o.kernel.__module__.rsplit(".", 1)[-1].startswith("tensor_")}
    if len(O.EXERCISED) < 400:
        pytest.skip("only part of the tensor operator tests ran in this session")
    from tsjit.ops.kernels.tensor_out import _OUT_FORMS
    # out= forms share one wrapper (test_out_variants checks it on a sample of them)
    outs = {f"aten::{b.split('.')[0]}.{ov}" for b, ov in _OUT_FORMS}
    missing = sorted(eager - O.EXERCISED - outs)
    assert not missing, f"{len(missing)} registered tensor operators have no test: {missing}"
