"""SugaredValues: what a name or expression means during compilation.

First-class values are `SimpleValue`s wrapping an IR Value. Everything else — builtin
operators, methods, functions, classes, Python modules seen through the resolver — is a
SugaredValue whose default methods raise a located CompileError ("a module cannot be
indexed"); a feature is added by overriding one method.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from ..ir import Function, Value
from ..ir import types as T
from ..ir.diagnostics import CompileError, SourceRange
from ..ir.node_kinds import prim
from ..ops import registry
from .schema_matching import NamedValue

if TYPE_CHECKING:
    from .compiler import FunctionCompiler

Args = list[NamedValue]
Kwargs = dict[str, NamedValue]


class SugaredValue:
    """Base: every operation is an error naming what the value is."""

    kind = "value"

    def as_value(self, c: "FunctionCompiler", rng: SourceRange) -> Value:
        raise CompileError(f"{self.kind} cannot be used as a value", rng)

    def attr(self, c: "FunctionCompiler", rng: SourceRange, name: str) -> "SugaredValue":
        raise CompileError(f"{self.kind} has no attribute '{name}'", rng)

    def set_attr(self, c: "FunctionCompiler", rng: SourceRange, name: str, value: Value) -> None:
        raise CompileError(f"cannot set attribute '{name}' on {self.kind}", rng)

    def call(self, c: "FunctionCompiler", rng: SourceRange, args: Args,
             kwargs: Kwargs) -> "SugaredValue":
        raise CompileError(f"{self.kind} cannot be called", rng)

    def getitem(self, c: "FunctionCompiler", rng: SourceRange, index: Any) -> "SugaredValue":
        raise CompileError(f"{self.kind} cannot be indexed", rng)

    def iterate(self, c: "FunctionCompiler", rng: SourceRange) -> Any:
        raise CompileError(f"{self.kind} cannot be iterated over", rng)

    def to_type(self, c: "FunctionCompiler", rng: SourceRange) -> Optional[T.Type]:
        """The type this names when used in an annotation, if any."""
        return None


class SimpleValue(SugaredValue):
    """An ordinary IR value."""

    def __init__(self, value: Value) -> None:
        self.value = value

    @property
    def kind(self) -> str:  # type: ignore[override]
        return f"a value of type '{self.value.type.annotation_str()}'"

    def as_value(self, c: "FunctionCompiler", rng: SourceRange) -> Value:
        return self.value

    def attr(self, c: "FunctionCompiler", rng: SourceRange, name: str) -> SugaredValue:
        t = self.value.type
        if isinstance(t, T.ClassType):
            return c.class_attr(self.value, t, name, rng)
        if isinstance(t, T.TupleType) and t.names and name in t.names:
            i = t.names.index(name)
            return SimpleValue(c.emit_tuple_index(self.value, i, rng))
        if t == T.TensorType and name in TENSOR_DTYPE_METHODS:
            return _DtypeMethod(self.value, TENSOR_DTYPE_METHODS[name])
        if t == T.TensorType and name in TENSOR_PROPERTIES:
            op = TENSOR_PROPERTIES[name]
            return SimpleValue(c.emit_builtin(op, [NamedValue(self.value)], {}, rng))
        if isinstance(t, T.InterfaceType):
            return MethodValue(self.value, name)
        if t == T.TensorType and name == "tolist":
            return _NeedsHint("Expected type hint for result of tolist(): annotate it, e.g. "
                              "torch.jit.annotate(List[List[float]], x.tolist())")
        if isinstance(t, T.EnumType) and name in ("name", "value"):
            out = t.value_type if name == "value" else T.StrType
            kind = prim.EnumValue if name == "value" else prim.EnumName
            return SimpleValue(c.insert(kind, [self.value], [out], rng).output())
        if t in _NUMBER_TYPES and not any(_is_method_of(o.schema, t)
                                          for o in registry.overloads(f"aten::{name}")):
            # `c.add(1)` on an int: numbers have no such methods (operators taking `a`
            # are functions), as in PyTorch.
            raise CompileError(f"'{t.annotation_str()}' object has no attribute or method "
                               f"'{name}'", rng)
        return BuiltinFunction(f"aten::{name}", self.value)

    def set_attr(self, c: "FunctionCompiler", rng: SourceRange, name: str, value: Value) -> None:
        t = self.value.type
        if not isinstance(t, T.ClassType):
            super().set_attr(c, rng, name, value)
        c.emit_set_attr(self.value, t, name, value, rng)

    def call(self, c: "FunctionCompiler", rng: SourceRange, args: Args, kwargs: Kwargs) -> SugaredValue:
        t = self.value.type
        if isinstance(t, (T.ClassType, T.InterfaceType)) and ("forward" in t.methods or t.is_module):
            return MethodValue(self.value, "forward").call(c, rng, args, kwargs)
        if isinstance(t, T.FunctionType):
            fn = c.cu_function(t.qualified_name, rng)
            return FunctionValue(fn, self.value).call(c, rng, args, kwargs)
        return super().call(c, rng, args, kwargs)

    def getitem(self, c: "FunctionCompiler", rng: SourceRange, index: Any) -> SugaredValue:
        return SimpleValue(c.emit_subscript(self.value, index, rng))

    def iterate(self, c: "FunctionCompiler", rng: SourceRange) -> Any:
        return c.value_iterator(self.value, rng)


_NUMBER_TYPES = (T.IntType, T.FloatType, T.BoolType, T.ComplexType, T.NumberType, T.NoneType)


def _is_method_of(schema: Any, t: T.Type) -> bool:
    """Whether `schema` is a method of values of type `t` (its first argument is a `self`
    that takes them)."""
    args = schema.arguments
    return bool(args) and args[0].name == "self" and T.match_type(args[0].type, t, {})

# `tensor.<name>` spellings that are properties, not methods.
TENSOR_PROPERTIES = {
    "shape": "aten::size", "dtype": "prim::dtype", "device": "prim::device",
    "is_cuda": "prim::is_cuda", "requires_grad": "prim::requires_grad", "ndim": "aten::dim",
    "T": "aten::numpy_T", "mT": "aten::mT", "data": "prim::data", "grad": "prim::grad",
    "layout": "prim::layout", "is_sparse": "prim::is_sparse", "is_quantized": "prim::is_quantized",
    "is_meta": "prim::is_meta", "is_mkldnn": "prim::is_mkldnn", "real": "aten::real",
    "imag": "aten::imag", "name": "prim::name", "is_leaf": "aten::is_leaf",
    "itemsize": "prim::itemsize", "nbytes": "prim::nbytes", "H": "aten::matrix_H",
    "mH": "aten::mH", "is_cpu": "prim::is_cpu", "is_nested": "prim::is_nested",
}


# `x.float()` and friends: `aten::to(x, dtype)` with the ScalarType code.
TENSOR_DTYPE_METHODS = {"float": 6, "double": 7, "half": 5, "long": 4, "int": 3, "short": 2,
                        "char": 1, "byte": 0, "bool": 11, "bfloat16": 15, "cfloat": 9,
                        "cdouble": 10}


class _DtypeMethod(SugaredValue):
    kind = "a tensor conversion method"

    def __init__(self, tensor: Value, dtype: int) -> None:
        self.tensor, self.dtype = tensor, dtype

    def call(self, c: "FunctionCompiler", rng: SourceRange, args: Args, kwargs: Kwargs) -> SugaredValue:
        if args or kwargs:
            raise CompileError("this conversion method takes no arguments", rng)
        code = c.emit_constant(self.dtype, rng)
        return SimpleValue(c.emit_builtin("aten::to", [NamedValue(self.tensor), NamedValue(code)],
                                          {}, rng))


class BuiltinFunction(SugaredValue):
    """A registered operator by name (`aten::add`), optionally bound to `self`."""

    def __init__(self, name: str, self_value: Optional[Value] = None) -> None:
        self.name = name
        self.self_value = self_value

    @property
    def kind(self) -> str:  # type: ignore[override]
        return f"builtin '{self.name}'"

    def call(self, c: "FunctionCompiler", rng: SourceRange, args: Args, kwargs: Kwargs) -> SugaredValue:
        out = c.emit_builtin(self.name, args, kwargs, rng, self_value=self.self_value)
        return SimpleValue(out)


class MethodValue(SugaredValue):
    """`obj.method` of a class, module or interface value."""

    kind = "a method"

    def __init__(self, self_value: Value, name: str) -> None:
        self.self_value = self_value
        self.name = name

    def call(self, c: "FunctionCompiler", rng: SourceRange, args: Args, kwargs: Kwargs) -> SugaredValue:
        return SimpleValue(c.emit_method_call(self.self_value, self.name, args, kwargs, rng))


class FunctionValue(SugaredValue):
    """A compiled free function (a Function in the compilation unit)."""

    kind = "a function"

    def __init__(self, fn: Function, ref: Optional[Value] = None) -> None:
        self.fn = fn
        self.ref = ref

    def as_value(self, c: "FunctionCompiler", rng: SourceRange) -> Value:
        return self.ref or c.emit_function_constant(self.fn, rng)

    def call(self, c: "FunctionCompiler", rng: SourceRange, args: Args, kwargs: Kwargs) -> SugaredValue:
        return SimpleValue(c.emit_function_call(self.fn, args, kwargs, rng, self.ref))


class BooleanDispatchValue(SugaredValue):
    """A Python function that picks one of two implementations by a constant bool argument
    (PyTorch's boolean_dispatch: `F.max_pool2d(..., return_indices=True)`, `torch.unique`),
    so that each implementation keeps one return type."""

    kind = "a boolean-dispatched function"

    def __init__(self, info: dict, resolve: Any) -> None:
        # resolve(python function, compiler, range) -> the SugaredValue of an implementation
        self.info, self.resolve = info, resolve

    def call(self, c: "FunctionCompiler", rng: SourceRange, args: Args, kwargs: Kwargs) -> SugaredValue:
        name, index = self.info["arg_name"], self.info["arg_index"]
        arg = kwargs.get(name) or (args[index] if index < len(args) else None)
        flag = self.info["default"] if arg is None else c.constant_of(arg.value)
        if not isinstance(flag, bool):
            raise CompileError(f"the value of argument '{name}' must be a constant bool: it "
                               "chooses which implementation is called", arg.range or rng)
        impl = self.info["if_true"] if flag else self.info["if_false"]
        return self.resolve(impl, c, rng).call(c, rng, args, kwargs)


class NoneValue(SugaredValue):
    """`None` used as a type."""

    kind = "None"

    def as_value(self, c: "FunctionCompiler", rng: SourceRange) -> Value:
        return c.emit_constant(None, rng)

    def to_type(self, c: "FunctionCompiler", rng: SourceRange) -> Optional[T.Type]:
        return T.NoneType


class ClosureValue(SugaredValue):
    """A `def` inside a function: archive code's form of a forked call
    (`def __forked_function(): return f(a)` / `fork(__forked_function)`)."""

    kind = "a nested function (only `fork` takes one)"

    def __init__(self, node: Any) -> None:
        self.node = node

    def emit_body(self, c: "FunctionCompiler") -> Value:
        """The value the body returns, emitted where the compiler inserts now."""
        body = self.node.body
        if self.node.params or len(body) != 1 or type(body[0]).__name__ != "Return" or \
                body[0].value is None:
            raise CompileError("a nested function must take no parameters and be one "
                               "`return <expression>`", self.node.range)
        return c.emit_expr(body[0].value)


class SpecialForm(SugaredValue):
    """A builtin handled by the compiler itself (`range`, `len`, `annotate`, ...)."""

    def __init__(self, name: str, type: Optional[T.Type] = None) -> None:
        self.name = name
        self.type = type

    @property
    def kind(self) -> str:  # type: ignore[override]
        return f"builtin '{self.name}'"

    def call(self, c: "FunctionCompiler", rng: SourceRange, args: Args, kwargs: Kwargs) -> SugaredValue:
        return c.call_special(self.name, rng, args, kwargs)

    def to_type(self, c: "FunctionCompiler", rng: SourceRange) -> Optional[T.Type]:
        return self.type


class _NeedsHint(SugaredValue):
    """A call that only compiles where its result type is declared (`x.tolist()`)."""

    kind = "a call that needs a type hint"

    def __init__(self, message: str) -> None:
        self.message = message

    def call(self, c: "FunctionCompiler", rng: SourceRange, args: Args, kwargs: Kwargs) -> SugaredValue:
        raise CompileError(self.message, rng)   # located at the whole call


class TypeValue(SugaredValue):
    """A Python typing object (`List[int]`, an alias of one): a type in annotations only."""

    def __init__(self, type: T.Type, name: str) -> None:
        self.type, self.name = type, name

    @property
    def kind(self) -> str:  # type: ignore[override]
        return f"the type '{self.name}'"

    def as_value(self, c: "FunctionCompiler", rng: SourceRange) -> Value:
        raise CompileError(f"'{self.name}' is a type, not a value", rng)

    def to_type(self, c: "FunctionCompiler", rng: SourceRange) -> Optional[T.Type]:
        return self.type


class SliceValue(SugaredValue):
    """`slice(start, stop, step)`: usable as an index (also through a variable), as PyTorch's
    SliceValue; its parts are Values or None."""

    kind = "a slice"

    def __init__(self, start: Optional[Value], stop: Optional[Value], step: Optional[Value]) -> None:
        self.parts = (start, stop, step)


class RangeValue(SugaredValue):
    """`range(...)` in a for loop: start, stop, step values."""

    kind = "range"

    def __init__(self, start: Value, stop: Value, step: Value, simple: bool) -> None:
        self.start, self.stop, self.step, self.simple = start, stop, step, simple

    def iterate(self, c: "FunctionCompiler", rng: SourceRange) -> Any:
        return self


class NamespaceValue(SugaredValue):
    """`torch`, `ops.prim`, `ops.aten`, `math`: attribute access names an operator."""

    def __init__(self, namespace: str, prefix: str = "") -> None:
        self.namespace = namespace
        self.prefix = prefix

    @property
    def kind(self) -> str:  # type: ignore[override]
        return f"module '{self.prefix or self.namespace}'"

    def attr(self, c: "FunctionCompiler", rng: SourceRange, name: str) -> SugaredValue:
        return c.namespace_attr(self, name, rng)


class ClassNamespaceValue(SugaredValue):
    """A dotted prefix of qualified names (`__torch__.a.b`) in archive code."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    @property
    def kind(self) -> str:  # type: ignore[override]
        return f"'{self.prefix}'"

    def attr(self, c: "FunctionCompiler", rng: SourceRange, name: str) -> SugaredValue:
        return c.resolver.resolve_qualified(f"{self.prefix}.{name}", c, rng)


class ClassValue(SugaredValue):
    """A class used as a value: calling it constructs an object, annotations use its type."""

    def __init__(self, type: T.Type) -> None:
        self.type = type

    @property
    def kind(self) -> str:  # type: ignore[override]
        return f"class '{self.type}'"

    def to_type(self, c: "FunctionCompiler", rng: SourceRange) -> Optional[T.Type]:
        return self.type

    def call(self, c: "FunctionCompiler", rng: SourceRange, args: Args, kwargs: Kwargs) -> SugaredValue:
        return SimpleValue(c.emit_construct(self.type, args, kwargs, rng))

    def attr(self, c: "FunctionCompiler", rng: SourceRange, name: str) -> SugaredValue:
        return c.class_static_attr(self.type, name, rng)
