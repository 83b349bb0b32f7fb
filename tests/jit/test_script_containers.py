"""`tsjit.jit.script([...])` / `script({...})`: ScriptList and ScriptDict behave as lists and
dicts, share storage with scripted code and refuse values of another type."""
from typing import Dict, List

import pytest

import tsjit


@tsjit.jit.script
def _append(xs: List[int], e: int) -> None:
    xs.append(e)


@tsjit.jit.script
def _put(d: Dict[int, int], k: int, v: int) -> None:
    d[k] = v


def test_a_script_list_shares_its_storage_with_scripted_code():
    xs = tsjit.jit.script([1, 2])
    _append(xs, 3)
    assert len(xs) == 3 and 3 in xs and xs[2] == 3 and list(xs) == [1, 2, 3]


def test_a_plain_list_is_copied_on_the_way_in():
    xs = [1, 2]
    _append(xs, 3)
    assert xs == [1, 2]


def test_a_script_list_acts_as_a_list():
    for op in (lambda l: repr(l), lambda l: bool(l), lambda l: l[1:3], lambda l: l[-1::-1],
               lambda l: l.count(3), lambda l: l.pop(2), lambda l: l.insert(-2, 9),
               lambda l: l.extend({7: 1}), lambda l: l.remove(3), lambda l: l.clear()):
        plain = [1, 2, 3, 4]
        scripted = tsjit.jit.script(list(plain))
        assert op(plain) == op(scripted)
        assert scripted == plain


@pytest.mark.parametrize("op", [lambda l: l[7], lambda l: l["key"], lambda l: l.pop(10),
                                lambda l: l.remove(10)])
def test_a_script_list_raises_what_a_list_raises(op):
    with pytest.raises(Exception) as plain:
        op([1, 2, 3])
    with pytest.raises(type(plain.value)):
        op(tsjit.jit.script([1, 2, 3]))


@pytest.mark.parametrize("op", [lambda l: l.__setitem__(0, "s"), lambda l: l.append("s"),
                                lambda l: l.count("s"), lambda l: "s" in l,
                                lambda l: l.extend(["a"])])
def test_a_script_list_refuses_values_of_another_type(op):
    with pytest.raises(TypeError):
        op(tsjit.jit.script([1]))


def test_a_script_dict_shares_storage_and_checks_types():
    d = tsjit.jit.script({1: 2})
    _put(d, 3, 4)
    assert d == {1: 2, 3: 4} and repr(d) == "{1: 2, 3: 4}" and sorted(d.items()) == [(1, 2), (3, 4)]
    with pytest.raises(KeyError):
        d["key"]
    with pytest.raises(KeyError):      # as PyTorch's ScriptDict, not False
        "key" in d
    with pytest.raises(TypeError):
        d["key"] = 3
    with pytest.raises(TypeError):
        d[3] = "value"
    with pytest.raises(TypeError):
        del d["key"]
    del d[1]
    assert d == {3: 4}


def test_a_type_hint_gives_the_element_type():
    xs = tsjit.jit.script([], List[float])
    xs.append(1)                        # an int fits a float element, converted
    assert xs == [1.0] and type(xs[0]) is float


def test_a_container_whose_values_have_no_common_type_is_refused():
    with pytest.raises(RuntimeError, match="cannot script"):
        tsjit.jit.script([1, "a"])
