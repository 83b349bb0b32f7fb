"""The PyTorch differential oracle shared by the tensor kernel tests (no tests of its own).

Test modules import it as `from tests.helpers import tensor_oracle as O`.
`O.diff("aten::add.Tensor", x, y, 1)` calls the registered tsjit kernel with one positional
argument per schema argument, and `torch.ops.aten.add.Tensor` with the same values (numpy
arrays become tensors of both kinds, keyword-only schema arguments are passed by name), then
compares: both raising agrees; otherwise results must have equal structure, dtypes and
shapes, and values equal (integers, bools) or close (floats, NaN == NaN).
"""
from __future__ import annotations

import math
import os
from typing import Any, Callable, Optional, Sequence

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, settings, strategies as st
from hypothesis.extra import numpy as hnp

try:  # PyTorch is only an oracle: tsjit itself never imports it.
    import torch
except ImportError:  # pragma: no cover - depends on the environment
    torch = None

from tsjit.ops import find
from tsjit._tensor import Tensor, from_numpy
from tsjit._tensor import dtypes as D

requires_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed; the "
                                    "differential oracle is unavailable")

# Examples per property: small by default to keep CI fast, raise it for a thorough run
# (TSJIT_TENSOR_EXAMPLES=200 pytest tests/ops).
EXAMPLES = int(os.environ.get("TSJIT_TENSOR_EXAMPLES", "10"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

FLOATS = [np.float32, np.float64]
INTS = [np.int64, np.int32, np.int16, np.int8, np.uint8]
ALL = FLOATS + INTS + [np.bool_]
REAL = FLOATS + INTS

# ---- strategies ------------------------------------------------------------------------------
def elements(dt: Any, big: bool = True, special: bool = True) -> st.SearchStrategy:
    """Values of numpy dtype dt: NaN / inf / -0.0 for floats, extremes for integers."""
    dt = np.dtype(dt)
    if dt.kind == "b":
        return st.booleans()
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = (int(info.min), int(info.max)) if big else (max(int(info.min), -20),
                                                             min(int(info.max), 20))
        return st.integers(lo, hi)
    width = 32 if dt == np.float32 else 64 if dt == np.float64 else 16
    if big:
        return st.floats(width=width)             # anything, NaN and infinities included
    if special:
        return st.one_of(st.floats(-100, 100, width=width),
                         st.sampled_from([math.nan, math.inf, -math.inf, -0.0]))
    return st.floats(-100, 100, width=width)


def shapes(min_dims: int = 0, max_dims: int = 3, min_side: int = 0,
           max_side: int = 4) -> st.SearchStrategy:
    """Tensor shapes including zero-dim and empty ones."""
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                            max_side=max_side)


@st.composite
def arrays(draw: Callable, dtypes: Sequence[Any] = ALL, shape: Any = None, big: bool = False,
           special: bool = True, **shape_kw: Any) -> np.ndarray:
    """A numpy array of one of `dtypes` (shape drawn unless given)."""
    dt = np.dtype(draw(st.sampled_from(list(dtypes))))
    if shape is None:
        shape = draw(shapes(**shape_kw))
    return draw(hnp.arrays(dt, shape, elements=elements(dt, big, special)))


@st.composite
def broadcast_pair(draw: Callable, dtypes1: Sequence[Any] = ALL,
                   dtypes2: Optional[Sequence[Any]] = None, big: bool = False,
                   special: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Two arrays of mutually broadcastable shapes."""
    s = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3,
                                               min_side=0, max_side=3))
    a = draw(arrays(dtypes1, s.input_shapes[0], big, special))
    b = draw(arrays(dtypes2 or dtypes1, s.input_shapes[1], big, special))
    return a, b


def scalars(kinds: str = "bif", big: bool = False) -> st.SearchStrategy:
    """Python numbers: b bool, i int, f float (with specials)."""
    opts = []
    if "b" in kinds:
        opts.append(st.booleans())
    if "i" in kinds:
        opts.append(st.integers(-(1 << 63), (1 << 63) - 1) if big else st.integers(-50, 50))
    if "f" in kinds:
        opts.append(st.one_of(st.floats(-100, 100), st.sampled_from([math.nan, math.inf,
                                                                      -math.inf, -0.0])))
    return st.one_of(*opts)


# ---- running both sides ------------------------------------------------------------------------
def _to_tsjit(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        return from_numpy(v.copy())
    if isinstance(v, list):
        return [_to_tsjit(x) for x in v]
    if isinstance(v, tuple):
        return tuple(_to_tsjit(x) for x in v)
    if isinstance(v, D.dtype):
        return v
    return v


def _to_torch(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        return torch.from_numpy(v.copy())
    if isinstance(v, list):
        return [_to_torch(x) for x in v]
    if isinstance(v, tuple):
        return tuple(_to_torch(x) for x in v)
    if isinstance(v, D.dtype):
        return getattr(torch, v.name)
    return v


def torch_op(qualified: str) -> Any:
    """torch.ops.<ns>.<name>.<overload> for a qualified schema name."""
    ns, rest = qualified.split("::")
    name, _, overload = rest.partition(".")
    return getattr(getattr(getattr(torch.ops, ns), name), overload or "default")


# qualified names exercised in this session (tests/helpers/oracle_coverage.py checks them)
EXERCISED: set[str] = set()


def call_torch(qualified: str, *args: Any) -> Any:
    """PyTorch's operator on schema-ordered args (keyword-only ones passed by name)."""
    params = find(qualified).schema.arguments
    pos, kw = [], {}
    for p, v in zip(params, args):
        if p.kwarg_only:
            kw[p.name] = v if isinstance(v, torch.Tensor) else _to_torch(v)
        else:
            pos.append(v if isinstance(v, torch.Tensor) else _to_torch(v))
    return torch_op(qualified)(*pos, **kw)


def run_both(qualified: str, *args: Any) -> tuple[Any, Any]:
    """(tsjit result or exception, torch result or exception) for schema-ordered args."""
    EXERCISED.add(qualified)
    o = find(qualified)
    try:
        mine: Any = o.kernel(*_to_tsjit(list(args)))
    except Exception as e:  # noqa: BLE001 - any failure is a result to compare
        mine = e
    params = o.schema.arguments
    pos, kw = [], {}
    for p, v in zip(params, args):
        if p.kwarg_only:
            kw[p.name] = _to_torch(v)
        else:
            pos.append(_to_torch(v))
    pos.extend(_to_torch(v) for v in args[len(params):])
    try:
        theirs: Any = torch_op(qualified)(*pos, **kw)
    except Exception as e:  # noqa: BLE001
        theirs = e
    return mine, theirs


def _dtype_name(x: Any) -> str:
    return str(x.dtype).replace("torch.", "")


def compare(mine: Any, theirs: Any, rtol: float = 1e-5, atol: float = 1e-6,
            path: str = "result") -> None:
    """Assert tsjit's value matches PyTorch's (both exceptions count as agreement)."""
    if isinstance(theirs, BaseException) or isinstance(mine, BaseException):
        assert isinstance(theirs, BaseException) and isinstance(mine, BaseException), \
            f"{path}: tsjit gave {mine!r} but torch gave {theirs!r}"
        return
    if torch is not None and isinstance(theirs, torch.Tensor):
        assert isinstance(mine, Tensor), f"{path}: expected a Tensor, got {type(mine)}"
        assert _dtype_name(mine) == _dtype_name(theirs), \
            f"{path}: dtype {mine.dtype} != torch's {theirs.dtype}"
        assert tuple(mine.shape) == tuple(theirs.shape), \
            f"{path}: shape {tuple(mine.shape)} != torch's {tuple(theirs.shape)}"
        t = theirs.detach().numpy() if theirs.dtype != torch.bfloat16 else None
        m = mine.numpy()
        assert isinstance(m, np.ndarray)
        if m.dtype.kind in "fc":
            ok = np.isclose(m, t, rtol=rtol, atol=atol, equal_nan=True)
            both_inf = np.isinf(m) & np.isinf(t) & (m == t)
            assert np.all(ok | both_inf), \
                f"{path}: values differ\n tsjit {m!r}\n torch {t!r}"
        else:
            assert np.array_equal(m, t), f"{path}: values differ\n tsjit {m!r}\n torch {t!r}"
        return
    if isinstance(theirs, (tuple, list)):
        assert isinstance(mine, (tuple, list)) and len(mine) == len(theirs), \
            f"{path}: {mine!r} vs {theirs!r}"
        for i, (x, y) in enumerate(zip(mine, theirs)):
            compare(x, y, rtol, atol, f"{path}[{i}]")
        return
    if isinstance(theirs, float):
        assert isinstance(mine, float), f"{path}: {mine!r} is not a float like {theirs!r}"
        assert (math.isnan(mine) and math.isnan(theirs)) or \
            math.isclose(mine, theirs, rel_tol=rtol, abs_tol=atol), f"{path}: {mine} != {theirs}"
        return
    if torch is not None and isinstance(theirs, torch.dtype):
        assert str(mine) == str(theirs)
        return
    assert type(mine) is type(theirs) and mine == theirs, f"{path}: {mine!r} != {theirs!r}"


def diff(qualified: str, *args: Any, rtol: float = 1e-5, atol: float = 1e-6) -> Any:
    """Run a registered kernel and PyTorch's on the same arguments and compare."""
    mine, theirs = run_both(qualified, *args)
    compare(mine, theirs, rtol, atol, qualified)
    return mine


def kernel(qualified: str) -> Callable:
    """The tsjit kernel registered under a qualified name."""
    EXERCISED.add(qualified)
    return find(qualified).kernel


def t(a: Any, dtype: Any = None) -> Tensor:
    """A tsjit tensor from nested lists / arrays (for plain tests)."""
    from tsjit._tensor import tensor
    return tensor(a, dtype=dtype)


def no_int_min_div(a: np.ndarray, b: Any) -> None:
    """Skip examples where integer division would overflow (PyTorch dies with SIGFPE)."""
    if np.asarray(a).dtype.kind in "iu" or np.asarray(b).dtype.kind in "iu":
        bb = np.asarray(b)
        aa = np.asarray(a)
        if aa.dtype.kind == "i" and bb.size and np.any(bb == -1) and aa.size and \
                np.any(aa == np.iinfo(aa.dtype).min):
            assume(False)
        if aa.dtype.kind == "i" and bb.dtype.kind in "iu" and aa.size and \
                np.any(aa == np.iinfo(np.int64).min):
            assume(False)
