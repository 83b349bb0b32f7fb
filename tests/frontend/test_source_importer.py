"""Declaring an archive's classes from its code files: attribute types are resolved once
per annotation text (the same text names the same type anywhere in an archive)."""
from __future__ import annotations

from typing import Optional

import pytest

from tsjit.frontend.parser import parse, parse_expr
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


# Type texts of declarations: those built of builtin types' and classes' names are found
# from the text (no parse), as the annotation's expression gives them.
_TEXT_TYPES = ["bool", "Tensor", "__torch__.b.B", "Optional[bool]", "List[int]",
               "Dict[str, Tensor]", "Tuple[int, float, bool]", "Tuple[int]", "Union[int, str]",
               "Union[int, NoneType]", "Optional[__torch__.b.B]", "List[List[int]]",
               "Optional[Optional[int]]", "Dict[str, List[Tuple[int, Tensor]]]",
               "Optional[NoneType]", "List[Optional[__torch__.b.B]]", "list[int]",
               "dict[str, int]", "tuple[int, str]"]


@pytest.mark.parametrize("text", _TEXT_TYPES)
def test_types_found_by_text_are_those_of_the_annotation(text: str) -> None:
    imp = _importer(CODE)       # (one importer: classes are the same objects)
    by_text = imp._type_of_text(text)
    assert by_text is not None
    imp.annotation_types.pop(text, None)
    assert by_text == imp.annotation_type(parse_expr(text))


@pytest.mark.parametrize("text", ["List[int, int]", "Optional[int, str]", "Dict[str]",
                                  "Foo[int]", "Optional[Foo]", "typing.Optional[int]",
                                  "Final[int]", "Optional[__torch__.c.C]", "Tuple[int,xint]",
                                  "Dict[str,int]", "Tuple[int,  int]"])
def test_other_type_texts_are_left_to_the_annotation(text: str) -> None:
    assert _importer(CODE)._type_of_text(text) is None


def test_a_type_not_found_by_text_is_reported_where_it_is_declared() -> None:
    code = {"code/__torch__/a.py": CODE["code/__torch__/a.py"].replace(
        "  xs : Optional[List[int]]\n", "  xs : List[int, int]\n")}
    with pytest.raises(TsjitError, match=r"List\[\.\.\.\] takes 1") as info:
        _importer(code).load_class("__torch__.a.A")
    assert ":5:" in str(info.value)


def test_parameters_buffers_and_constants_of_declarations() -> None:
    code = {"code/__torch__/m.py": (
        "class M(Module):\n"
        '  __parameters__ = ["w", ]\n'
        '  __buffers__ = ["b", "c", ]\n'
        "  w : Tensor\n"
        "  b : Tensor\n"
        "  x : int\n"
        '  __annotations__["c"] = Tensor\n'
        "  k : Final[int] = 3\n"
        "class N(Module):\n"
        "  __parameters__ = []\n"
        "  __buffers__ = []\n"
        "  y : Tensor\n")}
    imp = _importer(code)
    m = imp.load_class("__torch__.m.M")
    assert [(a.name, a.type, a.is_parameter, a.is_buffer) for a in m.attributes] == [
        ("w", T.TensorType, True, False), ("b", T.TensorType, False, True),
        ("x", T.IntType, False, False), ("c", T.TensorType, False, True)]
    assert m.constants == {"k": 3}
    n = imp.load_class("__torch__.m.N")
    assert [(a.name, a.is_parameter, a.is_buffer) for a in n.attributes] == [("y", False, False)]


@pytest.mark.parametrize("line", ["in : int", "x : List[int", "x : Optional[in]",
                                  "k : Final[int] = 1 +", "x : int = = 2", '__annotations__["a"] =',
                                  "x : Tuple[int, (]", "def f(self) -> int: return )"])
def test_bad_declarations_are_the_parser_s_errors_with_their_place(line: str) -> None:
    text = CODE["code/__torch__/a.py"].replace("  training : bool\n", f"  {line}\n")
    with pytest.raises(TsjitError) as whole:
        parse(text, "code/__torch__/a.py")
    with pytest.raises(TsjitError) as info:
        imp = _importer({"code/__torch__/a.py": text})
        imp.load_class("__torch__.a.A").methods["f" if "def" in line else "forward"].graph
    assert str(info.value) == str(whole.value)
    assert "code/__torch__/a.py:" in str(info.value) and "^" in str(info.value)
