"""Every registered tensor operator is exercised by some differential or plain test.

Runs last (by name) and uses the names the oracle recorded during the session; it skips
itself when only part of the tensor tests ran (e.g. with -k)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import test_tensor_oracle as O  # noqa: E402


def test_every_tensor_operator_is_exercised() -> None:
    from tsjit.tensor import functional as F
    from tsjit.tensor.kernel_util import RAW_SCHEMAS
    F._load()
    if len(O.EXERCISED) < 400:
        pytest.skip("only part of the tensor operator tests ran in this session")
    missing = sorted(set(RAW_SCHEMAS) - O.EXERCISED)
    assert not missing, f"{len(missing)} registered tensor operators have no test: {missing}"
