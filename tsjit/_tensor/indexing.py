"""`Tensor.__getitem__` / `__setitem__` with PyTorch's indexing semantics.

Ints, slices, None and Ellipsis select a view (numpy basic indexing; an Ellipsis is
appended so that a fully-indexed result stays a 0-d array view instead of becoming a
numpy scalar). Integer / bool tensors, lists and arrays are advanced indices and copy,
with numpy's (= PyTorch's) placement rules for the result dimensions.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .kernel_util import fp_ignored, scalar_to_np
from .tensor import Tensor


def _index_array(x: Any) -> Any:
    """An advanced index (Tensor / list / ndarray) as a numpy int64 or bool array."""
    a = x._a if isinstance(x, Tensor) else np.asarray(x)
    if a.dtype == np.bool_:
        return a
    if a.dtype == np.uint8:
        return a.astype(bool)    # PyTorch treats uint8 index tensors as masks (deprecated)
    if a.dtype.kind in "iu":
        return a.astype(np.int64, copy=False)
    if not isinstance(x, Tensor) and (a.size == 0 or a.dtype.kind == "f"):
        # A Python sequence becomes a long tensor as PyTorch makes it: x[[]] selects
        # nothing, x[[0.1, 1.2]] is x[[0, 1]].
        return a.astype(np.int64)
    raise IndexError("tensors used as indices must be long, int, byte or bool tensors")


def _is_tuple_like_list(x: list) -> bool:
    # a list holding slices / None / Ellipsis / tensors is indexed like a tuple (numpy's
    # legacy rule that PyTorch keeps)
    return any(e is None or e is Ellipsis or isinstance(e, (slice, Tensor)) for e in x)


def convert(t: Tensor, idx: Any) -> tuple[tuple, Optional[tuple]]:
    """(basic, advanced) numpy indices for `t[idx]`, applied one after the other.

    PyTorch applies ints, slices, None and Ellipsis first (a view: ints remove dims, None
    adds them) and only then the tensor indices, placed at the dims they address in that
    view. `advanced` is None when there are no tensor indices.
    """
    if isinstance(idx, list) and _is_tuple_like_list(idx):
        idx = tuple(idx)
    if not isinstance(idx, tuple):
        idx = (idx,)
    ndim = t._a.ndim
    shape = t._a.shape
    consumed = 0
    for e in idx:
        if e is None or e is Ellipsis or isinstance(e, (bool, np.bool_)):
            continue
        if isinstance(e, Tensor) and e._a.dtype in (np.bool_, np.uint8):
            consumed += e._a.ndim
        elif isinstance(e, np.ndarray) and e.dtype == np.bool_:
            consumed += e.ndim
        else:
            consumed += 1
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    basic: list[Any] = []
    adv: list[Any] = []          # per dim of the basic view: index array or slice(None)
    has_adv = False
    dim = 0                      # dim of t being addressed
    seen_ellipsis = False
    for e in idx:
        if e is None:
            basic.append(None)
            adv.append(slice(None))
        elif e is Ellipsis:
            if seen_ellipsis:
                raise IndexError("an index can only have a single ellipsis ('...')")
            seen_ellipsis = True
            n = ndim - consumed
            basic.append(Ellipsis)
            adv.extend([slice(None)] * n)
            dim += n
        elif isinstance(e, (bool, np.bool_)):
            # PyTorch: a new dim, indexed by tensor([0]) for True or tensor([]) for False
            basic.append(None)
            adv.append(np.zeros(1 if e else 0, np.int64))
            has_adv = True
        elif isinstance(e, (int, np.integer)) or (
                isinstance(e, Tensor) and e._a.ndim == 0 and e._a.dtype.kind in "iu"
                and e._a.dtype != np.uint8):
            i = int(e)
            size = shape[dim]
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for dimension {dim} with size "
                                 f"{size}")
            basic.append(i)
            dim += 1
        elif isinstance(e, slice):
            for v in (e.start, e.stop, e.step):
                if v is not None and not isinstance(v, (int, np.integer, Tensor)):
                    raise TypeError("slice indices must be integers or None or have an "
                                    "__index__ method")
            step = 1 if e.step is None else int(e.step)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            basic.append(slice(None if e.start is None else int(e.start),
                               None if e.stop is None else int(e.stop), step))
            adv.append(slice(None))
            dim += 1
        elif isinstance(e, (Tensor, list, np.ndarray, tuple)):
            a = _index_array(e)
            has_adv = True
            k = a.ndim if a.dtype == np.bool_ else 1
            if a.dtype == np.bool_ and a.ndim == 0:
                basic.append(None)       # a 0-d mask adds a dim, like PyTorch
                adv.append(a.reshape(1) if bool(a) else np.zeros(1, bool))
                continue
            basic.extend([slice(None)] * k)
            adv.append(a)
            adv.extend([_SKIP] * (k - 1))
            dim += k
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                "Variables are valid indices (got " + type(e).__name__ + ")")
    if not seen_ellipsis:
        basic.append(Ellipsis)   # keeps a fully indexed result a 0-d view, not a scalar
    if not has_adv:
        return tuple(basic), None
    return tuple(basic), tuple(x for x in adv if x is not _SKIP)


class _Skip:
    pass


_SKIP = _Skip()


def _reraise(e: IndexError) -> IndexError:
    return IndexError(str(e).replace(" axis ", " dimension "))


def getitem(t: Tensor, idx: Any) -> Tensor:
    """t[idx]: a view for basic indices, a copy for advanced ones."""
    basic, adv = convert(t, idx)
    r = t._a[basic]
    if adv is not None:
        try:
            r = r[adv]
        except IndexError as e:
            raise _reraise(e) from None
    return Tensor._wrap(r if isinstance(r, np.ndarray) else np.asarray(r))


def setitem(t: Tensor, idx: Any, value: Any) -> None:
    """t[idx] = value, writing through to t's memory (and every view of it)."""
    basic, adv = convert(t, idx)
    a = t._writable()
    if isinstance(value, Tensor):
        v = value._a
        if v.dtype != a.dtype:
            with fp_ignored():
                v = v.astype(a.dtype)
    elif isinstance(value, (int, float, bool, complex, np.generic)):
        v = scalar_to_np(value, t.dtype)
    else:
        raise TypeError(f"can't assign a {type(value).__name__} to a "
                        f"{t.dtype.cname}Tensor")
    view = a[basic]
    try:
        if adv is None:
            view[...] = v
        else:
            view[adv] = v
    except IndexError as e:
        raise _reraise(e) from None
    except ValueError:
        target = view.shape if adv is None else np.empty(view.shape)[adv].shape
        raise RuntimeError(
            f"shape mismatch: value tensor of shape [{', '.join(map(str, np.shape(v)))}] "
            f"cannot be broadcast to indexing result of shape "
            f"[{', '.join(map(str, target))}]") from None
