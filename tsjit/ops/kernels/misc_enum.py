"""Enum comparisons (`Color.RED == c`): members are compared by identity."""
from __future__ import annotations

from typing import Any

from ..registry import op


@op("aten::eq.enum(AnyEnumType a, AnyEnumType b) -> bool")
def eq(a: Any, b: Any) -> bool:
    return a is b


@op("aten::ne.enum(AnyEnumType a, AnyEnumType b) -> bool")
def ne(a: Any, b: Any) -> bool:
    return a is not b
