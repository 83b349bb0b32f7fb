"""Recurrent layers and cells: lstm, gru, rnn_tanh / rnn_relu (multi-layer, bidirectional,
batch_first, projections) and their single-step cells, computed in float64."""
from __future__ import annotations

from typing import Callable, Optional, Sequence

import numpy as np

from ...tensor.creation import generator as _gen
from ...tensor.kernel_util import fmt_shape, op, quiet, wrap
from ...tensor.tensor import Tensor
from .tensor_reduce import acc


def _sigmoid(x: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


def _lin(x: np.ndarray, w: np.ndarray, b: Optional[np.ndarray]) -> np.ndarray:
    r = x @ w.T
    return r if b is None else r + b


def _lstm_step(x: np.ndarray, h: np.ndarray, c: np.ndarray, p: list) -> tuple:
    w_ih, w_hh, b_ih, b_hh, w_hr = p
    g = _lin(x, w_ih, b_ih) + _lin(h, w_hh, b_hh)
    i, f, gg, o = np.split(g, 4, axis=-1)
    c2 = _sigmoid(f) * c + _sigmoid(i) * np.tanh(gg)
    h2 = _sigmoid(o) * np.tanh(c2)
    if w_hr is not None:
        h2 = h2 @ w_hr.T
    return h2, c2


def _gru_step(x: np.ndarray, h: np.ndarray, p: list) -> np.ndarray:
    w_ih, w_hh, b_ih, b_hh, _ = p
    gi = _lin(x, w_ih, b_ih)
    gh = _lin(h, w_hh, b_hh)
    ir, iz, inn = np.split(gi, 3, axis=-1)
    hr, hz, hn = np.split(gh, 3, axis=-1)
    r = _sigmoid(ir + hr)
    z = _sigmoid(iz + hz)
    n = np.tanh(inn + r * hn)
    return (1 - z) * n + z * h


def _rnn_step(act: Callable) -> Callable:
    def step(x: np.ndarray, h: np.ndarray, p: list) -> np.ndarray:
        w_ih, w_hh, b_ih, b_hh, _ = p
        return act(_lin(x, w_ih, b_ih) + _lin(h, w_hh, b_hh))
    return step


def _param_groups(params: Sequence[Tensor], has_biases: bool, num_layers: int,
                  dirs: int) -> list[list]:
    n = len(params)
    per = n // (num_layers * dirs) if num_layers * dirs else 0
    if per * num_layers * dirs != n or per not in ((4, 5) if has_biases else (2, 3)):
        raise RuntimeError(f"rnn: expected {num_layers * dirs * (4 if has_biases else 2)} "
                           f"parameters but got {n}")
    groups = []
    for k in range(num_layers * dirs):
        ps = [acc(t._a) for t in params[k * per:(k + 1) * per]]
        if has_biases:
            w_ih, w_hh, b_ih, b_hh = ps[:4]
            w_hr = ps[4] if per == 5 else None
        else:
            w_ih, w_hh = ps[:2]
            b_ih = b_hh = None
            w_hr = ps[2] if per == 3 else None
        groups.append([w_ih, w_hh, b_ih, b_hh, w_hr])
    return groups


@quiet
def _run(kind: str, input: Tensor, hx: list[Tensor], params: Sequence[Tensor], has_biases: bool,
         num_layers: int, dropout: float, train: bool, bidirectional: bool,
         batch_first: bool) -> tuple:
    a = input._a
    dt = a.dtype
    if a.ndim != 3:
        # the aten op is batched only; nn.RNN modules add the batch dimension themselves
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got "
                         "1)" if a.ndim < 2 else f"input must have 3 dimensions, got {a.ndim}")
    x = acc(a)
    if batch_first:
        x = np.swapaxes(x, 0, 1)            # (L, N, H)
    dirs = 2 if bidirectional else 1
    groups = _param_groups(params, has_biases, num_layers, dirs)
    hs = [acc(h._a) for h in hx]
    for h in hs:
        if h.shape[0] != num_layers * dirs or h.shape[1] != x.shape[1]:
            raise RuntimeError(f"Expected hidden size ({num_layers * dirs}, {x.shape[1]}, "
                               f"{h.shape[-1]}), got {fmt_shape(h.shape)}")
    step = {"lstm": None, "gru": _gru_step, "rnn_tanh": _rnn_step(np.tanh),
            "rnn_relu": _rnn_step(lambda v: np.maximum(v, 0))}[kind]
    h_out, c_out = [], []
    layer_in = x
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            p = groups[k]
            h = hs[0][k]
            c = hs[1][k] if kind == "lstm" else None
            seq = range(layer_in.shape[0]) if d == 0 else range(layer_in.shape[0] - 1, -1, -1)
            ys = [None] * layer_in.shape[0]
            for t in seq:
                if kind == "lstm":
                    h, c = _lstm_step(layer_in[t], h, c, p)
                else:
                    h = step(layer_in[t], h, p)
                ys[t] = h
            outs.append(np.stack(ys) if ys else np.zeros((0,) + h.shape))
            h_out.append(h)
            if kind == "lstm":
                c_out.append(c)
        layer_in = np.concatenate(outs, axis=-1)
        if train and dropout > 0 and layer < num_layers - 1:
            keep = _gen().random(layer_in.shape) >= dropout
            layer_in = np.where(keep, layer_in / (1 - dropout), 0.0)
    out = layer_in
    hn = np.stack(h_out)
    cn = np.stack(c_out) if kind == "lstm" else None
    if batch_first:
        out = np.swapaxes(out, 0, 1)
    res = [wrap(np.ascontiguousarray(out).astype(dt)), wrap(hn.astype(dt))]
    if cn is not None:
        res.append(wrap(cn.astype(dt)))
    return tuple(res)


@op("aten::lstm.input(Tensor input, Tensor[] hx, Tensor[] params, bool has_biases, "
    "int num_layers, float dropout, bool train, bool bidirectional, bool batch_first) -> "
    "(Tensor, Tensor, Tensor)")
def lstm(input: Tensor, hx: list[Tensor], params: list[Tensor], has_biases: bool,
         num_layers: int, dropout: float, train: bool, bidirectional: bool,
         batch_first: bool) -> tuple:
    """Multi-layer LSTM: (output, h_n, c_n)."""
    return _run("lstm", input, hx, params, has_biases, num_layers, dropout, train,
                bidirectional, batch_first)


def _single(kind: str) -> Callable:
    def kernel(input: Tensor, hx: Tensor, params: list[Tensor], has_biases: bool,
               num_layers: int, dropout: float, train: bool, bidirectional: bool,
               batch_first: bool) -> tuple:
        return _run(kind, input, [hx], params, has_biases, num_layers, dropout, train,
                    bidirectional, batch_first)
    kernel.__name__ = kind
    kernel.__doc__ = f"Multi-layer {kind}: (output, h_n)."
    return kernel


_ARGS = ("Tensor input, Tensor hx, Tensor[] params, bool has_biases, int num_layers, "
         "float dropout, bool train, bool bidirectional, bool batch_first")
gru = op(f"aten::gru.input({_ARGS}) -> (Tensor, Tensor)")(_single("gru"))
rnn_tanh = op(f"aten::rnn_tanh.input({_ARGS}) -> (Tensor, Tensor)")(_single("rnn_tanh"))
rnn_relu = op(f"aten::rnn_relu.input({_ARGS}) -> (Tensor, Tensor)")(_single("rnn_relu"))


def _opt(t: Optional[Tensor]) -> Optional[np.ndarray]:
    return None if t is None else acc(t._a)


@op("aten::lstm_cell(Tensor input, Tensor[] hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None, "
    "Tensor? b_hh=None) -> (Tensor, Tensor)")
@quiet
def lstm_cell(input: Tensor, hx: list[Tensor], w_ih: Tensor, w_hh: Tensor,
              b_ih: Optional[Tensor] = None, b_hh: Optional[Tensor] = None) -> tuple:
    """One LSTM step: (h', c')."""
    h, c = _lstm_step(acc(input._a), acc(hx[0]._a), acc(hx[1]._a),
                      [acc(w_ih._a), acc(w_hh._a), _opt(b_ih), _opt(b_hh), None])
    dt = input._a.dtype
    return wrap(h.astype(dt)), wrap(c.astype(dt))


def _cell(step: Callable, name: str) -> Callable:
    @quiet
    def kernel(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,
               b_ih: Optional[Tensor] = None, b_hh: Optional[Tensor] = None) -> Tensor:
        h = step(acc(input._a), acc(hx._a), [acc(w_ih._a), acc(w_hh._a), _opt(b_ih),
                                             _opt(b_hh), None])
        return wrap(h.astype(input._a.dtype))
    kernel.__name__ = name
    kernel.__doc__ = f"One {name} step."
    return kernel


_CELL = ("Tensor input, Tensor hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None, "
         "Tensor? b_hh=None")
gru_cell = op(f"aten::gru_cell({_CELL}) -> Tensor")(_cell(_gru_step, "gru_cell"))
rnn_tanh_cell = op(f"aten::rnn_tanh_cell({_CELL}) -> Tensor")(
    _cell(_rnn_step(np.tanh), "rnn_tanh_cell"))
rnn_relu_cell = op(f"aten::rnn_relu_cell({_CELL}) -> Tensor")(
    _cell(_rnn_step(lambda v: np.maximum(v, 0)), "rnn_relu_cell"))
