"""Overload resolution: match call arguments against FunctionSchemas and emit the call.

Matching is two-pass, as in PyTorch: first every overload is tried without implicit
conversions, then with them (a single int where `int[2]` is wanted, a tuple literal
where a list is wanted, an int where a float is wanted for a non-overloaded callee).
The first overload that matches in registration order wins.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

from ..ir import Graph, Node, Value
from ..ir import types as T
from ..ir.diagnostics import CompileError, SourceRange
from ..ir.schema import Argument, FunctionSchema
from ..ir.node_kinds import prim
from ..ops import registry


@dataclass
class NamedValue:
    """A call argument: a Value, with its keyword name and the range of its expression."""

    value: Value
    name: Optional[str] = None
    range: Optional[SourceRange] = None


@dataclass
class Matched:
    schema: FunctionSchema
    inputs: list[Value]
    return_types: list[T.Type]
    env: dict[str, T.Type] = field(default_factory=dict)


class _NoMatch(Exception):
    pass


def _convert(c: Any, v: Value, arg: Argument, env: dict, allow_conversions: bool,
             rng: Optional[SourceRange]) -> Value:
    """`v` as a value acceptable for `arg`, inserting conversion nodes if allowed."""
    formal = arg.type
    if T.match_type(formal, v.type, env):
        return v
    # PyTorch's wording, shown under the candidate when no overload matches.
    why = _NoMatch(f"Expected a value of type '{T.substitute(formal, env).annotation_str()}' "
                   f"for argument '{arg.name}' but instead found type "
                   f"'{v.type.annotation_str()}'.")
    if not allow_conversions:
        raise why
    for target in _conversion_targets(T.substitute(formal, env)):
        try:
            return _convert_to(c, v, target, arg.N, rng)
        except _NoMatch:
            continue
    raise why


def _conversion_targets(t: T.Type) -> list[T.Type]:
    """The types an argument may be converted to for a formal of type `t`: T for
    Optional[T], and each member of a Union. tsjit's functionals take a Union where
    PyTorch declares @_overload variants (`size: Optional[Union[int, List[int]]]`), so a
    tuple converting to the List member picks what PyTorch's List overload would."""
    if isinstance(t, T.OptionalType):
        return _conversion_targets(t.elem)
    if isinstance(t, T.UnionType):
        return [m for x in t.types if x != T.NoneType for m in _conversion_targets(x)]
    return [t]


def _convert_to(c: Any, v: Value, elem: T.Type, n: Optional[int],
                rng: Optional[SourceRange]) -> Value:
    """`v` converted to `elem` (for an `int[n]` formal when `n`), or _NoMatch."""
    # A single int/float where `int[N]` / `float[N]` is expected: broadcast it.
    if n and isinstance(elem, T.ListType) and T.is_subtype(v.type, elem.elem):
        return c.emit_list([v] * n, elem.elem, rng)
    # A tuple of homogeneous elements where a list is expected.
    if isinstance(elem, T.ListType) and isinstance(v.type, T.TupleType) and \
            all(T.is_subtype(e, elem.elem) for e in v.type.elems) and \
            not T.contains_typevar(elem.elem):
        items = c.emit_tuple_unpack(v, rng)
        return c.emit_list(items, elem.elem, rng)
    # int -> float and Tensor -> number where a scalar is expected.
    if elem == T.FloatType and v.type == T.IntType:
        return c.emit_builtin("aten::Float", [NamedValue(v)], {}, rng)
    if elem in (T.IntType, T.FloatType, T.NumberType) and v.type == T.TensorType:
        name = {T.IntType: "aten::IntImplicit", T.FloatType: "aten::FloatImplicit",
                T.NumberType: "aten::ScalarImplicit"}[elem]
        if registry.overloads(name):
            return c.emit_builtin(name, [NamedValue(v)], {}, rng)
    raise _NoMatch


def _try_match(c: Any, schema: FunctionSchema, args: Sequence[NamedValue],
               kwargs: dict[str, NamedValue], self_value: Optional[Value],
               allow_conversions: bool, rng: Optional[SourceRange]) -> Matched:
    env: dict[str, T.Type] = {}
    positional = list(args)
    if self_value is not None:
        positional.insert(0, NamedValue(self_value))
    formals = schema.arguments
    positional = _pack_varargs_list(c, formals, positional, kwargs, rng)
    inputs: list[Value] = []
    used_kw: set[str] = set()
    pi = 0
    for arg in formals:
        if pi < len(positional) and not arg.kwarg_only:
            nv = positional[pi]
            pi += 1
        elif arg.name in kwargs:
            nv = kwargs[arg.name]
            used_kw.add(arg.name)
        elif arg.has_default:
            inputs.append(c.emit_constant_for(arg.default, T.substitute(arg.type, env), rng))
            continue
        else:
            raise _NoMatch(f"Argument {arg.name} not provided.")
        inputs.append(_convert(c, nv.value, arg, env, allow_conversions, nv.range or rng))
    if pi < len(positional):
        if not schema.is_vararg:
            raise _NoMatch
        inputs.extend(nv.value for nv in positional[pi:])
    if set(kwargs) - used_kw:
        raise _NoMatch(f"Keyword argument {sorted(set(kwargs) - used_kw)[0]} unknown.")
    rets = [T.substitute(r.type, env) for r in schema.returns]
    if any(T.contains_typevar(r) for r in rets):
        raise _NoMatch
    return Matched(schema, inputs, rets, env)


def _pack_varargs_list(c: Any, formals: Any, positional: list, kwargs: dict,
                       rng: Optional[SourceRange]) -> list:
    """`x.view(2, 3)` for `view(Tensor self, int[] size)`: trailing ints (or tensors) fill
    the one remaining `int[]` (`Tensor[]`) parameter, as PyTorch allows."""
    positional_formals = [a for a in formals if not a.kwarg_only]
    n = len(positional)
    if n < len(positional_formals) or not positional_formals:
        return positional
    last = positional_formals[-1]
    i = len(positional_formals) - 1
    elem = last.type.elem if isinstance(last.type, T.ListType) else None
    if elem not in (T.IntType, T.TensorType) or last.N or \
            not all(nv.value.type == elem for nv in positional[i:]):
        return positional
    packed = c.emit_list([nv.value for nv in positional[i:]], elem, rng)
    return positional[:i] + [NamedValue(packed)]


# Which overload a call picks depends only on the candidates and the argument types, so
# the choice is remembered: (ids of the candidate schemas, argument types) -> (the
# candidates, which pass matched, the index chosen, the value numbers the trial matches
# used, and the return types when the match takes the arguments as they are). The entry holds the candidates, so their ids cannot be reused while it lives.
# Only calls with more than one candidate (operator overloads, which live for the whole
# process) and "plain" argument types are remembered: class types have mutable methods
# (interfaces match on them), and a tuple's conversion emits nodes that depend on how
# the tuple was built (so the numbering of the trial matches would not be fixed).
_SELECTIONS: dict[tuple, tuple[tuple[FunctionSchema, ...], bool, int, int,
                               Optional[tuple[T.Type, ...]]]] = {}
_MAX_SELECTIONS = 4096
_PLAIN_CONTAINERS = (T.ListType, T.OptionalType, T.DictType, T.UnionType, T.FutureType)


def _plain(t: T.Type) -> bool:
    """Whether matching against `t` is decided by its structure alone."""
    if type(t) is T._Simple:
        return True
    return isinstance(t, _PLAIN_CONTAINERS) and all(_plain(x) for x in t.contained())


def _selection_key(schemas: Sequence[FunctionSchema], args: Sequence[NamedValue],
                   kwargs: dict[str, NamedValue], self_value: Optional[Value]) -> Optional[tuple]:
    """The cache key of a call's overload choice, or None when it must not be cached."""
    if len(schemas) < 2:
        return None
    types: list[Any] = [nv.value.type for nv in args]
    for k, nv in kwargs.items():
        types += (k, nv.value.type)
    if self_value is not None:
        types.append(self_value.type)
    for t in types:
        if not (type(t) is str or _plain(t)):
            return None
    return (tuple(map(id, schemas)), self_value is not None, len(args), *types)


def match_schemas(c: Any, schemas: Sequence[FunctionSchema], args: Sequence[NamedValue],
                  kwargs: dict[str, NamedValue], rng: Optional[SourceRange],
                  self_value: Optional[Value] = None, what: str = "") -> Matched:
    """The first schema the arguments match, or a CompileError listing the candidates."""
    graph: Graph = c.graph
    key = _selection_key(schemas, args, kwargs, self_value)
    if key is not None:
        hit = _SELECTIONS.get(key)
        if hit is not None:
            _, allow, index, used, direct = hit
            graph.skip_uniques(used)  # number values as if the trial matches had run
            if direct is not None:    # the arguments as they are, nothing converted or added
                values = [nv.value for nv in args]
                if self_value is not None:
                    values.insert(0, self_value)
                return Matched(schemas[index], values, list(direct))
            return _try_match(c, schemas[index], args, kwargs, self_value, allow, rng)
    first_unique = graph.next_unique
    for allow in (False, True):
        # The most specific overload wins (int+int picks add.int over add.Scalar), so the
        # result does not depend on the order kernels happen to be registered in.
        best: Optional[FunctionSchema] = None
        best_score = best_index = -1
        reasons: dict[int, str] = {}
        for i, s in enumerate(schemas):
            mark = _Checkpoint(graph)
            try:
                m = _try_match(c, s, args, kwargs, self_value, allow, rng)
            except _NoMatch as why:
                mark.rollback()
                if why.args:
                    reasons[i] = why.args[0]
                continue
            mark.rollback()
            score = _specificity(m)
            if score > best_score:
                best, best_score, best_index = s, score, i
        if best is not None:
            used = graph.next_unique - first_unique
            m = _try_match(c, best, args, kwargs, self_value, allow, rng)
            if key is not None:
                if len(_SELECTIONS) >= _MAX_SELECTIONS:
                    _SELECTIONS.clear()
                _SELECTIONS[key] = (tuple(schemas), allow, best_index, used,
                                    _direct(m, args, self_value, graph.next_unique -
                                            first_unique - used))
            return m
    shown = [T_name(nv.value.type) for nv in ([NamedValue(self_value)] if self_value else []) + list(args)]
    shown += [f"{k}={T_name(v.value.type)}" for k, v in kwargs.items()]
    name = what or (schemas[0].name if schemas else "call")
    cands = "\n".join("  " + str(s) + (f":\n  {reasons[i]}" if i in reasons else "")
                       for i, s in enumerate(schemas))
    raise CompileError(f"Arguments for call are not valid: {name}({', '.join(shown)}) matches "
                       f"none of the available variants:\n{cands}", rng)


def _direct(m: Matched, args: Sequence[NamedValue], self_value: Optional[Value],
            made: int) -> Optional[tuple[T.Type, ...]]:
    """`m`'s return types if it took the positional arguments as they are and made no
    value (no conversion, no default), so a call with the same types can skip matching."""
    values = [nv.value for nv in args]
    if self_value is not None:
        values.insert(0, self_value)
    if made or len(m.inputs) != len(values) or any(a is not b for a, b in zip(m.inputs, values)):
        return None
    return tuple(m.return_types)


def _specificity(m: Matched) -> int:
    """How closely the formal types fit the actual ones (higher: more specific)."""
    score = 0
    for arg, v in zip(m.schema.arguments, m.inputs):
        f = arg.type
        if f == v.type:
            score += 4
        elif isinstance(f, T.TypeVar) or T.contains_typevar(f):
            score += 3
        elif isinstance(f, T.OptionalType) and f.elem == v.type:
            score += 2
        elif f in (T.NumberType, T.AnyType) or isinstance(f, T.UnionType):
            score += 1
    return score


def T_name(t: T.Type) -> str:
    return t.annotation_str()


class _Checkpoint:
    """Where the insertion block ended, so a failed match can remove what it appended
    (the compiler always appends at the end of the current block)."""

    def __init__(self, graph: Graph) -> None:
        self.block = graph.insert_block
        self.length = len(self.block.nodes)

    def rollback(self) -> None:
        for n in reversed(self.block.nodes[self.length:]):
            n.destroy()
