"""The compiler: one function's AST -> a Graph in SSA form.

Names live in an `Environment` per block. An `if` compiles both branches in child
environments and turns every variable assigned in a branch (and defined in both, or
before) into an output of the `prim::If`; a loop turns every variable assigned in its
body and defined before it into a loop-carried value. Outputs follow source order of
first assignment, which keeps printed code stable across save/load.
"""
from __future__ import annotations

import enum
import functools
from typing import Any, Optional

from ..ir import CompilationUnit, Function, Graph, Node, Value
from ..ir import types as T
from ..ir.diagnostics import CompileError, SourceRange
from ..ir.limits import check_deadline
from ..ir.passes import (CLEANUP, constant_propagation, exit_transform, run_pipeline,
                         run_to_fixed_point)
from ..ops import registry
from ..ir.schema import Argument, FunctionSchema
from ..ir.node_kinds import prim
from . import ast
from .annotations import broadcast_size
from .constants import eval_constant
from .emitter import Emitter
from .environment import Environment, Undefined, assigned_names, meaningful_name
from .indexing import emit_tensor_getitem, emit_tensor_setitem, is_advanced
from .iteration import iteration, module_items
from .operators import BINARY_OPS
from .parser import parse_expr
from .refinement import refinements
from .schema_matching import NamedValue
from .sugared import ClosureValue, SimpleValue, SliceValue, SugaredValue

INT64_MAX = 2 ** 63 - 1
# Variables the compiler introduces for a return inside a loop ("$" keeps them apart
# from user names and from printed names).
RET_FLAG, RET_VALUE = "$did_return", "$return_value"


class FunctionCompiler(Emitter):
    """Compiles one Def into `fn.graph`; `self_type` is the class of a method's `self`."""

    def __init__(self, cu: CompilationUnit, resolver: Any, fn: Function, node: ast.Def,
                 self_type: Optional[T.Type] = None) -> None:
        super().__init__(cu, resolver, Graph())
        self.fn = fn
        self.def_ = node
        self.self_type = self_type
        self.env = Environment(None, self.graph.block)
        self.declared_return: Optional[T.Type] = None
        # Parameter defaults of a Python function, as Python evaluated them (`1.0 / 8`).
        self.python_defaults: dict[str, Any] = {}
        # Enclosing loops, innermost last: (carried variable names, continue-condition emitter).
        self.loops: list[tuple[list[str], Any]] = []
        # The casts giving an annotated variable its declared type (see `check_declared`).
        self.widenings: list[Node] = []

    # --- the function -------------------------------------------------------------
    def compile(self) -> Graph:
        d = self.def_
        args = self.emit_params(d)
        if d.returns is not None:
            self.declared_return = self.type_from_expr(d.returns)
        elif self.comment_types is not None:
            self.declared_return = self.comment_types[1]
        self.emit_stmts(d.body)
        ret_type = self.function_return_type()
        if self.env.exited:
            out = self.insert(prim.Uninitialized, [], [ret_type], d.range).output()
        else:
            # Falling off the end returns None, which the return type must admit.
            if not T.is_subtype(T.NoneType, ret_type):
                raise CompileError(f"Function was annotated as returning "
                                   f"{ret_type.annotation_str()}, but does not return along "
                                   "all paths", d.range)
            out = self.emit_constant(None, d.range, ret_type if ret_type != T.NoneType else None)
        self.graph.register_output(out)
        self.drop_widenings()
        run_pipeline(self.graph, [exit_transform.run])
        # To a fixed point, so compiling printed code cannot simplify any further (no jitter).
        run_to_fixed_point(self.graph, [functools.partial(constant_propagation.run,
                                                          kernel_for=registry.kernel_for)]
                           + CLEANUP)
        ret = Argument("", self.declared_return or self.graph.outputs[0].type)
        self.fn.schema = FunctionSchema(self.fn.name, "", tuple(args), (ret,))
        self.fn.graph = self.graph
        return self.graph

    def function_return_type(self) -> T.Type:
        """The declared return type, else the unified type of every returned value."""
        if self.declared_return is not None:
            return self.declared_return
        types = [n.input(0).type for n in self.graph.walk() if n.kind == prim.ReturnStmt]
        if not types:
            return T.NoneType
        t = types[0]
        for other in types[1:]:
            u = T.unify(t, other)
            if u is None:
                raise CompileError(f"Previous return statement returned a value of type "
                                   f"{t.annotation_str()} but this return statement returns a "
                                   f"value of type {other.annotation_str()}", self.def_.range)
            t = u
        return t

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
            if p.name in self.python_defaults:
                default = self.python_defaults[p.name]   # already evaluated by Python
            elif p.default is not None:
                default = self.constant_default(p.default, t)
            default = _default_as(default, t)
            n = broadcast_size(p.annotation) if p.annotation is not None else None
            if n and isinstance(default, (int, float)) and not isinstance(default, bool):
                default = [default] * n   # `padding: BroadcastingList2[int] = 0`
            args.append(Argument(p.name, t, default, p.kwarg_only, N=n))
        return args

    def constant_default(self, e: ast.Expr, t: T.Type) -> Any:
        """A parameter default must be a constant expression."""
        return eval_constant(e, t)

    def parse_type_comment(self, text: str,
                           rng: SourceRange) -> tuple[list[T.Type], Optional[T.Type]]:
        """`(int, float) -> str`: parameter types and the return type (None when the
        comment gives none, `# type: (bool)`: the return type is then inferred)."""
        params, arrow, ret = text.partition("->")
        if not params.strip().startswith("("):
            raise CompileError("a type comment must look like '(int, float) -> str'", rng)
        p = parse_expr(params.strip(), rng.source.filename)
        elts = p.elts if isinstance(p, ast.TupleLit) else (p,)
        returns = self.type_from_expr(parse_expr(ret.strip())) if arrow else None
        return [self.type_from_expr(e) for e in elts], returns

    def emit_return_value(self, ret: ast.Return) -> Value:
        rng = ret.range
        if ret.value is None:
            v = self.emit_constant(None, rng)
        else:
            v = self.emit_expr(ret.value, self.declared_return)
        if self.declared_return is not None:
            v = self.implicit_convert(v, self.declared_return, rng)
            if not T.is_subtype(v.type, self.declared_return):
                raise CompileError(
                    f"Return value was annotated as having type "
                    f"{self.declared_return.annotation_str()} but is actually of type "
                    f"{v.type.annotation_str()}", rng)
            if v.type != self.declared_return and v.node.kind == prim.Constant and v.type == T.NoneType:
                v.type = self.declared_return
        return v

    # --- statements ---------------------------------------------------------------
    def emit_stmts(self, stmts: Any) -> None:
        for s in stmts:
            if self.env.exited:
                break   # after return/break/continue nothing in this block runs
            self.emit_stmt(s)

    def emit_stmt(self, s: ast.Stmt) -> None:
        check_deadline()   # compiling on a first call spends that call's budget
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
            hint = self.type_from_expr(parse_expr(s.type_comment, s.range.source.filename))
        if len(s.targets) == 1 and isinstance(s.targets[0], (ast.TupleLit, ast.ListLit)) \
                and isinstance(s.value, (ast.TupleLit, ast.ListLit)) \
                and len(s.targets[0].elts) == len(s.value.elts):
            # `a, b = x, y`: evaluate right to left-free, then assign, without a tuple
            values = [self.emit_expr(e) for e in s.value.elts]
            for t, v in zip(s.targets[0].elts, values):
                # As in PyTorch (a tuple built and unpacked), the values keep their names.
                self.assign_to(t, v, s.range, name_value=False)
            return
        if hint is None and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and \
                isinstance(s.value, ast.Call):
            sv = self.emit_sugared(s.value)
            if isinstance(sv, SliceValue):
                # `a = slice(1)`: the variable names the slice, as in PyTorch; it is no value.
                self.env.assign(s.targets[0].id, sv)
                return
            value = sv.as_value(self, s.value.range)
        else:
            value = self.emit_expr(s.value, hint)
        if hint is not None:
            value = self.check_declared(value, hint, s.value.range, _is_literal(s.value))
        for t in s.targets:
            self.assign_to(t, value, s.range, declared=hint, name_value=not self.copies(s.value))

    def stmt_AnnAssign(self, s: ast.AnnAssign) -> None:
        t = self.type_from_expr(s.annotation)
        if s.value is None:
            raise CompileError("an annotated declaration needs a value in TorchScript", s.range)
        value = self.check_declared(self.emit_expr(s.value, t), t, s.value.range,
                                    _is_literal(s.value), getattr(s.target, "id", ""))
        self.assign_to(s.target, value, s.range, declared=t, name_value=not self.copies(s.value))

    def copies(self, value: ast.Expr) -> bool:
        """Whether assigning `value` copies a variable (`x = y`, `x: T = y`): as in PyTorch
        (where reading `y` makes a value that takes the name), the value keeps its own name
        or none, so `_1 = ...; a = _1` prints back the same."""
        return isinstance(value, ast.Name) and isinstance(self.env.lookup(value.id), SimpleValue)

    def implicit_convert(self, v: Value, t: T.Type, rng: SourceRange) -> Value:
        """The conversions PyTorch applies where a declared type is known: a `number`
        (e.g. from `.item()`) becomes the declared float / int, also inside tuples."""
        if T.is_subtype(v.type, t):
            return v
        if v.type == T.NumberType and t in (T.FloatType, T.IntType):
            return self.emit_builtin("aten::Float" if t == T.FloatType else "aten::Int",
                                     [NamedValue(v)], {}, rng)
        if isinstance(t, T.TupleType) and v.node.kind == prim.TupleConstruct and \
                len(v.node.inputs) == len(t.elems):
            items = [self.implicit_convert(x, et, rng) for x, et in zip(v.node.inputs, t.elems)]
            if any(a is not b for a, b in zip(items, v.node.inputs)):
                return self.emit_tuple(items, rng)
        return v

    def check_declared(self, value: Value, t: T.Type, rng: SourceRange,
                       literal: bool = False, name: str = "") -> Value:
        """`value` as a value of declared type `t` (of variable `name`, if one); `literal`:
        it is a container literal or comprehension, so nothing else refers to it."""
        value = self.implicit_convert(value, t, rng)
        if literal and isinstance(value.type, (T.ListType, T.DictType)) and \
                not isinstance(t, (T.ListType, T.DictType, T.OptionalType, T.UnionType)) and \
                t != T.AnyType:
            kind = "List" if isinstance(value.type, T.ListType) else "Dict"
            raise CompileError(f"Expected an annotation of type {kind} but got "
                               f"{t.annotation_str()}", rng)
        if not T.is_subtype(value.type, t):
            raise CompileError(f"Variable{f' {name!r}' if name else ''} is annotated with type "
                               f"{t.annotation_str()} but is being assigned to a value of type "
                               f"{value.type.annotation_str()}", rng)
        if value.type != t and value.node.kind == prim.Constant and value.type == T.NoneType:
            value.type = t  # `x: Optional[int] = None` keeps the declared type
        elif value.type != t:
            # As in PyTorch, an annotated variable reads as its declared type (so `x is None`
            # is not known while compiling, and a loop carries it as declared) until it is
            # assigned again; compiled, the graph holds the value itself (drop_widenings).
            cast = self.insert(prim.unchecked_cast, [value], [t], rng)
            self.widenings.append(cast)
            value = cast.output()
        return value

    def drop_widenings(self) -> None:
        """Replace the casts of `check_declared` by the values they cast (of narrower types:
        their users accept them), the variable's name going to an unnamed value."""
        for cast in self.widenings:
            value, out = cast.input(0), cast.output()
            if out.has_debug_name() and not value.has_debug_name() and \
                    value.node.kind != prim.Constant:
                value.set_debug_name(out.debug_name())
            out.set_debug_name(None)
            out.replace_all_uses_with(value)
            cast.destroy()

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
            if container.type == T.TensorType:
                view = emit_tensor_getitem(self, container, target.index, target.range)
                new = self.emit_augmented(view, s.op, s.value, s.range)
                if is_advanced(view):
                    # Tensor indices gather a copy: the result must be put back.
                    emit_tensor_setitem(self, container, target.index, new, s.range)
                # Otherwise `x[i] += v` updated the selected view in place (add_).
                return
            index = self.emit_expr(target.index)
            cur = self.emit_subscript(container, index, target.range)
            new = self.emit_augmented(cur, s.op, s.value, s.range)
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
        yes, no = refinements(self, s.test)
        cond = self.emit_condition(s.test)
        const = self.known_condition(s.test, cond)
        if isinstance(const, bool):
            # Like PyTorch, a condition known at compile time compiles only the live branch.
            self.env.refined.update(yes if const else no)
            self.emit_stmts(s.body if const else s.orelse)
            return

        def branch(stmts: Any, refs: dict) -> Any:
            def emit() -> None:
                self.env.refined.update(refs)
                self.emit_stmts(stmts)
            return emit
        envs = self.emit_if(cond, branch(s.body, yes), branch(s.orelse, no), s.range)
        # `if x is None: return ...` leaves x refined after the if: what the live branch
        # proved holds after it, its condition's refinement and any found inside it
        # (`elif isinstance(x, str): return ...` narrows x further).
        if envs is not None and envs[0].exited != envs[1].exited:
            live = envs[0] if envs[1].exited else envs[1]
            self.env.refined.update(live.refined)

    def stmt_While(self, s: ast.While) -> None:
        max_trip = self.emit_constant(INT64_MAX, s.range)
        cond = self.emit_condition(s.test)
        self.emit_loop(max_trip, cond, lambda trip: self.emit_stmts(s.body),
                       lambda: self.emit_condition(s.test), s.body, s.range)

    def stmt_For(self, s: ast.For) -> None:
        def body() -> None:
            self.emit_stmts(s.body)
        self.emit_for(s.target, self.emit_sugared(s.iter), body, s.body, s.range)

    def emit_for(self, target: ast.Expr, iterable: SugaredValue, body: Any, body_stmts: Any,
                 rng: SourceRange, scoped: bool = False) -> None:
        """A for loop over `iterable`; `scoped`: the loop's names do not outlive it
        (comprehensions)."""
        items = module_items(self, iterable, rng)
        if items is not None:
            # Iterating a ModuleList / Sequential / ModuleDict unrolls the loop.
            for item in items:
                self.assign_to(target, item, target.range)
                body()
                if self.env.exited:
                    raise CompileError("return/break/continue in a loop over modules is not "
                                       "supported", rng)
            return
        it = iteration(self, iterable, rng)
        true = self.emit_constant(True, rng)

        def loop_body(trip: Value) -> None:
            self.assign_to(target, it.get(trip), target.range)
            body()
        self.emit_loop(it.length, true, loop_body, lambda: true, body_stmts, rng,
                       target=None if scoped else target, scoped=scoped)

    def stmt_Return(self, s: ast.Return) -> None:
        v = self.emit_return_value(s)
        if self.loops:
            # Inside a loop a return becomes: remember the value, set the flag, break.
            self.env.assign(RET_VALUE, SimpleValue(v))
            self.env.assign(RET_FLAG, SimpleValue(self.emit_constant(True, s.range)))
            self.emit_loop_exit(False, s.range)
            return
        self.insert(prim.ReturnStmt, [v], [], s.range)
        self.env.exited = True

    def stmt_Break(self, s: ast.Break) -> None:
        if not self.loops:
            raise CompileError("'break' outside loop", s.range)
        self.emit_loop_exit(False, s.range)

    def stmt_Continue(self, s: ast.Continue) -> None:
        if not self.loops:
            raise CompileError("'continue' not properly in loop", s.range)
        self.emit_loop_exit(True, s.range)

    def emit_loop_exit(self, is_continue: bool, rng: SourceRange) -> None:
        """`prim::LoopContinuation(cond, carried...)` with the carried values as they are now."""
        carried, next_cond = self.loops[-1]
        cond = next_cond() if is_continue else self.emit_constant(False, rng)
        values = [self.lookup_value(name, rng) for name in carried]
        self.insert(prim.LoopContinuation, [cond] + values, [], rng)
        self.env.exited = True

    def stmt_Delete(self, s: ast.Delete) -> None:
        for t in s.targets:
            if isinstance(t, ast.Name):
                self.lookup(t.id, t.range)
                self.env.assign(t.id, Undefined(f"undefined value {t.id} (deleted)"))
            elif isinstance(t, ast.Subscript):
                container = self.emit_expr(t.value)
                if isinstance(t.index, ast.Slice):
                    raise CompileError("del statements only support deletion at a single index, "
                                       "slicing is not supported", t.range)
                key = self.emit_expr(t.index)
                self.emit_builtin("aten::Delete", [NamedValue(container), NamedValue(key)], {}, t.range)
            else:
                raise CompileError("only names and subscripts can be deleted", t.range)

    def stmt_With(self, s: ast.With) -> None:
        """`with a as x, b:` enters each object in turn (`prim::Enter` calls `__enter__`,
        whose result `x` receives), runs the body and exits them in reverse order
        (`prim::Exit` calls `__exit__(None, None, None)`; executors call it too when the
        body raises)."""
        entered = []
        for item in s.items:
            obj = self.emit_expr(item.context)
            enter, exit_ = self.context_methods(obj, item.range)
            n = self.insert(prim.Enter, [obj], [enter.schema.returns[0].type], item.range)
            n.callee = enter
            if item.var is not None:
                self.assign_to(item.var, n.output(), item.range)
            entered.append((obj, exit_))
        self.emit_stmts(s.body)
        for obj, exit_ in reversed(entered):
            # Emitted even when the body always leaves: exit_transform keeps it on every path.
            self.insert(prim.Exit, [obj], [T.NoneType], s.range).callee = exit_

    def context_methods(self, obj: Value, rng: SourceRange) -> tuple[Function, Function]:
        """The `__enter__` and `__exit__` methods of a with item's object, checked as
        PyTorch checks them."""
        t = obj.type
        if not isinstance(t, T.ClassType):
            raise CompileError("With item expression must return an object", rng)
        enter, exit_ = t.methods.get("__enter__"), t.methods.get("__exit__")
        if enter is None or exit_ is None:
            raise CompileError("Object returned by with item expression does not define "
                               "__enter__ and __exit__ methods", rng)
        if len(self.resolver.method_schema(self, enter, rng).arguments) != 1:
            raise CompileError("__enter__ must have only one argument and one return value", rng)
        if len(self.resolver.method_schema(self, exit_, rng).arguments) != 4:
            raise CompileError("__exit__ must have four arguments", rng)
        return enter, exit_

    def stmt_Def(self, s: ast.Def) -> None:
        """A nested function: a closure that `fork` runs (see builtins.ForkForm)."""
        self.env.assign(s.name, ClosureValue(s))

    def stmt_Raise(self, s: ast.Raise) -> None:
        self.emit_raise(s.exc, s.range)
        self.env.exited = True   # nothing after a raise runs

    def stmt_Assert(self, s: ast.Assert) -> None:
        yes, _ = refinements(self, s.test)
        cond = self.emit_condition(s.test)

        def fail() -> None:
            self.emit_raise_message(s.msg, "builtins.AssertionError", s.range)
            self.env.exited = True
        known = self.known_condition(s.test, cond)
        if known is False:
            fail()      # as PyTorch: what follows an assertion known to fail is dead
            return
        if known is not True:
            self.emit_if(cond, lambda: None, fail, s.range)
        self.env.refined.update(yes)

    # --- control flow -------------------------------------------------------------
    def emit_if(self, cond: Value, then: Any, orelse: Any, rng: SourceRange) -> Any:
        node = self.graph.create(prim.If, [cond], 0, rng)
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
        if true_env.exited and false_env.exited:
            self.env.exited = True
            return envs
        names = list(dict.fromkeys(true_env.assigned() + false_env.assigned()))
        for name in names:
            tv = self.branch_value(true_env, name, node.blocks[0], rng)
            fv = self.branch_value(false_env, name, node.blocks[1], rng)
            # A branch that left (return/break/continue) contributes nothing after the if.
            if true_env.exited or false_env.exited:
                live = fv if true_env.exited else tv
                if not isinstance(live, SimpleValue):
                    if live is not None:
                        self.env.assign(name, live)
                    continue
                dead_block = node.blocks[0] if true_env.exited else node.blocks[1]
                placeholder = self.graph.create(prim.Uninitialized, [], 0, rng)
                dead_block.append(placeholder)
                dead = placeholder.add_output(live.value.type)
                tv, fv = (SimpleValue(dead), live) if true_env.exited else (live, SimpleValue(dead))
            if not isinstance(tv, SimpleValue) or not isinstance(fv, SimpleValue):
                missing = "true" if not isinstance(tv, SimpleValue) else "false"
                if tv is None or fv is None or isinstance(tv, Undefined) or isinstance(fv, Undefined):
                    self.env.assign(name, Undefined(f"undefined value {name}: '{name}' is not "
                                                    f"defined in the {missing} branch"))
                    continue
                if tv is fv:
                    self.env.assign(name, tv)
                    continue
                raise CompileError(f"'{name}' is assigned different kinds of values in the two "
                                   "branches of this if", rng)
            # As in PyTorch, the merged value has the unified type of what each branch
            # assigned (the declared type where a branch's assignment was annotated:
            # `x: Union[float, str] = float(tok)` / `else: x = tok`, as PyTorch's archives
            # hold), so an int on both paths stays an int though declared Optional before
            # the if; the enclosing declaration only where they do not unify.
            t = T.unify(_assigned_type(true_env, name, tv.value.type),
                        _assigned_type(false_env, name, fv.value.type))
            if t is None:
                t = self.env.declared_type(name)
            if t is None:
                self.env.assign(name, Undefined(
                    f"Type mismatch: {name} is set to type {tv.value.type.annotation_str()} in the "
                    f"true branch and type {fv.value.type.annotation_str()} in the false branch"))
                continue
            node.blocks[0].register_output(tv.value)
            node.blocks[1].register_output(fv.value)
            out = node.add_output(t)
            self.env.assign(name, SimpleValue(out), name_value=True)
        return envs

    def branch_value(self, env: Environment, name: str, block: Any, rng: SourceRange) -> Any:
        """What `name` holds at the end of a branch, with that branch's refinement applied
        (`if x is None: x = 0` leaves an int on both paths)."""
        sv = env.lookup(name)
        refined = env.refinement(name) if isinstance(sv, SimpleValue) and not env.exited else None
        if refined is not None and sv.value.type != refined:
            cast = self.graph.create(prim.unchecked_cast, [sv.value], 0, rng)
            out = cast.add_output(refined)
            block.append(cast)
            return SimpleValue(out)
        return sv

    def emit_loop(self, max_trip: Value, cond: Value, body: Any, next_cond: Any, body_stmts: Any,
                  rng: SourceRange, target: Optional[ast.Expr] = None, scoped: bool = False) -> None:
        """A prim::Loop: `body(trip)` emits the body, `next_cond()` the continue condition."""
        returns_inside = _contains_return(body_stmts)
        # A flag set only in an earlier branch (undefined on the other) is stale: outside
        # loops a pending return was already taken, so the flag restarts as False.
        if returns_inside and not isinstance(self.env.lookup(RET_FLAG), SimpleValue):
            if self.declared_return is None:
                raise CompileError("a function with a return statement inside a loop needs a "
                                   "return type annotation", rng)
            self.env.assign(RET_FLAG, SimpleValue(self.emit_constant(False, rng)))
            self.env.assign(RET_VALUE, SimpleValue(
                self.insert(prim.Uninitialized, [], [self.declared_return], rng).output()),
                declared=self.declared_return)
        carried = [n for n in assigned_names(body_stmts, target)
                   if isinstance(self.env.lookup(n), SimpleValue)]
        if returns_inside:
            carried = [RET_FLAG, RET_VALUE] + carried    # first, as PyTorch carries them
        node = self.graph.create(prim.Loop, [max_trip, cond], 0, rng)
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
        self.loops.append((carried, next_cond))
        try:
            body(trip)
            if env.exited:
                # The body always leaves early; its normal end is unreachable.
                for t in [T.BoolType] + [t for _, t in inputs]:
                    block.register_output(self.insert(prim.Uninitialized, [], [t], rng).output())
            else:
                block.register_output(next_cond())
                for name, t in inputs:
                    v = env.lookup(name)
                    if not isinstance(v, SimpleValue):
                        raise CompileError(f"'{name}' is not defined at the end of the loop body", rng)
                    if not T.is_subtype(v.value.type, t):
                        raise CompileError(
                            f"Variable '{name}' previously had type {t.annotation_str()} but is now "
                            f"being assigned to a value of type {v.value.type.annotation_str()}", rng)
                    block.register_output(v.value)
            self.check_exit_types(block, inputs, rng)
        finally:
            self.loops.pop()
            self.env = saved
            self.graph.set_insert_point(outer_block)
        for name, t in inputs:
            self.env.assign(name, SimpleValue(node.add_output(t)), name_value=True)
        for name in env.assigned():
            if name not in carried and name not in self.env.vars and not scoped:
                self.env.assign(name, Undefined(f"'{name}' is defined only inside the loop body"))
        if returns_inside:
            self.emit_pending_return(rng)

    def check_exit_types(self, block: Any, inputs: list, rng: SourceRange) -> None:
        """The values a break/continue hands on must fit this loop's carried types."""
        for n in block.nodes:
            if n.kind == prim.LoopContinuation:
                for (name, t), v in zip(inputs, n.inputs[1:]):
                    if not T.is_subtype(v.type, t):
                        raise CompileError(
                            f"Variable '{name}' previously had type {t.annotation_str()} but is "
                            f"now being assigned to a value of type {v.type.annotation_str()}",
                            n.source_range or rng)
            elif n.kind != prim.Loop:   # an inner loop's exits are its own
                for sub in n.blocks:
                    self.check_exit_types(sub, inputs, rng)

    def emit_pending_return(self, rng: SourceRange) -> None:
        """After a loop that may have returned: return (or break out further) if it did."""
        flag = self.lookup_value(RET_FLAG, rng)

        def leave() -> None:
            if self.loops:
                self.emit_loop_exit(False, rng)
            else:
                self.insert(prim.ReturnStmt, [self.lookup_value(RET_VALUE, rng)], [], rng)
                self.env.exited = True
        self.emit_if(flag, leave, lambda: None, rng)

    # --- assignment ---------------------------------------------------------------
    def assign_to(self, target: ast.Expr, value: Value, rng: SourceRange,
                  declared: Optional[T.Type] = None, name_value: bool = True) -> None:
        if isinstance(target, ast.Name):
            prev_declared = self.env.declared_type(target.id)
            if prev_declared is not None and not T.is_subtype(value.type, prev_declared):
                raise CompileError(
                    f"Variable '{target.id}' is annotated with type "
                    f"{prev_declared.annotation_str()} but is being assigned to a value of type "
                    f"{value.type.annotation_str()}", rng)
            # A declared variable may take any value of its declared type (checked above).
            outer = self.env.outer_type(target.id) if prev_declared is None else None
            if outer is not None and not T.is_subtype(value.type, outer):
                # As PyTorch: a block may not change the type of an enclosing variable.
                raise CompileError(
                    f"Variable '{target.id}' previously had type {outer.annotation_str()} but is "
                    f"now being assigned to a value of type {value.type.annotation_str()}",
                    target.range)
            self.env.assign(target.id, SimpleValue(value), name_value=name_value, declared=declared)
        elif isinstance(target, (ast.TupleLit, ast.ListLit)):
            items = self.emit_tuple_unpack(value, rng, len(target.elts))
            for t, v in zip(target.elts, items):
                self.assign_to(t, v, rng)
        elif isinstance(target, ast.Attribute):
            self.emit_sugared(target.value).set_attr(self, target.range, target.attr, value)
        elif isinstance(target, ast.Subscript):
            container = self.emit_expr(target.value)
            if container.type == T.TensorType:
                emit_tensor_setitem(self, container, target.index, value, rng)
                return
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
        refined = self.env.refinement(name) if isinstance(sv, SimpleValue) else None
        if refined is not None and sv.value.type != refined:  # type: ignore[union-attr]
            cast = self.insert(prim.unchecked_cast, [sv.value], [refined], rng).output()  # type: ignore[union-attr]
            if meaningful_name(name):
                cast.set_debug_name(name)
            sv = SimpleValue(cast)
            # Bind the cast in the current block (where it is defined), so later reads here
            # reuse it; sibling blocks make their own.
            self.env.bind(name, sv)
            self.env.refinement_bindings.add(name)
        if sv is None:
            sv = self.resolver.resolve_name(name, self, rng)
        if sv is None:
            raise CompileError(f"undefined value {name}", rng)
        if isinstance(sv, Undefined):
            raise CompileError(sv.reason, rng)
        return sv


def _assigned_type(env: Environment, name: str, value_type: T.Type) -> T.Type:
    """The type a branch gave `name`: the one its annotated assignment declared, else its
    value's."""
    declared = env.declared.get(name)
    return declared if declared is not None and T.is_subtype(value_type, declared) else value_type


def _is_literal(e: ast.Expr) -> bool:
    return isinstance(e, (ast.ListLit, ast.DictLit, ast.ListComp, ast.DictComp))


def _contains_return(stmts: Any) -> bool:
    return any(isinstance(inner, ast.Return) for s in stmts for inner in _walk_stmts(s))


def _walk_stmts(s: ast.Stmt) -> Any:
    stack = [s]   # not recursive: nesting depth is the input's
    while stack:
        s = stack.pop()
        yield s
        for attr in ("orelse", "body"):
            for inner in reversed(getattr(s, attr, ()) or ()):
                if not isinstance(inner, (ast.Def, ast.ClassDef)):
                    stack.append(inner)


def _default_as(default: Any, t: T.Type) -> Any:
    """A parameter default as a value of the declared type: `p: float = 2` defaults to
    2.0, as in PyTorch (an int would change what the body computes, and PyTorch refuses
    an archive whose float parameter defaults to an int)."""
    if isinstance(t, T.OptionalType):
        t = t.elem
    if isinstance(t, T.EnumType) and isinstance(default, enum.Enum) and default.name in t.members:
        return t.member(default.name)    # a Python Enum member default: the enum's value
    if type(default) is int:
        if t == T.FloatType:
            return float(default)
        if t == T.ComplexType:
            return complex(default)
    if type(default) is list and isinstance(t, T.ListType) and t.elem == T.FloatType:
        return [float(x) if type(x) is int else x for x in default]
    return default
