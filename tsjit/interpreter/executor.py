"""Executors: how a Function runs, and the tiering between the interpreter and a compiler.

Every Function gets one `Executor` (kept in `Function.executor`). Its `call(args)` is
the fastest entry available: at first the interpreter, counting calls; once the policy
says the function is hot, whatever the installed tier-up compiler returns (the codegen
tier: Python source generated from the graph). Callers hold the Executor and read
`call` each time, so a function that tiers up is seen by every caller at once.

The interpreter layer knows nothing of the compiler: `Policy.compiler` is installed by
the public API (`tsjit.jit.set_executor`), which keeps the layering one-way.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Optional

from ..ir import Function
from ..ir.diagnostics import TsjitError
from .code import Code, build_code

MODES = ("interpreter", "codegen", "auto")
Compiler = Callable[[Function], Callable[[list], Any]]


@dataclass
class Policy:
    """Which executor runs functions: the interpreter, generated code, or the first then
    the second after `threshold` calls (`auto`)."""

    mode: str = "interpreter"
    threshold: int = 2
    compiler: Optional[Compiler] = None


POLICY = Policy()
_LIVE: "weakref.WeakSet[Executor]" = weakref.WeakSet()


class Executor:
    """The run-time state of one Function: its Code, call count and current entry."""

    __slots__ = ("function", "_code", "count", "call", "compiled", "reason", "__weakref__")

    def __init__(self, function: Function) -> None:
        self.function = function
        self._code: Optional[Code] = None
        self.compiled: Optional[Callable[[list], Any]] = None
        self.reason = ""        # why the function is not compiled, when it is not
        self.reset()
        _LIVE.add(self)

    @property
    def code(self) -> Code:
        if self._code is None:
            self._code = build_code(self.function)
        return self._code

    def reset(self) -> None:
        """Start over under the current policy (warm-up counting, nothing compiled)."""
        self.count = 0
        self.compiled = None
        self.call: Callable[[list], Any] = self._first_calls

    def interpret(self, args: list) -> Any:
        """Run the function in the interpreter."""
        from .run import run
        return run(self.code, args)

    def _first_calls(self, args: list) -> Any:
        policy = POLICY
        if policy.compiler is None or policy.mode == "interpreter":
            self._settle_interpreted()
        elif policy.mode == "codegen":
            self.compile(strict=True)
        else:
            self.count += 1
            if self.count < policy.threshold:
                return self.interpret(args)
            self.compile(strict=False)
        return self.call(args)

    def _settle_interpreted(self) -> None:
        from .run import run
        self.call = partial(run, self.code)

    def compile(self, strict: bool) -> None:
        """Switch to the compiled tier (when it cannot compile: an error if `strict`, else
        stay interpreted and remember why)."""
        compiler = POLICY.compiler
        assert compiler is not None
        try:
            self.compiled = compiler(self.function)
        except TsjitError as err:
            if strict:
                raise
            self.reason = err.message
            self._settle_interpreted()
            return
        self.call = self.compiled


def executor_for(fn: Function) -> Executor:
    """`fn`'s Executor, made on first need."""
    ex = fn.executor
    if ex is None:
        ex = fn.executor = Executor(fn)
    return ex


def set_policy(mode: str, threshold: Optional[int] = None,
               compiler: Optional[Compiler] = None) -> None:
    """Choose the executor for every function from now on (existing ones start over)."""
    if mode not in MODES:
        raise TsjitError(f"unknown executor '{mode}'; expected one of {', '.join(MODES)}")
    if threshold is not None:
        if threshold < 1:
            raise TsjitError(f"the tier-up threshold must be at least 1, not {threshold}")
        POLICY.threshold = threshold
    if compiler is not None:
        POLICY.compiler = compiler
    POLICY.mode = mode
    for ex in list(_LIVE):
        ex.reset()
