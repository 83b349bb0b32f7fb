"""Declaring an archive's classes from its code files: attribute types are resolved once
per annotation text (the same text names the same type anywhere in an archive)."""
from __future__ import annotations

from typing import Optional

import pytest

from tsjit.frontend.source_importer import SourceImporter
from tsjit.ir import CompilationUnit
from tsjit.ir import types as T
from tsjit.ir.diagnostics import TsjitError

CODE = {
    "code/__torch__/a.py": (
        "class A(Module):\n"
        "  __parameters__ = []\n"
        "  __buffers__ = []\n"
        "  training : bool\n"
        "  xs : Optional[List[int]]\n"
        "  b : __torch__.b.B\n"
        '  __annotations__["0"] = __torch__.b.B\n'
        '  __annotations__["1"] = __torch__.b.B\n'
        "  def forward(self: __torch__.a.A) -> int:\n"
        "    return 1\n"),
    "code/__torch__/b.py": (
        "class B(Module):\n"
        "  __parameters__ = []\n"
        "  __buffers__ = []\n"
        "  training : bool\n"
        "  xs : Optional[List[int]]\n"),
}


def _importer(code: dict[str, str]) -> SourceImporter:
    def read_code(rel: str) -> Optional[tuple]:
        return (code[rel], rel, None) if rel in code else None
    return SourceImporter(CompilationUnit(), read_code, [])


def test_repeated_annotations_resolve_to_the_same_types() -> None:
    imp = _importer(CODE)
    a = imp.load_class("__torch__.a.A")
    b = imp.load_class("__torch__.b.B")
    types = {attr.name: attr.type for attr in a.attributes}
    assert types["training"] == T.BoolType
    assert types["xs"] == T.OptionalType(T.ListType(T.IntType))
    assert types["b"] is b and types["0"] is b and types["1"] is b
    assert {attr.name: attr.type for attr in b.attributes} == {
        "training": T.BoolType, "xs": T.OptionalType(T.ListType(T.IntType))}
    assert set(imp.annotation_types) == {"bool", "Optional[List[int]]", "__torch__.b.B"}


def test_an_unknown_annotation_is_reported_where_it_first_occurs() -> None:
    code = {"code/__torch__/a.py": CODE["code/__torch__/a.py"].replace(
        "  b : __torch__.b.B\n", "  b : __torch__.c.C\n  c : __torch__.c.C\n")}
    with pytest.raises(TsjitError, match="__torch__.c.C") as info:
        _importer(code).load_class("__torch__.a.A")
    assert ":6:" in str(info.value)     # the line of `b`, the first use
