"""dict(...) and list(...) forms, OrderedDict, and container literals typed by their
annotation, compared with Python; PyTorch's errors for the forms it refuses."""
from collections import OrderedDict
from typing import Dict, List, Optional

import pytest

import tsjit

DICT_FORMS = [
    "dict()", "dict(a=1, b=2)", "dict(a=[1], b=[2, 3])", "dict([('a', 1), ('b', 2)])",
    "dict([])", "dict(zip(['x', 'y', 'z'], [1, 2, 3]))", "dict({'a': 1}, b=2)",
    "dict({k: len(k) for k in ['a', 'bb']}, c=3)", "dict(enumerate(['p', 'q']))",
    "OrderedDict([(1, 2), (2, 3), (1, 4)])", "dict(dict(a=1.5), a=2.5)",
]


@pytest.mark.parametrize("form", DICT_FORMS)
def test_dict_forms_match_python(form):
    src = f"def f():\n    return {form}\n"
    env = {"OrderedDict": OrderedDict}
    exec(src, env)
    expected = env["f"]()
    got = tsjit.jit.CompilationUnit(src, {"OrderedDict": OrderedDict}).f()
    assert got == dict(expected) and list(got) == list(expected)


def test_an_empty_dict_takes_its_declared_type():
    def f() -> Dict[str, int]:
        x: Dict[str, int] = dict()
        x["foo"] = 1
        return x
    assert tsjit.jit.script(f)() == {"foo": 1}


def test_dict_pairs_that_do_not_fit_the_declaration_are_refused():
    def f():
        x: Dict[int, str] = dict([("foo", 1)])
        return x
    with pytest.raises(RuntimeError, match=r"Dict type annotation `Dict\[int, str\]` did not "
                                           "match the type of an actual key type `str`"):
        tsjit.jit.script(f)


@pytest.mark.parametrize("form", ["list((1, 2, 3))", "list(('a', 'b'))", "list([1, 2])",
                                  "list(range(4))", "list((1, None))"])
def test_list_forms_match_python(form):
    src = f"def f():\n    return {form}\n"
    env: dict = {}
    exec(src, env)
    assert tsjit.jit.CompilationUnit(src).f() == env["f"]()


def test_list_of_a_tuple_of_mixed_types_is_refused():
    with pytest.raises(RuntimeError, match="list\\(\\) of a tuple needs elements of one type"):
        tsjit.jit.CompilationUnit("def f():\n    return list((1, 'a'))\n")


def test_literals_and_comprehensions_take_the_declared_element_type():
    def f():
        x: List[Optional[int]] = [None for _ in range(3)]
        y: List[Optional[int]] = [None, None]
        z: Dict[str, Optional[int]] = {w: None for w in ["a", "b"]}
        x.append(1)
        return x, y, z
    assert tsjit.jit.script(f)() == f()


def test_an_existing_list_does_not_change_type_by_declaration():
    def f():
        y: List[None] = [None, None]
        x: List[Optional[int]] = y
        return x
    with pytest.raises(RuntimeError, match="Variable 'x' is annotated with type "
                                           "List\\[Optional\\[int\\]\\] but is being assigned"):
        tsjit.jit.script(f)


def test_a_list_literal_for_a_non_container_declaration_is_refused():
    def f():
        b: int = [2, 3]
        return b
    with pytest.raises(RuntimeError, match="Expected an annotation of type List"):
        tsjit.jit.script(f)


@pytest.mark.parametrize("ann, message", [("List", "Attempted to use List without a contained type"),
                                          ("Dict", "Attempted to use Dict without contained types")])
def test_bare_generic_annotations_are_refused(ann, message):
    with pytest.raises(RuntimeError, match=message):
        tsjit.jit.CompilationUnit(f"def f(x: {ann}) -> int:\n    return 1\n",
                                  {"List": List, "Dict": Dict})
