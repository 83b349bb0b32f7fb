"""Programs PyTorch refuses are refused with its wording; nearby valid ones compile."""
import inspect
from typing import Dict, List

import pytest

import tsjit

G = {"tsjit": tsjit, "List": List, "Dict": Dict}


def _refused(src: str, message: str, highlight: str = "") -> None:
    with pytest.raises(RuntimeError, match=message) as err:
        tsjit.jit.CompilationUnit(src, G)
    assert highlight in str(err.value)


def test_a_block_may_not_change_the_type_of_an_enclosing_variable():
    _refused("def f(c: bool):\n    x = [1]\n    if c:\n        x = [1.0]\n    return x\n",
             r"Variable 'x' previously had type List\[int\] but is now being assigned to a value "
             r"of type List\[float\]")
    _refused("def f(c: bool):\n    x = []\n    for i in range(3):\n        x = [i]\n    return x\n",
             r"previously had type List\[Tensor\]")


def test_a_block_may_assign_a_subtype_or_its_own_variables():
    src = ("def f(c: bool) -> int:\n    x: Optional[int] = None\n    if c:\n        x = 1\n"
           "        y = [1.0]\n    else:\n        y = [2.0]\n    z = [1]\n    z = 'now a str'\n"
           "    return len(y) + len(z)\n")
    assert tsjit.jit.CompilationUnit(src, {**G, "Optional": __import__("typing").Optional}).f(True) == 10


@pytest.mark.parametrize("src, highlight", [
    ("def f(x: int):\n    a = x\n    del a\n    return a\n", "a"),
    ("def f(x: int):\n    a = x\n    if a:\n        del a\n    return a\n", "a"),
    ("def f(x: int):\n    del b\n    return x\n", "b")])
def test_deleted_and_missing_names_are_undefined_values(src, highlight):
    _refused(src, "undefined value", highlight)


def test_an_overload_mismatch_says_which_argument_does_not_fit():
    _refused("def f(a: Dict[str, int]) -> int:\n    return a[None]\n",
             "Expected a value of type 'str' for argument 'key' but instead found type 'NoneType'",
             "a[None]")


@pytest.mark.parametrize("src, what", [("x: int):\n    return x.add(1)", "'int' object has no "
                                        "attribute or method 'add'"),
                                       ("x: float):\n    return x.hex()", "'float' object"),
                                       ("x: complex):\n    return x.real", "'complex' object")])
def test_numbers_have_no_methods(src, what):
    _refused("def f(" + src + "\n", what)


def test_strings_and_lists_keep_their_methods():
    cu = tsjit.jit.CompilationUnit("def f(s: str, xs: List[int]):\n    xs.append(1)\n"
                                   "    return s.upper(), xs.count(1)\n", G)
    assert cu.f("a", [1]) == ("A", 2)


def test_tolist_needs_a_type_hint():
    _refused("def f(x: tsjit.Tensor):\n    return x.tolist()\n",
             "Expected type hint for result of tolist()")


@pytest.mark.parametrize("prop", ["H", "mH", "mT", "T", "is_cpu", "is_nested", "ndim", "shape"])
def test_tensor_properties_match_eager(prop):
    x = tsjit.arange(6, dtype=tsjit.float).view(2, 3)
    got = tsjit.jit.CompilationUnit(f"def fn(x):\n    return x.{prop}\n").fn(x)
    want = getattr(x, prop)
    if prop == "shape":
        got, want = list(got), list(want)
    assert (got == want) if not isinstance(want, tsjit.Tensor) else tsjit.equal(got, want)


def test_tensor_methods_are_methods():
    assert inspect.ismethod(tsjit.ones(2).view) and inspect.isroutine(tsjit.ones(2).add)


def test_a_type_comment_may_omit_the_return_type():
    src = ("def f(x):\n    # type: (bool)\n    a = float('-inf')\n    if not x:\n"
           "        a = 5.0\n    return a < 4\n")
    assert tsjit.jit.CompilationUnit(src).f(True) is True


def test_list_without_arguments_takes_the_declared_type():
    src = "def f():\n    x: List[int] = list()\n    x.append(1)\n    return x, list()\n"
    assert tsjit.jit.CompilationUnit(src, G).f() == ([1], [])


def test_tolist_error_points_at_the_call():
    with pytest.raises(RuntimeError) as err:
        tsjit.jit.CompilationUnit("def f(x: tsjit.Tensor):\n    li = x.tolist()\n    return li\n", G)
    lines = str(err.value).splitlines()
    row = next(i for i, line in enumerate(lines) if "li = x.tolist()" in line)
    start = lines[row].index("x.tolist()")
    assert set(lines[row + 1][start:start + len("x.tolist()")]) <= set("^~")


@pytest.mark.parametrize("prop, expected", [("grad", None), ("is_leaf", True)])
def test_autograd_properties_without_autograd(prop, expected):
    cu = tsjit.jit.CompilationUnit(f"def fn(x):\n    return x.{prop}\n")
    assert cu.fn(tsjit.ones(2)) is expected


@pytest.mark.parametrize("ann, x, message", [
    ("List[str]", tsjit.randn(3), "str is not one of the supported element types for tolist"),
    ("List[List[float]]", tsjit.randn(3), "list dimension and runtime tensor dimension must match"),
    ("List[float]", tsjit.ones(3, dtype=tsjit.long), "element type and runtime tensor element type")])
def test_tolist_annotations_must_fit_the_tensor(ann, x, message):
    with pytest.raises(RuntimeError, match=message):
        tsjit.jit.CompilationUnit(f"def f(x: tsjit.Tensor):\n    return tsjit.jit.annotate({ann}, "
                                  "x.tolist())\n", G).f(x)
