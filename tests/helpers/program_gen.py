"""Generated TorchScript-subset programs, for differential tests against CPython.

API
---
`programs(max_depth=2, max_statements=4, for_pytorch=False, optional=True, jumps=True)`
    A hypothesis strategy of `Program`s: small, well-typed functions over int, float, bool,
    str, Optional[int], List[int], List[str] and Dict[str, int] with nested if/elif/else,
    while and for loops (range, lists, strings, enumerate, zip, dict items), break,
    continue, early return, raise, assert, augmented assignment, comprehensions, string,
    list and dict methods, min/max/abs/len/sum/sorted, f-strings, a helper function and
    Optional refinement. Each program comes with drawn arguments.
`Program`
    `.source` (the text: `def f(...)`, maybe preceded by a helper `def h0(...)`), `.name`
    (`"f"`), `.params` (`[(name, type_str)]`), `.args` (a tuple of argument values) and
    `.arguments()` (a strategy for more argument tuples).
`run_python(source, args, name="f") -> Outcome` and
`run_program(source, args, executor=None, name="f") -> Outcome`
    Run the function in CPython, or compiled with `tsjit.jit.CompilationUnit` (under
    `tsjit.jit.set_executor(executor)` when `executor` is given). Arguments are deep-copied,
    so one tuple serves several runs.
`run_callable(fn, args) -> Outcome`
    Call an already scripted function or module.
`run_torchscript(source, args, name="f") -> Outcome`
    Script and run it with PyTorch (when installed): checks the generator stays inside
    TorchScript and that TorchScript agrees with CPython on it.
`Outcome`: `.value` or `.error` (the exception kind's name); `same_outcome(a, b)` compares
    two loosely: equal values of the same types, or both raising (the kind must agree when
    both name one other than RuntimeError).
`check_program(program, args=None, executor=None)`: assert tsjit gives what CPython gives.
`module_source(program, package)`: a Python module holding the program and a module class
    `M` whose forward calls it, written against `package` ("torch" or "tsjit"); archives
    hold modules.
`GLOBALS`: the names the sources use besides builtins (the typing names).

Programs avoid what TorchScript deliberately does differently from Python, so any
difference is a tsjit bug:
- int64 overflow: every int expression has a static magnitude bound; products that could
  leave the range wrap an operand (`% 1000`), and assignments clamp to +-10**6;
- dead code: TorchScript removes pure operations whose results are unused, so a failing
  `l[9]` whose value is dead raises in Python only. Every assignment therefore reads its
  target (`v = max(v, e)`, `v += e`) and the function returns every variable, so every
  computed value is live; and the operands of and/or, conditional expressions and
  chained comparisons never raise (`x and False` folds without `x`);
- mutation while iterating (Python sees appended elements, TorchScript's trip count is
  fixed): a list or dict is never mutated inside a loop over it, and list/dict
  assignments always bind a fresh value (no aliases);
- `x is None` where x is statically an int folds to False (as in PyTorch), so an
  Optional variable's value is always read where it is not None;
- str(float), int / 0 (inf in TorchScript), `str.replace('', ...)` and `str.count('')`
  (they loop forever in TorchScript), mixed-type min/max, float `//` and `%`,
  `str(List[str])` (no quotes in TorchScript) and `//=` (not in TorchScript) are not
  generated.
"""
from __future__ import annotations

import contextlib
import copy
import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from hypothesis import strategies as st

from tests.helpers.executors import executor as run_under

INT, FLOAT, BOOL, STR = "int", "float", "bool", "str"
LINT, LSTR, DICT, OPT = "List[int]", "List[str]", "Dict[str, int]", "Optional[int]"
TYPES = [INT, FLOAT, BOOL, STR, LINT, LSTR, DICT, OPT]
MUTABLE = (LINT, LSTR, DICT)

GLOBALS = {"List": List, "Dict": Dict, "Tuple": Tuple, "Optional": Optional}

INT_CLAMP = 10 ** 6          # int variables are clamped to this at plain assignments
INT_VAR = 10 ** 10           # ... and may drift this far by augmented assignments in loops
INT_LIMIT = 2 ** 60          # no int expression may exceed this (int64 is 2**63)
FLOAT_CLAMP = 1e6
FLOAT_VAR = 1e12             # (`*=` only by factors of at most 1)
FLOAT_LIMIT = 1e200
LEN_CLAMP = 12               # str/list assignments truncate to this many items ...
LEN_VAR = 400                # ... and may grow this far by appends in loops
STR_POOL = ["", "a", "ab", "b,a", " a1 ", "12", "A,b,", "ba b"]
KEYS = ["a", "b", "c", "ab"]
SEPS = [",", " ", "a"]


@dataclass(frozen=True)
class E:
    """A generated expression: its text and a bound (magnitude for numbers, length for
    str/list/dict)."""
    text: str
    bound: float = 1


@dataclass
class Program:
    """A generated function (and helper) with one drawn argument tuple."""
    source: str
    name: str
    params: List[Tuple[str, str]]
    args: tuple

    def arguments(self) -> st.SearchStrategy:
        """A strategy for more argument tuples of this program."""
        return st.tuples(*[value_of(t) for _, t in self.params])


def value_of(t: str) -> st.SearchStrategy:
    """Argument values of type `t`."""
    text = st.one_of(st.sampled_from(STR_POOL), st.text("ab,1 A", max_size=5))
    ints = st.integers(-20, 20)
    return {
        INT: ints,
        FLOAT: st.one_of(st.sampled_from([0.0, 0.5, -1.5, 3.0]),
                         st.floats(-100, 100, allow_nan=False, allow_infinity=False)),
        BOOL: st.booleans(),
        STR: text,
        LINT: st.lists(ints, max_size=5),
        LSTR: st.lists(text, max_size=4),
        DICT: st.dictionaries(st.sampled_from(KEYS), ints, max_size=3),
        OPT: st.one_of(st.none(), ints),
    }[t]


# --- running -----------------------------------------------------------------------------

@dataclass
class Outcome:
    """What running a program gave: a value, or the name of the exception kind."""
    value: Any = None
    error: Optional[str] = None
    message: str = ""

    def __repr__(self) -> str:
        return f"raises {self.error}: {self.message}" if self.error else f"returns {self.value!r}"


def run_python(source: str, args: tuple, name: str = "f") -> Outcome:
    """Run `name` from `source` in CPython."""
    ns: dict = dict(GLOBALS)
    exec(compile(source, "<generated>", "exec"), ns)
    try:
        return Outcome(ns[name](*copy.deepcopy(args)))
    except Exception as e:   # any exception is an outcome to compare
        return Outcome(error=type(e).__name__, message=str(e))


def run_program(source: str, args: tuple, executor: Optional[str] = None,
                name: str = "f") -> Outcome:
    """Compile `source` with tsjit and run `name`; compile errors propagate (a generated
    program is always valid TorchScript), run-time errors are outcomes."""
    import tsjit
    with run_under(executor):
        return run_callable(getattr(tsjit.jit.CompilationUnit(source, GLOBALS), name), args)


def run_callable(fn: Callable, args: tuple) -> Outcome:
    """Call a scripted function or module on (a copy of) `args`; its errors are outcomes."""
    import tsjit
    try:
        return Outcome(fn(*copy.deepcopy(args)))
    except tsjit.ScriptError as e:
        return Outcome(error=e.kind, message=e.message)


def run_torchscript(source: str, args: tuple, name: str = "f") -> Outcome:
    """Script `name` with PyTorch's torch.jit.script (from a temporary module, since it
    reads source files) and run it; the oracle for TorchScript's own semantics."""
    import importlib.util
    import tempfile
    import warnings

    import torch
    with tempfile.TemporaryDirectory() as tmp:
        path = f"{tmp}/generated_program.py"
        with open(path, "w") as fh:
            fh.write("from typing import Dict, List, Optional, Tuple\n\n" + source)
        spec = importlib.util.spec_from_file_location("generated_program", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn = torch.jit.script(getattr(module, name))
    try:
        return Outcome(fn(*copy.deepcopy(args)))
    except Exception as e:   # TorchScript re-raises errors under its own kinds
        return Outcome(error="RuntimeError", message=str(e).strip().splitlines()[-1])


def same_value(a: Any, b: Any) -> bool:
    """Equal, with the same types all the way down (1 is not True, 1.0 is not 1)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return (list(a) == list(b)) and all(same_value(a[k], b[k]) for k in a)
    return a == b


def same_outcome(expected: Outcome, got: Outcome, kinds: bool = True) -> bool:
    """Same value, or both raise (with `kinds`, of the same kind when `got` names one other
    than RuntimeError)."""
    if expected.error or got.error:
        if not (expected.error and got.error):
            return False
        return not kinds or got.error == "RuntimeError" or got.error == expected.error
    return same_value(expected.value, got.value)


def check_program(program: Program, args: Optional[tuple] = None,
                  executor: Optional[str] = None) -> None:
    """Assert that tsjit runs `program` as CPython does."""
    args = program.args if args is None else args
    expected = run_python(program.source, args, program.name)
    got = run_program(program.source, args, executor, program.name)
    assert same_outcome(expected, got), (
        f"\n{program.source}\nargs: {args!r}\nCPython {expected}\ntsjit   {got}")


def module_source(program: Program, package: str) -> str:
    """The program and `class M(<package>.nn.Module)` whose forward calls `f`."""
    header = program.source.split("def f(", 1)[1].split("\n", 1)[0]
    ret = header.rsplit("->", 1)[1].rstrip(":").strip() if "->" in header else "None"
    params = ", ".join(f"{n}: {t}" for n, t in program.params)
    names = ", ".join(n for n, _ in program.params)
    return (f"from typing import Dict, List, Optional, Tuple\nimport {package}\n\n" + program.source +
            f"\n\nclass M({package}.nn.Module):\n    def forward(self, {params}) -> {ret}:\n"
            f"        return f({names})\n")


# --- generation --------------------------------------------------------------------------

@dataclass
class _Scope:
    """What the statement being generated may use."""
    vars: Dict[str, str]                       # assignable variables -> type
    readonly: Dict[str, Tuple[str, float]] = field(default_factory=dict)  # loop names
    frozen: frozenset = frozenset()            # containers being iterated over
    in_loop: bool = False


class _Builder:
    """Draws one program; methods take the generation depth left."""

    def __init__(self, draw: Callable, max_depth: int, max_statements: int,
                 nonzero_divisors: bool = False, types: Tuple[str, ...] = tuple(TYPES),
                 jumps: bool = True) -> None:
        self.draw = draw
        self.types = list(types)                   # of parameters and variables
        self.max_depth = max_depth
        self.max_statements = max_statements
        self.counter = 0
        self.nonzero_divisors = nonzero_divisors   # see divisor()
        self.helper: Optional[str] = None      # name of the helper `(int, int) -> int`
        self.scope = _Scope({})
        self.returns = ""                      # the return statement of the function
        self.none_tests = True                 # may conditions test `o is None`?
        self.jumps = jumps                     # may blocks return/break/continue/raise?
        self.raising = True                    # may expressions raise (IndexError, ...)?

    # -- small helpers
    def fresh(self, prefix: str) -> str:
        """A name used nowhere else."""
        self.counter += 1
        return f"{prefix}_{self.counter}"

    def pick(self, options: list) -> Any:
        """One of `options` (shrinks towards the first)."""
        return options[self.draw(st.integers(0, len(options) - 1))]

    def chance(self, p_percent: int) -> bool:
        """True with roughly the given chance."""
        return self.draw(st.integers(0, 99)) < p_percent

    def names(self, t: str, assignable: bool = False) -> List[Tuple[str, float]]:
        """Variables of type `t` in scope with their bounds."""
        out = [(n, _var_bound(t)) for n, vt in self.scope.vars.items() if vt == t]
        if not assignable:
            out += [(n, b) for n, (vt, b) in self.scope.readonly.items() if vt == t]
        return out

    # -- expressions
    def expr(self, t: str, depth: int) -> E:
        """An expression of type `t` (lists and dicts may be variables: read only)."""
        gen = {INT: self.int_expr, FLOAT: self.float_expr, BOOL: self.bool_expr,
               STR: self.str_expr, LINT: self.list_expr, LSTR: self.list_expr,
               DICT: self.dict_expr}[t]
        if t in MUTABLE:
            vs = self.names(t)
            if vs and self.chance(50):
                n, b = self.pick(vs)
                return E(n, b)
            return gen(t, depth) if t in (LINT, LSTR) else gen(depth)
        return gen(depth)

    def divisor(self, text: str) -> str:
        """The divisor of a `%` or `//`: as drawn, or (for programs PyTorch must survive)
        never zero: PyTorch 2.13's int `%` by zero kills the process with SIGFPE, at run
        time and when its constant propagation folds one, even on a path never taken."""
        return f"max(1, {text})" if self.nonzero_divisors else text

    def leaf(self, t: str, literals: List[E]) -> E:
        """A variable of type `t` or a literal."""
        vs = self.names(t)
        if vs and self.chance(60):
            n, b = self.pick(vs)
            return E(n, b)
        return self.pick(literals)

    def int_expr(self, depth: int) -> E:
        """An int expression."""
        lits = [E(str(i), abs(i)) for i in (0, 1, 2, 3, -1, 7, -5, 100)]
        if depth <= 0:
            return self.leaf(INT, lits)
        d = depth - 1
        kind = self.draw(st.integers(0, 17))
        if kind == 0 or not self.raising and kind in (3, 7, 8, 11, 13, 14, 17):
            return self.leaf(INT, lits)
        if kind == 1:
            a, b = self.int_expr(d), self.int_expr(d)
            op = self.pick(["+", "-"])
            return E(f"({a.text} {op} {b.text})", a.bound + b.bound)
        if kind == 2:
            a, b = self.int_expr(d), self.int_expr(d)
            a, b = _fit_product(a, b, INT_LIMIT)
            return E(f"({a.text} * {b.text})", a.bound * b.bound)
        if kind == 3:   # may divide by zero
            a, b = self.int_expr(d), self.int_expr(d)
            op = self.pick(["//", "%"])
            return E(f"({a.text} {op} {self.divisor(b.text)})", a.bound if op == "//" else b.bound)
        if kind == 4:
            a = self.int_expr(d)
            fn = self.pick(["-", "abs"])
            return E(f"(-{a.text})" if fn == "-" else f"abs({a.text})", a.bound)
        if kind == 5:
            a, b = self.int_expr(d), self.int_expr(d)
            return E(f"{self.pick(['max', 'min'])}({a.text}, {b.text})", max(a.bound, b.bound))
        if kind == 6:
            t = self.pick([STR, LINT, LSTR, DICT])
            return E(f"len({self.expr(t, d).text})", LEN_VAR * 4)
        if kind == 7:   # may be out of range
            lst = self.expr(LINT, d)
            return E(f"{lst.text}[{self.index(lst, d)}]", INT_VAR)
        if kind == 8:
            dct, k = self.expr(DICT, d), self.key(d)
            if self.chance(50):
                return E(f"{dct.text}[{k}]", INT_VAR)       # may be missing
            default = self.int_expr(d)
            return E(f"{dct.text}.get({k}, {default.text})", max(INT_VAR, default.bound))
        if kind == 9:
            with self.pure():
                a, b, c = self.int_expr(d), self.int_expr(d), self.bool_expr(d)
            return E(f"({a.text} if {c.text} else {b.text})", max(a.bound, b.bound))
        if kind == 10:
            s, sub = self.str_expr(d), self.str_expr(d)
            if self.chance(30):   # count('') loops forever in TorchScript
                return E(f"{s.text}.count({self.pick(['a', 'b', ',', 'ab'])!r})", s.bound)
            return E(f"{s.text}.{self.pick(['find', 'rfind'])}({sub.text})", s.bound + 1)
        if kind == 11:
            lst = self.expr(LINT, d)
            fn = self.pick(["sum", "max", "min"])   # max/min of [] raise
            return E(f"{fn}({lst.text})", INT_VAR * (lst.bound if fn == "sum" else 1))
        if kind == 12:
            opt = self.names(OPT)
            if opt:
                o, _ = self.pick(opt)
                e = self.int_expr(d)
                return E(f"({o} if {o} is not None else {e.text})", max(INT_VAR, e.bound))
            return self.leaf(INT, lits)
        if kind == 13 and self.helper:
            a, b = self.int_expr(d), self.int_expr(d)
            return E(f"{self.helper}({_clamp_int(a)}, {_clamp_int(b)})", INT_CLAMP)
        if kind == 14:
            lst, x = self.expr(LINT, d), self.int_expr(d)
            if self.chance(50):
                return E(f"{lst.text}.count({x.text})", lst.bound)
            return E(f"{lst.text}.index({x.text})", lst.bound)     # may be missing
        if kind == 15:
            f = self.float_expr(d)
            return E(f"int({_clamp_float(f)})", FLOAT_CLAMP)
        if kind == 16:
            return E(f"int({self.bool_expr(d).text})", 1)
        s = self.str_expr(d)   # int() of a string may fail
        # at most 9 characters: int() of a longer digit string could leave int64
        return E(f"int({s.text}[:9])" if self.chance(30) else f"len({s.text})", 10 ** 9)

    def float_expr(self, depth: int) -> E:
        """A float expression (never dividing by zero, never overflowing)."""
        lits = [E(x, abs(float(x))) for x in ("0.0", "0.5", "-1.5", "2.25", "3.0", "0.001")]
        if depth <= 0:
            return self.leaf(FLOAT, lits)
        d = depth - 1
        kind = self.draw(st.integers(0, 9))
        if kind == 0:
            return self.leaf(FLOAT, lits)
        if kind == 1:
            a = self.float_expr(d)
            b = self.float_expr(d) if self.chance(60) else self.int_expr(d)
            a, b = (b, a) if self.chance(50) else (a, b)
            return E(f"({a.text} {self.pick(['+', '-'])} {b.text})", a.bound + b.bound)
        if kind == 2:
            a, b = self.float_expr(d), self.float_expr(d)
            if a.bound * b.bound > FLOAT_LIMIT:
                a = E(_clamp_float(a), FLOAT_CLAMP)
                b = E(_clamp_float(b), FLOAT_CLAMP)
            return E(f"({a.text} * {b.text})", a.bound * b.bound)
        if kind == 3:
            a, b = self.float_expr(d), self.float_expr(d)
            return E(f"({a.text} / (abs({b.text}) + 1.0))", a.bound)
        if kind == 4:
            a = self.int_expr(d)
            if self.chance(50):
                return E(f"float({a.text})", a.bound)
            return E(f"({a.text} / {self.pick(['2', '-3', '7'])})", a.bound)
        if kind == 5:
            a = self.float_expr(d)
            return E(f"{self.pick(['abs', '-'])}({a.text})", a.bound)
        if kind == 6:
            a, b = self.float_expr(d), self.float_expr(d)
            return E(f"{self.pick(['max', 'min'])}({a.text}, {b.text})", max(a.bound, b.bound))
        if kind == 7:
            with self.pure():
                a, b, c = self.float_expr(d), self.float_expr(d), self.bool_expr(d)
            return E(f"({a.text} if {c.text} else {b.text})", max(a.bound, b.bound))
        if kind == 8:
            a = self.int_expr(d)
            return E(f"float(({a.text} % 100) ** {self.pick(['0', '1', '2', '3'])})", 10 ** 6)
        a = self.float_expr(d)
        return E(f"float(round({a.text}))", a.bound + 1)

    def bool_expr(self, depth: int) -> E:
        """A bool expression."""
        lits = [E("True"), E("False")]
        if depth <= 0:
            return self.leaf(BOOL, lits)
        d = depth - 1
        kind = self.draw(st.integers(0, 11))
        cmp = ["<", "<=", ">", ">=", "==", "!="]
        if kind == 0:
            return self.leaf(BOOL, lits)
        if kind == 1:
            t = self.pick([INT, FLOAT, STR])
            a, b = self.expr(t, d), self.expr(t, d)
            return E(f"({a.text} {self.pick(cmp)} {b.text})")
        if kind == 2:
            with self.pure():
                a, b, c = self.int_expr(d), self.int_expr(d), self.int_expr(d)
            return E(f"({a.text} {self.pick(cmp)} {b.text} {self.pick(cmp)} {c.text})")
        if kind == 3:
            with self.pure():
                a, b = self.bool_expr(d), self.bool_expr(d)
            return E(f"({a.text} {self.pick(['and', 'or'])} {b.text})")
        if kind == 4:
            return E(f"(not {self.bool_expr(d).text})")
        if kind == 5:
            t = self.pick([LINT, LSTR, DICT, STR])
            item = {LINT: INT, LSTR: STR, DICT: STR, STR: STR}[t]
            return E(f"({self.expr(item, d).text} {self.pick(['in', 'not in'])} "
                     f"{self.expr(t, d).text})")
        if kind == 6:
            s = self.str_expr(d)
            if self.chance(50):
                return E(f"{s.text}.{self.pick(['startswith', 'endswith'])}"
                         f"({self.str_expr(d).text})")
            return E(f"{s.text}.{self.pick(['isdigit', 'isalpha', 'isspace', 'islower'])}()")
        if kind == 7:
            t = self.pick([LINT, LSTR])
            return E(f"({self.expr(t, d).text} {self.pick(['==', '!='])} "
                     f"{self.expr(t, d).text})")
        if kind == 8:
            opt = self.names(OPT) if self.none_tests else []
            if opt:
                return E(f"({self.pick(opt)[0]} {self.pick(['is', 'is not'])} None)")
            return self.leaf(BOOL, lits)
        if kind == 9:
            with self.pure():
                a, b, c = self.bool_expr(d), self.bool_expr(d), self.bool_expr(d)
            return E(f"({a.text} if {c.text} else {b.text})")
        if kind == 10:
            return E(f"bool({self.int_expr(d).text})")
        return self.leaf(BOOL, lits)

    def str_expr(self, depth: int) -> E:
        """A str expression."""
        lits = [E(repr(s), len(s)) for s in STR_POOL]
        if depth <= 0:
            return self.leaf(STR, lits)
        d = depth - 1
        kind = self.draw(st.integers(0, 10))
        if kind == 0 or not self.raising and kind in (5, 10):
            return self.leaf(STR, lits)
        if kind == 1:
            a, b = self.str_expr(d), self.str_expr(d)
            return E(f"({a.text} + {b.text})", a.bound + b.bound)
        if kind == 2:
            a = self.str_expr(d)
            return E(f"{a.text}.{self.pick(['upper', 'lower', 'strip', 'lstrip', 'rstrip'])}()",
                     a.bound)
        if kind == 3:
            a = self.str_expr(d)
            old, new = self.pick(["a", "b", ",", " a"]), self.pick(["", "x", "ab"])
            return E(f"{a.text}.replace({old!r}, {new!r})", a.bound * 2)
        if kind == 4:
            a = self.str_expr(d)
            return E(f"{a.text}[{self.slice(d)}]", a.bound)
        if kind == 5:   # may be out of range
            a = self.str_expr(d)
            return E(f"{a.text}[{self.index(a, d)}]", 1)
        if kind == 6:
            x = self.expr(self.pick([INT, BOOL]), d)
            return E(f"str({_clamp_int(x) if x.bound > 1 else x.text})", 8)
        if kind == 7:
            ls = self.expr(LSTR, d)
            return E(f"{self.pick(SEPS)!r}.join({ls.text})", ls.bound * (LEN_VAR + 1))
        if kind == 8:
            a, i = self.str_expr(0), self.int_expr(0)   # leaves: f-strings do not nest
            return E(f"f\"{{{a.text}}}-{{{_clamp_int(i)}}}\"", a.bound + 9)
        if kind == 9:
            with self.pure():
                a, b, c = self.str_expr(d), self.str_expr(d), self.bool_expr(d)
            return E(f"({a.text} if {c.text} else {b.text})", max(a.bound, b.bound))
        ls = self.expr(LSTR, d)
        return E(f"{ls.text}[{self.index(ls, d)}]", LEN_VAR)

    def list_expr(self, t: str, depth: int) -> E:
        """A fresh list value of type `t` (never an alias of a variable)."""
        item = INT if t == LINT else STR
        d = depth - 1
        kind = self.draw(st.integers(0, 7)) if depth > 0 else 0
        if kind == 0:
            items = [self.expr(item, d) for _ in range(self.draw(st.integers(1, 3)))]
            return E("[" + ", ".join(i.text for i in items) + "]", len(items))
        if kind == 1:
            a, b = self.expr(t, d), self.expr(t, d)
            return E(f"({a.text} + {b.text})", a.bound + b.bound)
        if kind == 2:
            a = self.expr(t, d)
            return E(f"{a.text}[{self.slice(d)}]", a.bound)
        if kind == 3:
            a = self.expr(t, d)
            return E(f"{self.pick(['sorted', 'list'])}({a.text})", a.bound)
        if kind == 4:
            a = self.expr(t, d)
            return E(f"{a.text}.copy()", a.bound)
        if kind == 5:   # comprehension
            src_t = self.pick([LINT, LSTR])
            src = self.expr(src_t, d)
            x = self.fresh("c")
            with self.binding(x, INT if src_t == LINT else STR, INT_VAR if src_t == LINT else LEN_VAR):
                body = self.expr(item, d)
            return E(f"[{_clamp_int(body) if item == INT else body.text} for {x} in {src.text}]",
                     src.bound)
        if kind == 6:
            if t == LINT:
                n = self.pick(["3", "0", "5"])
                x = self.fresh("c")
                with self.binding(x, INT, 5):
                    body = self.int_expr(d)
                return E(f"[{_clamp_int(body)} for {x} in range({n})]", 5)
            s = self.str_expr(d)
            if self.chance(50):
                return E(f"{s.text}.split({self.pick(SEPS)!r})", s.bound + 1)
            return E(f"{s.text}.split()", s.bound + 1)
        dct = self.expr(DICT, d)
        return E(f"list({dct.text}.{'values' if t == LINT else 'keys'}())", len(KEYS) + LEN_VAR)

    def dict_expr(self, depth: int) -> E:
        """A fresh Dict[str, int] value."""
        d = depth - 1
        kind = self.draw(st.integers(0, 3)) if depth > 0 else 0
        if kind == 0:
            n = self.draw(st.integers(1, 2))
            items = [f"{self.key(d)}: {_clamp_int(self.int_expr(d))}" for _ in range(n)]
            return E("{" + ", ".join(items) + "}", n)
        if kind == 1:
            return E(f"{self.expr(DICT, d).text}.copy()", LEN_VAR)
        if kind == 2:
            ls = self.expr(LSTR, d)
            x = self.fresh("c")
            with self.binding(x, STR, LEN_VAR):
                v = self.int_expr(d)
            return E(f"{{{x}: {_clamp_int(v)} for {x} in {ls.text}}}", ls.bound)
        src = self.expr(DICT, d)
        k, v = self.fresh("k"), self.fresh("v")
        with self.binding(k, STR, LEN_VAR), self.binding(v, INT, INT_VAR):
            val = self.int_expr(d)
        return E(f"{{{k}: {_clamp_int(val)} for {k}, {v} in {src.text}.items()}}", src.bound)

    def key(self, depth: int) -> str:
        """A dict key: mostly one of a few literals, so lookups hit."""
        if self.chance(70):
            return repr(self.pick(KEYS))
        return self.str_expr(depth).text

    def index(self, seq: E, depth: int) -> str:
        """An index into `seq`: mostly in range, sometimes not."""
        kind = self.draw(st.integers(0, 3))
        if kind == 0:
            return self.pick(["0", "-1", "1", "2"])
        if kind == 1:
            return f"{self.int_expr(depth).text} % {self.divisor(f'len({seq.text})')}"   # len 0 divides by 0
        return _clamp_int(self.int_expr(depth), 6)

    def slice(self, depth: int) -> str:
        """A slice with literal or computed bounds."""
        a = self.pick(["", "1", "-2", _clamp_int(self.int_expr(depth), 8)])
        b = self.pick(["", "3", "-1", _clamp_int(self.int_expr(depth), 8)])
        step = self.pick(["", "", ":-1", ":2"])
        return f"{a}:{b}{step}"

    @contextlib.contextmanager
    def binding(self, name: str, t: str, bound: float) -> Iterator[None]:
        """`name` is readable (not assignable) inside the block."""
        self.scope.readonly[name] = (t, bound)
        try:
            yield
        finally:
            del self.scope.readonly[name]

    @contextlib.contextmanager
    def loop_scope(self, frozen: Tuple[str, ...] = ()) -> Iterator[None]:
        """Inside a loop body: break/continue allowed, `frozen` containers unmutated."""
        saved = (self.scope.frozen, self.scope.in_loop)
        self.scope.frozen = self.scope.frozen | frozenset(frozen)
        self.scope.in_loop = True
        try:
            yield
        finally:
            self.scope.frozen, self.scope.in_loop = saved

    # -- statements
    def condition(self) -> str:
        """The condition of an if/while: it never refines an Optional, since an exit
        under it would leave the variable int-typed after the if (PyTorch keeps the
        refinement), and a loop carrying it would then reject Optional assignments."""
        saved, self.none_tests = self.none_tests, False
        try:
            return self.bool_expr(2).text
        finally:
            self.none_tests = saved

    def raise_condition(self) -> str:
        """A condition that names a variable: one known at compile time (`True`,
        `0 < 0`) would make the raise unconditional, and whatever pure expression came
        before it dead code, which TorchScript removes, raising or not, where Python
        evaluates it (e.g. an index out of range)."""
        names = list(self.scope.vars) + list(self.scope.readonly)
        c = self.condition()
        if not any(re.search(rf"\b{re.escape(n)}\b", c) for n in names):
            c = f"({c}) and len(str({self.pick(names)})) >= 0" if names else c
        return c

    @contextlib.contextmanager
    def pure(self) -> Iterator[None]:
        """Expressions that cannot raise: the operands of and/or, conditional expressions
        and chained comparisons. TorchScript folds `x and False`, `x or True` and
        `a if x else a` without evaluating `x` (its pure operations are dead code, as in
        PyTorch), where Python evaluates `x` and may raise."""
        saved, self.raising = self.raising, False
        try:
            yield
        finally:
            self.raising = saved

    @contextlib.contextmanager
    def no_jumps(self) -> Iterator[None]:
        """Statements that cannot leave the block (see `condition`)."""
        saved, self.jumps = self.jumps, False
        try:
            yield
        finally:
            self.jumps = saved

    def block(self, indent: str, depth: int, nested: bool = True) -> List[str]:
        """One or more statements; a nested block may end with return/break/continue."""
        lines: List[str] = []
        for _ in range(self.draw(st.integers(1, self.max_statements))):
            lines += self.statement(indent, depth)
        if nested and self.jumps and self.chance(10):
            lines.append(indent + self.jump())
        return lines

    def jump(self) -> str:
        """return anywhere, break/continue in loops."""
        options = ["return"] + (["break", "continue"] if self.scope.in_loop else [])
        kind = self.pick(options)
        return self.returns if kind == "return" else kind

    def statement(self, indent: str, depth: int) -> List[str]:
        """One statement (compound ones only while depth remains)."""
        kind = self.draw(st.integers(0, 11)) if depth > 0 else 0
        if kind in (8, 9) and not self.jumps:
            kind = 0
        if kind <= 3:
            return self.update(indent)
        if kind == 4:
            return self.if_stmt(indent, depth)
        if kind == 5:
            return self.for_range(indent, depth)
        if kind == 6:
            return self.for_each(indent, depth)
        if kind == 7:
            return self.while_stmt(indent, depth)
        if kind == 8:
            c = self.condition()
            return [f"{indent}if {c}:", f"{indent}    {self.jump()}"]
        if kind == 9:
            c = self.raise_condition()
            if self.chance(50):
                return [f"{indent}if {c}:", f"{indent}    raise ValueError(\"generated\")"]
            return [f"{indent}assert {c}, \"generated\""]
        if kind == 10:
            return self.optional_if(indent, depth)
        return self.swap(indent) if self.chance(30) else self.update(indent)

    def swap(self, indent: str) -> List[str]:
        """`a, b = b, a` (tuple packing and unpacking)."""
        by_type: Dict[str, List[str]] = {}
        for v, t in self.scope.vars.items():
            by_type.setdefault(t, []).append(v)
        pairs = [vs for vs in by_type.values() if len(vs) > 1]
        if not pairs:
            return self.update(indent)
        a, b = self.pick(pairs)[:2]
        return [f"{indent}{a}, {b} = {b}, {a}"]

    def if_stmt(self, indent: str, depth: int) -> List[str]:
        """if / elif / else."""
        inner = indent + "    "
        lines = [f"{indent}if {self.condition()}:"] + self.block(inner, depth - 1)
        if self.chance(30):
            lines += [f"{indent}elif {self.condition()}:"] + self.block(inner, depth - 1)
        if self.chance(60):
            lines += [f"{indent}else:"] + self.block(inner, depth - 1)
        return lines

    def optional_if(self, indent: str, depth: int) -> List[str]:
        """Refinement of an Optional[int] variable by `is None` / `is not None`."""
        opt = self.names(OPT, assignable=True)
        if not opt:
            return self.update(indent)
        o, _ = self.pick(opt)
        inner = indent + "    "
        if self.chance(50):
            target = self.names(INT, assignable=True)
            if target:
                v, _ = self.pick(target)
                return [f"{indent}if {o} is not None:",
                        f"{inner}{v} = {_clamp_int(E(f'({v} + {o})', INT_VAR * 2))}"]
        with self.no_jumps():
            body = self.block(inner, depth - 1)
        return [f"{indent}if {o} is None:"] + body + [
            f"{indent}else:", f"{inner}{o} = {_clamp_int(E(f'({o} * 2)', INT_VAR * 2))}"]

    def for_range(self, indent: str, depth: int) -> List[str]:
        """for x in range(n), range(a, b), enumerate(...)."""
        x = self.fresh("i")
        n = self.pick(["3", "0", "4", "2", "1"])
        header = self.pick([f"range({n})", f"range(1, {n})", f"range({n}, 0, -1)"])
        with self.loop_scope(), self.binding(x, INT, 5):
            body = self.block(indent + "    ", depth - 1)
        return [f"{indent}for {x} in {header}:"] + body

    def for_each(self, indent: str, depth: int) -> List[str]:
        """for over a list, str, enumerate, zip or dict (never mutated inside)."""
        kind = self.draw(st.integers(0, 4))
        x = self.fresh("x")
        t = self.pick([LINT, LSTR, STR])
        item = {LINT: (INT, INT_VAR), LSTR: (STR, LEN_VAR), STR: (STR, 1)}[t]
        seq = self.expr(t, 1)
        frozen = (seq.text,)      # when it is a variable, it must not change inside
        targets: List[Tuple[str, str, float]]
        if kind <= 1:
            header, targets = f"{x} in {seq.text}", [(x, *item)]
        elif kind == 2:
            i = self.fresh("i")
            header, targets = f"{i}, {x} in enumerate({seq.text})", [(i, INT, LEN_VAR), (x, *item)]
        elif kind == 3:
            y = self.fresh("y")
            other = self.expr(LSTR, 1)
            header = f"{x}, {y} in zip({seq.text}, {other.text})"
            targets = [(x, *item), (y, STR, LEN_VAR)]
            frozen += (other.text,)
        else:
            d = self.expr(DICT, 1)
            v = self.fresh("v")
            header, targets = f"{x}, {v} in {d.text}.items()", [(x, STR, 2), (v, INT, INT_VAR)]
            if self.chance(40):   # keys only
                header, targets = f"{x} in {d.text}{self.pick(['', '.keys()'])}", [(x, STR, 2)]
            frozen = (d.text,)
        with contextlib.ExitStack() as stack:
            stack.enter_context(self.loop_scope(frozen))
            for name, tt, b in targets:
                stack.enter_context(self.binding(name, tt, b))
            body = self.block(indent + "    ", depth - 1)
        return [f"{indent}for {header}:"] + body

    def while_stmt(self, indent: str, depth: int) -> List[str]:
        """A while loop with a bounded counter (stepped first, so continue cannot skip it)."""
        w = self.fresh("w")
        n = self.pick(["3", "0", "4"])
        cond = f"{w} < {n}" + (f" and {self.condition()}" if self.chance(40) else "")
        inner = indent + "    "
        with self.loop_scope(), self.binding(w, INT, 5):
            body = self.block(inner, depth - 1)
        return [f"{indent}{w} = 0", f"{indent}while {cond}:", f"{inner}{w} += 1"] + body

    def update(self, indent: str) -> List[str]:
        """An assignment or mutation that reads its target (see the module docstring)."""
        cands = [(v, t) for v, t in self.scope.vars.items() if v not in self.scope.frozen]
        if not cands:
            return [f"{indent}pass"]
        v, t = self.pick(cands)
        return [indent + line for line in {
            INT: self.update_int, FLOAT: self.update_float, BOOL: self.update_bool,
            STR: self.update_str, LINT: self.update_list, LSTR: self.update_list,
            DICT: self.update_dict, OPT: self.update_opt}[t](v, t if t in (LINT, LSTR) else None)]

    def update_int(self, v: str, _: Any) -> List[str]:
        """Int target."""
        e = self.int_expr(2)
        kind = self.draw(st.integers(0, 6))
        if kind == 0:
            return [f"{v} += {_clamp_int(e)}"]
        if kind == 1:
            return [f"{v} -= {_clamp_int(e)}"]
        if kind == 2:
            return [f"{v} = {v} // {e.text}"]     # TorchScript has no `//=`
        if kind == 3:
            return [f"{v} = {self.pick(['max', 'min'])}({v}, {e.text})"
                    if e.bound <= INT_CLAMP else f"{v} = max({v}, {_clamp_int(e)})"]
        if kind == 4:
            c = self.bool_expr(1)
            return [f"{v} = {_clamp_int(E(f'({e.text} if {c.text} else {v})', max(e.bound, INT_VAR)))}"]
        if kind == 5:
            a, b = _fit_product(E(v, INT_VAR), e, INT_LIMIT)
            return [f"{v} = {_clamp_int(E(f'{a.text} * {b.text}', a.bound * b.bound))}"]
        return [f"{v} = {_clamp_int(E(f'{v} + {e.text}', INT_VAR + e.bound))}"]

    def update_float(self, v: str, _: Any) -> List[str]:
        """Float target."""
        e = self.float_expr(2)
        kind = self.draw(st.integers(0, 4))
        if kind == 0:
            return [f"{v} += {_clamp_float(e)}"]
        if kind == 1:
            return [f"{v} *= {self.pick(['0.5', '-1.0', '-0.5', '1'])}"]
        if kind == 2:
            return [f"{v} /= (abs({e.text}) + 1.0)"]
        if kind == 3:
            c = self.bool_expr(1)
            return [f"{v} = {_clamp_float(E(f'({e.text} if {c.text} else {v})', FLOAT_VAR))}"]
        return [f"{v} = {_clamp_float(E(f'({v} - {e.text})', FLOAT_VAR))}"]

    def update_bool(self, v: str, _: Any) -> List[str]:
        """Bool target."""
        e = self.bool_expr(2)
        return [self.pick([f"{v} = {v} and {e.text}", f"{v} = {v} or {e.text}",
                           f"{v} = not {v}", f"{v} = {v} != {e.text}",
                           f"{v} = {e.text} if {v} else {self.bool_expr(1).text}"])]

    def update_str(self, v: str, _: Any) -> List[str]:
        """Str target (truncated, so loops cannot grow it exponentially)."""
        e = self.str_expr(2)
        kind = self.draw(st.integers(0, 4))
        if kind == 0:
            return [f"{v} += {_clamp_len(e)}"]
        if kind == 1:
            return [f"{v} = ({e.text} + {v})[:{LEN_CLAMP}]"]
        if kind == 2:
            return [f"{v} = {v}.{self.pick(['upper', 'strip', 'lower'])}()"]
        if kind == 3:
            c = self.bool_expr(1)
            return [f"{v} = {_clamp_len(E(f'({e.text} if {c.text} else {v})', LEN_VAR))}"]
        return [f"{v} = {v}.replace({self.pick(['a', ',', ' '])!r}, {_clamp_len(e)})[:{LEN_CLAMP}]"]

    def update_list(self, v: str, t: str) -> List[str]:
        """List target: a mutating method or an assignment of a fresh list that reads it."""
        item = INT if t == LINT else STR
        e = self.expr(item, 2)
        it = _clamp_int(e) if item == INT else _clamp_len(e)
        kind = self.draw(st.integers(0, 10))
        if kind <= 1:
            return [f"{v}.append({it})"]
        if kind == 2:
            return [f"{v}.insert({self.pick(['0', '-1', '9', '1'])}, {it})"]
        if kind == 3:
            other = self.list_expr(t, 1)
            return [f"{v}.extend({_clamp_len(other)})" if self.chance(50)
                    else f"{v} += {_clamp_len(other)}"]
        if kind == 4:   # may be out of range
            return [f"{v}[{self.index(E(v, LEN_VAR), 1)}] = {it}"]
        if kind == 5:
            return [self.pick([f"{v}.pop()", f"del {v}[0]", f"{v}.remove({e.text})"])]
        if kind == 6:
            return [f"{v}.{self.pick(['sort', 'reverse', 'clear'])}()"]
        if kind == 7:
            return [f"{v} = {v}[{self.slice(1)}]"]
        if kind == 8:
            return [f"{v} = sorted({v})"]
        if kind == 9 and item == INT:
            x = self.fresh("c")
            with self.binding(x, INT, INT_VAR):
                body = self.int_expr(1)
            return [f"{v} = [{_clamp_int(body)} for {x} in {v}]"]
        other = self.expr(t, 1)
        return [f"{v} = ({v} + {other.text})[:{LEN_CLAMP}]"]

    def update_dict(self, v: str, _: Any) -> List[str]:
        """Dict target."""
        e = self.int_expr(2)
        k = self.key(1)
        kind = self.draw(st.integers(0, 6))
        if kind <= 1:
            return [f"{v}[{k}] = {_clamp_int(e)}"]
        if kind == 2:   # may be missing
            return [f"{v}[{k}] += {_clamp_int(e)}"]
        if kind == 3:
            return [self.pick([f"del {v}[{k}]", f"{v}.pop({k})",
                               f"{v}.pop({k}, {_clamp_int(e)})", f"{v}.clear()"])]
        if kind == 4:
            return [f"{v}.update({self.dict_expr(1).text})"]
        if kind == 5:
            kk, vv = self.fresh("k"), self.fresh("v")
            with self.binding(kk, STR, LEN_VAR), self.binding(vv, INT, INT_VAR):
                val = self.int_expr(1)
            return [f"{v} = {{{kk}: {_clamp_int(val)} for {kk}, {vv} in {v}.items()}}"]
        return [f"{v}.setdefault({k}, {_clamp_int(e)})" if self.chance(30)
                else f"{v}[{k}] = {v}.get({k}, 0) + 1"]

    def update_opt(self, v: str, _: Any) -> List[str]:
        """Optional[int] target."""
        e = _clamp_int(self.int_expr(2))
        # Each form reads the old value when it is not None: a value only ever tested with
        # `is None` is dead once its static type is known to be int (PyTorch folds the
        # test). Each keeps the variable Optional (an int-typed value would fix its type).
        return [self.pick([f"{v} = {e} if {v} is None else (None if {v} > 0 else {v} - 1)",
                           f"{v} = None if {v} is not None and {v} % 2 == 0 else {e}",
                           f"{v} = {e} if {v} is None else ({v} + 1 if {v} > 0 else None)"])]

    # -- whole programs
    def helper_def(self) -> List[str]:
        """`def h0(p: int, q: int) -> int` with its own small body."""
        self.scope = _Scope({"p": INT, "q": INT})
        # Every return reads all variables, so no computed value is dead (see above).
        self.returns = f"return {_clamp_int(E('(p + q)', 2 * INT_VAR))}"
        body = self.block("    ", 1, nested=False)
        self.helper = "h0"
        return ["def h0(p: int, q: int) -> int:"] + body + ["    " + self.returns]

    def function(self) -> Tuple[str, List[Tuple[str, str]]]:
        """The source of `f` (and maybe its helper), and f's parameters."""
        lines: List[str] = []
        if self.chance(30):
            lines += self.helper_def() + ["", ""]
        n_params = self.draw(st.integers(1, 4))
        params = [(f"a{i}", self.pick(self.types)) for i in range(n_params)]
        self.scope = _Scope(dict(params))
        init: List[str] = []
        for i in range(self.draw(st.integers(1, 4))):
            t = self.pick(self.types)
            name = f"v{i}"
            init.append(f"    {name}: {t} = {self.initial(t)}")
            self.scope.vars[name] = t
        names = list(self.scope.vars)
        # `return (every variable)`: every computed value is live.
        self.returns = "return (" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"
        body = self.block("    ", self.max_depth, nested=False)
        ret_t = ", ".join(self.scope.vars.values())
        sig = ", ".join(f"{n}: {t}" for n, t in params)
        lines += [f"def f({sig}) -> Tuple[{ret_t}]:"] + init + body + ["    " + self.returns]
        return "\n".join(lines) + "\n", params

    def initial(self, t: str) -> str:
        """A local variable's first value."""
        if t == OPT:
            return self.pick(["None", _clamp_int(self.int_expr(1))])
        if t == LINT and self.chance(30):
            return "[]"
        if t == DICT and self.chance(30):
            return "{}"
        e = self.expr(t, 1)
        if t == INT:
            return _clamp_int(e)
        if t == FLOAT:
            return _clamp_float(e)
        if t in MUTABLE and e.text in self.scope.vars:
            return f"{e.text}.copy()"         # a fresh value, no alias
        return e.text


def _var_bound(t: str) -> float:
    return {INT: INT_VAR, FLOAT: FLOAT_VAR, STR: LEN_VAR, LINT: LEN_VAR, LSTR: LEN_VAR,
            DICT: LEN_VAR, OPT: INT_VAR, BOOL: 1}[t]


def _fit_product(a: E, b: E, limit: float) -> Tuple[E, E]:
    """Operands whose product stays within `limit` (wrapping them with % 1000 if needed)."""
    if a.bound * b.bound <= limit:
        return a, b
    if a.bound * 1000 <= limit:
        return a, E(f"({b.text} % 1000)", 1000)
    return E(f"({a.text} % 1000)", 1000), E(f"({b.text} % 1000)", 1000)


def _clamp_int(e: E, limit: int = INT_CLAMP) -> str:
    """`e` clamped to +-limit when its bound is larger."""
    if e.bound <= limit:
        return e.text
    return f"min(max({e.text}, {-limit}), {limit})"


def _clamp_float(e: E) -> str:
    if e.bound <= FLOAT_CLAMP:
        return e.text
    return f"min(max({e.text}, {-FLOAT_CLAMP}), {FLOAT_CLAMP})"


def _clamp_len(e: E) -> str:
    if e.bound <= LEN_CLAMP:
        return e.text
    return f"{e.text}[:{LEN_CLAMP}]"


@st.composite
def programs(draw: Callable, max_depth: int = 2, max_statements: int = 4,
             for_pytorch: bool = False, optional: bool = True, jumps: bool = True) -> Program:
    """Generated programs with one argument tuple each (see the module docstring);
    `for_pytorch`: programs PyTorch can run without dying (no divisor can be zero);
    `optional=False`: no Optional[int] variables or parameters; `jumps=False`: no
    return, break, continue or raise inside blocks."""
    types = tuple(t for t in TYPES if optional or t != OPT)
    builder = _Builder(draw, max_depth, max_statements, nonzero_divisors=for_pytorch,
                       types=types, jumps=jumps)
    source, params = builder.function()
    args = draw(st.tuples(*[value_of(t) for _, t in params]))
    return Program(source, "f", params, args)
