"""The hot kernels of real models against the best plain-numpy formulation of each, and PyTorch.

    python benchmarks/bench_kernels.py [NAME ...]

For each kernel, at a shape taken from a zoo model: tsjit's eager call (tsjit.nn.functional,
which is what a compiled model calls, plus its dispatch), the fastest plain-numpy formulation
written here (float32 throughout, in-place where it helps, sliding_window_view / einsum /
matmul layouts for the convolutions), and torch (when importable). One thread; the three take
turns, best of several. Each line says whether tsjit or plain numpy is faster; numpy's limit
is the plain formulation, PyTorch's the line beside it.
`TSJIT_BENCH_CLOCK=cpu` times the steady calls in the calling thread's CPU time (for a loaded
machine; see _workloads.BENCH_CLOCK).
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_var] = "1"

import math  # noqa: E402
import sys  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from typing import Any, Callable  # noqa: E402

import numpy as np  # noqa: E402
from numpy.lib.stride_tricks import as_strided, sliding_window_view  # noqa: E402

import tsjit  # noqa: E402
from _workloads import best_of_interleaved  # noqa: E402
import tsjit.nn.functional as TF  # noqa: E402

RNG = np.random.default_rng(0)


def randn(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape, dtype=np.float32)


@dataclass
class Kernel:
    """One benchmark: numpy inputs, and the same computation three ways."""
    name: str
    where: str                                  # the model and layer the shape comes from
    inputs: Callable[[], tuple]
    tsjit: Callable[..., Any]                   # on tsjit tensors
    numpy: Callable[..., Any]                   # on numpy arrays
    torch: Callable[[Any], Callable[..., Any]]  # torch module -> function on torch tensors


# --- plain numpy formulations ---------------------------------------------------------------
def np_gelu(x):
    # the best plain form found: scipy's erf in float32 (numpy has none)
    import scipy.special
    y = scipy.special.erf(x * np.float32(1 / math.sqrt(2)))
    y += 1
    y *= x
    y *= 0.5
    return y


def np_layer_norm(x, w, b, eps=1e-6):
    m = x.mean(-1, keepdims=True)
    y = x - m
    var = np.einsum("...i,...i->...", y, y)[..., None] / np.float32(x.shape[-1])
    y *= 1 / np.sqrt(var + np.float32(eps))
    y *= w
    y += b
    return y


def np_softmax(x):
    e = x - x.max(-1, keepdims=True)
    np.exp(e, out=e)
    e /= e.sum(-1, keepdims=True)
    return e


def np_log_softmax(x):
    s = x - x.max(-1, keepdims=True)
    s -= np.log(np.exp(s).sum(-1, keepdims=True))
    return s


def np_sdpa(q, k, v):
    w = q @ np.swapaxes(k, -1, -2)
    w *= np.float32(1 / math.sqrt(q.shape[-1]))
    return np_softmax(w) @ v


def np_conv_grouped(x, w, groups, pad, stride):
    # im2col by sliding_window_view, one batched matmul over the groups
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    win = sliding_window_view(xp, (kh, kw), axis=(2, 3))[:, :, ::stride, ::stride]
    oh, ow = win.shape[2:4]
    cols = win.reshape(n, groups, cg, oh, ow, kh, kw).transpose(0, 1, 2, 5, 6, 3, 4)
    cols = cols.reshape(n, groups, cg * kh * kw, oh * ow)
    return np.matmul(w.reshape(groups, o // groups, cg * kh * kw), cols).reshape(n, o, oh, ow)


def np_conv_depthwise(x, w, pad, stride):
    # the fastest plain form found: per channel, rows of the padded input (all kernel rows
    # side by side) times a band (Toeplitz) matrix of the kernel, one batched matmul; a
    # multiply-accumulate of strided views per kernel position was 1.5-3x slower
    n, c, h, wd = x.shape
    kh, kw = w.shape[2:]
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    s = xp.strides
    rows = as_strided(xp, (n, c, oh, kh, xp.shape[3]), (s[0], s[1], s[2] * stride, s[2], s[3]))
    band = np.zeros((c, kh, xp.shape[3], ow), np.float32)
    b = band.strides
    as_strided(band, (c, kh, kw, ow), (b[0], b[1], b[2], b[2] * stride + b[3]))[...] = \
        w[:, 0, :, :, None]
    return np.matmul(rows.reshape(n, c, oh, -1), band.reshape(c, -1, ow))


def np_batch_norm(x, rm, rv, w, b, eps=1e-5):
    scale = w / np.sqrt(rv + np.float32(eps))
    shift = b - rm * scale
    y = x * scale[:, None, None]
    y += shift[:, None, None]
    return y


def np_silu(x):
    y = np.exp(-x)
    y += 1
    np.divide(x, y, out=y)
    return y


def np_sigmoid(x):
    y = np.exp(-x)
    y += 1
    np.reciprocal(y, out=y)
    return y


def np_hardswish(x):
    y = x + 3
    np.clip(y, 0, 6, out=y)
    y *= x
    y /= 6
    return y


def _conv_case(name, where, x, w, groups, pad, stride, depthwise):
    def plain(x, w):
        return np_conv_depthwise(x, w, pad, stride) if depthwise else \
            np_conv_grouped(x, w, groups, pad, stride)
    return Kernel(name, where, lambda: (x, w),
                  lambda x, w: TF.conv2d(x, w, None, stride, pad, 1, groups), plain,
                  lambda T: lambda x, w: T.nn.functional.conv2d(x, w, None, stride, pad, 1,
                                                                groups))


def kernels() -> list[Kernel]:
    """The benchmarked kernels, at zoo shapes."""
    ln = (randn(1, 56, 56, 96), randn(96), randn(96))
    ln_vit = (randn(1, 197, 768), randn(768), randn(768))
    att = tuple(randn(1, 12, 197, 64) for _ in range(3))
    bn = (randn(1, 64, 112, 112), randn(64), np.abs(randn(64)) + 0.5, randn(64), randn(64))
    act = randn(1, 96, 112, 112)
    return [
        Kernel("gelu (erf)", "convnext_tiny stage-1 MLP", lambda: (randn(1, 56, 56, 384),),
               TF.gelu, np_gelu, lambda T: T.nn.functional.gelu),
        Kernel("layer_norm", "convnext_tiny stage 1 (C=96)", lambda: ln,
               lambda x, w, b: TF.layer_norm(x, [96], w, b, 1e-6), np_layer_norm,
               lambda T: lambda x, w, b: T.nn.functional.layer_norm(x, [96], w, b, 1e-6)),
        Kernel("layer_norm", "vit_b (C=768)", lambda: ln_vit,
               lambda x, w, b: TF.layer_norm(x, [768], w, b, 1e-6), np_layer_norm,
               lambda T: lambda x, w, b: T.nn.functional.layer_norm(x, [768], w, b, 1e-6)),
        Kernel("softmax", "vit_b attention scores", lambda: (randn(1, 12, 197, 197),),
               lambda x: TF.softmax(x, -1), np_softmax,
               lambda T: lambda x: T.softmax(x, -1)),
        Kernel("log_softmax", "vit_b attention scores", lambda: (randn(1, 12, 197, 197),),
               lambda x: TF.log_softmax(x, -1), np_log_softmax,
               lambda T: lambda x: T.log_softmax(x, -1)),
        Kernel("sdpa", "vit_b (12 heads, 197 tokens, d=64)", lambda: att,
               TF.scaled_dot_product_attention, np_sdpa,
               lambda T: T.nn.functional.scaled_dot_product_attention),
        _conv_case("grouped conv 3x3", "regnet_y_400mf (48 ch, groups 6)",
                   randn(1, 48, 56, 56), randn(48, 8, 3, 3), 6, 1, 1, False),
        _conv_case("grouped conv 3x3", "resnext50_32x4d (128 ch, groups 32)",
                   randn(1, 128, 56, 56), randn(128, 4, 3, 3), 32, 1, 1, False),
        _conv_case("depthwise 3x3 s2", "mobilenet_v2 (96 ch, 112 px)",
                   randn(1, 96, 112, 112), randn(96, 1, 3, 3), 96, 1, 2, True),
        _conv_case("depthwise 5x5", "efficientnet_b0 (240 ch, 28 px)",
                   randn(1, 240, 28, 28), randn(240, 1, 5, 5), 240, 2, 1, True),
        _conv_case("depthwise 7x7", "convnext_tiny (96 ch, 56 px)",
                   randn(1, 96, 56, 56), randn(96, 1, 7, 7), 96, 3, 1, True),
        Kernel("batch_norm eval", "resnet stem (64 ch, 112 px)", lambda: bn,
               lambda x, rm, rv, w, b: TF.batch_norm(x, rm, rv, w, b, False, 0.1, 1e-5),
               np_batch_norm,
               lambda T: lambda x, rm, rv, w, b: T.nn.functional.batch_norm(
                   x, rm, rv, w, b, False, 0.1, 1e-5)),
        Kernel("adaptive_avg_pool 1x1", "efficientnet head (1280 ch, 7 px)",
               lambda: (randn(1, 1280, 7, 7),), lambda x: TF.adaptive_avg_pool2d(x, 1),
               lambda x: x.mean((2, 3), keepdims=True),
               lambda T: lambda x: T.nn.functional.adaptive_avg_pool2d(x, 1)),
        Kernel("adaptive_avg_pool 1x1", "mobilenet SE (576 ch, 14 px)",
               lambda: (randn(1, 576, 14, 14),), lambda x: TF.adaptive_avg_pool2d(x, 1),
               lambda x: x.mean((2, 3), keepdims=True),
               lambda T: lambda x: T.nn.functional.adaptive_avg_pool2d(x, 1)),
        Kernel("silu", "efficientnet (96 ch, 112 px)", lambda: (act,), TF.silu, np_silu,
               lambda T: T.nn.functional.silu),
        Kernel("sigmoid", "efficientnet (96 ch, 112 px)", lambda: (act,), tsjit.sigmoid,
               np_sigmoid, lambda T: T.sigmoid),
        Kernel("hardswish", "mobilenet_v3 (96 ch, 112 px)", lambda: (act,), TF.hardswish,
               np_hardswish, lambda T: T.nn.functional.hardswish),
    ]



def main(names: list[str]) -> None:
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:
        torch = None
    print("one thread, best of 7 turns; ms\n")
    print("| kernel | shape from | tsjit | plain numpy | torch | faster of tsjit / numpy |")
    print("| --- | --- | --- | --- | --- | --- |")
    for k in kernels():
        if names and not any(n in k.name for n in names):
            continue
        xs = k.inputs()
        ts = [tsjit.from_numpy(x) for x in xs]
        fns = {"tsjit": lambda: k.tsjit(*ts), "numpy": lambda: k.numpy(*xs)}
        if torch is not None:
            tt = [torch.from_numpy(x) for x in xs]
            f = k.torch(torch)
            fns["torch"] = lambda: f(*tt)
        got, want = k.tsjit(*ts).numpy(), k.numpy(*xs)
        scale = max(1.0, float(np.abs(want).max()))
        assert np.abs(got - want).max() <= 1e-4 * scale, f"{k.name}: tsjit and numpy disagree"
        b = best_of_interleaved(fns)
        faster = "tsjit" if b["tsjit"] <= b["numpy"] else "numpy"
        print(f"| {k.name} | {k.where} | {b['tsjit']:.3f} | {b['numpy']:.3f} | "
              f"{b.get('torch', math.nan):.3f} | {faster} ({b['tsjit'] / b['numpy']:.2f}x) |",
              flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
