"""Builtin functions of the language (`len`, `range`, `int`, `annotate`, ...).

Both resolvers (user Python source and archive `code/`) see these names. Forms whose
first argument is a type (`annotate(List[int], [])`) receive the call's AST.
"""
from __future__ import annotations

from typing import Any, Optional

from ..ir import types as T
from ..ir.diagnostics import CompileError, SourceRange
from ..ir.node_kinds import prim
from . import ast
from .iteration import EnumerateValue, ZipValue
from .schema_matching import NamedValue
from .sugared import (BuiltinFunction, ClosureValue, NamespaceValue, NoneValue, RangeValue, SimpleValue, SliceValue,
                      SpecialForm, SugaredValue)


class IterableForm(SpecialForm):
    """`zip` / `enumerate`: their arguments may be iterables that are not values
    (`range(n)`, `zip(...)`, `enumerate(...)`), so they are compiled sugared."""

    def call_expr(self, c: Any, e: ast.Call) -> SugaredValue:
        for a in e.args:
            if isinstance(a, ast.Starred):
                raise CompileError("starred arguments are not supported", a.range)
        if self.name == "zip":
            if e.keywords or not e.args:
                raise CompileError("zip() takes one or more positional arguments", e.range)
            return ZipValue([_iterable(c, a) for a in e.args])
        if len(e.args) == 2 and not e.keywords:
            start_expr: Optional[ast.Expr] = e.args[1]
        elif len(e.args) == 1 and all(k.name == "start" for k in e.keywords) and len(e.keywords) <= 1:
            start_expr = e.keywords[0].value if e.keywords else None
        else:
            raise CompileError("enumerate() takes an iterable and an optional start", e.range)
        inner = _iterable(c, e.args[0])
        if start_expr is None:
            return EnumerateValue(inner, c.emit_constant(0, e.range))
        start = c.emit_expr(start_expr)
        if start.type != T.IntType:
            raise CompileError(f"enumerate() start must be int, not {start.type.annotation_str()}",
                               start_expr.range)
        return EnumerateValue(inner, start)


class HintedForm(SpecialForm):
    """A constructor whose result takes the declared type of what it is assigned to
    (`x: List[int] = list()`): Emitter.emit_expr calls `emit` with that type."""

    def call_expr(self, c: Any, e: ast.Call) -> SugaredValue:
        return SimpleValue(self.emit(c, e, None))

    def emit(self, c: Any, e: ast.Call, hint: Optional[T.Type]) -> Any:
        raise NotImplementedError


class ListForm(HintedForm):
    """`list(x)`: a copy of a list (`aten::list`), or the elements of an iterable that is
    no value (`list(range(n))`, `list(zip(a, b))`) appended in a loop, as PyTorch does;
    `list()` is an empty list (of the declared type, else of Tensor)."""

    def emit(self, c: Any, e: ast.Call, hint: Optional[T.Type]) -> Any:
        if not e.args and not e.keywords:
            elem = hint.elem if isinstance(hint, T.ListType) else T.TensorType
            return c.emit_list([], elem, e.range)
        return self._convert(c, e).as_value(c, e.range)

    def _convert(self, c: Any, e: ast.Call) -> SugaredValue:
        if len(e.args) != 1 or e.keywords or isinstance(e.args[0], ast.Starred):
            raise CompileError("list() takes at most one positional argument", e.range)
        sv = _iterable(c, e.args[0])
        if isinstance(sv, (ZipValue, EnumerateValue, RangeValue)):
            item = ast.Name(e.args[0].range, "$item")   # not an identifier: cannot clash
            return SimpleValue(c.emit_list_from(
                lambda append: c.emit_for(item, sv, lambda: append(c.emit_expr(item)), [],
                                          e.range, scoped=True), e.range))
        v = sv.as_value(c, e.range)
        if isinstance(v.type, T.TupleType):
            # `list((a, b))`: the elements, which must share a type.
            elem: Optional[T.Type] = v.type.elems[0] if v.type.elems else T.TensorType
            for other in v.type.elems[1:]:
                elem = T.unify(elem, other) if elem is not None else None
            if elem is None:
                raise CompileError(f"list() of a tuple needs elements of one type, not "
                                   f"{v.type.annotation_str()}", e.args[0].range)
            return SimpleValue(c.emit_list(c.emit_tuple_unpack(v, e.range), elem, e.range))
        return BuiltinFunction("aten::list").call(
            c, e.range, [NamedValue(v, None, e.args[0].range)], {})


class ForkForm(SpecialForm):
    """`torch.jit.fork(fn, *args, **kwargs)` (and archive code's `fork(closure)`): a
    `prim::fork` node whose block makes the call, giving a Future of its result. The
    arguments are evaluated before the fork, as Python evaluates them."""

    def call_expr(self, c: Any, e: ast.Call) -> SugaredValue:
        if not e.args:
            raise CompileError("fork() needs a function to call", e.range)
        fn = c.emit_sugared(e.args[0])
        args = [NamedValue(c.emit_expr(a), None, a.range) for a in e.args[1:]]
        kwargs = {k.name: NamedValue(c.emit_expr(k.value), k.name, k.value.range)
                  for k in e.keywords}
        node = c.insert(prim.fork, [], [], e.range)
        block = node.add_block()
        outer = c.graph.insert_block
        c.graph.set_insert_point(block)
        try:
            if isinstance(fn, ClosureValue):
                if args or kwargs:
                    raise CompileError("a forked closure takes no arguments", e.range)
                value = fn.emit_body(c)
            else:
                value = fn.call(c, e.range, args, kwargs).as_value(c, e.range)
            block.register_output(value)
        finally:
            c.graph.set_insert_point(outer)
        return SimpleValue(node.add_output(T.FutureType(value.type)))


class CheckForm(SpecialForm):
    """`torch._check(cond, message=None)`: raises RuntimeError(message) when cond is false."""

    def call(self, c: Any, rng: SourceRange, args: list[NamedValue],
             kwargs: dict[str, NamedValue]) -> SugaredValue:
        if not 1 <= len(args) + len(kwargs) <= 2:
            raise CompileError("torch._check() expects 1 or 2 arguments", rng)
        for k in kwargs:
            if k not in ("cond", "message"):
                raise CompileError(f"torch._check() got an unexpected keyword argument '{k}'", rng)
        bound = dict(zip(("cond", "message"), args))
        for k, v in kwargs.items():
            if k in bound:
                raise CompileError(f"torch._check() got multiple values for argument '{k}'", rng)
            bound[k] = v
        if "cond" not in bound:
            raise CompileError("torch._check() missing required argument 'cond'", rng)
        cond = c.to_bool(bound["cond"].value, rng)
        message = bound.get("message")

        def fail() -> None:
            text = message.value if message is not None else \
                c.emit_constant("Expected cond to be True", rng)
            c.insert(prim.RaiseException, [text, c.emit_constant("builtins.RuntimeError", rng)],
                     [], rng)
            c.env.exited = True
        c.emit_if(cond, lambda: None, fail, rng)
        return SimpleValue(c.emit_constant(None, rng))


class DictForm(HintedForm):
    """`dict()`, `dict(mapping)`, `dict(pairs)` (a list of pairs, `zip(...)`, ...) and any
    of these with keyword entries (`dict(m, a=1)`), as PyTorch compiles them: a copy or a
    loop inserting each pair. `hint` is the declared type of the result, if any."""

    def emit(self, c: Any, e: ast.Call, hint: Optional[T.Type]) -> Any:
        if len(e.args) > 1 or any(isinstance(a, ast.Starred) for a in e.args):
            raise CompileError("dict() takes at most one positional argument", e.range)
        declared = hint if isinstance(hint, T.DictType) else None
        # Arguments are evaluated first, in order, as Python does.
        sv = _iterable(c, e.args[0]) if e.args else None
        entries = [(k, c.emit_expr(k.value)) for k in e.keywords]
        if isinstance(sv, SimpleValue) and isinstance(sv.value.type, T.DictType):
            d = BuiltinFunction("aten::dict").call(
                c, e.range, [NamedValue(sv.value, None, e.args[0].range)], {}).as_value(c, e.range)
            return _add_entries(c, d, entries)
        if isinstance(sv, SimpleValue) and sv.value.node.kind == prim.ListConstruct and \
                not sv.value.node.inputs:
            sv = None    # `dict([])`: nothing to insert, whatever the literal's type
        any_dict = T.DictType(T.AnyType, T.AnyType)
        d = c.insert(prim.DictConstruct, [], [declared or any_dict], e.range).output()
        if sv is not None:
            item = ast.Name(e.args[0].range, "$item")   # not an identifier: cannot clash

            def add() -> None:
                pair = c.emit_expr(item)
                if not isinstance(pair.type, T.TupleType) or len(pair.type.elems) != 2:
                    raise CompileError("dict() takes an iterable of (key, value) pairs, not of "
                                       f"{pair.type.annotation_str()}", e.args[0].range)
                k, v = c.emit_tuple_unpack(pair, e.range, 2)
                if d.type == any_dict:
                    d.type = T.DictType(k.type, v.type)
                for what, actual, want in (("key", k.type, d.type.key),
                                           ("value", v.type, d.type.value)):
                    if not T.is_subtype(actual, want):
                        raise CompileError(f"Dict type annotation `{d.type.annotation_str()}` "
                                           f"did not match the type of an actual {what} type "
                                           f"`{actual.annotation_str()}`", e.range)
                c.emit_setitem(d, k, v, e.range)
            c.emit_for(item, sv, add, [], e.range, scoped=True)
        if d.type == any_dict:
            # Typed by the first keyword entry, else Dict[str, Tensor].
            d.type = T.DictType(T.StrType, entries[0][1].type) if entries \
                else T.DictType(T.StrType, T.TensorType)
        return _add_entries(c, d, entries)


def _add_entries(c: Any, d: Any, entries: list) -> Any:
    """`dict(..., name=value)`: each keyword entry set in `d`."""
    for k, v in entries:
        if d.type.key != T.StrType:
            raise CompileError("dict() keyword entries need a dict with str keys", k.range)
        if not T.is_subtype(v.type, d.type.value):
            raise CompileError(f"dict() entry '{k.name}' has type {v.type.annotation_str()}, "
                               f"not {d.type.value.annotation_str()}", k.range)
        c.emit_setitem(d, c.emit_constant(k.name, k.range), v, k.range)
    return d


def _iterable(c: Any, e: ast.Expr) -> SugaredValue:
    sv = c.emit_sugared(e)
    if isinstance(sv, (ZipValue, EnumerateValue, RangeValue)):
        return sv
    return SimpleValue(sv.as_value(c, e.range))


class TypeArgForm(SpecialForm):
    """A builtin whose first argument is a type expression."""

    def call_expr(self, c: Any, e: ast.Call) -> SugaredValue:
        if not e.args:
            raise CompileError(f"{self.name}() needs a type argument", e.range)
        if self.name == "isinstance":
            v = c.emit_expr(e.args[0])
            return SimpleValue(emit_isinstance(c, v, e.args[1], e.range))
        t = c.type_from_expr(e.args[0])
        if self.name == "uninitialized":
            return SimpleValue(c.insert(prim.Uninitialized, [], [t], e.range).output())
        if len(e.args) != 2:
            raise CompileError(f"{self.name}() takes a type and a value", e.range)
        value_expr = e.args[1]
        if self.name == "annotate" and is_tolist_call(value_expr):
            return SimpleValue(emit_tolist(c, value_expr, t, e.range))
        v = c.emit_expr(value_expr, t)
        if self.name == "annotate":
            implicit = {T.IntType: "aten::IntImplicit", T.FloatType: "aten::FloatImplicit",
                        T.NumberType: "aten::ScalarImplicit"}.get(t)
            if v.type == T.TensorType and implicit is not None:
                # As PyTorch: a (0-dim) tensor annotated as a number converts implicitly.
                v = c.emit_builtin(implicit, [NamedValue(v)], {}, e.range)
            if not T.is_subtype(v.type, t):
                raise CompileError(f"annotate: expected a value of type {t.annotation_str()} but "
                                   f"found {v.type.annotation_str()}", e.range)
            if v.type != t and v.node.kind == prim.Constant and v.type == T.NoneType:
                v.type = t
            return SimpleValue(v)
        return SimpleValue(c.insert(prim.unchecked_cast, [v], [t], e.range).output())


def is_tolist_call(e: ast.Expr) -> bool:
    return isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and \
        e.func.attr == "tolist" and not e.args and not e.keywords


def emit_tolist(c: Any, e: ast.Call, t: T.Type, rng: SourceRange) -> Any:
    """`annotate(List[List[float]], x.tolist())`: prim::tolist(x, dims, elem kind) -> t."""
    x = c.emit_expr(e.func.value)
    dims, elem = 0, t
    while isinstance(elem, T.ListType):
        dims, elem = dims + 1, elem.elem
    kinds = {T.IntType: 0, T.FloatType: 1, T.BoolType: 2, T.ComplexType: 3}
    if x.type != T.TensorType:
        raise CompileError("tolist() needs a tensor", rng)
    if elem not in kinds:
        raise CompileError(f"{elem.annotation_str()} is not one of the supported element types "
                           "for tolist: int, float, complex, bool", rng)
    d, k = c.emit_constant(dims, rng), c.emit_constant(kinds[elem], rng)
    return c.insert(prim.tolist, [x, d, k], [t], rng).output()


def emit_isinstance(c: Any, v: Any, type_expr: ast.Expr, rng: SourceRange) -> Any:
    exprs = type_expr.elts if isinstance(type_expr, ast.TupleLit) else (type_expr,)
    types = [c.type_from_expr(x) for x in exprs]
    if any(T.is_subtype(v.type, t) for t in types):
        return c.emit_constant(True, rng)
    members = _members(v.type)
    if not any(T.is_subtype(m, t) or T.is_subtype(t, m) for t in types for m in members):
        return c.emit_constant(False, rng)
    n = c.insert(prim.isinstance, [v], [T.BoolType], rng,
                 types=[t.annotation_str() for t in types])
    n.attrs["_types"] = types
    return n.output()


def _members(t: T.Type) -> list[T.Type]:
    """The alternatives a value of static type `t` may be at run time."""
    if isinstance(t, T.OptionalType):
        return _members(t.elem) + [T.NoneType]
    if isinstance(t, T.UnionType):
        return [m for x in t.types for m in _members(x)]
    return [t]


def call_special(c: Any, name: str, rng: SourceRange, args: list[NamedValue],
                 kwargs: dict[str, NamedValue]) -> SugaredValue:
    """Calls of the SpecialForm builtins that take ordinary values."""
    if name == "range":
        if kwargs or not 1 <= len(args) <= 3:
            raise CompileError("range() takes 1 to 3 positional arguments", rng)
        vals = [a.value for a in args]
        for a in args:
            if a.value.type != T.IntType:
                raise CompileError(f"range() arguments must be int, not "
                                   f"{a.value.type.annotation_str()}", a.range or rng)
        if len(vals) == 1:
            return RangeValue(c.emit_constant(0, rng), vals[0], c.emit_constant(1, rng), True)
        step = vals[2] if len(vals) == 3 else c.emit_constant(1, rng)
        return RangeValue(vals[0], vals[1], step, False)
    if name == prim.RaiseException:
        # `ops.prim.RaiseException(msg[, cls])` as archive code writes a raise statement.
        if not 1 <= len(args) <= 2 or args[0].value.type != T.StrType:
            raise CompileError("ops.prim.RaiseException takes a message and an optional class "
                               "name", rng)
        cls = args[1].value if len(args) == 2 else c.emit_constant(None, rng)
        c.insert(prim.RaiseException, [args[0].value, cls], [], rng)
        return SimpleValue(c.emit_constant(None, rng))
    if name == "slice":
        if kwargs:
            raise CompileError("Slice does not accept any keyword arguments", rng)
        if not 1 <= len(args) <= 3:
            raise CompileError("slice() takes 1 to 3 arguments", rng)
        vals = [a.value for a in args]
        for a in args:
            if a.value.type not in (T.IntType, T.NoneType) and \
                    a.value.type != T.OptionalType(T.IntType):
                raise CompileError(f"slice() arguments must be int or None, not "
                                   f"{a.value.type.annotation_str()}", a.range or rng)
        start, stop, step = ([None] + vals + [None])[:3] if len(vals) == 1 else (vals + [None])[:3]
        return SliceValue(start, stop, step)
    if name == "print":
        c.insert(prim.Print, [a.value for a in args], [], rng)
        return SimpleValue(c.emit_constant(None, rng))
    if name in ("int", "float", "bool", "str", "complex"):
        if not args:
            return SimpleValue(c.emit_constant({"int": 0, "float": 0.0, "bool": False, "str": "",
                                                "complex": 0j}[name], rng))
        v = args[0].value
        target = {"int": T.IntType, "float": T.FloatType, "bool": T.BoolType, "str": T.StrType,
                  "complex": T.ComplexType}[name]
        if v.type == target and len(args) == 1:
            return SimpleValue(v)
        if name == "bool":
            return SimpleValue(c.to_bool(v, rng))
        op = {"int": "aten::Int", "float": "aten::Float", "str": "aten::str",
              "complex": "aten::Complex"}[name]
        return BuiltinFunction(op).call(c, rng, args, kwargs)
    if name == "getattr":
        if len(args) < 2 or c.constant_of(args[1].value) is ...:
            raise CompileError("getattr() needs an object and a constant attribute name", rng)
        obj = SimpleValue(args[0].value)
        name = c.constant_of(args[1].value)
        if len(args) == 3 and not _has_attribute(args[0].value.type, name):
            return SimpleValue(args[2].value)     # getattr(obj, name, default)
        return obj.attr(c, rng, name)
    if name == "len":
        v = args[0].value if len(args) == 1 else None
        if v is not None and isinstance(v.type, T.ClassType) and v.type.is_module and \
                "__len__" not in v.type.methods:
            n = sum(1 for a in v.type.attributes
                    if isinstance(a.type, (T.ClassType, T.InterfaceType)) and a.type.is_module)
            return SimpleValue(c.emit_constant(n, rng))   # a ModuleList's length is static
        return BuiltinFunction("aten::len").call(c, rng, args, kwargs)
    if name == "hasattr":
        if len(args) != 2 or c.constant_of(args[1].value) is ...:
            raise CompileError("hasattr() needs an object and a constant attribute name", rng)
        found = _has_attribute(args[0].value.type, c.constant_of(args[1].value))
        return SimpleValue(c.emit_constant(found, rng))
    if name in ("min", "max", "abs"):
        if len(args) == 1 and name != "abs":
            return BuiltinFunction(f"prim::{name}").call(c, rng, args, kwargs)
        return BuiltinFunction(f"prim::{name}").call(c, rng, args, kwargs)
    raise CompileError(f"builtin '{name}' is not supported", rng)


def builtin_names() -> dict[str, SugaredValue]:
    """The names every scope sees unless shadowed."""
    table: dict[str, SugaredValue] = {
        "range": SpecialForm("range"), "print": SpecialForm("print"),
        "slice": SpecialForm("slice"),
        "int": SpecialForm("int", T.IntType), "float": SpecialForm("float", T.FloatType),
        "bool": SpecialForm("bool", T.BoolType), "str": SpecialForm("str", T.StrType),
        "complex": SpecialForm("complex", T.ComplexType),
        "getattr": SpecialForm("getattr"), "hasattr": SpecialForm("hasattr"), "min": SpecialForm("min"), "max": SpecialForm("max"),
        "abs": SpecialForm("abs"),
        "annotate": TypeArgForm("annotate"), "unchecked_cast": TypeArgForm("unchecked_cast"),
        "uninitialized": TypeArgForm("uninitialized"), "isinstance": TypeArgForm("isinstance"),
        "len": SpecialForm("len"), "None": NoneValue(),
        "sorted": BuiltinFunction("aten::sorted"), "list": ListForm("list"),
        "dict": DictForm("dict"),
        "ord": BuiltinFunction("aten::ord"), "chr": BuiltinFunction("aten::chr"),
        "hex": BuiltinFunction("aten::hex"), "oct": BuiltinFunction("aten::oct"),
        "bin": BuiltinFunction("aten::bin"), "round": BuiltinFunction("aten::round"),
        "divmod": BuiltinFunction("aten::divmod"), "hash": BuiltinFunction("aten::hash"),
        "sum": BuiltinFunction("aten::sum"), "any": BuiltinFunction("aten::any"),
        "all": BuiltinFunction("aten::all"), "zip": IterableForm("zip"),
        "enumerate": IterableForm("enumerate"),
        "ops": NamespaceValue("ops"), "fork": ForkForm("fork"),
    }
    return table


class ConstantFunction(SugaredValue):
    """A function whose call is a constant in scripted code (`torch.jit.is_tracing()`)."""

    kind = "a builtin function"

    def __init__(self, value: Any) -> None:
        self.value = value

    def call(self, c: Any, rng: SourceRange, args: list[NamedValue],
             kwargs: dict[str, NamedValue]) -> SugaredValue:
        if args or kwargs:
            raise CompileError("this function takes no arguments", rng)
        return SimpleValue(c.emit_constant(self.value, rng))


def python_builtin(name: str) -> SugaredValue:
    """What a Python function marked `__tsjit_builtin__ = name` (tsjit.jit.annotate,
    tsjit.jit.isinstance, tsjit.jit.is_tracing, ...) means in scripted code."""
    if name == "is_tracing":
        return ConstantFunction(False)
    if name == "_check":
        return CheckForm("_check")
    found = lookup_builtin(name)
    assert found is not None, name
    return found


def lookup_builtin(name: str) -> Optional[SugaredValue]:
    global _TABLE
    if _TABLE is None:
        _TABLE = builtin_names()
    return _TABLE.get(name)


_TABLE: Optional[dict[str, SugaredValue]] = None


def _has_attribute(t: T.Type, name: str) -> bool:
    """Whether objects of `t` have attribute, constant or method `name` (known statically)."""
    return isinstance(t, T.ClassType) and (t.find_attribute(name) is not None or
                                           name in t.methods or name in t.constants)
