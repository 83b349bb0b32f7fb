"""The session-end operator coverage check (tests/helpers/oracle_coverage.py) itself."""
from tsjit.ops import eager as F
from tsjit.ops.registry import all_operators

from tests.helpers.oracle_coverage import missing_operators


def test_nothing_exercised_misses_every_tensor_kernel():
    missing = missing_operators(set())
    assert "aten::add.Tensor" in missing and "aten::conv2d" in missing
    assert not any(q.startswith("aten::append") for q in missing)   # list builtins are not tensor kernels


def test_everything_exercised_misses_nothing():
    assert missing_operators({o.qualified for o in all_operators() if F.is_eager(o.schema)}) == []
