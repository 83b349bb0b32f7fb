"""ClassType's attribute slots: found by name, the first declaration of a name winning."""
from tsjit.ir import types as T


def test_slots_of_attributes_given_at_construction_and_added_later() -> None:
    t = T.ClassType("__torch__.a.B", attributes=[T.Attribute("x", T.IntType),
                                                  T.Attribute("y", T.FloatType)])
    assert (t.attribute_slot("x"), t.attribute_slot("y"), t.attribute_slot("z")) == (0, 1, -1)
    z = t.add_attribute("z", T.BoolType)
    assert t.attribute_slot("z") == 2 and t.find_attribute("z") is z
    assert t.add_attribute("x", T.StrType) is t.attributes[0]     # redeclaring is a no-op
    assert t.attribute_slots() == {"x": 0, "y": 1, "z": 2}


def test_many_attributes() -> None:
    t = T.ClassType("__torch__.m.Big")
    for i in range(5000):
        t.add_attribute(str(i), T.TensorType)
    assert t.attribute_slot("4999") == 4999 and t.find_attribute("2500").name == "2500"


def test_attributes_added_together_as_one_by_one() -> None:
    t = T.ClassType("__torch__.a.C", attributes=[T.Attribute("x", T.IntType)])
    t.add_attributes(["y", "x", "z", "y"], [T.FloatType, T.StrType, T.BoolType, T.StrType])
    # (the first declaration of a name wins, within the call and before it)
    assert [(a.name, a.type) for a in t.attributes] == \
        [("x", T.IntType), ("y", T.FloatType), ("z", T.BoolType)]
    assert t.attribute_slots() == {"x": 0, "y": 1, "z": 2}
    assert not any(a.is_parameter or a.is_buffer for a in t.attributes)
