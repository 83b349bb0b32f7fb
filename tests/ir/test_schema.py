"""FunctionSchema parsing: print(parse(s)) is a fixed point, fields are right."""
import pytest
from hypothesis import given, strategies as st

from tsjit.ir import parse_schema, parse_type
from tsjit.ir import types as T
from tsjit.ir.schema import SchemaError

SCHEMAS = [
    "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "aten::append.t(t[](a!) self, t(c -> *) el) -> t[](a!)",
    "aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=[1, 1], int[2] padding=[0, 0], int[2] dilation=[1, 1], int groups=1) -> Tensor",
    "prim::RaiseException(str msg, str? cls=None) -> ()",
    "aten::format(str self, ...) -> str",
    "aten::dict.str(Dict(str, t) self) -> Dict(str, t)",
]


@pytest.mark.parametrize("text", SCHEMAS)
def test_print_parse_fixed_point(text):
    s = parse_schema(text)
    assert str(parse_schema(str(s))) == str(s)


def test_fields():
    s = parse_schema(SCHEMAS[0])
    assert (s.name, s.overload, s.qualified) == ("aten::add", "Tensor", "aten::add.Tensor")
    alpha = s.arguments[2]
    assert alpha.kwarg_only and alpha.default == 1 and alpha.type == T.NumberType
    conv = parse_schema(SCHEMAS[3])
    assert conv.arguments[3].N == 2 and conv.arguments[3].default == [1, 1]
    assert parse_schema("aten::f(int[2] s=1) -> ()").arguments[0].default == [1, 1]
    assert parse_schema(SCHEMAS[4]).returns == ()
    assert parse_schema(SCHEMAS[5]).is_vararg
    assert parse_schema(SCHEMAS[2]).arguments[0].is_write


def test_types():
    assert parse_type("int[]?") == T.OptionalType(T.ListType(T.IntType))
    assert parse_type("Dict(str, Tensor)") == T.DictType(T.StrType, T.TensorType)
    assert parse_type("ScalarType?") == T.OptionalType(T.IntType)
    assert str(parse_type("(int, str)")) == "(int, str)"


@pytest.mark.parametrize("bad", ["aten::f(", "aten::f(int x) ->", "aten::f(Foo x) -> int",
                                 "aten::f(int x=@) -> int", "aten::f(int x) -> int junk extra"])
def test_errors_are_schema_errors(bad):
    with pytest.raises(SchemaError):
        parse_schema(bad)


_simple = st.sampled_from(["int", "float", "bool", "str", "Tensor", "Scalar", "t"])
_types = st.recursive(_simple, lambda inner: st.one_of(
    inner.map(lambda t: t + "[]"), inner.map(lambda t: t + "?"),
    st.tuples(inner, inner).map(lambda p: f"Dict({p[0]}, {p[1]})"),
    st.lists(inner, min_size=1, max_size=3).map(lambda ts: "(" + ", ".join(ts) + ")")),
    max_leaves=6)


@given(st.lists(_types, max_size=4), _types)
def test_generated_schemas_round_trip(args, ret):
    # A return starting with "(" is a list of returns, so wrap a tuple type in one.
    ret = f"({ret})" if ret.startswith("(") else ret
    text = f"ns::f.o({', '.join(f'{t} a{i}' for i, t in enumerate(args))}) -> {ret}"
    s = parse_schema(text)
    assert str(parse_schema(str(s))) == str(s)
    assert len(s.arguments) == len(args)
