"""The AST classes (frontend/ast.py) behave as the `@dataclass(eq=False, slots=True)`
classes they replace: the same fields, defaults, __init__ signature, repr, slots, identity
equality, and `dataclasses.fields` / `dataclasses.replace` work on them."""
from __future__ import annotations

import dataclasses
import inspect
from typing import Any

import pytest

from tsjit.frontend import ast as A

CLASSES = [c for c in vars(A).values() if isinstance(c, type) and issubclass(c, A.Node)]


def _reference(cls: type, made: dict[type, type]) -> type:
    """The dataclass the same class body makes (bases made first)."""
    if cls in made:
        return made[cls]
    bases = tuple(_reference(b, made) for b in cls.__bases__ if issubclass(b, A.Node))
    own = cls.__dict__.get("__annotations__", {})
    ns = {"__annotations__": dict(own), "__module__": A.__name__, "__qualname__": cls.__qualname__}
    ns.update(cls.__dict__["_own_defaults"])      # the class body's defaults, as written
    made[cls] = dataclasses.dataclass(eq=False, slots=True)(type(cls.__name__, bases, ns))
    return made[cls]


def test_every_node_class_is_checked() -> None:
    assert len(CLASSES) > 40 and A.Node in CLASSES and A.DeclSpan in CLASSES


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_a_node_class_behaves_as_its_dataclass(cls: type) -> None:
    ref = _reference(cls, {})
    assert dataclasses.is_dataclass(cls)
    got = [(f.name, f.type, f.default) for f in dataclasses.fields(cls)]
    assert got == [(f.name, f.type, f.default) for f in dataclasses.fields(ref)]
    assert str(inspect.signature(cls)) == str(inspect.signature(ref))
    assert cls.__init__.__qualname__ == f"{cls.__qualname__}.__init__"
    # every field its own value, defaults left out
    required = [f.name for f in dataclasses.fields(ref) if f.default is dataclasses.MISSING]
    values: dict[str, Any] = {name: f"<{name}>" for name in required}
    node, twin = cls(**values), ref(**values)
    assert repr(node) == repr(twin)
    assert [getattr(node, f.name) for f in dataclasses.fields(cls)] == \
        [getattr(twin, f.name) for f in dataclasses.fields(ref)]
    positional = cls(*values.values())
    assert repr(positional) == repr(node)
    assert not hasattr(node, "__dict__")           # slots: no attribute outside the fields
    with pytest.raises(AttributeError):
        node.not_a_field = 1
    assert node == node and node != positional     # equality is identity
    assert len({node, positional}) == 2
    first = dataclasses.fields(cls)[-1].name
    changed = dataclasses.replace(node, **{first: "new"})
    assert type(changed) is cls and getattr(changed, first) == "new"
    assert repr(changed) == repr(dataclasses.replace(twin, **{first: "new"}))
    with pytest.raises(TypeError):
        cls(*values.values(), *[None] * (len(dataclasses.fields(cls)) - len(required) + 1))


def test_the_hierarchy_is_kept() -> None:
    assert issubclass(A.Name, A.Expr) and issubclass(A.DefSpan, A.Span)
    assert issubclass(A.Span, A.Stmt) and not issubclass(A.Keyword, A.Expr)
    assert [f.name for f in dataclasses.fields(A.DefSpan)] == ["range", "name"]
