"""Recurrent layers and cells: lstm, gru, rnn_tanh / rnn_relu (multi-layer, bidirectional,
batch_first, projections, packed sequences) and their single-step cells.

A dense input is run as a packed one whose batch size never shrinks, so both share one
loop. Per layer and direction, the input projections of all time steps are one matrix
product; each step then does one product with the recurrent weights (the gates fused).
float32 (and float16) inputs compute in float32, as PyTorch does; float64 in float64.
"""
from __future__ import annotations

from typing import Callable, Optional, Sequence

import numpy as np

from ..._tensor.creation import generator as _gen
from ..registry import op
from ..._tensor.kernel_util import fmt_shape, quiet, wrap
from ..._tensor.tensor import Tensor


def _sigmoid(x: np.ndarray) -> np.ndarray:
    # exp overflows to inf for very negative x, giving the correct 0 (warnings are off)
    return 1 / (1 + np.exp(-x))


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0)


def _compute_dtype(a: np.ndarray) -> np.dtype:
    return np.dtype(np.float64) if a.dtype == np.float64 else np.dtype(np.float32)


def _lin(x: np.ndarray, w: np.ndarray, b: Optional[np.ndarray]) -> np.ndarray:
    r = x @ w.T
    return r if b is None else r + b


def _lstm_gates(g: np.ndarray, c: np.ndarray,
                out: Optional[np.ndarray] = None) -> tuple[np.ndarray, np.ndarray]:
    """(h, c') from the summed gate pre-activations g = [i, f, g, o] (overwritten) and the
    cell c; h is written into `out` when given. In place where possible: this runs once per
    time step, where allocations cost as much as the arithmetic."""
    hid = c.shape[-1]
    tg = np.tanh(g[:, 2 * hid:3 * hid])
    s = g
    np.negative(s, out=s)           # sigmoid of all four (the g gate's is unused) in place
    np.exp(s, out=s)
    s += 1
    np.reciprocal(s, out=s)
    c2 = s[:, hid:2 * hid] * c
    tg *= s[:, :hid]
    c2 += tg
    th = np.tanh(c2)
    return np.multiply(s[:, 3 * hid:], th, out=out if out is not None else th), c2


def _gru_gates(gi: np.ndarray, gh: np.ndarray, h: np.ndarray) -> np.ndarray:
    """h' from the input and hidden projections [r, z, n] and the state h."""
    hid = h.shape[-1]
    rz = _sigmoid(gi[:, :2 * hid] + gh[:, :2 * hid])
    n = np.tanh(gi[:, 2 * hid:] + rz[:, :hid] * gh[:, 2 * hid:])
    z = rz[:, hid:]
    return n + z * (h - n)


class _Weights:
    """One layer and direction: W_ih, W_hh^T, biases, projection^T, in the compute dtype."""

    def __init__(self, ps: list[np.ndarray], has_biases: bool) -> None:
        if has_biases:
            self.w_ih, w_hh, self.b_ih, self.b_hh = ps[:4]
            w_hr = ps[4] if len(ps) == 5 else None
        else:
            self.w_ih, w_hh = ps[:2]
            self.b_ih = self.b_hh = None
            w_hr = ps[2] if len(ps) == 3 else None
        # contiguous transposes for the small per-step products, on which BLAS is several
        # times slower with transposed views; the input projection is one product over all
        # steps, as fast on the view, so W_ih is not copied
        self.w_hh_t = np.ascontiguousarray(w_hh.T)
        self.w_hr_t = None if w_hr is None else np.ascontiguousarray(w_hr.T)


def _param_groups(params: Sequence[Tensor], has_biases: bool, num_layers: int, dirs: int,
                  cd: np.dtype) -> list[_Weights]:
    n = len(params)
    per = n // (num_layers * dirs) if num_layers * dirs else 0
    if per * num_layers * dirs != n or per not in ((4, 5) if has_biases else (2, 3)):
        raise RuntimeError(f"rnn: expected {num_layers * dirs * (4 if has_biases else 2)} "
                           f"parameters but got {n}")
    return [_Weights([t._a.astype(cd, copy=False) for t in params[k * per:(k + 1) * per]],
                     has_biases) for k in range(num_layers * dirs)]


def _direction(kind: str, x: np.ndarray, sizes: list[int], h: np.ndarray,
               c: Optional[np.ndarray], w: _Weights, out: np.ndarray,
               reverse: bool) -> tuple[np.ndarray, Optional[np.ndarray]]:
    """Run one layer in one direction over packed rows x, writing each step's h into out
    (its rows in x's order); returns the final (h, c). Sequences are sorted by length, so
    at step t the first sizes[t] of them are active; a finished sequence keeps its state."""
    gi = x @ w.w_ih.T
    if w.b_ih is not None:
        gi += w.b_ih
    if kind != "gru" and w.b_hh is not None:
        gi += w.b_hh                # additive, so folded into the input projection
    act = np.tanh if kind == "rnn_tanh" else _relu
    offsets = np.concatenate([[0], np.cumsum(sizes)]).tolist()
    steps = range(len(sizes) - 1, -1, -1) if reverse else range(len(sizes))
    h = h.copy()
    c = None if c is None else c.copy()
    for t in steps:
        o, bs = offsets[t], sizes[t]
        full = bs == h.shape[0]
        hp = h if full else h[:bs]
        written = False
        if kind == "lstm":
            g = hp @ w.w_hh_t
            g += gi[o:o + bs]
            if w.w_hr_t is None:
                hn, cn = _lstm_gates(g, c if full else c[:bs], out[o:o + bs])
                written = True      # hn is a view of out's rows
            else:
                hn, cn = _lstm_gates(g, c if full else c[:bs])
                hn = hn @ w.w_hr_t
            if full:
                c = cn
            else:
                c[:bs] = cn
        elif kind == "gru":
            gh = hp @ w.w_hh_t
            if w.b_hh is not None:
                gh += w.b_hh
            hn = _gru_gates(gi[o:o + bs], gh, hp)
        else:
            hn = act(gi[o:o + bs] + hp @ w.w_hh_t)
        if full:
            h = hn
        else:
            if h.base is not None:
                h = h.copy()        # h may be a view of out's rows: do not write through it
            h[:bs] = hn
        if not written:
            out[o:o + bs] = hn
    return h, c


@quiet
def _run_packed(kind: str, x: np.ndarray, sizes: list[int], hx: list[np.ndarray],
                params: Sequence[Tensor], has_biases: bool, num_layers: int, dropout: float,
                train: bool, bidirectional: bool) -> tuple:
    """The recurrence over packed rows x (sum(sizes), features): (out rows, h_n[, c_n])."""
    dt = x.dtype
    cd = _compute_dtype(x)
    dirs = 2 if bidirectional else 1
    groups = _param_groups(params, has_biases, num_layers, dirs, cd)
    batch = sizes[0] if sizes else 0
    for h in hx:
        if h.shape[0] != num_layers * dirs or h.shape[1] != batch:
            raise RuntimeError(f"Expected hidden size ({num_layers * dirs}, {batch}, "
                               f"{h.shape[-1]}), got {fmt_shape(h.shape)}")
    hs = [h.astype(cd, copy=False) for h in hx]
    h_out, c_out = [], []
    layer_in = x.astype(cd, copy=False)
    for layer in range(num_layers):
        hid = hs[0].shape[-1]
        out = np.empty((layer_in.shape[0], dirs * hid), cd)
        for d in range(dirs):
            k = layer * dirs + d
            h, c = _direction(kind, layer_in, sizes, hs[0][k],
                              hs[1][k] if kind == "lstm" else None, groups[k],
                              out[:, d * hid:(d + 1) * hid], d == 1)
            h_out.append(h)
            c_out.append(c)
        layer_in = out
        if train and dropout > 0 and layer < num_layers - 1:
            keep = _gen().random(layer_in.shape) >= dropout
            layer_in = np.where(keep, layer_in / (1 - dropout), 0.0).astype(cd)
    res = [layer_in.astype(dt, copy=False), np.stack(h_out).astype(dt, copy=False)]
    if kind == "lstm":
        res.append(np.stack(c_out).astype(dt, copy=False))
    return tuple(res)


def _run(kind: str, input: Tensor, hx: list[Tensor], params: Sequence[Tensor],
         has_biases: bool, num_layers: int, dropout: float, train: bool, bidirectional: bool,
         batch_first: bool) -> tuple:
    a = input._a
    if a.ndim != 3:
        # the aten op is batched only; nn.RNN modules add the batch dimension themselves
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got "
                         "1)" if a.ndim < 2 else f"input must have 3 dimensions, got {a.ndim}")
    x = np.swapaxes(a, 0, 1) if batch_first else a          # (L, N, features)
    seq, batch = x.shape[:2]
    rows = np.ascontiguousarray(x).reshape(seq * batch, x.shape[2])
    res = _run_packed(kind, rows, [batch] * seq, [h._a for h in hx], params, has_biases,
                      num_layers, dropout, train, bidirectional)
    out = res[0].reshape(seq, batch, -1)
    if batch_first:
        out = np.ascontiguousarray(np.swapaxes(out, 0, 1))
    return (wrap(out),) + tuple(wrap(r) for r in res[1:])


def _run_data(kind: str, data: Tensor, batch_sizes: Tensor, hx: list[Tensor],
              params: Sequence[Tensor], has_biases: bool, num_layers: int, dropout: float,
              train: bool, bidirectional: bool) -> tuple:
    """The `.data` overloads: a PackedSequence's data rows and batch sizes."""
    b = batch_sizes._a
    if b.ndim != 1 or b.dtype != np.int64:
        raise RuntimeError("batch_sizes must be a 1D int64 (CPU) tensor, got "
                           f"{batch_sizes.dtype.cname} of shape {fmt_shape(b.shape)}")
    sizes = b.tolist()
    if any(s <= 0 for s in sizes) or any(x < y for x, y in zip(sizes, sizes[1:])):
        raise RuntimeError("batch_sizes must be positive and non-increasing, got "
                           f"{sizes}")
    a = data._a
    if a.ndim != 2 or a.shape[0] != sum(sizes):
        raise RuntimeError(f"packed data must have shape (sum(batch_sizes) = {sum(sizes)}, "
                           f"features), got {fmt_shape(a.shape)}")
    res = _run_packed(kind, a, sizes, [h._a for h in hx], params, has_biases, num_layers,
                      dropout, train, bidirectional)
    return tuple(wrap(r) for r in res)


_DATA = ("Tensor data, Tensor batch_sizes, {hx}, Tensor[] params, bool has_biases, "
         "int num_layers, float dropout, bool train, bool bidirectional")


@op("aten::lstm.input(Tensor input, Tensor[] hx, Tensor[] params, bool has_biases, "
    "int num_layers, float dropout, bool train, bool bidirectional, bool batch_first) -> "
    "(Tensor, Tensor, Tensor)")
def lstm(input: Tensor, hx: list[Tensor], params: list[Tensor], has_biases: bool,
         num_layers: int, dropout: float, train: bool, bidirectional: bool,
         batch_first: bool) -> tuple:
    """Multi-layer LSTM: (output, h_n, c_n)."""
    return _run("lstm", input, hx, params, has_biases, num_layers, dropout, train,
                bidirectional, batch_first)


@op(f"aten::lstm.data({_DATA.format(hx='Tensor[] hx')}) -> (Tensor, Tensor, Tensor)")
def lstm_data(data: Tensor, batch_sizes: Tensor, hx: list[Tensor], params: list[Tensor],
              has_biases: bool, num_layers: int, dropout: float, train: bool,
              bidirectional: bool) -> tuple:
    """Multi-layer LSTM over a packed sequence: (output data, h_n, c_n)."""
    return _run_data("lstm", data, batch_sizes, hx, params, has_biases, num_layers, dropout,
                     train, bidirectional)


def _single(kind: str) -> Callable:
    def kernel(input: Tensor, hx: Tensor, params: list[Tensor], has_biases: bool,
               num_layers: int, dropout: float, train: bool, bidirectional: bool,
               batch_first: bool) -> tuple:
        return _run(kind, input, [hx], params, has_biases, num_layers, dropout, train,
                    bidirectional, batch_first)
    kernel.__name__ = kind
    kernel.__doc__ = f"Multi-layer {kind}: (output, h_n)."
    return kernel


def _single_data(kind: str) -> Callable:
    def kernel(data: Tensor, batch_sizes: Tensor, hx: Tensor, params: list[Tensor],
               has_biases: bool, num_layers: int, dropout: float, train: bool,
               bidirectional: bool) -> tuple:
        return _run_data(kind, data, batch_sizes, [hx], params, has_biases, num_layers,
                         dropout, train, bidirectional)
    kernel.__name__ = kind + "_data"
    kernel.__doc__ = f"Multi-layer {kind} over a packed sequence: (output data, h_n)."
    return kernel


_ARGS = ("Tensor input, Tensor hx, Tensor[] params, bool has_biases, int num_layers, "
         "float dropout, bool train, bool bidirectional, bool batch_first")
gru = op(f"aten::gru.input({_ARGS}) -> (Tensor, Tensor)")(_single("gru"))
rnn_tanh = op(f"aten::rnn_tanh.input({_ARGS}) -> (Tensor, Tensor)")(_single("rnn_tanh"))
rnn_relu = op(f"aten::rnn_relu.input({_ARGS}) -> (Tensor, Tensor)")(_single("rnn_relu"))
_HX = _DATA.format(hx="Tensor hx")
gru_data = op(f"aten::gru.data({_HX}) -> (Tensor, Tensor)")(_single_data("gru"))
rnn_tanh_data = op(f"aten::rnn_tanh.data({_HX}) -> (Tensor, Tensor)")(_single_data("rnn_tanh"))
rnn_relu_data = op(f"aten::rnn_relu.data({_HX}) -> (Tensor, Tensor)")(_single_data("rnn_relu"))


def _cell_arrays(input: Tensor, hs: list[Tensor], w_ih: Tensor, w_hh: Tensor,
                 b_ih: Optional[Tensor], b_hh: Optional[Tensor]) -> tuple:
    """The cell's operands in the compute dtype: x, states, gi = x W_ih^T + b_ih, and
    gh = h W_hh^T + b_hh."""
    cd = _compute_dtype(input._a)
    x, *states = [t._a.astype(cd, copy=False) for t in [input] + hs]
    bi, bh = (None if b is None else b._a.astype(cd, copy=False) for b in (b_ih, b_hh))
    gi = _lin(x, w_ih._a.astype(cd, copy=False), bi)
    gh = _lin(states[0], w_hh._a.astype(cd, copy=False), bh)
    return states, gi, gh


@op("aten::lstm_cell(Tensor input, Tensor[] hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None, "
    "Tensor? b_hh=None) -> (Tensor, Tensor)")
@quiet
def lstm_cell(input: Tensor, hx: list[Tensor], w_ih: Tensor, w_hh: Tensor,
              b_ih: Optional[Tensor] = None, b_hh: Optional[Tensor] = None) -> tuple:
    """One LSTM step: (h', c')."""
    (_, c), gi, gh = _cell_arrays(input, hx[:2], w_ih, w_hh, b_ih, b_hh)
    h2, c2 = _lstm_gates(gi + gh, c)
    dt = input._a.dtype
    return wrap(h2.astype(dt, copy=False)), wrap(c2.astype(dt, copy=False))


def _cell(kind: str) -> Callable:
    @quiet
    def kernel(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,
               b_ih: Optional[Tensor] = None, b_hh: Optional[Tensor] = None) -> Tensor:
        (h,), gi, gh = _cell_arrays(input, [hx], w_ih, w_hh, b_ih, b_hh)
        if kind == "gru_cell":
            h2 = _gru_gates(gi, gh, h)
        else:
            h2 = (np.tanh if kind == "rnn_tanh_cell" else _relu)(gi + gh)
        return wrap(h2.astype(input._a.dtype, copy=False))
    kernel.__name__ = kind
    kernel.__doc__ = f"One {kind} step."
    return kernel


_CELL = ("Tensor input, Tensor hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None, "
         "Tensor? b_hh=None")
gru_cell = op(f"aten::gru_cell({_CELL}) -> Tensor")(_cell("gru_cell"))
rnn_tanh_cell = op(f"aten::rnn_tanh_cell({_CELL}) -> Tensor")(_cell("rnn_tanh_cell"))
rnn_relu_cell = op(f"aten::rnn_relu_cell({_CELL}) -> Tensor")(_cell("rnn_relu_cell"))
