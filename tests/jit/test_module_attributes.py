"""A script module's missing attribute is a tsjit error and an AttributeError (so hasattr
and getattr with a default behave as on any Python object)."""
import pytest

import tsjit
from tests.helpers.corpus import case_path
from tsjit.ir.diagnostics import TsjitError


def test_missing_attribute_is_a_tsjit_attribute_error():
    m = tsjit.load(case_path("model_mlp"))
    assert not hasattr(m, "no_such_method") and getattr(m, "no_such_method", 7) == 7
    with pytest.raises(TsjitError, match="has no attribute or method 'no_such_method'"):
        m.no_such_method
    with pytest.raises(AttributeError):
        m.no_such_method
    with pytest.raises(TsjitError, match="cannot add attribute"):
        m.new_attribute = 1
