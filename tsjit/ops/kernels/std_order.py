"""The order PyTorch's unstable CPU sorts give to equal elements.

PyTorch's `sort` (unless `stable=True`), `argsort` and `topk` on CPU run the C++ standard
library's `std::sort`, `std::partial_sort` and `std::nth_element` (libstdc++'s introsort,
heap select and introselect) on (value, index) pairs compared by value only. Where values tie,
the indices come out in the order those algorithms leave them, which is neither stable nor
reversed; detection models turn that order into which of two equal-score boxes survives.
These functions replay the same algorithms step by step on a list of (rank, index) pairs, so the
indices match PyTorch's exactly. Callers use them only for lanes that hold ties: without ties
every correct sort gives the same order, and numpy's is much faster.

Ranks stand for the comparator: `ranks` (see `lane_ranks`) are dense integers such that element
a goes before b exactly when rank(a) < rank(b) (NaN's rank puts it where PyTorch's comparators
do; -0.0 and 0.0 share a rank, as they compare equal).
"""
from __future__ import annotations

import numpy as np

_THRESHOLD = 16          # libstdc++'s _S_threshold: below it, insertion sort finishes


def lane_ranks(lane: np.ndarray, descending: bool) -> np.ndarray:
    """Dense ranks of a 1-d lane under PyTorch's comparator: ascending puts NaN last,
    descending puts NaN first."""
    a = lane
    if a.dtype.kind == "f":
        a = np.where(a == 0, a.dtype.type(0), a)   # -0.0 == 0.0
    elif a.dtype.kind == "b":
        a = a.astype(np.int8)
    ranks = np.unique(a, return_inverse=True)[1].reshape(-1)   # NaNs: one value, the largest
    return (ranks.max(initial=0) - ranks) if descending else ranks


def has_ties(lane_sorted: np.ndarray) -> bool:
    """Whether a sorted 1-d lane holds two equal elements (NaNs count as equal)."""
    if lane_sorted.size < 2:
        return False
    a, b = lane_sorted[1:], lane_sorted[:-1]
    eq = a == b
    if lane_sorted.dtype.kind == "f":
        eq |= np.isnan(a) & np.isnan(b)
    return bool(eq.any())


def _pairs(ranks: np.ndarray) -> list:
    return list(zip(ranks.tolist(), range(len(ranks))))


def _indices(e: list) -> np.ndarray:
    return np.fromiter((p[1] for p in e), np.int64, len(e))


# --- the algorithms, on e: list of (rank, index); e[i][0] < e[j][0] is the comparator ------------
def _lg(n: int) -> int:
    return n.bit_length() - 1


def _unguarded_linear_insert(e: list, last: int) -> None:
    val = e[last]
    nxt = last - 1
    while val[0] < e[nxt][0]:
        e[last] = e[nxt]
        last = nxt
        nxt -= 1
    e[last] = val


def _insertion_sort(e: list, first: int, last: int) -> None:
    for i in range(first + 1, last):
        val = e[i]
        if val[0] < e[first][0]:
            e[first + 1:i + 1] = e[first:i]
            e[first] = val
        else:
            _unguarded_linear_insert(e, i)


def _final_insertion_sort(e: list, first: int, last: int) -> None:
    if last - first > _THRESHOLD:
        _insertion_sort(e, first, first + _THRESHOLD)
        for i in range(first + _THRESHOLD, last):
            _unguarded_linear_insert(e, i)
    else:
        _insertion_sort(e, first, last)


def _move_median_to_first(e: list, result: int, a: int, b: int, c: int) -> None:
    ka, kb, kc = e[a][0], e[b][0], e[c][0]
    if ka < kb:
        m = b if kb < kc else (c if ka < kc else a)
    elif ka < kc:
        m = a
    elif kb < kc:
        m = c
    else:
        m = b
    e[result], e[m] = e[m], e[result]


def _partition_pivot(e: list, first: int, last: int) -> int:
    _move_median_to_first(e, first, first + 1, first + (last - first) // 2, last - 1)
    p = e[first][0]          # the pivot stays at `first` while [first + 1, last) is partitioned
    lo, hi = first + 1, last
    while True:
        while e[lo][0] < p:
            lo += 1
        hi -= 1
        while p < e[hi][0]:
            hi -= 1
        if not lo < hi:
            return lo
        e[lo], e[hi] = e[hi], e[lo]
        lo += 1


def _push_heap(e: list, first: int, hole: int, top: int, val: tuple) -> None:
    parent = (hole - 1) // 2
    while hole > top and e[first + parent][0] < val[0]:
        e[first + hole] = e[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    e[first + hole] = val


def _adjust_heap(e: list, first: int, hole: int, length: int, val: tuple) -> None:
    top = second = hole
    while second < (length - 1) // 2:
        second = 2 * (second + 1)
        if e[first + second][0] < e[first + second - 1][0]:
            second -= 1
        e[first + hole] = e[first + second]
        hole = second
    if length & 1 == 0 and second == (length - 2) // 2:
        second = 2 * (second + 1)
        e[first + hole] = e[first + second - 1]
        hole = second - 1
    _push_heap(e, first, hole, top, val)


def _pop_heap(e: list, first: int, last: int, result: int) -> None:
    val = e[result]
    e[result] = e[first]
    _adjust_heap(e, first, 0, last - first, val)


def _heap_select(e: list, first: int, middle: int, last: int) -> None:
    n = middle - first
    if n >= 2:   # make_heap
        parent = (n - 2) // 2
        while True:
            _adjust_heap(e, first, parent, n, e[first + parent])
            if parent == 0:
                break
            parent -= 1
    for i in range(middle, last):
        if e[i][0] < e[first][0]:
            _pop_heap(e, first, middle, i)


def _sort_heap(e: list, first: int, last: int) -> None:
    while last - first > 1:
        last -= 1
        _pop_heap(e, first, last, last)


def _introsort_loop(e: list, first: int, last: int, depth: int) -> None:
    while last - first > _THRESHOLD:
        if depth == 0:
            _heap_select(e, first, last, last)
            _sort_heap(e, first, last)
            return
        depth -= 1
        cut = _partition_pivot(e, first, last)
        _introsort_loop(e, cut, last, depth)
        last = cut


def _sort_range(e: list, first: int, last: int) -> None:
    if last - first > 0:
        _introsort_loop(e, first, last, 2 * _lg(last - first))
        _final_insertion_sort(e, first, last)


# --- what the kernels call -----------------------------------------------------------------------
def sort_order(ranks: np.ndarray) -> np.ndarray:
    """The permutation `std::sort` leaves (value, index) pairs in, by rank."""
    e = _pairs(ranks)
    _sort_range(e, 0, len(e))
    return _indices(e)


def topk_order(ranks: np.ndarray, k: int, sorted: bool) -> np.ndarray:
    """The first k indices of PyTorch's CPU topk by rank (rank 0 is the best): a partial sort
    when k * 64 <= n, else nth_element at k - 1 followed (when sorted) by a sort of the first
    k - 1."""
    e = _pairs(ranks)
    n = len(e)
    if k == 0 or n == 0:
        return np.zeros(0, np.int64)
    if k * 64 <= n:
        _heap_select(e, 0, k, n)
        _sort_heap(e, 0, k)
    else:
        nth = k - 1
        first, last = 0, n
        if nth != last:
            depth = 2 * _lg(n)
            while last - first > 3:
                if depth == 0:
                    _heap_select(e, first, nth + 1, last)
                    e[first], e[nth] = e[nth], e[first]
                    break
                depth -= 1
                cut = _partition_pivot(e, first, last)
                if cut <= nth:
                    first = cut
                else:
                    last = cut
            else:
                _insertion_sort(e, first, last)
        if sorted:
            _sort_range(e, 0, k - 1)
    return _indices(e[:k])
