"""Expression emission and the node-building helpers the compiler and SugaredValues share."""
from __future__ import annotations

from typing import Any, Callable, Optional

from ..ir import CompilationUnit, Function, Graph, Node, Value
from ..ir import types as T
from ..ir.diagnostics import CompileError, SourceRange
from ..ir.node_kinds import prim
from ..ops import registry
from .._tensor import Tensor
from . import ast
from .annotations import type_from_expr
from .builtins import HintedForm, call_special, emit_tolist, is_tolist_call
from .environment import Environment
from .indexing import emit_slice, emit_tensor_getitem, slice_parts
from .iteration import ModuleDictView
from .operators import BINARY_OPS, COMPARE_OPS, MAGIC_METHODS, SPECIAL_OPS, UNARY_OPS
from .refinement import Refinements, refinements
from .schema_matching import NamedValue, match_schemas
from .sugared import (BuiltinFunction, ClassValue, FunctionValue, MethodValue, NamespaceValue,
                      RangeValue, SimpleValue, SpecialForm, SugaredValue)

TYPE_CONSTRUCTORS = ("List", "Dict", "Tuple", "Optional", "Union", "Final", "list", "dict",
                     "tuple", "Future")


class Emitter:
    """Builds nodes at the graph's insertion point; subclassed by FunctionCompiler."""

    lookup: Callable[[str, SourceRange], SugaredValue]

    def __init__(self, cu: CompilationUnit, resolver: Any, graph: Graph) -> None:
        self.cu = cu
        self.resolver = resolver
        self.graph = graph

    @property
    def env(self) -> Environment:
        """The environment of the block being compiled."""
        return self._env

    @env.setter
    def env(self, env: Environment) -> None:
        env.scopes.enter(env)   # lookups from it then cost the same at any depth
        self._env = env

    # --- nodes --------------------------------------------------------------------
    def insert(self, kind: str, inputs: list[Value], out_types: list[T.Type],
               rng: Optional[SourceRange], **attrs: Any) -> Node:
        n = self.graph.create(kind, inputs, 0, rng)
        for t in out_types:
            n.add_output(t)
        n.attrs.update(attrs)
        return self.graph.insert(n)

    def emit_constant(self, value: Any, rng: Optional[SourceRange], type: Optional[T.Type] = None) -> Value:
        """A prim::Constant holding `value` (None, bool, int, float, str, lists, tensors...)."""
        t = type or constant_type(value)
        n = self.insert(prim.Constant, [], [t], rng)
        if value is not None:
            n.attrs["value"] = value
        return n.output()

    def emit_constant_for(self, value: Any, t: T.Type, rng: Optional[SourceRange]) -> Value:
        """A constant for a schema default of formal type `t`."""
        if value is None:
            return self.emit_constant(None, rng)
        if isinstance(value, list):
            elem = t.elem if isinstance(t, T.OptionalType) else t
            return self.emit_constant(value, rng, elem if isinstance(elem, T.ListType) else None)
        return self.emit_constant(value, rng)

    def constant_of(self, v: Value) -> Any:
        """The constant `v` holds, or a sentinel `...` when it is not a constant."""
        if v.node.kind == prim.Constant:
            return v.node.attrs.get("value")
        return ...

    def known_condition(self, e: ast.Expr, v: Value) -> Any:
        """The bool condition `e` (emitted as `v`) is known to be while compiling, else `...`:
        a constant, but never a variable's value (as in PyTorch, where reading a variable
        is not a constant until the passes: `x = False` / `if x:` compiles both branches)."""
        return ... if isinstance(e, ast.Name) else self.constant_of(v)

    def emit_builtin(self, name: str, args: list[NamedValue], kwargs: dict[str, NamedValue],
                     rng: Optional[SourceRange], self_value: Optional[Value] = None) -> Value:
        """Call the operator `name`, choosing the overload by the argument types."""
        magic = MAGIC_METHODS.get(name)
        first = self_value if self_value is not None else (args[0].value if args else None)
        if magic is not None and first is not None and isinstance(first.type, T.ClassType) \
                and magic in first.type.methods:
            # Operators on a class instance call its magic method (`len(bag)` -> __len__).
            rest = list(args) if self_value is not None else list(args[1:])
            return self.emit_method_call(first, magic, rest, kwargs, rng)
        ops = registry.overloads(name)
        if not ops:
            what = name.split("::", 1)[-1]
            if self_value is not None:
                raise CompileError(f"'{self_value.type.annotation_str()}' object has no attribute "
                                   f"or method '{what}'", rng)
            raise CompileError(f"unknown builtin op {name}", rng)
        schemas = [o.schema for o in ops]
        old = self.resolver.old_schemas(name)    # an old archive's upgraded operators
        if old:
            schemas = [old.get(s.qualified, s) for s in schemas] + \
                [s for q, s in old.items() if all(o.schema.qualified != q for o in ops)]
        m = match_schemas(self, schemas, args, kwargs, rng, self_value)
        if old and old.get(m.schema.qualified) is m.schema:
            return self.resolver.emit_upgraded(self, m.schema, m.inputs, rng)
        n = self.insert(name, m.inputs, m.return_types, rng)
        n.schema = m.schema
        return self.pack_outputs(n, rng)

    def pack_outputs(self, n: Node, rng: Optional[SourceRange]) -> Value:
        if len(n.outputs) == 1:
            return n.output()
        if not n.outputs:
            return self.emit_constant(None, rng)
        return self.emit_tuple(list(n.outputs), rng)

    def emit_list(self, items: list[Value], elem: T.Type, rng: Optional[SourceRange]) -> Value:
        return self.insert(prim.ListConstruct, items, [T.ListType(elem)], rng).output()

    def emit_tuple(self, items: list[Value], rng: Optional[SourceRange],
                   type: Optional[T.TupleType] = None) -> Value:
        t = type or T.TupleType(tuple(v.type for v in items))
        return self.insert(prim.TupleConstruct, items, [t], rng).output()

    def emit_tuple_unpack(self, v: Value, rng: Optional[SourceRange], n: Optional[int] = None) -> list[Value]:
        t = v.type
        if isinstance(t, T.ListType) and n is not None:
            # Checked at run time: the list must have exactly n elements.
            return list(self.insert(prim.ListUnpack, [v], [t.elem] * n, rng).outputs)
        if not isinstance(t, T.TupleType):
            raise CompileError(f"cannot unpack a value of type {t.annotation_str()}", rng)
        if n is not None and len(t.elems) != n:
            raise CompileError(f"cannot unpack a tuple of {len(t.elems)} elements into {n} "
                               "targets", rng)
        if v.node.kind == prim.TupleConstruct:
            return list(v.node.inputs)
        value = self.constant_of(v)
        if isinstance(value, tuple):
            return [self.emit_constant(x, rng, et) for x, et in zip(value, t.elems)]
        return list(self.insert(prim.TupleUnpack, [v], list(t.elems), rng).outputs)

    def emit_tuple_index(self, v: Value, i: int, rng: Optional[SourceRange]) -> Value:
        t = v.type
        assert isinstance(t, T.TupleType)
        if not -len(t.elems) <= i < len(t.elems):
            raise CompileError(f"tuple index {i} out of range for a tuple of {len(t.elems)}", rng)
        idx = self.emit_constant(i, rng)
        return self.insert(prim.TupleIndex, [v, idx], [t.elems[i]], rng).output()

    # --- expressions --------------------------------------------------------------
    def emit_expr(self, e: ast.Expr, hint: Optional[T.Type] = None) -> Value:
        """Compile `e` to a first-class value."""
        if hint is not None and isinstance(hint, T.ListType):
            if is_tolist_call(e):
                return emit_tolist(self, e, hint, e.range)
        if hint is not None and isinstance(e, ast.Call) and isinstance(e.func, ast.Name):
            form = self.emit_sugared(e.func)
            if isinstance(form, HintedForm):
                return form.emit(self, e, hint)   # `x: Dict[str, int] = dict()`
        declared = hint.elem if isinstance(hint, T.OptionalType) else hint
        if isinstance(e, ast.ListComp) and isinstance(declared, T.ListType):
            return self.emit_list_comp(e, declared.elem)
        if isinstance(e, ast.DictComp) and isinstance(declared, T.DictType):
            return self.emit_dict_comp(e, declared)
        if isinstance(e, ast.ListLit):
            return self.emit_list_literal(e, hint)
        if isinstance(e, ast.DictLit):
            return self.emit_dict_literal(e, hint)
        return self.emit_sugared(e).as_value(self, e.range)

    def emit_sugared(self, e: ast.Expr) -> SugaredValue:
        """Compile `e` to whatever it denotes (a value, a module, a function...)."""
        method = getattr(self, "expr_" + type(e).__name__, None)
        if method is None:
            raise CompileError(f"{type(e).__name__} expressions are not supported", e.range)
        return method(e)

    def expr_Name(self, e: ast.Name) -> SugaredValue:
        return self.lookup(e.id, e.range)

    def expr_Constant(self, e: ast.Constant) -> SugaredValue:
        if e.value is ...:
            raise CompileError("'...' is only valid in subscripts", e.range)
        return SimpleValue(self.emit_constant(e.value, e.range))

    def expr_Attribute(self, e: ast.Attribute) -> SugaredValue:
        return self.emit_sugared(e.value).attr(self, e.range, e.attr)

    def expr_Call(self, e: ast.Call) -> SugaredValue:
        callee = self.emit_sugared(e.func)
        call_expr = getattr(callee, "call_expr", None)
        if call_expr is not None:
            return call_expr(self, e)
        args = []
        for a in e.args:
            if isinstance(a, ast.Starred):
                raise CompileError("starred arguments are not supported", a.range)
            args.append(NamedValue(self.emit_expr(a), None, a.range))
        kwargs = {k.name: NamedValue(self.emit_expr(k.value), k.name, k.range) for k in e.keywords}
        return callee.call(self, e.range, args, kwargs)

    def expr_BinOp(self, e: ast.BinOp) -> SugaredValue:
        lhs = self.emit_expr(e.left)
        rhs = self.emit_expr(e.right)
        return SimpleValue(self.emit_binary(BINARY_OPS[e.op], lhs, rhs, e.range))

    def emit_binary(self, name: str, lhs: Value, rhs: Value, rng: SourceRange) -> Value:
        if name == "aten::remainder" and lhs.type == T.StrType:
            # "%d items" % n  /  "%s=%s" % (k, v)
            values = self.emit_tuple_unpack(rhs, rng) if isinstance(rhs.type, T.TupleType) else [rhs]
            return self.emit_builtin("aten::percentFormat", [NamedValue(lhs)] +
                                     [NamedValue(v) for v in values], {}, rng)
        if name == "aten::floordiv" and T.TensorType in (lhs.type, rhs.type):
            name = "aten::floor_divide"   # `t // 2` on tensors
        if lhs.type in _NUMBERS and rhs.type == T.TensorType:
            # number <op> tensor: TorchScript rewrites it onto the tensor overloads
            # (`2 * a` -> `a * 2`, `2 - a` -> `-a + 2`), as PyTorch does.
            if name in ("aten::add", "aten::mul", "aten::__and__", "aten::__or__", "aten::__xor__"):
                return self.emit_builtin(name, [NamedValue(rhs), NamedValue(lhs)], {}, rng)
            if name == "aten::sub":
                neg = self.emit_builtin("aten::neg", [NamedValue(rhs)], {}, rng)
                return self.emit_builtin("aten::add", [NamedValue(neg), NamedValue(lhs)], {}, rng)
            if name == "aten::div":
                inv = self.emit_builtin("aten::reciprocal", [NamedValue(rhs)], {}, rng)
                return self.emit_builtin("aten::mul", [NamedValue(inv), NamedValue(lhs)], {}, rng)
        return self.emit_builtin(name, [NamedValue(lhs), NamedValue(rhs)], {}, rng)

    def expr_UnaryOp(self, e: ast.UnaryOp) -> SugaredValue:
        if e.op == "not":
            v = self.emit_condition(e.operand)
            known = self.known_condition(e.operand, v)
            if isinstance(known, bool):
                # A condition known at compile time stays known (PyTorch's static if).
                return SimpleValue(self.emit_constant(not known, e.range))
            return SimpleValue(self.emit_builtin("aten::__not__", [NamedValue(v)], {}, e.range))
        if e.op == "-" and isinstance(e.operand, ast.Constant) and \
                isinstance(e.operand.value, (int, float)) and not isinstance(e.operand.value, bool):
            return SimpleValue(self.emit_constant(-e.operand.value, e.range))
        v = self.emit_expr(e.operand)
        if e.op == "+":
            return SimpleValue(v)
        return SimpleValue(self.emit_builtin(UNARY_OPS[e.op], [NamedValue(v)], {}, e.range))

    def expr_Compare(self, e: ast.Compare) -> SugaredValue:
        if len(e.ops) > 1:
            # `a < b < c` is `a < b and b < c`, short-circuit, with `b` evaluated again
            # (PyTorch's lowering): `c` is not evaluated when `a < b` is false.
            first, rest = e.comparators[0], e.comparators[1:]
            head = ast.Compare(SourceRange(e.range.source, e.left.range.start, first.range.end),
                               e.left, e.ops[:1], (first,))
            tail = ast.Compare(SourceRange(e.range.source, first.range.start, e.range.end),
                               first, e.ops[1:], rest)
            return self.expr_BoolOp(ast.BoolOp(e.range, "and", head, tail))
        lhs, rhs, op = self.emit_expr(e.left), self.emit_expr(e.comparators[0]), e.ops[0]
        if op in ("in", "not_in") and rhs.type == T.StrType and lhs.type == T.StrType:
            # `a in s` on strings is `s.find(a, 0, len(s)) != -1`, as PyTorch lowers it.
            n = self.emit_builtin("aten::len", [NamedValue(rhs)], {}, e.range)
            pos = self.emit_builtin("aten::find", [NamedValue(rhs), NamedValue(lhs),
                                                   NamedValue(self.emit_constant(0, e.range)),
                                                   NamedValue(n)], {}, e.range)
            v = self.emit_builtin("aten::ne", [NamedValue(pos),
                                               NamedValue(self.emit_constant(-1, e.range))], {}, e.range)
            if op == "not_in":
                v = self.emit_builtin("aten::__not__", [NamedValue(v)], {}, e.range)
        elif op in ("in", "not_in"):
            v = self.emit_builtin("aten::__contains__", [NamedValue(rhs), NamedValue(lhs)], {}, e.range)
            if op == "not_in":
                v = self.emit_builtin("aten::__not__", [NamedValue(v)], {}, e.range)
        elif op in ("is", "is_not") and _static_none_test(lhs, rhs) is not None:
            # `x is None` when x's type decides it (a None attribute, a non-Optional
            # value) is a constant, so the dead branch is not compiled, as in PyTorch.
            same = _static_none_test(lhs, rhs)
            v = self.emit_constant(same if op == "is" else not same, e.range)
        else:
            v = self.emit_builtin(COMPARE_OPS[op], [NamedValue(lhs), NamedValue(rhs)], {}, e.range)
        return SimpleValue(v)

    def expr_BoolOp(self, e: ast.BoolOp) -> SugaredValue:
        # Short-circuit: `a and b` is `b if a else False`, `a or b` is `True if a else b`.
        yes, no = refinements(self, e.left)
        lhs = self.emit_condition(e.left)
        is_and = e.op == "and"

        def rhs() -> Value:
            # The right operand runs only where the left one decided nothing: refine for it.
            return self.emit_refined(e.right, yes if is_and else no, self.emit_condition)
        out = self.emit_short_circuit(lhs, is_and, rhs, e.range)
        # Known at compile time when either side decides it (`x or True`) or both are
        # known, as in PyTorch (whose `if`s then compile only the live branch); both sides
        # are compiled and still run (the If, its value unused, is left to the passes).
        rhs_value = out.node.blocks[0 if is_and else 1].outputs[0]
        sides = (self.known_condition(e.left, lhs), self.known_condition(e.right, rhs_value))
        if any(k is (not is_and) for k in sides):
            return SimpleValue(self.emit_constant(not is_and, e.range))
        if all(isinstance(k, bool) for k in sides):
            return SimpleValue(self.emit_constant(is_and, e.range))
        return SimpleValue(out)

    def emit_refined(self, e: ast.Expr, refined: Refinements,
                     emit: Optional[Callable[[ast.Expr], Value]] = None) -> Value:
        """`e` (by `emit`, else as a value) in a scope of its own where `refined` holds, so
        the casts it binds end with it."""
        saved = self.env
        self.env = Environment(saved, self.graph.insert_block)
        self.env.refined.update(refined)
        try:
            return (emit or self.emit_expr)(e)
        finally:
            self.env = saved

    def emit_short_circuit(self, cond: Value, is_and: bool, rhs: Callable[[], Value],
                           rng: SourceRange) -> Value:
        node = self.insert(prim.If, [cond], [T.BoolType], rng)
        outer = self.graph.insert_block
        for i in range(2):
            block = node.add_block()
            self.graph.set_insert_point(block)
            if (i == 0) == is_and:
                block.register_output(rhs())
            else:
                block.register_output(self.emit_constant(not is_and, rng))
        self.graph.set_insert_point(outer)
        return node.output()

    def expr_IfExp(self, e: ast.IfExp) -> SugaredValue:
        refs = refinements(self, e.test)
        cond = self.emit_condition(e.test)
        known = self.known_condition(e.test, cond)
        if isinstance(known, bool):
            # A condition known at compile time compiles only the live branch, as in PyTorch
            # (`a if v is None else v + 1` where v is statically None).
            return SimpleValue(self.emit_refined(e.body if known else e.orelse,
                                                 refs[0] if known else refs[1]))
        node = self.insert(prim.If, [cond], [], e.range)
        outer = self.graph.insert_block
        values = []
        for branch, refined in zip((e.body, e.orelse), refs):
            block = node.add_block()
            self.graph.set_insert_point(block)
            v = self.emit_refined(branch, refined)
            block.register_output(v)
            values.append(v)
        self.graph.set_insert_point(outer)
        t = T.unify(values[0].type, values[1].type)
        if t is None:
            raise CompileError(f"the branches of this conditional expression have types "
                               f"{values[0].type.annotation_str()} and "
                               f"{values[1].type.annotation_str()}, which do not unify", e.range)
        return SimpleValue(node.add_output(t))

    def emit_condition(self, e: ast.Expr) -> Value:
        """`e` as a bool: ints, floats, tensors, lists and Optionals are converted as PyTorch does."""
        v = self.emit_expr(e)
        return self.to_bool(v, e.range)

    def to_bool(self, v: Value, rng: SourceRange) -> Value:
        if v.type == T.BoolType:
            return v
        if v.type in (T.IntType, T.FloatType, T.TensorType, T.NumberType) or \
                isinstance(v.type, T.ClassType) and "__bool__" in v.type.methods:
            return self.emit_builtin("aten::Bool", [NamedValue(v)], {}, rng)   # (or __bool__)
        if isinstance(v.type, (T.ListType, T.DictType)) or v.type == T.StrType:
            n = self.emit_builtin("aten::len", [NamedValue(v)], {}, rng)
            zero = self.emit_constant(0, rng)
            return self.emit_builtin("aten::ne", [NamedValue(n), NamedValue(zero)], {}, rng)
        raise CompileError(f"a value of type {v.type.annotation_str()} cannot be used as a "
                           "condition", rng)

    def expr_TupleLit(self, e: ast.TupleLit) -> SugaredValue:
        return SimpleValue(self.emit_tuple([self.emit_expr(x) for x in e.elts], e.range))

    def expr_ListLit(self, e: ast.ListLit) -> SugaredValue:
        return SimpleValue(self.emit_list_literal(e, None))

    def emit_list_literal(self, e: ast.ListLit, hint: Optional[T.Type]) -> Value:
        items = [self.emit_expr(x) for x in e.elts]
        if isinstance(hint, T.OptionalType):
            hint = hint.elem
        if isinstance(hint, T.ListType):
            elem = hint.elem
            for v, x in zip(items, e.elts):
                if not T.is_subtype(v.type, elem):
                    raise CompileError(f"list element of type {v.type.annotation_str()} does not "
                                       f"match the list type {hint.annotation_str()}", x.range)
        elif not items:
            elem = T.TensorType
        else:
            elem = items[0].type
            for v, x in zip(items[1:], e.elts[1:]):
                u = T.unify(elem, v.type)
                if u is None:
                    raise CompileError(f"list elements have types {elem.annotation_str()} and "
                                       f"{v.type.annotation_str()}, which do not unify", x.range)
                elem = u
        return self.emit_list(items, elem, e.range)

    def expr_ListComp(self, e: ast.ListComp) -> SugaredValue:
        return SimpleValue(self.emit_list_comp(e, None))

    def emit_list_comp(self, e: ast.ListComp, elem: Optional[T.Type]) -> Value:
        """`[elt for ...]`, of element type `elem` when declared."""
        return self.emit_list_from(
            lambda append: self.emit_comprehension(list(e.generators),
                                                   lambda: append(self.emit_expr(e.elt)), e.range),
            e.range, elem)

    def emit_list_from(self, fill: Callable[[Callable[[Value], None]], None],
                       rng: SourceRange, elem: Optional[T.Type] = None) -> Value:
        """A list that `fill(append)` fills, of element type `elem` if given, else typed by
        the element it appends (Tensor if none)."""
        lst = self.insert(prim.ListConstruct, [], [T.ListType(elem or T.AnyType)], rng).output()

        def append(v: Value) -> None:
            if lst.type == T.ListType(T.AnyType):
                lst.type = T.ListType(v.type)   # typed by the element, once it is known
            elif not T.is_subtype(v.type, lst.type.elem):
                raise CompileError(f"list element of type {v.type.annotation_str()} does not "
                                   f"match the list type {lst.type.annotation_str()}", rng)
            self.emit_builtin("aten::append", [NamedValue(lst), NamedValue(v)], {}, rng)
        fill(append)
        if lst.type == T.ListType(T.AnyType):
            lst.type = T.ListType(T.TensorType)
        return lst

    def expr_DictComp(self, e: ast.DictComp) -> SugaredValue:
        return SimpleValue(self.emit_dict_comp(e, None))

    def emit_dict_comp(self, e: ast.DictComp, declared: Optional[T.DictType]) -> Value:
        """`{k: v for ...}`, of type `declared` when declared."""
        any_dict = T.DictType(T.AnyType, T.AnyType)
        d = self.insert(prim.DictConstruct, [], [declared or any_dict], e.range).output()

        def add() -> None:
            k, v = self.emit_expr(e.key), self.emit_expr(e.value)
            if d.type == any_dict:
                d.type = T.DictType(k.type, v.type)
            elif not (T.is_subtype(k.type, d.type.key) and T.is_subtype(v.type, d.type.value)):
                raise CompileError(f"dict entry of types {k.type.annotation_str()}, "
                                   f"{v.type.annotation_str()} does not match the dict type "
                                   f"{d.type.annotation_str()}", e.range)
            self.emit_builtin("aten::_set_item", [NamedValue(d), NamedValue(k), NamedValue(v)], {}, e.range)
        self.emit_comprehension(list(e.generators), add, e.range)
        if d.type == T.DictType(T.AnyType, T.AnyType):
            d.type = T.DictType(T.StrType, T.TensorType)
        return d

    def emit_comprehension(self, gens: list, add: Callable[[], None], rng: SourceRange) -> None:
        """Nested loops over the generators; `add` runs where every `if` holds."""
        gen = gens[0]

        def body() -> None:
            def inner() -> None:
                if len(gens) > 1:
                    self.emit_comprehension(gens[1:], add, rng)
                else:
                    add()
            self.emit_guarded(list(gen.ifs), inner, rng)
        self.emit_for(gen.target, self.emit_sugared(gen.iter), body, [], rng, scoped=True)

    def emit_guarded(self, conds: list, then: Callable[[], None], rng: SourceRange) -> None:
        if not conds:
            then()
            return
        c = self.emit_condition(conds[0])
        self.emit_if(c, lambda: self.emit_guarded(conds[1:], then, rng), lambda: None, rng)

    def expr_JoinedStr(self, e: ast.JoinedStr) -> SugaredValue:
        # f"a{x}b" is "a{}b".format(x), as TorchScript lowers it.
        fmt, values = [], []
        for part in e.parts:
            if isinstance(part, ast.Constant):
                fmt.append(str(part.value).replace("{", "{{").replace("}", "}}"))
            else:
                assert isinstance(part, ast.FormattedValue)
                if part.format_spec is not None:
                    raise CompileError("format specifications in f-strings are not supported in "
                                       "TorchScript", part.range)
                fmt.append("{}")
                values.append(NamedValue(self.emit_expr(part.value)))
        text = self.emit_constant("".join(fmt), e.range)
        return SimpleValue(self.emit_builtin("aten::format", [NamedValue(text)] + values, {}, e.range))

    def expr_DictLit(self, e: ast.DictLit) -> SugaredValue:
        return SimpleValue(self.emit_dict_literal(e, None))

    def emit_dict_literal(self, e: ast.DictLit, hint: Optional[T.Type]) -> Value:
        keys = [self.emit_expr(k) for k in e.keys]
        values = [self.emit_expr(v) for v in e.values]
        if isinstance(hint, T.OptionalType):
            hint = hint.elem
        if isinstance(hint, T.DictType):
            kt, vt = hint.key, hint.value
        elif not keys:
            kt, vt = T.StrType, T.TensorType
        else:
            kt, vt = keys[0].type, values[0].type
            for v in values[1:]:
                u = T.unify(vt, v.type)
                if u is None:
                    raise CompileError("dict values have types that do not unify", e.range)
                vt = u
        for k, x in zip(keys, e.keys):
            if not T.is_subtype(k.type, kt):
                raise CompileError(f"dict key of type {k.type.annotation_str()} does not match "
                                   f"{kt.annotation_str()}", x.range)
        for v, x in zip(values, e.values):
            if not T.is_subtype(v.type, vt):
                raise CompileError(f"dict value of type {v.type.annotation_str()} does not match "
                                   f"{vt.annotation_str()}", x.range)
        inputs = [x for kv in zip(keys, values) for x in kv]
        return self.insert(prim.DictConstruct, inputs, [T.DictType(kt, vt)], e.range).output()

    def expr_Subscript(self, e: ast.Subscript) -> SugaredValue:
        base = self.emit_sugared(e.value)
        if isinstance(base, SimpleValue) and isinstance(base.value.type, T.ClassType) and \
                base.value.type.is_module and "__getitem__" not in base.value.type.methods:
            # `self.layers[0]`, `self.blocks["a"]`: a constant index picks the submodule.
            names = [a.name for a in base.value.type.attributes
                     if isinstance(a.type, (T.ClassType, T.InterfaceType)) and a.type.is_module]
            parts = slice_parts(self, e.index)
            if parts is not None:
                # `self.layers[1:3]`: the picked submodules, as a tuple (PyTorch's sliced
                # ModuleList becomes one where a value is needed).
                bounds = [None if p is None else self.constant_of(p) for p in parts]
                if any(b is ... for b in bounds):
                    raise CompileError("module containers can only be sliced by constants",
                                       e.index.range)
                picked = [base.attr(self, e.range, n).as_value(self, e.range)
                          for n in names[slice(*bounds)]]
                return SimpleValue(self.emit_tuple(picked, e.range))
            key = self.constant_of(self.emit_expr(e.index))
            if isinstance(key, int) and not isinstance(key, bool) and -len(names) <= key < len(names):
                key = names[key]
            if not isinstance(key, str) or key not in names:
                raise CompileError("module containers can only be indexed by constants naming "
                                   "one of their modules", e.index.range)
            return base.attr(self, e.range, key)
        if isinstance(base, SimpleValue) and base.value.type == T.TensorType:
            return SimpleValue(emit_tensor_getitem(self, base.value, e.index, e.range))
        parts = slice_parts(self, e.index)
        if parts is not None:
            v = base.as_value(self, e.value.range)
            return SimpleValue(emit_slice(self, v, parts, e.range))
        if isinstance(base, SimpleValue):
            return base.getitem(self, e.range, self.emit_expr(e.index))
        return base.getitem(self, e.range, e.index)

    def emit_subscript(self, container: Value, index: Value, rng: SourceRange) -> Value:
        t = container.type
        if isinstance(t, T.TupleType):
            i = self.constant_of(index)
            if isinstance(i, int) and not isinstance(i, bool):
                return self.emit_tuple_index(container, i, rng)
            if index.type == T.IntType and t.elems and all(e == t.elems[0] for e in t.elems):
                # A tuple of one element type may be indexed by a run-time int.
                return self.insert(prim.TupleIndex, [container, index], [t.elems[0]], rng).output()
            raise CompileError("tuple indices must be integer constants unless every element "
                               "has the same type", rng)
        if t == T.TensorType and index.type == T.IntType:
            zero = self.emit_constant(0, rng)
            return self.emit_builtin("aten::select", [NamedValue(container), NamedValue(zero),
                                                      NamedValue(index)], {}, rng)
        return self.emit_builtin("aten::__getitem__", [NamedValue(container), NamedValue(index)], {}, rng)

    def emit_setitem(self, container: Value, index: Value, value: Value, rng: SourceRange) -> None:
        if container.type == T.TensorType:
            self.emit_builtin("aten::_set_item_tensor", [NamedValue(container), NamedValue(index),
                                                         NamedValue(value)], {}, rng)
            return
        self.emit_builtin("aten::_set_item", [NamedValue(container), NamedValue(index),
                                              NamedValue(value)], {}, rng)

    # --- types --------------------------------------------------------------------
    def type_from_expr(self, e: ast.Expr) -> T.Type:
        """The type an annotation expression denotes."""
        return type_from_expr(self, e)

    # --- objects, methods, functions ----------------------------------------------
    def class_attr(self, obj: Value, t: T.ClassType, name: str, rng: SourceRange) -> SugaredValue:
        attr = t.find_attribute(name)
        if attr is not None:
            n = self.insert(prim.GetAttr, [obj], [attr.type], rng, name=name)
            if _identifier(name):
                n.output().set_debug_name(name)
            elif name.isdigit():    # a ModuleList entry: "_0", as PyTorch names it
                n.output().set_debug_name("_" + name)
            return SimpleValue(n.output())
        if name in t.constants:
            value = t.constants[name]
            return SimpleValue(self.emit_constant(value, rng, constant_type(value)))
        if name in t.methods:
            return MethodValue(obj, name)
        if name in t.properties:
            return SimpleValue(self.emit_method_call(obj, name, [], {}, rng, t.properties[name]))
        if t.is_module and t.qualified_name.endswith("ModuleDict") and \
                name in ("items", "keys", "values"):
            view = ModuleDictView(obj, name)
            return _ViewMethod(view)
        return self.resolver.missing_attribute(self, obj, t, name, rng)

    def emit_set_attr(self, obj: Value, t: T.ClassType, name: str, value: Value, rng: SourceRange) -> None:
        attr = t.find_attribute(name)
        if attr is None:
            if t.is_module or t.unresolved:
                raise CompileError(f"module has no attribute '{name}'", rng)
            attr = t.add_attribute(name, value.type)  # a class's __init__ declares attributes
        if not T.is_subtype(value.type, attr.type):
            raise CompileError(f"Wrong type for attribute assignment. Expected "
                               f"{attr.type.annotation_str()} but got {value.type.annotation_str()}", rng)
        self.insert(prim.SetAttr, [obj, value], [], rng, name=name)

    def emit_method_call(self, obj: Value, name: str, args: list[NamedValue],
                         kwargs: dict[str, NamedValue], rng: SourceRange,
                         fn: Optional[Function] = None) -> Value:
        t = obj.type
        if isinstance(t, T.InterfaceType):
            schema = t.methods.get(name)
            if schema is None:
                raise CompileError(f"interface {t} has no method '{name}'", rng)
        else:
            assert isinstance(t, T.ClassType)
            fn = fn or t.methods.get(name)
            if fn is None:
                raise CompileError(f"'{t.annotation_str()}' has no method '{name}'", rng)
            schema = self.resolver.method_schema(self, fn, rng)
        m = match_schemas(self, [schema], args, kwargs, rng, obj, what=name)
        n = self.insert(prim.CallMethod, m.inputs, m.return_types, rng, name=name)
        n.schema = schema
        n.callee = fn
        return self.pack_outputs(n, rng)

    def emit_function_constant(self, fn: Function, rng: Optional[SourceRange]) -> Value:
        n = self.insert(prim.Constant, [], [T.FunctionType(fn.qualified_name)], rng, name=fn.qualified_name)
        n.callee = fn
        return n.output()

    def emit_function_call(self, fn: Function, args: list[NamedValue], kwargs: dict[str, NamedValue],
                           rng: SourceRange, ref: Optional[Value] = None) -> Value:
        schema = self.resolver.method_schema(self, fn, rng)
        ref = ref or self.emit_function_constant(fn, rng)
        m = match_schemas(self, [schema], args, kwargs, rng, what=fn.name)
        n = self.insert(prim.CallFunction, [ref] + m.inputs, m.return_types, rng)
        n.schema = schema
        n.callee = fn
        return self.pack_outputs(n, rng)

    def cu_function(self, name: str, rng: SourceRange) -> Function:
        fn = self.resolver.function(name, self, rng)
        if fn is None:
            raise CompileError(f"unknown function {name}", rng)
        return fn

    def emit_construct(self, t: T.Type, args: list[NamedValue], kwargs: dict[str, NamedValue],
                       rng: SourceRange) -> Value:
        if isinstance(t, T.TupleType) and t.qualified_name:
            names = list(t.names or ())
            if len(args) > len(names):
                raise CompileError(f"{t.qualified_name}() takes {len(names)} arguments but "
                                   f"{len(args)} were given", rng)
            values: list[Optional[Value]] = [a.value for a in args] + [None] * (len(names) - len(args))
            for k, v in kwargs.items():
                if k not in names:
                    raise CompileError(f"{t.qualified_name} has no field '{k}'", rng)
                values[names.index(k)] = v.value
            for i, v in enumerate(values):
                if v is None:
                    if i < len(t.defaults) and t.defaults[i] is not ...:
                        values[i] = self.emit_constant(t.defaults[i], rng)
                    else:
                        raise CompileError(f"missing field '{names[i]}' of {t.qualified_name}", rng)
                elif not T.is_subtype(v.type, t.elems[i]):
                    raise CompileError(f"Expected a value of type '{t.elems[i].annotation_str()}' "
                                       f"for argument '{names[i]}' but instead found type "
                                       f"'{v.type.annotation_str()}'", rng)
            return self.emit_tuple([v for v in values if v is not None], rng, t)
        if not isinstance(t, T.ClassType) or t.is_module:
            raise CompileError(f"cannot construct {t.annotation_str()} in TorchScript", rng)
        obj = self.insert(prim.CreateObject, [], [t], rng).output()
        init = t.methods.get("__init__")
        if init is not None:
            self.emit_method_call(obj, "__init__", args, kwargs, rng, init)
        elif args or kwargs:
            raise CompileError(f"{t.name}() takes no arguments", rng)
        return obj

    def class_static_attr(self, t: T.Type, name: str, rng: SourceRange) -> SugaredValue:
        if isinstance(t, T.ClassType) and name == "__new__":
            return _NewValue(t)
        static = getattr(getattr(self.resolver, "script", None), "static_method", None)
        fn = static(t, name) if static is not None else None
        if fn is not None:
            return FunctionValue(fn)   # a @staticmethod: a function, as PyTorch compiles it
        if isinstance(t, T.EnumType) and name in t.members:
            return SimpleValue(self.emit_constant(t.member(name), rng, t))
        raise CompileError(f"'{t}' has no attribute '{name}' usable here", rng)

    def namespace_attr(self, ns: NamespaceValue, name: str, rng: SourceRange) -> SugaredValue:
        if ns.namespace == "ops":
            return NamespaceValue(name, f"ops.{name}")
        full = f"{ns.namespace}::{name}"
        if full in SPECIAL_OPS:
            return SpecialForm(full)
        if registry.overloads(full):
            return BuiltinFunction(full)
        return self.resolver.namespace_missing(self, ns, name, rng)

    def call_special(self, name: str, rng: SourceRange, args: list[NamedValue],
                     kwargs: dict[str, NamedValue]) -> SugaredValue:
        return call_special(self, name, rng, args, kwargs)

    def emit_raise(self, exc: Optional[ast.Expr], rng: SourceRange) -> None:
        if exc is None:
            self.emit_raise_message(None, "builtins.RuntimeError", rng)
            return
        cls = "builtins.Exception"
        msg: Optional[ast.Expr] = None
        if isinstance(exc, ast.Call):
            cls = "builtins." + _callee_name(exc.func)
            msg = exc.args[0] if exc.args else None
        elif isinstance(exc, (ast.Name, ast.Attribute)):
            cls = "builtins." + _callee_name(exc)
        self.emit_raise_message(msg, cls, rng)

    def emit_raise_message(self, msg: Optional[ast.Expr], cls: str, rng: SourceRange) -> None:
        text = self.emit_constant("", rng) if msg is None else self.emit_expr(msg)
        if text.type != T.StrType:
            text = self.emit_builtin("aten::str", [NamedValue(text)], {}, rng)
        kind = self.emit_constant(cls, rng)
        self.insert(prim.RaiseException, [text, kind], [], rng)


class _ViewMethod(SugaredValue):
    """`md.items` before the call: calling it gives the view itself."""

    kind = "a module dict method"

    def __init__(self, view: SugaredValue) -> None:
        self.view = view

    def call(self, c: Any, rng: SourceRange, args: Any, kwargs: Any) -> SugaredValue:
        return self.view


class _NewValue(SugaredValue):
    """`Cls.__new__(Cls)` in archive code: an uninitialised object."""

    kind = "__new__"

    def __init__(self, t: T.ClassType) -> None:
        self.t = t

    def call_expr(self, c: Any, e: ast.Call) -> SugaredValue:
        # The argument names the class again; it is not evaluated.
        return SimpleValue(c.insert(prim.CreateObject, [], [self.t], e.range).output())


_NUMBERS = (T.IntType, T.FloatType, T.BoolType, T.NumberType)


def _static_none_test(a: Value, b: Value) -> Optional[bool]:
    """Whether `a is b` is known from the types alone (one side None)."""
    for x, y in ((a, b), (b, a)):
        if y.type == T.NoneType:
            if x.type == T.NoneType:
                return True
            if not isinstance(x.type, (T.OptionalType, T.UnionType)) and x.type != T.AnyType:
                return False
    return None


def _identifier(name: str) -> bool:
    return name.isidentifier()


def _callee_name(e: ast.Expr) -> str:
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Attribute):
        return e.attr
    return "Exception"


def constant_type(value: Any) -> T.Type:
    """The type of a constant's value."""
    if value is None:
        return T.NoneType
    if isinstance(value, bool):
        return T.BoolType
    if isinstance(value, int):
        return T.IntType
    if isinstance(value, float):
        return T.FloatType
    if isinstance(value, complex):
        return T.ComplexType
    if isinstance(value, str):
        return T.StrType
    if isinstance(value, (list, tuple)):
        elems = tuple(constant_type(v) for v in value)
        if isinstance(value, tuple):
            return T.TupleType(elems)
        return T.ListType(elems[0] if elems else T.IntType)
    if isinstance(value, T.EnumValue):
        return value.type
    if isinstance(value, Tensor):
        return T.TensorType
    return T.AnyType


__all__ = ["Emitter", "ClassValue", "FunctionValue", "RangeValue", "constant_type"]
