"""The compiler: one function's AST -> a Graph in SSA form.

Names live in an `Environment` per block. An `if` compiles both branches in child
environments and turns every variable assigned in a branch (and defined in both, or
before) into an output of the `prim::If`; a loop turns every variable assigned in its
body and defined before it into a loop-carried value. Outputs follow source order of
first assignment, which keeps printed code stable across save/load.
"""
from __future__ import annotations

from typing import Any, Optional

from ..ir import CompilationUnit, Function, Graph, Value
from ..ir import types as T
from ..ir.diagnostics import CompileError, SourceRange
from ..ir.passes import CLEANUP, run_pipeline
from ..ir.schema import Argument, FunctionSchema
from . import ast
from .emitter import Emitter
from .environment import Environment, Undefined, assigned_names
from .schema_matching import NamedValue
from .sugared import RangeValue, SimpleValue, SugaredValue

INT64_MAX = 2 ** 63 - 1


class FunctionCompiler(Emitter):
    """Compiles one Def into `fn.graph`; `self_type` is the class of a method's `self`."""

    def __init__(self, cu: CompilationUnit, resolver: Any, fn: Function, node: ast.Def,
                 self_type: Optional[T.Type] = None) -> None:
        super().__init__(cu, resolver, Graph())
        self.fn = fn
        self.def_ = node
        self.self_type = self_type
        self.env = Environment(None, self.graph.block)
        self.return_type: Optional[T.Type] = None
        self.declared_return: Optional[T.Type] = None

    # --- the function -------------------------------------------------------------
    def compile(self) -> Graph:
        d = self.def_
        args = self.emit_params(d)
        if d.returns is not None:
            self.declared_return = self.type_from_expr(d.returns)
        elif self.comment_types is not None:
            self.declared_return = self.comment_types[1]
        body = list(d.body)
        ret_stmt = None
        if body and isinstance(body[-1], ast.Return):
            ret_stmt = body.pop()
        self.check_no_early_return(body)
        self.emit_stmts(body)
        out = self.emit_return_value(ret_stmt)
        self.graph.register_output(out)
        run_pipeline(self.graph, CLEANUP)
        name = self.fn.name
        ret = Argument("", out.type)
        self.fn.schema = FunctionSchema(name, "", tuple(args), (ret,))
        self.fn.graph = self.graph
        return self.graph

    def emit_params(self, d: ast.Def) -> list[Argument]:
        args = []
        self.comment_types = None
        if d.type_comment:
            self.comment_types = self.parse_type_comment(d.type_comment, d.range)
        params = d.params
        for i, p in enumerate(params):
            if i == 0 and self.self_type is not None:
                t = self.self_type
            elif p.annotation is not None:
                t = self.type_from_expr(p.annotation)
            elif self.comment_types is not None:
                k = i - (1 if self.self_type is not None else 0)
                if k >= len(self.comment_types[0]):
                    raise CompileError("the type comment has fewer types than there are "
                                       "parameters", p.range)
                t = self.comment_types[0][k]
            else:
                t = T.TensorType
            v = self.graph.add_input(t, p.name)
            self.env.assign(p.name, SimpleValue(v))
            default: Any = Argument.__dataclass_fields__["default"].default
            if p.default is not None:
                default = self.constant_default(p.default, t)
            args.append(Argument(p.name, t, default, p.kwarg_only))
        return args

    def constant_default(self, e: ast.Expr, t: T.Type) -> Any:
        """A parameter default must be a constant expression."""
        from .constants import eval_constant
        return eval_constant(e, t)

    def parse_type_comment(self, text: str, rng: SourceRange) -> tuple[list[T.Type], T.Type]:
        from .parser import parse_expr
        if "->" not in text:
            raise CompileError("a type comment must look like '(int, float) -> str'", rng)
        params, ret = text.split("->", 1)
        p = parse_expr(params.strip(), rng.source.filename)
        elts = p.elts if isinstance(p, ast.TupleLit) else (p,)
        return [self.type_from_expr(e) for e in elts], self.type_from_expr(parse_expr(ret.strip()))

    def check_no_early_return(self, stmts: list[ast.Stmt]) -> None:
        for s in stmts:
            for inner in _walk_stmts(s):
                if isinstance(inner, ast.Return):
                    raise CompileError("a return statement before the end of the function is "
                                       "not supported yet", inner.range)

    def emit_return_value(self, ret: Optional[ast.Return]) -> Value:
        rng = ret.range if ret is not None else self.def_.range
        if ret is None or ret.value is None:
            v = self.emit_constant(None, rng)
        else:
            v = self.emit_expr(ret.value, self.declared_return)
        if self.declared_return is not None:
            if not T.is_subtype(v.type, self.declared_return):
                raise CompileError(
                    f"Return value was annotated as having type "
                    f"{self.declared_return.annotation_str()} but is actually of type "
                    f"{v.type.annotation_str()}", rng)
            if v.type != self.declared_return and v.node.kind == "prim::Constant" and v.type == T.NoneType:
                v.type = self.declared_return
        return v

    # --- statements ---------------------------------------------------------------
    def emit_stmts(self, stmts: Any) -> None:
        for s in stmts:
            self.emit_stmt(s)

    def emit_stmt(self, s: ast.Stmt) -> None:
        method = getattr(self, "stmt_" + type(s).__name__, None)
        if method is None:
            raise CompileError(f"{type(s).__name__} statements are not supported", s.range)
        method(s)

    def stmt_Pass(self, s: ast.Pass) -> None:
        pass

    def stmt_ExprStmt(self, s: ast.ExprStmt) -> None:
        if isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
            return  # a docstring
        self.emit_sugared(s.value)

    def stmt_Assign(self, s: ast.Assign) -> None:
        hint = None
        if s.type_comment:
            from .parser import parse_expr
            hint = self.type_from_expr(parse_expr(s.type_comment, s.range.source.filename))
        if len(s.targets) == 1 and isinstance(s.targets[0], (ast.TupleLit, ast.ListLit)) \
                and isinstance(s.value, (ast.TupleLit, ast.ListLit)) \
                and len(s.targets[0].elts) == len(s.value.elts):
            # `a, b = x, y`: evaluate right to left-free, then assign, without a tuple
            values = [self.emit_expr(e) for e in s.value.elts]
            for t, v in zip(s.targets[0].elts, values):
                self.assign_to(t, v, s.range)
            return
        value = self.emit_expr(s.value, hint)
        if hint is not None:
            value = self.check_declared(value, hint, s.value.range)
        for t in s.targets:
            self.assign_to(t, value, s.range, declared=hint)

    def stmt_AnnAssign(self, s: ast.AnnAssign) -> None:
        t = self.type_from_expr(s.annotation)
        if s.value is None:
            raise CompileError("an annotated declaration needs a value in TorchScript", s.range)
        value = self.check_declared(self.emit_expr(s.value, t), t, s.value.range)
        self.assign_to(s.target, value, s.range, declared=t)

    def check_declared(self, value: Value, t: T.Type, rng: SourceRange) -> Value:
        if not T.is_subtype(value.type, t):
            raise CompileError(f"Variable was annotated as {t.annotation_str()} but is assigned "
                               f"a value of type {value.type.annotation_str()}", rng)
        if value.type != t and value.node.kind == "prim::Constant" and value.type == T.NoneType:
            value.type = t  # `x: Optional[int] = None` keeps the declared type
        return value

    def stmt_AugAssign(self, s: ast.AugAssign) -> None:
        target = s.target
        if isinstance(target, ast.Name):
            cur = self.lookup_value(target.id, target.range)
            new = self.emit_augmented(cur, s.op, s.value, s.range)
            self.assign_to(target, new, s.range)
        elif isinstance(target, ast.Attribute):
            obj = self.emit_sugared(target.value)
            cur = obj.attr(self, target.range, target.attr).as_value(self, target.range)
            new = self.emit_augmented(cur, s.op, s.value, s.range)
            obj.set_attr(self, s.range, target.attr, new)
        elif isinstance(target, ast.Subscript):
            container = self.emit_expr(target.value)
            index = self.emit_expr(target.index)
            cur = self.emit_subscript(container, index, target.range)
            new = self.emit_augmented(cur, s.op, s.value, s.range)
            if container.type != T.TensorType or new is not cur:
                self.emit_setitem(container, index, new, s.range)
        else:
            raise CompileError("this target cannot be assigned to with an augmented assignment",
                               target.range)

    def emit_augmented(self, cur: Value, op: str, rhs_e: ast.Expr, rng: SourceRange) -> Value:
        rhs = self.emit_expr(rhs_e)
        name = BINARY_OPS[op]
        if cur.type == T.TensorType or isinstance(cur.type, T.ListType) and op == "+":
            # In-place on tensors (and list +=): `x += y` is `x.add_(y)` for tensors.
            inplace = "aten::extend" if isinstance(cur.type, T.ListType) else name + "_"
            out = self.emit_builtin(inplace, [NamedValue(cur), NamedValue(rhs)], {}, rng)
            return cur if isinstance(cur.type, T.ListType) else out
        return self.emit_binary(name, cur, rhs, rng)

    def stmt_If(self, s: ast.If) -> None:
        cond = self.emit_condition(s.test)
        const = self.constant_of(cond)
        if isinstance(const, bool):
            # Like PyTorch, a condition known at compile time compiles only the live branch.
            self.emit_stmts(s.body if const else s.orelse)
            return
        self.emit_if(cond, lambda: self.emit_stmts(s.body), lambda: self.emit_stmts(s.orelse),
                     s.range)

    def stmt_While(self, s: ast.While) -> None:
        max_trip = self.emit_constant(INT64_MAX, s.range)
        cond = self.emit_condition(s.test)

        def body(trip: Value) -> Value:
            self.emit_stmts(s.body)
            return self.emit_condition(s.test)
        self.emit_loop(max_trip, cond, body, s.body, s.range)

    def stmt_For(self, s: ast.For) -> None:
        it = self.emit_sugared(s.iter).iterate(self, s.iter.range)
        true = self.emit_constant(True, s.range)
        if isinstance(it, RangeValue):
            if it.simple:
                n = it.stop
            else:
                n = self.emit_builtin("aten::__range_length", [NamedValue(it.start), NamedValue(it.stop),
                                                               NamedValue(it.step)], {}, s.range)

            def body(trip: Value) -> Value:
                if it.simple:
                    value = trip
                else:
                    value = self.emit_builtin("aten::__derive_index", [
                        NamedValue(trip), NamedValue(it.start), NamedValue(it.step)], {}, s.range)
                self.assign_to(s.target, value, s.target.range)
                self.emit_stmts(s.body)
                return true
            self.emit_loop(n, true, body, s.body, s.range, target=s.target)
            return
        seq, get = it  # (length value, function trip -> element value)

        def body_seq(trip: Value) -> Value:
            self.assign_to(s.target, get(trip), s.target.range)
            self.emit_stmts(s.body)
            return true
        self.emit_loop(seq, true, body_seq, s.body, s.range, target=s.target)

    def stmt_Return(self, s: ast.Return) -> None:
        raise CompileError("a return statement before the end of the function is not supported "
                           "yet", s.range)

    def stmt_Raise(self, s: ast.Raise) -> None:
        self.emit_raise(s.exc, s.range)

    def stmt_Assert(self, s: ast.Assert) -> None:
        cond = self.emit_condition(s.test)

        def fail() -> None:
            self.emit_raise_message(s.msg, "builtins.AssertionError", s.range)
        self.emit_if(cond, lambda: None, fail, s.range)

    # --- control flow -------------------------------------------------------------
    def emit_if(self, cond: Value, then: Any, orelse: Any, rng: SourceRange) -> None:
        node = self.graph.create("prim::If", [cond], 0, rng)
        self.graph.insert(node)
        outer_block = self.graph.insert_block
        envs = []
        for emit in (then, orelse):
            block = node.add_block()
            env = Environment(self.env, block)
            saved = self.env
            self.env = env
            self.graph.set_insert_point(block)
            try:
                emit()
            finally:
                self.env = saved
                self.graph.set_insert_point(outer_block)
            envs.append(env)
        true_env, false_env = envs
        names = list(dict.fromkeys(true_env.assigned() + false_env.assigned()))
        for name in names:
            tv = true_env.lookup(name)
            fv = false_env.lookup(name)
            if not isinstance(tv, SimpleValue) or not isinstance(fv, SimpleValue):
                missing = "true" if not isinstance(tv, SimpleValue) else "false"
                if tv is None or fv is None or isinstance(tv, Undefined) or isinstance(fv, Undefined):
                    self.env.assign(name, Undefined(f"'{name}' is not defined in the {missing} branch"))
                    continue
                if tv is fv:
                    self.env.assign(name, tv)
                    continue
                raise CompileError(f"'{name}' is assigned different kinds of values in the two "
                                   "branches of this if", rng)
            t = T.unify(tv.value.type, fv.value.type)
            declared = self.env.declared_type(name)
            if declared is not None:
                t = declared
            if t is None:
                self.env.assign(name, Undefined(
                    f"Type mismatch: {name} is set to type {tv.value.type.annotation_str()} in the "
                    f"true branch and type {fv.value.type.annotation_str()} in the false branch"))
                continue
            node.blocks[0].register_output(tv.value)
            node.blocks[1].register_output(fv.value)
            out = node.add_output(t)
            self.env.assign(name, SimpleValue(out), name_value=True)

    def emit_loop(self, max_trip: Value, cond: Value, body: Any, body_stmts: Any,
                  rng: SourceRange, target: Optional[ast.Expr] = None) -> None:
        """A prim::Loop; `body(trip)` emits the body and returns the continue condition."""
        carried = [n for n in assigned_names(body_stmts, target)
                   if isinstance(self.env.lookup(n), SimpleValue)]
        node = self.graph.create("prim::Loop", [max_trip, cond], 0, rng)
        self.graph.insert(node)
        block = node.add_block()
        trip = block.add_input(T.IntType)
        env = Environment(self.env, block)
        inputs = []
        for name in carried:
            init = self.env.lookup(name).as_value(self, rng)  # type: ignore[union-attr]
            t = self.env.declared_type(name) or init.type
            node.add_input(init)
            v = block.add_input(t)
            env.assign(name, SimpleValue(v), name_value=True)
            inputs.append((name, t))
        saved, outer_block = self.env, self.graph.insert_block
        self.env = env
        self.graph.set_insert_point(block)
        try:
            new_cond = body(trip)
            block.register_output(new_cond)
            for name, t in inputs:
                v = env.lookup(name)
                if not isinstance(v, SimpleValue):
                    raise CompileError(f"'{name}' is not defined at the end of the loop body", rng)
                if not T.is_subtype(v.value.type, t):
                    raise CompileError(
                        f"Variable '{name}' previously had type {t.annotation_str()} but is now "
                        f"being assigned to a value of type {v.value.type.annotation_str()}", rng)
                block.register_output(v.value)
        finally:
            self.env = saved
            self.graph.set_insert_point(outer_block)
        for name, t in inputs:
            self.env.assign(name, SimpleValue(node.add_output(t)), name_value=True)
        for name in env.assigned():
            if name not in carried and name not in self.env.vars:
                self.env.assign(name, Undefined(f"'{name}' is defined only inside the loop body"))

    # --- assignment ---------------------------------------------------------------
    def assign_to(self, target: ast.Expr, value: Value, rng: SourceRange,
                  declared: Optional[T.Type] = None) -> None:
        if isinstance(target, ast.Name):
            prev_declared = self.env.declared_type(target.id)
            if prev_declared is not None and not T.is_subtype(value.type, prev_declared):
                raise CompileError(
                    f"Variable '{target.id}' is annotated with type "
                    f"{prev_declared.annotation_str()} but is being assigned to a value of type "
                    f"{value.type.annotation_str()}", rng)
            self.env.assign(target.id, SimpleValue(value), name_value=True, declared=declared)
        elif isinstance(target, (ast.TupleLit, ast.ListLit)):
            items = self.emit_tuple_unpack(value, rng, len(target.elts))
            for t, v in zip(target.elts, items):
                self.assign_to(t, v, rng)
        elif isinstance(target, ast.Attribute):
            self.emit_sugared(target.value).set_attr(self, target.range, target.attr, value)
        elif isinstance(target, ast.Subscript):
            container = self.emit_expr(target.value)
            index = self.emit_expr(target.index)
            self.emit_setitem(container, index, value, rng)
        elif isinstance(target, ast.Starred):
            raise CompileError("starred assignment targets are not supported", target.range)
        else:
            raise CompileError("this expression cannot be assigned to", target.range)

    def lookup_value(self, name: str, rng: SourceRange) -> Value:
        return self.lookup(name, rng).as_value(self, rng)

    def lookup(self, name: str, rng: SourceRange) -> SugaredValue:
        sv = self.env.lookup(name)
        if sv is None:
            sv = self.resolver.resolve_name(name, self, rng)
        if sv is None:
            raise CompileError(f"undefined value {name}", rng)
        if isinstance(sv, Undefined):
            raise CompileError(sv.reason, rng)
        return sv


BINARY_OPS = {
    "+": "aten::add", "-": "aten::sub", "*": "aten::mul", "/": "aten::div",
    "//": "aten::floordiv", "%": "aten::remainder", "**": "aten::pow", "@": "aten::matmul",
    "&": "aten::__and__", "|": "aten::__or__", "^": "aten::__xor__",
    "<<": "aten::__lshift__", ">>": "aten::__rshift__",
}


def _walk_stmts(s: ast.Stmt) -> Any:
    yield s
    for attr in ("body", "orelse"):
        for inner in getattr(s, attr, ()) or ():
            if not isinstance(inner, (ast.Def, ast.ClassDef)):
                yield from _walk_stmts(inner)
