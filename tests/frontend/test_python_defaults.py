"""python_defaults reads plain functions directly; it must agree with inspect.signature."""
from __future__ import annotations

import functools
import inspect
from typing import Any

import typing

import pytest

import tsjit

from tsjit.frontend.script import python_defaults


def _by_signature(fn: Any) -> dict:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return {}
    return {p.name: p.default for p in params if p.default is not inspect.Parameter.empty
            and (p.default is None or isinstance(p.default, (bool, int, float, str)))}


def _all_kinds(x, y=1, /, z=None, *args, k=2.0, m, n="s", **kw): ...  # noqa: ANN
def _method_like(self, x: int, y: float = 0.5, z=[1], w=(1,)): ...  # noqa: ANN, B006
def _none(): ...  # noqa: ANN
def _keyword_only(x=True, *, y=None): ...  # noqa: ANN


class _K:
    def meth(self, q=3): ...  # noqa: ANN


@functools.wraps(_all_kinds)
def _wrapped(*args: Any, **kw: Any) -> None: ...


def _with_signature(a=1): ...  # noqa: ANN
_with_signature.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
    [inspect.Parameter("b", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=5)])


@pytest.mark.parametrize("fn", [_all_kinds, _method_like, _none, _keyword_only, _K.meth,
                                _K().meth, _wrapped, _with_signature,
                                functools.partial(_method_like, 1), len])
def test_agrees_with_inspect_signature(fn: Any) -> None:
    got = python_defaults(fn)
    assert got == _by_signature(fn)
    assert list(got) == list(_by_signature(fn))


def _scaled(x: tsjit.Tensor, p: float = 2, q: typing.Optional[float] = 3,
            ps: typing.List[float] = [1, 2]) -> typing.Tuple[tsjit.Tensor, float, float]:
    return x * p, q if q is not None else 0.0, ps[1]


def test_int_defaults_of_float_parameters_are_floats():
    # As in PyTorch: `p: float = 2` defaults to 2.0, so an int tensor times p is a float
    # tensor, and the printed schema (which PyTorch reloads) says 2. not 2.
    fn = tsjit.script(_scaled)
    y, q, second = fn(tsjit.ones(2, dtype=tsjit.int64))
    assert y.dtype == tsjit.float32 and type(q) is float and type(second) is float
    assert "p: float=2." in fn.code and "q: Optional[float]=3." in fn.code
