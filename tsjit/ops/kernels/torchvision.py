"""torchvision's operators (`torchvision::nms`, `roi_align`, `roi_pool`, `ps_roi_align`,
`ps_roi_pool`, `deform_conv2d`, `box_iou_rotated`), with the semantics of torchvision's CPU
kernels: the same sampling rules, the same arithmetic in the input's dtype (coordinates of
float32 boxes are float32, as in the C++ templates) and the same accumulation order where
the order shows (roi_align sums its samples one at a time). Scripted torchvision code calls
them as `ops.torchvision.nms(...)`; `batched_nms` is Python in torchvision and reaches `nms`.
Each kernel is self-contained; the shared pieces are the two bilinear samplers, which differ
between torchvision's kernels exactly as they do here.
"""
from __future__ import annotations

import math
import numpy as np

from ..._tensor.kernel_util import wrap
from ..._tensor.tensor import Tensor
from ..registry import op
from .tensor_sort import sort_indices

_FLT_MAX = np.float32(np.finfo(np.float32).max)


def _check_rois(input: Tensor, rois: Tensor, name: str) -> None:
    if input._a.ndim != 4:
        raise RuntimeError(f"{name}: input must be a 4-d tensor (N, C, H, W), got "
                           f"{input._a.ndim} dims")
    if rois._a.ndim != 2 or rois._a.shape[1] != 5:
        raise RuntimeError(f"{name}: rois must have shape [K, 5], got {list(rois._a.shape)}")


def _round_half_away(v: np.ndarray) -> np.ndarray:
    """C's round(): halves away from zero (numpy's round goes to even)."""
    return (np.sign(v) * np.floor(np.abs(v) + 0.5)).astype(np.int64)


def _roi_coords(r: np.ndarray, spatial_scale: float, offset: float, dt: np.dtype):
    """Box corners scaled in double and stored in the input's dtype, as `T x = rois[i] * scale
    - offset` does in C++."""
    c = (r[:, 1:5].astype(np.float64) * spatial_scale - offset).astype(dt)
    return c[:, 0], c[:, 1], c[:, 2], c[:, 3]


# --- nms -----------------------------------------------------------------------------------------
_NMS_BLOCK = 64         # boxes whose greedy choice is made from one matrix of overlaps


@op("torchvision::nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
def nms(dets: Tensor, scores: Tensor, iou_threshold: float) -> Tensor:
    """Indices of the boxes kept by greedy non-maximum suppression, by descending score."""
    d, s = dets._a, scores._a
    if d.ndim != 2:
        raise RuntimeError(f"boxes should be a 2d tensor, got {d.ndim}D")
    if d.shape[1] != 4:
        raise RuntimeError(f"boxes should have 4 elements in dimension 1, got {d.shape[1]}")
    if s.ndim != 1:
        raise RuntimeError(f"scores should be a 1d tensor, got {s.ndim}D")
    if d.shape[0] != s.shape[0]:
        raise RuntimeError(f"boxes and scores should have same number of elements in dimension "
                           f"0, got {d.shape[0]} and {s.shape[0]}")
    if d.shape[0] == 0:
        return wrap(np.zeros(0, np.int64))
    with np.errstate(all="ignore"):
        # torchvision sorts by `scores.sort(0, descending=True)`: unstable, so equal scores
        # come in the order PyTorch's sort leaves them (the box kept among equal scores)
        order = sort_indices(s, 0, descending=True, stable=False)
        b = d[order]
        x1, y1, x2, y2 = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
        areas = (x2 - x1) * (y2 - y1)
        threshold = np.float64(iou_threshold)

        def overlapping(p: np.ndarray, q: np.ndarray) -> np.ndarray:
            # IoU(p[i], q[j]) > threshold: the element operations of torchvision's loop
            w = np.maximum(zero, np.minimum(x2[p, None], x2[q]) - np.maximum(x1[p, None], x1[q]))
            h = np.maximum(zero, np.minimum(y2[p, None], y2[q]) - np.maximum(y1[p, None], y1[q]))
            inter = w * h
            return inter / (areas[p, None] + areas[q] - inter) > threshold

        zero = d.dtype.type(0)
        n = len(order)
        alive = np.ones(n, bool)
        keep = []
        # blocks of boxes by descending score: the greedy choice inside a block reads the
        # block's own overlaps; the boxes it keeps then suppress every later box in one
        # broadcast (300 boxes: 4.1 -> 0.7 ms; 3,000: 46 -> 27 ms)
        for start in range(0, n, _NMS_BLOCK):
            stop = min(start + _NMS_BLOCK, n)
            cand = start + np.flatnonzero(alive[start:stop])
            over = overlapping(cand, cand)
            out = np.zeros(len(cand), bool)
            kept = []
            for r in range(len(cand)):
                if not out[r]:
                    kept.append(r)
                    out[r + 1:] |= over[r, r + 1:]
            kept_boxes = cand[kept]
            keep.extend(order[kept_boxes].tolist())
            later = stop + np.flatnonzero(alive[stop:])
            if len(later) and len(kept_boxes):
                alive[later[overlapping(kept_boxes, later).any(axis=0)]] = False
    return wrap(np.array(keep, np.int64))


# --- roi_align and ps_roi_align ------------------------------------------------------------------
def _bilinear_roi(y: np.ndarray, x: np.ndarray, height: int, width: int):
    """roi_align's sampling of points (y[..., None], x[..., None, :]) in a height x width map:
    corner indices and the four weights, zero outside [-1, height] x [-1, width]."""
    dt = y.dtype.type
    one = dt(1)

    def axis(v: np.ndarray, size: int):
        inside = (v >= -1.0) & (v <= size)
        v = np.where(v <= 0, dt(0), v)
        low = v.astype(np.int64)
        top = low >= size - 1
        low = np.where(top, size - 1, low)
        high = np.where(top, low, low + 1)
        v = np.where(top, low.astype(v.dtype), v)
        lv = v - low.astype(v.dtype)
        return inside, low, high, lv, one - lv

    iny, yl, yh, ly, hy = axis(y, height)
    inx, xl, xh, lx, hx = axis(x, width)
    inside = iny[..., :, None] & inx[..., None, :]
    ws = [np.where(inside, a[..., :, None] * b[..., None, :], dt(0))
          for a, b in ((hy, hx), (hy, lx), (ly, hx), (ly, lx))]
    return (yl, yh), (xl, xh), ws


@op("torchvision::roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, "
    "SymInt pooled_width, int sampling_ratio, bool aligned) -> Tensor")
def roi_align(input: Tensor, rois: Tensor, spatial_scale: float, pooled_height: int,
              pooled_width: int, sampling_ratio: int, aligned: bool) -> Tensor:
    """Average of bilinear samples over each bin of each box (Mask R-CNN's RoIAlign)."""
    _check_rois(input, rois, "roi_align")
    a, r = input._a, rois._a.astype(input._a.dtype)
    dt = a.dtype
    T = dt.type
    N, C, H, W = a.shape
    K, PH, PW = r.shape[0], pooled_height, pooled_width
    out = np.zeros((K, C, PH, PW), dt)
    if K == 0 or a.size == 0:
        return wrap(out)
    with np.errstate(all="ignore"):
        x1, y1, x2, y2 = _roi_coords(r, spatial_scale, 0.5 if aligned else 0.0, dt)
        rw, rh = x2 - x1, y2 - y1
        if not aligned:  # force malformed boxes to 1x1
            rw, rh = np.maximum(rw, T(1)), np.maximum(rh, T(1))
        bh, bw = rh / T(PH), rw / T(PW)
        if sampling_ratio > 0:
            gh = np.full(K, sampling_ratio, np.int64)
            gw = gh
        else:
            gh = np.ceil(rh / T(PH)).astype(np.int64)
            gw = np.ceil(rw / T(PW)).astype(np.int64)
        batch = r[:, 0].astype(np.int64)
        ph, pw = np.arange(PH).astype(dt), np.arange(PW).astype(dt)
        for g in set(zip(gh.tolist(), gw.tolist())):
            ks = np.nonzero((gh == g[0]) & (gw == g[1]))[0]
            acc = np.zeros((len(ks), PH, PW, C), dt)
            b = batch[ks][:, None, None]
            for iy in range(max(g[0], 0)):
                y = (y1[ks, None] + ph * bh[ks, None]) + T(iy + .5) * bh[ks, None] / T(g[0])
                for ix in range(max(g[1], 0)):
                    x = (x1[ks, None] + pw * bw[ks, None]) + T(ix + .5) * bw[ks, None] / T(g[1])
                    (yl, yh), (xl, xh), (w1, w2, w3, w4) = _bilinear_roi(y, x, H, W)
                    yl, yh, xl, xh = yl[:, :, None], yh[:, :, None], xl[:, None, :], xh[:, None, :]
                    val = (w1[..., None] * a[b, :, yl, xl] + w2[..., None] * a[b, :, yl, xh] +
                           w3[..., None] * a[b, :, yh, xl] + w4[..., None] * a[b, :, yh, xh])
                    acc += val
            count = T(max(g[0] * g[1], 1))
            out[ks] = (acc / count).transpose(0, 3, 1, 2)
    return wrap(out)


@op("torchvision::ps_roi_align(Tensor input, Tensor rois, float spatial_scale, "
    "SymInt pooled_height, SymInt pooled_width, int sampling_ratio) -> (Tensor, Tensor)")
def ps_roi_align(input: Tensor, rois: Tensor, spatial_scale: float, pooled_height: int,
                 pooled_width: int, sampling_ratio: int):
    """Position-sensitive RoIAlign: bin (ph, pw) of output channel c reads input channel
    (c * PH + ph) * PW + pw; returns the output and that channel mapping."""
    _check_rois(input, rois, "ps_roi_align")
    a, r = input._a, rois._a.astype(input._a.dtype)
    dt = a.dtype
    T = dt.type
    N, C, H, W = a.shape
    K, PH, PW = r.shape[0], pooled_height, pooled_width
    if C % (PH * PW) != 0:
        raise RuntimeError("input channels must be a multiple of pooling height * pooling width")
    CO = C // (PH * PW)
    out = np.zeros((K, CO, PH, PW), dt)
    cin = ((np.arange(CO)[:, None, None] * PH + np.arange(PH)[None, :, None]) * PW
           + np.arange(PW)[None, None, :])
    mapping = np.broadcast_to(cin, (K, CO, PH, PW)).astype(np.int32)
    with np.errstate(all="ignore"):
        x1, y1, x2, y2 = _roi_coords(r, spatial_scale, 0.5, dt)
        rw, rh = x2 - x1, y2 - y1
        bh, bw = rh / T(PH), rw / T(PW)
        ph, pw = np.arange(PH).astype(dt), np.arange(PW).astype(dt)
        for k in range(K):
            b = int(r[k, 0])
            gh = sampling_ratio if sampling_ratio > 0 else int(math.ceil(rh[k] / T(PH)))
            gw = sampling_ratio if sampling_ratio > 0 else int(math.ceil(rw[k] / T(PW)))
            hs, ws = ph * bh[k] + y1[k], pw * bw[k] + x1[k]
            acc = np.zeros((CO, PH, PW), dt)
            for iy in range(max(gh, 0)):
                y = hs + T(iy + .5) * bh[k] / T(gh)
                for ix in range(max(gw, 0)):
                    x = ws + T(ix + .5) * bw[k] / T(gw)
                    (yl, yh), (xl, xh), (w1, w2, w3, w4) = _bilinear_roi(y, x, H, W)
                    yl, yh, xl, xh = yl[:, None], yh[:, None], xl[None, :], xh[None, :]
                    plane = a[b]
                    acc += (w1 * plane[cin, yl, xl] + w2 * plane[cin, yl, xh] +
                            w3 * plane[cin, yh, xl] + w4 * plane[cin, yh, xh])
            out[k] = acc / T(gh * gw)   # no guard: an empty grid gives 0/0, as in torchvision
    return wrap(out), wrap(np.ascontiguousarray(mapping))


# --- roi_pool and ps_roi_pool --------------------------------------------------------------------
def _pool_bins(r: np.ndarray, spatial_scale: float, PH: int, PW: int, H: int, W: int,
               plus_one: int, dt: np.dtype):
    """Per box, the integer bin edges [start, end) of roi_pool (plus_one=1) and ps_roi_pool
    (plus_one=0): rounded box corners, bins of size (roi extent / pooled size), clipped."""
    T = dt.type
    c = _round_half_away(r[:, 1:5].astype(np.float64) * spatial_scale)
    sw, sh, ew, eh = c[:, 0], c[:, 1], c[:, 2], c[:, 3]
    rw = np.maximum(ew - sw + plus_one, 1)
    rh = np.maximum(eh - sh + plus_one, 1)
    bh, bw = rh.astype(dt) / T(PH), rw.astype(dt) / T(PW)

    def edges(bin_size, start, n, size):
        i = np.arange(n).astype(dt)
        lo = np.floor(i[None, :] * bin_size[:, None]).astype(np.int64)
        hi = np.ceil((i[None, :] + T(1)) * bin_size[:, None]).astype(np.int64)
        return (np.clip(lo + start[:, None], 0, size), np.clip(hi + start[:, None], 0, size))
    return edges(bh, sh, PH, H), edges(bw, sw, PW, W)


@op("torchvision::roi_pool(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, "
    "SymInt pooled_width) -> (Tensor, Tensor)")
def roi_pool(input: Tensor, rois: Tensor, spatial_scale: float, pooled_height: int,
             pooled_width: int):
    """Max over each bin of each box (Fast R-CNN's RoIPool) and the argmax (h * W + w, -1 for
    none; the first maximum in row-major order); an empty bin gives 0."""
    _check_rois(input, rois, "roi_pool")
    a, r = input._a, rois._a.astype(input._a.dtype)
    N, C, H, W = a.shape
    K, PH, PW = r.shape[0], pooled_height, pooled_width
    out = np.zeros((K, C, PH, PW), a.dtype)
    arg = np.full((K, C, PH, PW), -1, np.int32)
    (hs, he), (ws, we) = _pool_bins(r, spatial_scale, PH, PW, H, W, 1, a.dtype)
    lowest = -_FLT_MAX if a.dtype == np.float32 else a.dtype.type(-np.finfo(a.dtype).max)
    for k in range(K):
        b = int(r[k, 0])
        for i in range(PH):
            for j in range(PW):
                h0, h1, w0, w1 = hs[k, i], he[k, i], ws[k, j], we[k, j]
                if h1 <= h0 or w1 <= w0:
                    continue
                region = a[b, :, h0:h1, w0:w1].reshape(C, -1)
                taken = region > lowest        # C++ starts from -FLT_MAX and keeps a strict >
                best = np.argmax(np.where(taken, region, -np.inf), axis=1)
                anyv = taken.any(axis=1)
                v = region[np.arange(C), best]
                out[k, :, i, j] = np.where(anyv, v, lowest)
                idx = (h0 + best // (w1 - w0)) * W + (w0 + best % (w1 - w0))
                arg[k, :, i, j] = np.where(anyv, idx, -1)
    return wrap(out), wrap(arg)


@op("torchvision::ps_roi_pool(Tensor input, Tensor rois, float spatial_scale, "
    "SymInt pooled_height, SymInt pooled_width) -> (Tensor, Tensor)")
def ps_roi_pool(input: Tensor, rois: Tensor, spatial_scale: float, pooled_height: int,
                pooled_width: int):
    """Position-sensitive average pooling: bin (ph, pw) of output channel c averages input
    channel (c * PH + ph) * PW + pw; returns the output and that channel mapping."""
    _check_rois(input, rois, "ps_roi_pool")
    a, r = input._a, rois._a.astype(input._a.dtype)
    N, C, H, W = a.shape
    K, PH, PW = r.shape[0], pooled_height, pooled_width
    if C % (PH * PW) != 0:
        raise RuntimeError("input channels must be a multiple of pooling height * pooling width")
    CO = C // (PH * PW)
    out = np.zeros((K, CO, PH, PW), a.dtype)
    mapping = np.zeros((K, CO, PH, PW), np.int32)
    (hs, he), (ws, we) = _pool_bins(r, spatial_scale, PH, PW, H, W, 0, a.dtype)
    with np.errstate(all="ignore"):
        for k in range(K):
            b = int(r[k, 0])
            for i in range(PH):
                for j in range(PW):
                    cin = (np.arange(CO) * PH + i) * PW + j
                    mapping[k, :, i, j] = cin
                    h0, h1, w0, w1 = hs[k, i], he[k, i], ws[k, j], we[k, j]
                    if h1 <= h0 or w1 <= w0:
                        continue
                    s = a[b, cin, h0:h1, w0:w1].sum(axis=(1, 2), dtype=a.dtype)
                    out[k, :, i, j] = s / a.dtype.type((h1 - h0) * (w1 - w0))
    return wrap(out), wrap(mapping)


# --- deform_conv2d -------------------------------------------------------------------------------
@op("torchvision::deform_conv2d(Tensor input, Tensor weight, Tensor offset, Tensor mask, "
    "Tensor bias, SymInt stride_h, SymInt stride_w, SymInt pad_h, SymInt pad_w, "
    "SymInt dilation_h, SymInt dilation_w, SymInt groups, SymInt offset_groups, bool use_mask) "
    "-> Tensor")
def deform_conv2d(input: Tensor, weight: Tensor, offset: Tensor, mask: Tensor, bias: Tensor,
                  stride_h: int, stride_w: int, pad_h: int, pad_w: int, dilation_h: int,
                  dilation_w: int, groups: int, offset_groups: int, use_mask: bool) -> Tensor:
    """Deformable convolution v1/v2: each kernel tap samples the input bilinearly at its
    place moved by `offset` (and, with use_mask, scaled by `mask`)."""
    x, wt, off = input._a, weight._a, offset._a
    dt = x.dtype
    T = dt.type
    B, C, H, W = x.shape
    CO, CPG, KH, KW = wt.shape
    if groups <= 0 or offset_groups <= 0 or C % groups or C % offset_groups or \
            CPG * groups != C or CO % groups:
        raise RuntimeError(f"deform_conv2d: input channels {C} do not fit weight "
                           f"{list(wt.shape)} with groups {groups}, offset groups {offset_groups}")
    OH = (H + 2 * pad_h - (dilation_h * (KH - 1) + 1)) // stride_h + 1
    OW = (W + 2 * pad_w - (dilation_w * (KW - 1) + 1)) // stride_w + 1
    if off.shape != (B, 2 * offset_groups * KH * KW, OH, OW):
        raise RuntimeError(f"deform_conv2d: offset has shape {list(off.shape)}, expected "
                           f"{[B, 2 * offset_groups * KH * KW, OH, OW]}")
    off = off.reshape(B, offset_groups, KH * KW, 2, OH, OW)
    msk = mask._a.reshape(B, offset_groups, KH * KW, OH, OW) if use_mask else None
    ki, kj = np.divmod(np.arange(KH * KW), KW)
    base_y = (np.arange(OH)[None, :, None] * stride_h - pad_h + ki[:, None, None] * dilation_h)
    base_x = (np.arange(OW)[None, None, :] * stride_w - pad_w + kj[:, None, None] * dilation_w)
    cols = np.zeros((B, C, KH * KW, OH, OW), dt)
    cpo = C // offset_groups
    with np.errstate(all="ignore"):
        for b in range(B):
            for g in range(offset_groups):
                y = base_y.astype(dt) + off[b, g, :, 0]
                xx = base_x.astype(dt) + off[b, g, :, 1]
                inside = (y > -1) & (y < H) & (xx > -1) & (xx < W)
                yl, xl = np.floor(y).astype(np.int64), np.floor(xx).astype(np.int64)
                ly, lx = y - yl.astype(dt), xx - xl.astype(dt)
                hy, hx = T(1) - ly, T(1) - lx
                plane = x[b, g * cpo:(g + 1) * cpo]
                val = np.zeros((cpo,) + y.shape, dt)
                for dy, dx, wgt in ((0, 0, hy * hx), (0, 1, hy * lx), (1, 0, ly * hx),
                                    (1, 1, ly * lx)):
                    yy, xc = yl + dy, xl + dx
                    ok = inside & (yy >= 0) & (yy <= H - 1) & (xc >= 0) & (xc <= W - 1)
                    v = plane[:, np.clip(yy, 0, H - 1), np.clip(xc, 0, W - 1)]
                    val += np.where(ok, wgt, T(0)) * np.where(ok, v, T(0))
                if msk is not None:
                    val = msk[b, g] * val
                cols[b, g * cpo:(g + 1) * cpo] = val
    cols = cols.reshape(B, groups, CPG * KH * KW, OH * OW)
    wg = wt.reshape(groups, CO // groups, CPG * KH * KW)
    out = np.matmul(wg[None], cols).reshape(B, CO, OH, OW)
    out = out + bias._a.reshape(1, CO, 1, 1).astype(dt)
    return wrap(np.ascontiguousarray(out.astype(dt)))


# --- box_iou_rotated -----------------------------------------------------------------------------
def _corners(box: np.ndarray) -> np.ndarray:
    """The 4 corners (counter-clockwise) of a (cx, cy, w, h, angle in degrees) box."""
    cx, cy, w, h, ang = (float(v) for v in box)
    t = math.radians(ang)
    c, s = math.cos(t) * 0.5, math.sin(t) * 0.5
    p0 = (cx + s * h - c * w, cy - c * h - s * w)
    p1 = (cx - s * h - c * w, cy + c * h - s * w)
    return np.array([p0, p1, (2 * cx - p0[0], 2 * cy - p0[1]), (2 * cx - p1[0], 2 * cy - p1[1])])


def _clip(poly: list, a: np.ndarray, b: np.ndarray) -> list:
    """The part of convex polygon `poly` left of the directed edge a -> b."""
    def side(p):
        return (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
    out = []
    for i, p in enumerate(poly):
        q = poly[(i + 1) % len(poly)]
        sp, sq = side(p), side(q)
        if sp >= 0:
            out.append(p)
        if (sp >= 0) != (sq >= 0):
            t = sp / (sp - sq)
            out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    return out


def _area(poly) -> float:
    return 0.5 * abs(sum(p[0] * q[1] - q[0] * p[1]
                         for p, q in zip(poly, list(poly[1:]) + list(poly[:1]))))


def _orient(pts: np.ndarray) -> np.ndarray:
    """The corners in counter-clockwise order (a negative width or height flips them)."""
    signed = sum(p[0] * q[1] - q[0] * p[1] for p, q in zip(pts, np.roll(pts, -1, axis=0)))
    return pts if signed >= 0 else pts[::-1]


@op("torchvision::box_iou_rotated(Tensor boxes1, Tensor boxes2) -> Tensor")
def box_iou_rotated(boxes1: Tensor, boxes2: Tensor) -> Tensor:
    """Pairwise IoU [N, M] of rotated boxes (cx, cy, w, h, angle in degrees, counter-clockwise);
    0 where either box has (almost) no area."""
    b1, b2 = boxes1._a, boxes2._a
    for name, b in (("boxes1", b1), ("boxes2", b2)):
        if b.ndim != 2 or b.shape[1] != 5:
            raise RuntimeError(f"box_iou_rotated: {name} must have shape [N, 5], got "
                               f"{list(b.shape)}")
    out = np.zeros((b1.shape[0], b2.shape[0]), b1.dtype)
    for i, p in enumerate(b1.astype(np.float64)):
        a1 = abs(p[2] * p[3])
        for j, q in enumerate(b2.astype(np.float64)):
            a2 = abs(q[2] * q[3])
            if a1 < 1e-14 or a2 < 1e-14:
                continue
            # both centred on their midpoint first, as torchvision does, for precision
            shift = np.array([(p[0] + q[0]) / 2, (p[1] + q[1]) / 2, 0, 0, 0])
            c1, c2 = _orient(_corners(p - shift)), _orient(_corners(q - shift))
            poly = [tuple(v) for v in c1]
            for k in range(4):
                if not poly:
                    break
                poly = _clip(poly, c2[k], c2[(k + 1) % 4])
            inter = _area(poly) if len(poly) > 2 else 0.0
            out[i, j] = inter / (a1 + a2 - inter)
    return wrap(out)

