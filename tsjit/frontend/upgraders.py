"""Operator upgraders: archives written before an operator changed keep their old behaviour.

PyTorch records a format version in each archive and, when it compiles archive code of an
older version, calls each changed operator through an upgrader: a TorchScript function with
the operator's old schema whose body computes the old result with today's operators. This
table is PyTorch 2.13's (19 entries): an entry applies to archives whose version is below
`below` (the version that changed the operator). Schema matching uses the old schema (so
`torch.linspace(0, 1)` without `steps` still compiles in a version-7 archive), and the call
is replaced by the upgrader's body, inlined, so the graph — and a re-save — holds only today's
operators. The bodies here are written from the documented old semantics:

- `div` before 4: integer inputs truncate (floor towards zero) instead of dividing exactly;
  the `rounding_mode` overloads behave as today but share the version.
- `full` before 5: with no dtype, the fill value makes a float tensor (even an int or bool).
- `linspace` before 8 and `logspace` before 9: `steps` may be omitted and means 100.
- `gelu` before 10: no `approximate` argument (the exact form).

`serialize.versions` derives the version an archive needs from the same table.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Optional

from ..ir import CompilationUnit, Function
from ..ir.diagnostics import SourceRange
from ..ir.schema import FunctionSchema, parse_schema
from ..ir.node_kinds import prim
from ..ir.passes.inlining import inline_call
from .parser import parse
from .resolver import Resolver
from .sugared import NamespaceValue, SugaredValue


@dataclass(frozen=True)
class Upgrader:
    operator: str      # the overload it replaces, e.g. "aten::div.Tensor"
    below: int         # applies to archives of versions below this one
    old_schema: str    # the overload's schema before the change
    source: str        # a TorchScript `def` with the old schema's parameters


_OPTS = "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None"
_OPT_ARGS = ("dtype: Optional[int]=None, layout: Optional[int]=None, "
             "device: Optional[Device]=None, pin_memory: Optional[bool]=None")
_PASS = "dtype=dtype, layout=layout, device=device, pin_memory=pin_memory"


def _div(name: str, schema: str, params: str, float_test: str, call: str, trunc: str,
         mode: bool) -> Upgrader:
    if mode:
        body = f"  return {call.replace('ARGS', 'rounding_mode=rounding_mode')}\n"
    else:
        body = (f"  if {float_test}:\n    return {trunc}\n"
                f"  return {call.replace('ARGS', 'rounding_mode=' + repr('trunc'))}\n")
    return Upgrader(f"aten::{name}", 4, f"aten::{name}{schema}",
                    f"def {name.replace('.', '_')}_0_3({params}:\n{body}")


_T = "torch.is_floating_point(self) or torch.is_floating_point(other)"
_S = "torch.is_floating_point(self) or isinstance(other, float)"
_O = _T + " or torch.is_floating_point(out)"

UPGRADERS: tuple[Upgrader, ...] = (
    _div("div.Tensor", "(Tensor self, Tensor other) -> Tensor",
         "self: Tensor, other: Tensor) -> Tensor", _T, "torch.div(self, other, ARGS)",
         "torch.true_divide(self, other)", False),
    _div("div.Tensor_mode", "(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
         "self: Tensor, other: Tensor, *, rounding_mode: Optional[str]) -> Tensor", _T,
         "torch.div(self, other, ARGS)", "", True),
    _div("div.Scalar", "(Tensor self, Scalar other) -> Tensor",
         "self: Tensor, other: number) -> Tensor", _S, "torch.div(self, other, ARGS)",
         "torch.true_divide(self, other)", False),
    _div("div.Scalar_mode", "(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor",
         "self: Tensor, other: number, *, rounding_mode: Optional[str]) -> Tensor", _S,
         "torch.div(self, other, ARGS)", "", True),
    _div("div.out", "(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
         "self: Tensor, other: Tensor, *, out: Tensor) -> Tensor", _O,
         "torch.div(self, other, ARGS, out=out)", "torch.true_divide(self, other, out=out)",
         False),
    _div("div.out_mode", "(Tensor self, Tensor other, *, str? rounding_mode, Tensor(a!) out) "
         "-> Tensor(a!)", "self: Tensor, other: Tensor, *, rounding_mode: Optional[str], "
         "out: Tensor) -> Tensor", _O, "torch.div(self, other, ARGS, out=out)", "", True),
    # in place: the true division of a float tensor is today's div_ without a mode
    _div("div_.Tensor", "(Tensor(a!) self, Tensor other) -> Tensor(a!)",
         "self: Tensor, other: Tensor) -> Tensor", _T, "torch.div_(self, other, ARGS)",
         "torch.div_(self, other)", False),
    _div("div_.Tensor_mode", "(Tensor(a!) self, Tensor other, *, str? rounding_mode) -> "
         "Tensor(a!)", "self: Tensor, other: Tensor, *, rounding_mode: Optional[str]) -> Tensor",
         _T, "torch.div_(self, other, ARGS)", "", True),
    _div("div_.Scalar", "(Tensor(a!) self, Scalar other) -> Tensor(a!)",
         "self: Tensor, other: number) -> Tensor", _S, "torch.div_(self, other, ARGS)",
         "torch.div_(self, other)", False),
    _div("div_.Scalar_mode", "(Tensor(a!) self, Scalar other, *, str? rounding_mode) -> "
         "Tensor(a!)", "self: Tensor, other: number, *, rounding_mode: Optional[str]) -> Tensor",
         _S, "torch.div_(self, other, ARGS)", "", True),
    Upgrader("aten::full", 5,
             f"aten::full(int[] size, Scalar fill_value, *, {_OPTS}) -> Tensor",
             f"def full_0_4(size: List[int], fill_value: number, *, {_OPT_ARGS}) -> Tensor:\n"
             f"  if dtype is None:\n"
             f"    return torch.full(size, float(fill_value), {_PASS})\n"
             f"  return torch.full(size, fill_value, {_PASS})\n"),
    Upgrader("aten::full.names", 5,
             f"aten::full.names(int[] size, Scalar fill_value, *, str[]? names, {_OPTS}) "
             "-> Tensor",
             f"def full_names_0_4(size: List[int], fill_value: number, *, "
             f"names: Optional[List[str]], {_OPT_ARGS}) -> Tensor:\n"
             f"  return torch.full(size, fill_value, names=names, {_PASS})\n"),
    Upgrader("aten::full.out", 5,
             "aten::full.out(int[] size, Scalar fill_value, *, Tensor(a!) out) -> Tensor(a!)",
             "def full_out_0_4(size: List[int], fill_value: number, *, out: Tensor) -> Tensor:\n"
             "  return torch.full(size, fill_value, out=out)\n"),
    Upgrader("aten::linspace", 8,
             f"aten::linspace(Scalar start, Scalar end, int? steps=None, *, {_OPTS}) -> Tensor",
             f"def linspace_0_7(start: number, end: number, steps: Optional[int]=None, *, "
             f"{_OPT_ARGS}) -> Tensor:\n"
             f"  if steps is None:\n"
             f"    return torch.linspace(start, end, 100, {_PASS})\n"
             f"  return torch.linspace(start, end, steps, {_PASS})\n"),
    Upgrader("aten::linspace.out", 8,
             "aten::linspace.out(Scalar start, Scalar end, int? steps=None, *, Tensor(a!) out) "
             "-> Tensor(a!)",
             "def linspace_out_0_7(start: number, end: number, steps: Optional[int]=None, *, "
             "out: Tensor) -> Tensor:\n"
             "  if steps is None:\n"
             "    return torch.linspace(start, end, 100, out=out)\n"
             "  return torch.linspace(start, end, steps, out=out)\n"),
    Upgrader("aten::logspace", 9,
             f"aten::logspace(Scalar start, Scalar end, int? steps=None, float base=10.0, *, "
             f"{_OPTS}) -> Tensor",
             f"def logspace_0_8(start: number, end: number, steps: Optional[int]=None, "
             f"base: float=10.0, *, {_OPT_ARGS}) -> Tensor:\n"
             f"  if steps is None:\n"
             f"    return torch.logspace(start, end, 100, base, {_PASS})\n"
             f"  return torch.logspace(start, end, steps, base, {_PASS})\n"),
    Upgrader("aten::logspace.out", 9,
             "aten::logspace.out(Scalar start, Scalar end, int? steps=None, float base=10.0, *, "
             "Tensor(a!) out) -> Tensor(a!)",
             "def logspace_out_0_8(start: number, end: number, steps: Optional[int]=None, "
             "base: float=10.0, *, out: Tensor) -> Tensor:\n"
             "  if steps is None:\n"
             "    return torch.logspace(start, end, 100, base, out=out)\n"
             "  return torch.logspace(start, end, steps, base, out=out)\n"),
    Upgrader("aten::gelu", 10, "aten::gelu(Tensor self) -> Tensor",
             "def gelu_0_9(self: Tensor) -> Tensor:\n"
             "  return torch.gelu(self, approximate=\"none\")\n"),
    Upgrader("aten::gelu.out", 10, "aten::gelu.out(Tensor self, *, Tensor(a!) out) -> Tensor",
             "def gelu_out_0_9(self: Tensor, *, out: Tensor) -> Tensor:\n"
             "  return torch.gelu(self, approximate=\"none\", out=out)\n"),
)

# The newest version any upgrader applies below: archives of this version or newer need none.
NEWEST_CHANGE = max(u.below for u in UPGRADERS)


def for_operator(name: str, version: Optional[int]) -> dict[str, Upgrader]:
    """The upgraders of operator `name` ("aten::div") an archive of `version` needs, by the
    overload each replaces; none for code that is not from an archive (version None)."""
    if version is None or version >= NEWEST_CHANGE:
        return {}
    return _by_name(version).get(name, {})


@lru_cache(maxsize=None)
def _by_name(version: int) -> dict[str, dict[str, Upgrader]]:
    out: dict[str, dict[str, Upgrader]] = {}
    for u in UPGRADERS:
        if version < u.below:
            out.setdefault(u.operator.partition(".")[0], {})[u.operator] = u
    return out


_BY_SCHEMA: dict[int, Upgrader] = {}    # id(old schema) -> its upgrader


@lru_cache(maxsize=None)
def old_schema(u: Upgrader) -> FunctionSchema:
    """The schema archive code of an old version is matched against."""
    s = parse_schema(u.old_schema)
    _BY_SCHEMA[id(s)] = u
    return s


@lru_cache(maxsize=None)
def old_schemas(name: str, version: Optional[int]) -> dict[str, FunctionSchema]:
    """The old schemas of operator `name`'s overloads for an archive of `version`."""
    return {q: old_schema(u) for q, u in for_operator(name, version).items()}


def emit_upgraded(c: Any, schema: FunctionSchema, inputs: list, rng: SourceRange) -> Any:
    """Emit a call matched against an old schema as the upgrader's body, inlined."""
    fn = function(_BY_SCHEMA[id(schema)], type(c))
    ref = c.emit_function_constant(fn, rng)
    n = c.insert(prim.CallFunction, [ref] + list(inputs),
                 [r.type for r in fn.schema.returns], rng)
    n.schema = fn.schema
    n.callee = fn
    return inline_call(n, fn)[0]


class _UpgraderResolver(Resolver):
    """Upgrader bodies are written as archive code: `torch.<op>` names an operator."""

    def resolve_name(self, name: str, c: Any, rng: SourceRange) -> Optional[SugaredValue]:
        if name == "torch":
            return NamespaceValue("aten", "torch")
        return super().resolve_name(name, c, rng)


_CU = CompilationUnit()


_FUNCTIONS: dict[Upgrader, Function] = {}


def function(u: Upgrader, compiler: Any) -> Function:
    """The upgrader's function, compiled once per process by `compiler` (the compiler class
    of the code being upgraded: this module does not import the compiler, which imports it)."""
    fn = _FUNCTIONS.get(u)
    if fn is None:
        d = parse(u.source, f"<upgrader {u.operator}>").body[0]
        fn = Function(f"__torch__.torch.jit.upgraders.{d.name}")
        fn.source_def = d
        compiler(_CU, _UpgraderResolver(), fn, d).compile()
        _FUNCTIONS[u] = fn
    return fn
