"""Attention: scaled_dot_product_attention, the fused multi-head attention and transformer
encoder layer that nn.MultiheadAttention / nn.TransformerEncoderLayer use in eval mode,
masked softmax and the (padded) stand-ins for nested tensors.

Computed in the inputs' precision (half in float32), as PyTorch does: attention is
matrix-product bound, and float64 products of float32 operands cost twice the time."""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from ..._tensor.creation import generator as _gen
from ..registry import op
from ..._tensor.kernel_util import fmt_shape, native_float, quiet, wrap
from ..._tensor.tensor import Tensor
from .blocked_math import gelu_erf
from .row_math import softmax_last
from .tensor_reduce import row_max


def _softmax(x: np.ndarray) -> np.ndarray:
    """Softmax over the last dim, computed in place in x (a fresh array the caller owns)."""
    m = row_max(x, x.ndim - 1)
    m[~np.isfinite(m)] = 0
    x -= m
    np.exp(x, out=x)
    x /= np.sum(x, axis=-1, keepdims=True)
    return x


@op("aten::scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, "
    "Tensor? attn_mask=None, float dropout_p=0., bool is_causal=False, *, float? scale=None, "
    "bool enable_gqa=False) -> Tensor")
@quiet
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor,
                                 attn_mask: Optional[Tensor] = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: Optional[float] = None,
                                 enable_gqa: bool = False) -> Tensor:
    """softmax(q k^T * scale + mask) v, over the last two dims."""
    q, k, v = native_float(query._a), native_float(key._a), native_float(value._a)
    if q.shape[-1] != k.shape[-1]:
        raise RuntimeError("Expected query and key to have the same embedding dimension")
    if enable_gqa and q.ndim >= 3 and k.shape[-3] != q.shape[-3]:
        rep = q.shape[-3] // k.shape[-3]
        k = np.repeat(k, rep, axis=-3)
        v = np.repeat(v, rep, axis=-3)
    s = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    # one batched product (BLAS per matrix; k's transpose is a view), scaled in place
    w = np.matmul(q, k.swapaxes(-1, -2))
    w *= s
    if is_causal:
        L, S = q.shape[-2], k.shape[-2]
        np.copyto(w, -np.inf, where=_upper(L, S))
    if attn_mask is not None:
        m = attn_mask._a
        if m.dtype != np.bool_ and m.dtype != np.float32 and m.dtype != query._a.dtype:
            raise RuntimeError("Expected attn_mask dtype to be bool or float or to match query "
                               f"dtype, but got attn_mask.dtype: {attn_mask.dtype.cname} and  "
                               f"query.dtype: {query.dtype.cname} instead.")
        try:        # in place; PyTorch's is too, so a mask may not broadcast w larger
            if m.dtype == np.bool_:
                np.copyto(w, -np.inf, where=~m)
            else:
                np.add(w, m, out=w, casting="unsafe")
        except ValueError:
            raise RuntimeError(f"output with shape {fmt_shape(w.shape)} doesn't match the "
                               "broadcast shape "
                               f"{fmt_shape(np.broadcast_shapes(w.shape, m.shape))}") from None
    # fully masked rows give 0, as PyTorch's math attention (`_safe_softmax`) does
    p = softmax_last(w, safe=True)
    if dropout_p > 0:
        keep = _gen().random(p.shape) >= dropout_p
        p = np.where(keep, p / (1 - dropout_p), 0.0)
    return wrap(np.matmul(p, v).astype(query._a.dtype, copy=False))


_UPPER: dict[tuple[int, int], np.ndarray] = {}


def _upper(L: int, S: int) -> np.ndarray:
    """The read-only (L, S) mask of the entries a causal attention hides (above the diagonal)."""
    u = _UPPER.get((L, S))
    if u is None:
        u = _UPPER[(L, S)] = np.triu(np.ones((L, S), bool), 1)
        u.flags.writeable = False
    return u


def _masked_softmax_np(x: np.ndarray, mask: Optional[np.ndarray]) -> np.ndarray:
    """Softmax over the last dim ignoring masked (True) entries; fully masked rows give NaN."""
    if mask is None:
        return _softmax(x.copy())
    x = np.where(mask, -np.inf, x)
    m = row_max(x, x.ndim - 1)
    m = np.where(np.isfinite(m), m, 0)
    e = np.where(mask, 0.0, np.exp(x - m))
    tot = np.sum(e, axis=-1, keepdims=True)
    return np.where(tot > 0, e / np.where(tot > 0, tot, 1), np.nan)


def _mask_for(mask: Optional[Tensor], mask_type: Optional[int], n: int, h: int, L: int,
              S: int) -> Optional[np.ndarray]:
    if mask is None:
        return None
    m = mask._a
    m = m if m.dtype == np.bool_ else m.astype(bool)   # float masks: nonzero (-inf) = masked
    if mask_type == 1 or (mask_type is None and m.ndim == 2 and m.shape == (n, S) and
                          (L, S) != (n, S)):
        return m.reshape(n, 1, 1, S)
    if m.ndim == 2:
        return m.reshape(1, 1, L, S)
    if m.ndim == 3:
        return m.reshape(n, -1, L, S)
    return m


@op("aten::_masked_softmax(Tensor self, Tensor mask, int? dim=None, int? mask_type=None) -> "
    "Tensor")
@quiet
def _masked_softmax(self: Tensor, mask: Tensor, dim: Optional[int] = None,
                    mask_type: Optional[int] = None) -> Tensor:
    """Softmax over dim (default last) with True mask entries excluded."""
    x = native_float(self._a)
    d = -1 if dim is None else dim
    xm = np.moveaxis(x, d, -1)
    m = np.broadcast_to(mask._a.astype(bool), x.shape)
    r = _masked_softmax_np(xm, np.moveaxis(m, d, -1))
    return wrap(np.moveaxis(r, -1, d).astype(self._a.dtype))


def _mha(query: np.ndarray, key: np.ndarray, value: np.ndarray, embed_dim: int, num_head: int,
         qkv_w: np.ndarray, qkv_b: np.ndarray, proj_w: np.ndarray, proj_b: np.ndarray,
         mask: Optional[Tensor], mask_type: Optional[int]) -> tuple[np.ndarray, np.ndarray]:
    n, L, E = query.shape
    S = key.shape[1]
    if E != embed_dim or embed_dim % num_head:
        raise RuntimeError(f"_native_multi_head_attention: query of shape {fmt_shape(query.shape)}"
                           f" does not match embed_dim={embed_dim} / num_head={num_head}")
    hd = embed_dim // num_head
    wq, wk, wv = np.split(qkv_w, 3, axis=0)
    bq, bk, bv = np.split(qkv_b, 3, axis=0)

    def heads(x: np.ndarray) -> np.ndarray:
        return x.reshape(x.shape[0], x.shape[1], num_head, hd).transpose(0, 2, 1, 3)
    q = heads(query @ wq.T + bq) / math.sqrt(hd)
    k = heads(key @ wk.T + bk)
    v = heads(value @ wv.T + bv)
    scores = q @ np.swapaxes(k, -1, -2)                       # (n, h, L, S)
    m = _mask_for(mask, mask_type, n, num_head, L, S)
    p = _masked_softmax_np(scores, None if m is None else np.broadcast_to(m, scores.shape))
    out = (p @ v).transpose(0, 2, 1, 3).reshape(n, L, embed_dim)
    return out @ proj_w.T + proj_b, p


@op("aten::_native_multi_head_attention(Tensor query, Tensor key, Tensor value, int embed_dim, "
    "int num_head, Tensor qkv_weight, Tensor qkv_bias, Tensor proj_weight, Tensor proj_bias, "
    "Tensor? mask=None, bool need_weights=True, bool average_attn_weights=True, "
    "int? mask_type=None) -> (Tensor, Tensor)")
@quiet
def _native_multi_head_attention(query: Tensor, key: Tensor, value: Tensor, embed_dim: int,
                                 num_head: int, qkv_weight: Tensor, qkv_bias: Tensor,
                                 proj_weight: Tensor, proj_bias: Tensor,
                                 mask: Optional[Tensor] = None, need_weights: bool = True,
                                 average_attn_weights: bool = True,
                                 mask_type: Optional[int] = None) -> tuple[Tensor, Any]:
    """Fused multi-head attention on (N, L, E) inputs: (output, weights or None)."""
    q, k, v = native_float(query._a), native_float(key._a), native_float(value._a)
    unbatched = q.ndim == 2
    if unbatched:
        q, k, v = q[None], k[None], v[None]
    out, p = _mha(q, k, v, embed_dim, num_head, native_float(qkv_weight._a), native_float(qkv_bias._a),
                  native_float(proj_weight._a), native_float(proj_bias._a), mask, mask_type)
    dt = query._a.dtype
    if unbatched:
        out, p = out[0], p[0]
    if not need_weights:
        return wrap(out.astype(dt)), None
    w = p.mean(axis=-3) if average_attn_weights else p
    return wrap(out.astype(dt)), wrap(w.astype(dt))


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    m = x.mean(axis=-1, keepdims=True)
    var = ((x - m) ** 2).mean(axis=-1, keepdims=True)
    return (x - m) / np.sqrt(var + eps) * w + b


@op("aten::_transformer_encoder_layer_fwd(Tensor src, int embed_dim, int num_heads, "
    "Tensor qkv_weight, Tensor qkv_bias, Tensor proj_weight, Tensor proj_bias, bool use_gelu, "
    "bool norm_first, float eps, Tensor norm_weight_1, Tensor norm_bias_1, "
    "Tensor norm_weight_2, Tensor norm_bias_2, Tensor ffn_weight_1, Tensor ffn_bias_1, "
    "Tensor ffn_weight_2, Tensor ffn_bias_2, Tensor? mask=None, int? mask_type=None) -> Tensor")
@quiet
def _transformer_encoder_layer_fwd(src: Tensor, embed_dim: int, num_heads: int,
                                   qkv_weight: Tensor, qkv_bias: Tensor, proj_weight: Tensor,
                                   proj_bias: Tensor, use_gelu: bool, norm_first: bool,
                                   eps: float, norm_weight_1: Tensor, norm_bias_1: Tensor,
                                   norm_weight_2: Tensor, norm_bias_2: Tensor,
                                   ffn_weight_1: Tensor, ffn_bias_1: Tensor,
                                   ffn_weight_2: Tensor, ffn_bias_2: Tensor,
                                   mask: Optional[Tensor] = None,
                                   mask_type: Optional[int] = None) -> Tensor:
    """One eval-mode nn.TransformerEncoderLayer: self-attention and feed-forward blocks."""
    x = native_float(src._a)
    unbatched = x.ndim == 2
    if unbatched:
        x = x[None]
    n1 = (native_float(norm_weight_1._a), native_float(norm_bias_1._a))
    n2 = (native_float(norm_weight_2._a), native_float(norm_bias_2._a))

    def attn(h: np.ndarray) -> np.ndarray:
        return _mha(h, h, h, embed_dim, num_heads, native_float(qkv_weight._a), native_float(qkv_bias._a),
                    native_float(proj_weight._a), native_float(proj_bias._a), mask, mask_type)[0]

    def ffn(h: np.ndarray) -> np.ndarray:
        y = h @ native_float(ffn_weight_1._a).T + native_float(ffn_bias_1._a)
        y = gelu_erf(y) if use_gelu else np.maximum(y, 0)
        return y @ native_float(ffn_weight_2._a).T + native_float(ffn_bias_2._a)
    if norm_first:
        x = x + attn(_layer_norm(x, *n1, eps))
        x = x + ffn(_layer_norm(x, *n2, eps))
    else:
        x = _layer_norm(x + attn(x), *n1, eps)
        x = _layer_norm(x + ffn(x), *n2, eps)
    if mask is not None and mask_type == 1 and getattr(src, "_nested_mask", None) is not None:
        x = np.where(src._nested_mask[..., None], x, 0.0)
    r = wrap((x[0] if unbatched else x).astype(src._a.dtype))
    if getattr(src, "_nested_mask", None) is not None:
        r._nested_mask = src._nested_mask          # type: ignore[attr-defined]
    return r


# --- nested tensors, represented as padded tensors with a validity mask --------------------
@op("aten::_nested_tensor_from_mask(Tensor t, Tensor mask, bool mask_check=True) -> Tensor")
def _nested_tensor_from_mask(t: Tensor, mask: Tensor, mask_check: bool = True) -> Tensor:
    """The padded tensor t with invalid (mask False) rows zeroed, remembering the mask."""
    m = mask._a.astype(bool)
    if mask_check and not _nested_tensor_from_mask_left_aligned(t, mask):
        raise RuntimeError("Mask must be left aligned without gaps")
    r = wrap(np.where(m[..., None], t._a, 0).astype(t._a.dtype))
    r._nested_mask = m                                # type: ignore[attr-defined]
    return r


@op("aten::_nested_tensor_from_mask_left_aligned(Tensor t, Tensor mask) -> bool")
def _nested_tensor_from_mask_left_aligned(t: Tensor, mask: Tensor) -> bool:
    """Whether every row of mask is some Trues followed only by Falses."""
    m = mask._a.astype(bool)
    if m.ndim != 2:
        return False
    counts = m.sum(axis=1)
    expect = np.arange(m.shape[1])[None, :] < counts[:, None]
    return bool(np.array_equal(m, expect))


@op("aten::to_padded_tensor(Tensor self, float padding, SymInt[]? output_size=None) -> Tensor")
def to_padded_tensor(self: Tensor, padding: float, output_size: Any = None) -> Tensor:
    """A regular tensor with the invalid positions of a (mask-carrying) tensor set to padding."""
    m = getattr(self, "_nested_mask", None)
    a = self._a
    r = a.copy() if m is None else np.where(m[..., None], a, padding).astype(a.dtype)
    if output_size is not None and tuple(output_size) != r.shape:
        out = np.full(tuple(output_size), padding, r.dtype)
        out[tuple(slice(0, s) for s in r.shape)] = r
        r = out
    return wrap(r)
