"""Multi-head attention functionals (re-exported by tsjit.nn.functional, which they are
named after): the reference (unfused) computation nn.MultiheadAttention runs."""
from __future__ import annotations

import math
import warnings
from typing import List, Optional, Tuple

from .._tensor import Tensor, bool_
from ..ops import functions as torch
from . import functional as F


def _none_or_dtype(input: Optional[Tensor]) -> Optional[int]:
    """The dtype of `input`, or None."""
    if input is None:
        return None
    return input.dtype


def _canonical_mask(mask: Optional[Tensor], mask_name: str, other_type: Optional[int],
                    other_name: str, target_type: int, check_other: bool = True
                    ) -> Optional[Tensor]:
    """A bool mask (True = masked) as an additive float mask (-inf = masked)."""
    if mask is not None:
        _mask_dtype = mask.dtype
        _mask_is_float = mask.is_floating_point()
        if _mask_dtype != bool_ and not _mask_is_float:
            raise AssertionError("only bool and floating types of {} are supported".format(
                mask_name))
        if check_other and other_type is not None:
            if _mask_dtype != other_type:
                warnings.warn("Support for mismatched {} and {} is deprecated. Use same type "
                              "for both instead.".format(mask_name, other_name))
        if not _mask_is_float:
            mask = torch.zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _mha_shape_check(query: Tensor, key: Tensor, value: Tensor,
                     key_padding_mask: Optional[Tensor], attn_mask: Optional[Tensor],
                     num_heads: int) -> bool:
    """Check the input ranks; True when the input is batched (3-D query)."""
    if query.dim() == 3:
        is_batched = True
        assert key.dim() == 3 and value.dim() == 3, (
            "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found {}-D "
            "and {}-D tensors respectively".format(key.dim(), value.dim()))
        if key_padding_mask is not None:
            assert key_padding_mask.dim() == 2, (
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                "found {}-D tensor instead".format(key_padding_mask.dim()))
        if attn_mask is not None:
            assert attn_mask.dim() in (2, 3), (
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                "found {}-D tensor instead".format(attn_mask.dim()))
    elif query.dim() == 2:
        is_batched = False
        assert key.dim() == 2 and value.dim() == 2, (
            "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found {}-D "
            "and {}-D tensors respectively".format(key.dim(), value.dim()))
        if key_padding_mask is not None:
            assert key_padding_mask.dim() == 1, (
                "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D "
                "but found {}-D tensor instead".format(key_padding_mask.dim()))
        if attn_mask is not None:
            assert attn_mask.dim() in (2, 3), (
                "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                "found {}-D tensor instead".format(attn_mask.dim()))
            if attn_mask.dim() == 3:
                expected_shape = (num_heads, query.shape[0], key.shape[0])
                assert attn_mask.shape == expected_shape, (
                    "Expected `attn_mask` shape to be {} but got {}".format(
                        expected_shape, attn_mask.shape))
    else:
        raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                             "{}-D query tensor".format(query.dim()))
    return is_batched


def _in_projection_packed(q: Tensor, k: Tensor, v: Tensor, w: Tensor,
                          b: Optional[Tensor] = None) -> List[Tensor]:
    """q, k, v projected by the stacked (3E, E) weight; one matmul when q is k is v."""
    E = q.size(-1)
    if k is v:
        if q is k:
            # self-attention: one (.., E) x (E, 3E) product; reordered to (3, .., E) so that
            # q, k and v are contiguous (the head split below is a view)
            proj = F.linear(q, w, b)
            proj = proj.unflatten(-1, [3, E]).unsqueeze(0).transpose(0, -2).squeeze(-2)
            proj = proj.contiguous()
            return [proj[0], proj[1], proj[2]]
        w_q, w_kv = w.split([E, E * 2])
        if b is None:
            b_q = None
            b_kv = None
        else:
            b_q, b_kv = b.split([E, E * 2])
        kv_proj = F.linear(k, w_kv, b_kv)
        kv_proj = kv_proj.unflatten(-1, [2, E]).unsqueeze(0).transpose(0, -2).squeeze(-2)
        kv_proj = kv_proj.contiguous()
        return [F.linear(q, w_q, b_q), kv_proj[0], kv_proj[1]]
    w_q, w_k, w_v = w.chunk(3)
    if b is None:
        b_q = None
        b_k = None
        b_v = None
    else:
        b_q, b_k, b_v = b.chunk(3)
    return [F.linear(q, w_q, b_q), F.linear(k, w_k, b_k), F.linear(v, w_v, b_v)]


def _in_projection(q: Tensor, k: Tensor, v: Tensor, w_q: Tensor, w_k: Tensor, w_v: Tensor,
                   b_q: Optional[Tensor] = None, b_k: Optional[Tensor] = None,
                   b_v: Optional[Tensor] = None) -> Tuple[Tensor, Tensor, Tensor]:
    """q, k, v projected by separate weights (kdim / vdim differ from embed_dim)."""
    Eq, Ek, Ev = q.size(-1), k.size(-1), v.size(-1)
    assert w_q.shape == (Eq, Eq), "expecting query weights shape of {}, but got {}".format(
        (Eq, Eq), w_q.shape)
    assert w_k.shape == (Eq, Ek), "expecting key weights shape of {}, but got {}".format(
        (Eq, Ek), w_k.shape)
    assert w_v.shape == (Eq, Ev), "expecting value weights shape of {}, but got {}".format(
        (Eq, Ev), w_v.shape)
    return F.linear(q, w_q, b_q), F.linear(k, w_k, b_k), F.linear(v, w_v, b_v)


def multi_head_attention_forward(
        query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
        in_proj_weight: Optional[Tensor], in_proj_bias: Optional[Tensor],
        bias_k: Optional[Tensor], bias_v: Optional[Tensor], add_zero_attn: bool,
        dropout_p: float, out_proj_weight: Tensor, out_proj_bias: Optional[Tensor],
        training: bool = True, key_padding_mask: Optional[Tensor] = None,
        need_weights: bool = True, attn_mask: Optional[Tensor] = None,
        use_separate_proj_weight: bool = False, q_proj_weight: Optional[Tensor] = None,
        k_proj_weight: Optional[Tensor] = None, v_proj_weight: Optional[Tensor] = None,
        static_k: Optional[Tensor] = None, static_v: Optional[Tensor] = None,
        average_attn_weights: bool = True, is_causal: bool = False
) -> Tuple[Tensor, Optional[Tensor]]:
    """Multi-head attention over (L, N, E) query and (S, N, E) key/value (or unbatched)."""
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        # unbatched input: a batch of one, removed again at the end
        query = query.unsqueeze(1)
        key = key.unsqueeze(1)
        value = value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len, _, _ = key.shape
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        # the is_causal hint alone drives scaled_dot_product_attention
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, False)
        if key_padding_mask is not None:
            # merged with the padding mask, attn_mask is no longer causal
            is_causal = False
    assert embed_dim == embed_dim_to_check, (
        "was expecting embedding dimension of {}, but got {}".format(embed_dim_to_check,
                                                                    embed_dim))
    head_dim = embed_dim // num_heads
    assert head_dim * num_heads == embed_dim, "embed_dim {} not divisible by num_heads {}".format(
        embed_dim, num_heads)
    if use_separate_proj_weight:
        assert key.shape[:2] == value.shape[:2], (
            "key's sequence and batch dims {} do not match value's {}".format(key.shape[:2],
                                                                            value.shape[:2]))
    else:
        assert key.shape == value.shape, "key shape {} does not match value shape {}".format(
            key.shape, value.shape)

    if not use_separate_proj_weight:
        assert in_proj_weight is not None, \
            "use_separate_proj_weight is False but in_proj_weight is None"
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        assert q_proj_weight is not None, \
            "use_separate_proj_weight is True but q_proj_weight is None"
        assert k_proj_weight is not None, \
            "use_separate_proj_weight is True but k_proj_weight is None"
        assert v_proj_weight is not None, \
            "use_separate_proj_weight is True but v_proj_weight is None"
        if in_proj_bias is None:
            b_q: Optional[Tensor] = None
            b_k: Optional[Tensor] = None
            b_v: Optional[Tensor] = None
        else:
            b_q, b_k, b_v = in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight,
                                 b_q, b_k, b_v)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            correct_2d_size = (tgt_len, src_len)
            if attn_mask.shape != correct_2d_size:
                raise RuntimeError("The shape of the 2D attn_mask is {}, but should be {}.".format(
                    attn_mask.shape, correct_2d_size))
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            correct_3d_size = (bsz * num_heads, tgt_len, src_len)
            if attn_mask.shape != correct_3d_size:
                raise RuntimeError("The shape of the 3D attn_mask is {}, but should be {}.".format(
                    attn_mask.shape, correct_3d_size))
        else:
            raise RuntimeError("attn_mask's dimension {} is not supported".format(
                attn_mask.dim()))

    if bias_k is not None and bias_v is not None:
        assert static_k is None, "bias cannot be added to static key."
        assert static_v is None, "bias cannot be added to static value."
        k = torch.cat([k, bias_k.repeat(1, bsz, 1)])
        v = torch.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = F.pad(attn_mask, [0, 1])
        if key_padding_mask is not None:
            key_padding_mask = F.pad(key_padding_mask, [0, 1])
    else:
        assert bias_k is None
        assert bias_v is None

    # heads become part of the batch: (L, N, E) -> (N * H, L, E / H)
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.view(k.size(0), bsz * num_heads, head_dim).transpose(0, 1)
    else:
        assert static_k.size(0) == bsz * num_heads, (
            "expecting static_k.size(0) of {}, but got {}".format(bsz * num_heads,
                                                                 static_k.size(0)))
        assert static_k.size(2) == head_dim, "expecting static_k.size(2) of {}, but got {}".format(
            head_dim, static_k.size(2))
        k = static_k
    if static_v is None:
        v = v.view(v.size(0), bsz * num_heads, head_dim).transpose(0, 1)
    else:
        assert static_v.size(0) == bsz * num_heads, (
            "expecting static_v.size(0) of {}, but got {}".format(bsz * num_heads,
                                                                 static_v.size(0)))
        assert static_v.size(2) == head_dim, "expecting static_v.size(2) of {}, but got {}".format(
            head_dim, static_v.size(2))
        v = static_v

    if add_zero_attn:
        zero_attn_shape = [bsz * num_heads, 1, head_dim]
        k = torch.cat([k, torch.zeros(zero_attn_shape, dtype=k.dtype)], dim=1)
        v = torch.cat([v, torch.zeros(zero_attn_shape, dtype=v.dtype)], dim=1)
        if attn_mask is not None:
            attn_mask = F.pad(attn_mask, [0, 1])
        if key_padding_mask is not None:
            key_padding_mask = F.pad(key_padding_mask, [0, 1])

    src_len = k.size(1)
    if key_padding_mask is not None:
        assert key_padding_mask.shape == (bsz, src_len), (
            "expecting key_padding_mask shape of {}, but got {}".format(
                (bsz, src_len), key_padding_mask.shape))
        key_padding_mask = key_padding_mask.view(bsz, 1, 1, src_len).expand(
            -1, num_heads, -1, -1).reshape(bsz * num_heads, 1, src_len)
        if attn_mask is None:
            attn_mask = key_padding_mask
        else:
            attn_mask = attn_mask + key_padding_mask

    if not training:
        dropout_p = 0.0

    if need_weights:
        _B, _Nt, E = q.shape
        q_scaled = q * math.sqrt(1.0 / float(E))
        assert not (is_causal and attn_mask is None), \
            "FIXME: is_causal not implemented for need_weights"
        if attn_mask is not None:
            attn_output_weights = torch.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            attn_output_weights = torch.bmm(q_scaled, k.transpose(-2, -1))
        attn_output_weights = F.softmax(attn_output_weights, dim=-1)
        if dropout_p > 0.0:
            attn_output_weights = F.dropout(attn_output_weights, p=dropout_p)
        attn_output = torch.bmm(attn_output_weights, v)
        attn_output = attn_output.transpose(0, 1).contiguous().view(tgt_len * bsz, embed_dim)
        attn_output = F.linear(attn_output, out_proj_weight, out_proj_bias)
        attn_output = attn_output.view(tgt_len, bsz, attn_output.size(1))
        attn_output_weights = attn_output_weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            attn_output_weights = attn_output_weights.mean(dim=1)
        if not is_batched:
            attn_output = attn_output.squeeze(1)
            attn_output_weights = attn_output_weights.squeeze(0)
        return attn_output, attn_output_weights

    if attn_mask is not None:
        # (1, L, S) broadcasts over batch and heads; otherwise one mask per (batch, head)
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    attn_output = torch.scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    attn_output = attn_output.permute(2, 0, 1, 3).contiguous().view(bsz * tgt_len, embed_dim)
    attn_output = F.linear(attn_output, out_proj_weight, out_proj_bias)
    attn_output = attn_output.view(tgt_len, bsz, attn_output.size(1))
    if not is_batched:
        attn_output = attn_output.squeeze(1)
    return attn_output, None
