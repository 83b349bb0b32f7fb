"""Golden cases in `.test` files (the mypyc style): read them, run them, rewrite them.

A file holds cases; each is a `[case NAME]` line, the source (a Python module, run as
`main.py` with the typing names, `Tensor`, `torch` (tsjit), `tsjit` and `nn` predefined), then
sections, each a `[KIND EXPR]` line and the expected text up to the next `[...]` line
(trailing blank lines are not part of it). Lines before the first case describe the file.

EXPR is a Python expression over the module's names, where a function or class names its
scripted form (`tsjit.script`; an `nn.Module` subclass is instantiated with no arguments
first); it is `f` when left out. The kinds:

- `[graph EXPR]`: the printed graph of EXPR (which must also pass the IR lint);
- `[code EXPR]`: its printed code (what an archive holds);
- `[python EXPR]`: the Python source the second tier generates for it;
- `[out EXPR]`: the repr of EXPR's value, e.g. `[out f(2, 3)]`;
- `[error EXPR]`: the error EXPR raises, as `Kind: message`: a compile error when the
  expression scripts something (`[error f]`), a run-time error when it calls it
  (`[error f(1, 0)]`).
"""
from __future__ import annotations

import ast
import builtins
import contextlib
import fcntl
import linecache
import os
import re
import sys
import tempfile
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

HEADER = re.compile(r"^\[(\w+)(?:\s+(.*?))?\]\s*$")
KINDS = ("graph", "code", "python", "out", "error")
MODULE = "main"        # the name the case's source runs under (its file is main.py)


class GoldenFormatError(Exception):
    """A malformed .test file."""


@dataclass
class Section:
    """`[kind expr]` and its expected text; `start`/`end` are the body's line indices."""
    kind: str
    expr: str
    expected: str
    start: int
    end: int


@dataclass
class Case:
    """One `[case name]`: its source and its sections."""
    name: str
    line: int                   # 1-based line of the `[case]` header
    source: str
    sections: list[Section] = field(default_factory=list)


def _body(lines: list[str], start: int, end: int) -> tuple[str, int]:
    """The text of lines[start:end] without trailing blank lines, and where it ends."""
    while end > start and not lines[end - 1].strip():
        end -= 1
    return "".join(lines[start:end]), end


def parse(text: str, filename: str = "<golden>") -> list[Case]:
    """The cases of a .test file."""
    lines = text.splitlines(keepends=True)
    headers = [(i, m) for i, m in ((i, HEADER.match(line)) for i, line in enumerate(lines)) if m]
    cases: list[Case] = []
    for n, (i, m) in enumerate(headers):
        end = headers[n + 1][0] if n + 1 < len(headers) else len(lines)
        kind, arg = m.group(1), (m.group(2) or "").strip()
        if kind == "case":
            if not arg:
                raise GoldenFormatError(f"{filename}:{i + 1}: [case] needs a name")
            if any(c.name == arg for c in cases):
                raise GoldenFormatError(f"{filename}:{i + 1}: a second case named {arg!r}")
            cases.append(Case(arg, i + 1, _body(lines, i + 1, end)[0]))
        elif kind in KINDS:
            if not cases:
                raise GoldenFormatError(f"{filename}:{i + 1}: [{kind}] before the first [case]")
            expected, stop = _body(lines, i + 1, end)
            cases[-1].sections.append(Section(kind, arg or "f", expected, i + 1, stop))
        else:
            raise GoldenFormatError(f"{filename}:{i + 1}: unknown section [{kind}] "
                                    f"(known: case, {', '.join(KINDS)})")
    for case in cases:
        if not case.sections:
            raise GoldenFormatError(f"{filename}:{case.line}: case {case.name!r} has no sections")
    return cases


# --- running ----------------------------------------------------------------------------

def _namespace() -> dict[str, Any]:
    import tsjit
    return {"List": typing.List, "Dict": typing.Dict, "Tuple": typing.Tuple,
            "Optional": typing.Optional, "Union": typing.Union, "Tensor": tsjit.Tensor,
            "torch": tsjit, "tsjit": tsjit, "nn": tsjit.nn}


class _Scripted:
    """The module's names, its functions and classes scripted on first use."""

    def __init__(self, module: types.ModuleType) -> None:
        self.module = module
        self.done: dict[str, Any] = {}

    def get(self, name: str) -> Any:
        """The module's `name`, scripted when it is a function or class of its own."""
        if name not in self.done:
            import tsjit
            obj = self.module.__dict__[name]
            if isinstance(obj, type) and issubclass(obj, tsjit.nn.Module):
                obj = tsjit.script(obj())
            elif isinstance(obj, (types.FunctionType, type)) and obj.__module__ == MODULE:
                obj = tsjit.script(obj)
            self.done[name] = obj
        return self.done[name]

    def evaluate(self, expr: str) -> Any:
        """`expr` with the module's names it uses (a real dict: comprehensions see it)."""
        used = {n.id for n in ast.walk(ast.parse(expr, mode="eval")) if isinstance(n, ast.Name)}
        env = {n: self.get(n) for n in sorted(used) if n in self.module.__dict__}
        return eval(expr, {"__builtins__": builtins, **env})


@contextlib.contextmanager
def _case_module(source: str) -> Iterator[types.ModuleType]:
    """The source run as module `main` (file main.py), with fresh mangling counters."""
    import tsjit
    filename = f"{MODULE}.py"
    module = types.ModuleType(MODULE)
    module.__file__ = filename
    module.__dict__.update(_namespace())
    # Scripting reads sources through linecache (and classes through their module).
    old_lines, old_module = linecache.cache.get(filename), sys.modules.get(MODULE)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    sys.modules[MODULE] = module
    tsjit.jit.reset_compilation_unit()
    try:
        exec(compile(source, filename, "exec"), module.__dict__)
        yield module
    finally:
        tsjit.jit.reset_compilation_unit()
        linecache.cache.pop(filename, None)
        if old_lines is not None:
            linecache.cache[filename] = old_lines
        sys.modules.pop(MODULE, None)
        if old_module is not None:
            sys.modules[MODULE] = old_module


def _graph(obj: Any) -> str:
    from tsjit.ir.verifier import lint
    lint(obj.graph)
    return str(obj.graph)


def _python(obj: Any) -> str:
    from tsjit.codegen import generated_source
    return generated_source(obj.function).source


RENDER: dict[str, Callable[[Any], str]] = {
    "graph": _graph, "code": lambda obj: obj.code, "python": _python, "out": repr}


def run(case: Case) -> list[str]:
    """What each section of `case` gives now (same order as `case.sections`)."""
    import tsjit
    out = []
    with _case_module(case.source) as module:
        names = _Scripted(module)
        for section in case.sections:
            try:
                value = names.evaluate(section.expr)
                text = RENDER[section.kind](value) if section.kind != "error" else \
                    f"(no error: {section.expr} gave {value!r})"
            except tsjit.TsjitError as err:
                if section.kind != "error":
                    raise
                text = f"{type(err).__name__}: {err}"
            out.append(text.rstrip("\n") + "\n")
    return out


# --- rewriting --------------------------------------------------------------------------

def rewrite(path: str, case_name: str, actual: list[str]) -> None:
    """Replace the expected texts of one case in `path` (locked: parallel workers may
    rewrite other cases of the same file; written to a temp name, then renamed)."""
    lock_name = os.path.join(tempfile.gettempdir(), f"tsjit-golden-{os.path.basename(path)}.lock")
    with open(lock_name, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with open(path) as f:
            text = f.read()
        case = next(c for c in parse(text, path) if c.name == case_name)
        lines = text.splitlines(keepends=True)
        for section, new in reversed(list(zip(case.sections, actual))):
            lines[section.start:section.end] = [new]
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".golden-")
        with os.fdopen(fd, "w") as f:
            f.write("".join(lines))
        os.replace(tmp, path)
