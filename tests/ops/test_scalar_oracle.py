"""Sanity tests of the TorchScript differential oracle (tests/helpers/scalar_oracle.py)."""
import math

from tests.helpers.scalar_oracle import requires_torch, same, ts_outcome


def test_same_is_strict() -> None:
    assert same(1.0, 1.0) and not same(1, 1.0) and not same(True, 1)
    assert same(math.nan, math.nan) and not same(0.0, -0.0)
    assert same([1, (2.0, "a")], [1, (2.0, "a")]) and not same([1], (1,))
    assert not same({"a": 1, "b": 2}, {"b": 2, "a": 1})


@requires_torch
def test_oracle_reports_torchscript_errors() -> None:
    assert ts_outcome("def f(a: int, b: int): a // b", 1, 0) == \
        ("err", "RuntimeError", "division by 0")
    assert ts_outcome("def f(a: float): str(a)", 1.0) == ("ok", "1.")
