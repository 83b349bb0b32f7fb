"""Tensor.__getitem__ / __setitem__ against PyTorch: basic, advanced and mixed indices,
views that write through, and PyTorch's errors."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tsjit._tensor import from_numpy, tensor

torch = pytest.importorskip("torch", reason="PyTorch is the oracle for indexing semantics")
SET = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def index_exprs(draw: st.DrawFn, shape: tuple) -> list:
    """A list of index items, as (tsjit item, torch item) pairs."""
    items = []
    dims = len(shape)
    d = 0
    used_ellipsis = False
    for _ in range(draw(st.integers(0, dims + 1))):
        kind = draw(st.sampled_from(["int", "slice", "none", "ellipsis", "tensor", "mask",
                                     "list", "bool"]))
        if kind in ("int", "slice", "tensor", "list") and d >= dims:
            kind = "none"
        if kind == "mask" and d >= dims:
            kind = "none"
        if kind == "ellipsis":
            if used_ellipsis:
                kind = "none"
            else:
                used_ellipsis = True
                items.append((Ellipsis, Ellipsis))
                d = dims - sum(1 for k in items if k[0] is not None and k[0] is not Ellipsis)
                continue
        n = shape[d] if d < dims else 1
        if kind == "int":
            i = draw(st.integers(-n - 1, n))
            items.append((i, i))
            d += 1
        elif kind == "slice":
            s = slice(draw(st.one_of(st.none(), st.integers(-n - 2, n + 2))),
                      draw(st.one_of(st.none(), st.integers(-n - 2, n + 2))),
                      draw(st.one_of(st.none(), st.integers(1, 3))))
            items.append((s, s))
            d += 1
        elif kind == "none":
            items.append((None, None))
        elif kind == "bool":
            b = draw(st.booleans())
            items.append((b, b))
        elif kind in ("tensor", "list"):
            vals = draw(st.lists(st.integers(-n, max(n - 1, -n)), min_size=0, max_size=3))
            if not n:
                vals = []
            if kind == "list":
                items.append((list(vals), list(vals)))
            else:
                arr = np.array(vals, np.int64)
                items.append((from_numpy(arr.copy()), torch.from_numpy(arr.copy())))
            d += 1
        else:
            m = draw(st.lists(st.booleans(), min_size=n, max_size=n))
            arr = np.array(m, bool)
            items.append((from_numpy(arr.copy()), torch.from_numpy(arr.copy())))
            d += 1
    return items


@st.composite
def indexed_arrays(draw: st.DrawFn) -> tuple:
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=3)))
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    return a, draw(index_exprs(shape)), draw(st.booleans())


def _run(fn: object) -> object:
    try:
        return fn()  # type: ignore[operator]
    except Exception as e:  # noqa: BLE001
        return e


@SET
@given(case=indexed_arrays())
def test_getitem(case: tuple) -> None:
    a, items, as_tuple = case
    mi = tuple(i for i, _ in items)
    ti = tuple(j for _, j in items)
    if not as_tuple and len(items) == 1:
        mi, ti = mi[0], ti[0]
    m = _run(lambda: from_numpy(a.copy())[mi])
    t = _run(lambda: torch.from_numpy(a.copy())[ti])
    if isinstance(t, Exception) or isinstance(m, Exception):
        assert isinstance(t, Exception) and isinstance(m, Exception), (m, t)
        return
    assert tuple(m.shape) == tuple(t.shape)
    assert m.tolist() == t.tolist()


@SET
@given(case=indexed_arrays(), scalar=st.booleans())
def test_setitem(case: tuple, scalar: bool) -> None:
    a, items, _ = case
    mi = tuple(i for i, _ in items)
    ti = tuple(j for _, j in items)
    m, t = from_numpy(a.copy()), torch.from_numpy(a.copy())
    target = _run(lambda: torch.from_numpy(a.copy())[ti])
    if isinstance(target, Exception):
        return
    if scalar:
        vm, vt = -1.5, -1.5
    else:
        v = np.asarray(-np.arange(target.numel(), dtype=np.float32).reshape(tuple(target.shape)) - 1)
        vm, vt = from_numpy(v.copy()), torch.from_numpy(v.copy())
    rm = _run(lambda: m.__setitem__(mi, vm))
    rt = _run(lambda: t.__setitem__(ti, vt))
    assert isinstance(rm, Exception) == isinstance(rt, Exception), (rm, rt)
    if not isinstance(rt, Exception) and not _has_duplicates(items):
        assert m.tolist() == t.tolist()


def _has_duplicates(items: list) -> bool:
    for i, _ in items:
        if isinstance(i, list) and len(set(i)) != len(i):
            return True
        if hasattr(i, "dtype") and i.dtype.kind == "i" and len(set(i.tolist())) != i.numel():
            return True
    return True if sum(1 for i, _ in items if isinstance(i, list) or
                       (hasattr(i, "dtype") and i.dtype.kind == "i")) > 1 else False


def test_basic_views_write_through() -> None:
    x = tensor([[1, 2, 3], [4, 5, 6]])
    row = x[1]
    row += 10
    x[0][1] = -1
    x[..., 2] = 0
    x[:, None, 0][1] = 99
    assert x.tolist() == [[1, -1, 0], [99, 15, 0]]
    s = x[0, 0]
    assert s.dim() == 0 and s._a.base is not None     # a 0-d view, not a copy
    s.fill_(7)
    assert x[0, 0].item() == 7


def test_advanced_indexing_copies_and_masks() -> None:
    x = tensor([[1, 2], [3, 4], [5, 6]])
    sel = x[tensor([0, 2])]
    sel[0, 0] = 100
    assert x[0, 0].item() == 1
    x[x > 3] = 0
    assert x.tolist() == [[1, 2], [3, 0], [0, 0]]
    x[tensor([True, False, True]), 1] = tensor([8, 9])
    assert x.tolist() == [[1, 8], [3, 0], [0, 9]]
    assert x[[0, 1], [1, 0]].tolist() == [8, 3]


def test_index_errors_match_torch_messages() -> None:
    x = tensor([1, 2, 3])
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        x[3]
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 1"):
        x[0, 0]
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or "
                                         "bool tensors"):
        x[tensor([0.0])]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        x[::-1]
