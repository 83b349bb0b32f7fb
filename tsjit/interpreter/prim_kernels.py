"""Kernels for the structural prim:: nodes the compiler emits (not schema operators)."""
from __future__ import annotations

from typing import Any, Callable

from ..ir import Node
from ..ir import types as T
from ..ir.node_kinds import prim
from .objects import Object


def list_construct(*items: Any) -> list:
    return list(items)


def tuple_construct(*items: Any) -> tuple:
    return items


def dict_construct(*kv: Any) -> dict:
    return {kv[i]: kv[i + 1] for i in range(0, len(kv), 2)}


def tuple_unpack(t: tuple) -> tuple:
    return t


def list_unpack(n: int) -> Callable[[list], list]:
    def unpack(xs: list) -> list:
        if len(xs) != n:
            raise ValueError(f"Expected {n} elements in a list but found {len(xs)}")
        return xs
    return unpack


def tuple_index(t: tuple, i: int) -> Any:
    return t[i]


def identity(x: Any) -> Any:
    return x


def printer(*values: Any) -> None:
    from ..ops.formatting import to_str
    print(" ".join(to_str(v) for v in values))


def runtime_isinstance(types: list[T.Type]) -> Callable[[Any], bool]:
    """A check of a value's dynamic type against `types` (for Optional/Union/Any values)."""
    def check(v: Any) -> bool:
        return any(value_is(v, t) for t in types)
    return check


def value_is(v: Any, t: T.Type) -> bool:
    """Whether run-time value `v` has type `t` (containers checked by their first element)."""
    from .._tensor import Tensor
    if t == T.AnyType:
        return True
    if t == T.AnyTupleType:
        return isinstance(v, tuple)
    if t == T.AnyListType:
        return isinstance(v, list)
    if t == T.NoneType:
        return v is None
    if isinstance(t, T.OptionalType):
        return v is None or value_is(v, t.elem)
    if isinstance(t, T.UnionType):
        return any(value_is(v, x) for x in t.types)
    if t == T.BoolType:
        return isinstance(v, bool)
    if t == T.IntType:
        return isinstance(v, int) and not isinstance(v, bool)
    if t == T.FloatType:
        return isinstance(v, float)
    if t == T.StrType:
        return isinstance(v, str)
    if t == T.TensorType:
        return isinstance(v, Tensor)
    if isinstance(t, T.ListType):
        return isinstance(v, list) and (not v or value_is(v[0], t.elem))
    if isinstance(t, T.DictType):
        return isinstance(v, dict)
    if isinstance(t, T.TupleType):
        return isinstance(v, tuple) and len(v) == len(t.elems)
    if isinstance(t, T.ClassType):
        return isinstance(v, Object) and v.type is t
    if isinstance(t, T.EnumType):
        return isinstance(v, T.EnumValue) and v.type is t
    return False


def enum_name(v: Any) -> str:
    return v.name


def enum_value(v: Any) -> Any:
    return v.value


def tolist(t: Any, dims: int, kind: int) -> Any:
    """A tensor as nested Python lists of int/float/bool/complex, checked against the
    annotated number of dimensions."""
    if t.dim() != dims:
        raise ValueError(f"Output annotation list dimension and runtime tensor dimension must "
                         f"match for tolist()")
    # kind: 0 int, 1 float, 2 bool, 3 complex (the annotated element type)
    actual = {"b": 2, "c": 3, "f": 1}.get(t.dtype.kind, 0)
    if actual != kind:
        raise ValueError("Output annotation element type and runtime tensor element type must "
                         "match for tolist()")
    return t.tolist()


def create_object(t: T.ClassType) -> Callable[[], Object]:
    def create() -> Object:
        return Object(t)
    return create


# How values cross into Python code that TorchScript calls (@ignore functions): module
# objects are seen as ScriptModules. jit/ installs the conversions (the interpreter knows
# nothing of jit/); until then values cross as they are.
PYTHON_VALUES: dict[str, Callable[[Any], Any]] = {"to": lambda v: v, "from": lambda v: v}


def python_op(fn: Callable) -> Callable:
    """The kernel of a `prim::PythonOp`: call the Python function."""
    def call(*args: Any) -> Any:
        to_python = PYTHON_VALUES["to"]
        return PYTHON_VALUES["from"](fn(*[to_python(a) for a in args]))
    return call


def prim_kernel(n: Node) -> Callable:
    """The kernel for a structural prim:: node, specialised to the node where needed."""
    k = n.kind
    if k == prim.ListConstruct:
        return list_construct
    if k == prim.TupleConstruct:
        return tuple_construct
    if k == prim.DictConstruct:
        return dict_construct
    if k == prim.TupleUnpack:
        return tuple_unpack
    if k == prim.ListUnpack:
        return list_unpack(len(n.outputs))
    if k == prim.TupleIndex:
        return tuple_index
    if k == prim.unchecked_cast:
        return identity
    if k == prim.Print:
        return printer
    if k == prim.isinstance:
        return runtime_isinstance(n.attrs["_types"])
    if k == prim.EnumName:
        return enum_name
    if k == prim.EnumValue:
        return enum_value
    if k == prim.tolist:
        return tolist
    if k == prim.CreateObject:
        return create_object(n.output().type)
    if k == prim.PythonOp:
        return python_op(n.attrs["function"])
    raise KeyError(k)
