"""Registry mechanics: a schema given as a function is made when first needed, once."""
from __future__ import annotations

import pytest

from tsjit.ops import registry


def test_a_schema_function_runs_when_the_schema_is_first_needed() -> None:
    calls = []

    def schema() -> str:
        calls.append(1)
        return "test_registry::lazy.two(int x) -> int"

    o = registry.register(schema, lambda x: 2 * x, qualified="test_registry::lazy.two")
    assert (o.qualified, o.name) == ("test_registry::lazy.two", "test_registry::lazy")
    assert registry.find("test_registry::lazy.two") is o and not calls
    assert registry.overloads("test_registry::lazy") == [o] and not calls
    assert o.text == "test_registry::lazy.two(int x) -> int"
    assert [a.name for a in o.schema.arguments] == ["x"] and calls == [1]


def test_a_schema_function_must_name_its_operator() -> None:
    with pytest.raises(registry.RegistryError):
        registry.register(lambda: "test_registry::unnamed(int x) -> int", lambda x: x)
    o = registry.register(lambda: "test_registry::other(int x) -> int", lambda x: x,
                          qualified="test_registry::declared")
    with pytest.raises(registry.RegistryError, match="was given the schema"):
        o.text


def test_out_forms_look_their_functional_overload_up_when_first_needed() -> None:
    o = registry.find("aten::add.out")
    assert o.kernel.wraps == "aten::add.Tensor"
    assert o.text.startswith("aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, ")
