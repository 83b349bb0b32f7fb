"""torchvision's operators: hand-checked cases, and nms / roi_align against the Python kernels
of tests/zoo/tv_shim.py (torchvision's CPU algorithms, run by PyTorch) when torch is installed."""
from __future__ import annotations

import math

import numpy as np
import pytest

import tsjit
from tsjit.ops import find


def k(name: str):
    return find(f"torchvision::{name}").kernel


def t(a, dtype=np.float32) -> tsjit.Tensor:
    return tsjit.from_numpy(np.asarray(a, dtype))


PLANE = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)


# --- nms -----------------------------------------------------------------------------------------
def test_nms_suppresses_overlaps_by_descending_score():
    boxes = t([[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30], [0, 0, 10, 10]])
    scores = t([0.9, 0.8, 0.7, 0.95])
    # box 3 first; box 0 (IoU 1) and box 1 (IoU 81/119 = 0.68) go; box 2 does not overlap
    assert k("nms")(boxes, scores, 0.5).numpy().tolist() == [3, 2]
    # at a threshold above 0.68 box 1 stays
    assert k("nms")(boxes, scores, 0.7).numpy().tolist() == [3, 1, 2]


def test_nms_ties_keep_the_earlier_box_and_empty_input():
    boxes = t([[0, 0, 1, 1], [0, 0, 1, 1], [5, 5, 6, 6]])
    assert k("nms")(boxes, t([0.5, 0.5, 0.5]), 0.5).numpy().tolist() == [0, 2]
    out = k("nms")(t(np.zeros((0, 4))), t(np.zeros(0)), 0.5)
    assert out.numpy().dtype == np.int64 and out.numpy().shape == (0,)


def test_nms_rejects_bad_shapes():
    with pytest.raises(RuntimeError, match="4 elements"):
        k("nms")(t(np.zeros((2, 3))), t(np.zeros(2)), 0.5)
    with pytest.raises(RuntimeError, match="same number"):
        k("nms")(t(np.zeros((2, 4))), t(np.zeros(3)), 0.5)


# --- roi_align / roi_pool ------------------------------------------------------------------------
def test_roi_align_samples_bilinearly():
    x = t(PLANE)
    # one sample at the bin centre (1.5, 1.5): the mean of 5, 6, 9, 10
    assert k("roi_align")(x, t([[0, 0, 0, 3, 3]]), 1.0, 1, 1, 1, False).numpy().item() == 7.5
    # aligned shifts by half a pixel: the centre is (1, 1)
    assert k("roi_align")(x, t([[0, 0, 0, 3, 3]]), 1.0, 1, 1, 1, True).numpy().item() == 5.0
    # a 2x2 output over the whole map, 2x2 samples per bin, spatial scale 0.5
    out = k("roi_align")(x, t([[0, 0, 0, 8, 8]]), 0.5, 2, 2, 2, False).numpy()
    # bin (0,0) samples y, x in {0.5, 1.5}: mean of the values there
    assert out.shape == (1, 1, 2, 2) and out[0, 0, 0, 0] == pytest.approx(5.0)


def test_roi_align_outside_the_map_is_zero_and_clamps_at_the_edge():
    x = t(PLANE)
    assert k("roi_align")(x, t([[0, 10, 10, 12, 12]]), 1.0, 1, 1, 1, False).numpy().item() == 0
    # a sample at y = x = 3.5 lies past the last row and column: it reads the corner, 15
    assert k("roi_align")(x, t([[0, 3, 3, 4, 4]]), 1.0, 1, 1, 1, False).numpy().item() == 15


def test_roi_pool_takes_the_max_and_its_index():
    out, arg = k("roi_pool")(t(PLANE), t([[0, 0, 0, 3, 3]]), 1.0, 2, 2)
    assert out.numpy().reshape(-1).tolist() == [5, 7, 13, 15]
    assert arg.numpy().reshape(-1).tolist() == [5, 7, 13, 15]
    assert arg.numpy().dtype == np.int32


def test_ps_roi_pool_and_align_read_one_channel_per_bin():
    x = np.stack([c * 100 + PLANE[0, 0] for c in range(4)])[None]   # 4 channels = 1 x 2 x 2
    out, mapping = k("ps_roi_pool")(t(x), t([[0, 0, 0, 4, 4]]), 1.0, 2, 2)
    assert out.numpy().reshape(-1).tolist() == [2.5, 104.5, 210.5, 312.5]
    assert mapping.numpy().reshape(-1).tolist() == [0, 1, 2, 3]
    # boxes shift by -0.5: one sample per bin at (1 + 2ph, 1 + 2pw); row 3 is the last one
    out, mapping = k("ps_roi_align")(t(x), t([[0, .5, .5, 4.5, 4.5]]), 1.0, 2, 2, 1)
    assert out.numpy().reshape(-1).tolist() == [5, 107, 213, 315]


# --- deform_conv2d -------------------------------------------------------------------------------
def _deform(x, w, off, mask=None, b=None, stride=1, pad=0, dil=1, groups=1):
    og = off.shape[1] // (2 * w.shape[2] * w.shape[3])
    b = np.zeros(w.shape[0], np.float32) if b is None else b
    m = np.zeros((1,), np.float32) if mask is None else mask
    return k("deform_conv2d")(t(x), t(w), t(off), t(m), t(b), stride, stride, pad, pad, dil, dil,
                              groups, og, mask is not None).numpy()


def test_deform_conv2d_without_offsets_is_a_convolution():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 6, 5)).astype(np.float32)
    w = rng.standard_normal((6, 2, 3, 3)).astype(np.float32)
    b = rng.standard_normal(6).astype(np.float32)
    off = np.zeros((2, 2 * 2 * 9, 3, 3), np.float32)   # offset groups 2, stride 2, pad 1
    got = _deform(x, w, off, b=b, stride=2, pad=1, groups=2)
    ref = tsjit.conv2d(t(x), t(w), t(b), [2, 2], [1, 1], [1, 1], 2).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


def test_deform_conv2d_moves_and_masks_taps():
    x = PLANE
    w = np.ones((1, 1, 1, 1), np.float32)
    off = np.zeros((1, 2, 4, 4), np.float32)
    off[:, 1] = 1.0        # every tap reads one column to the right; the last column reads 0
    assert _deform(x, w, off)[0, 0].tolist() == [[1, 2, 3, 0], [5, 6, 7, 0], [9, 10, 11, 0],
                                                 [13, 14, 15, 0]]
    off[:, 1] = 0.5        # half way: the mean of two neighbours; past the edge half a value
    assert _deform(x, w, off)[0, 0, 0].tolist() == [0.5, 1.5, 2.5, 1.5]
    mask = np.full((1, 1, 4, 4), 2.0, np.float32)
    assert _deform(x, w, off, mask)[0, 0, 0].tolist() == [1, 3, 5, 3]


# --- box_iou_rotated -----------------------------------------------------------------------------
def test_box_iou_rotated():
    b1 = t([[0, 0, 2, 2, 0], [0, 0, 2, 2, 45], [10, 10, 1, 1, 0]])
    b2 = t([[0, 0, 2, 2, 0], [1, 0, 2, 2, 0], [0, 0, 0, 0, 0]])
    iou = k("box_iou_rotated")(b1, b2).numpy()
    assert iou[0, 0] == pytest.approx(1.0)
    assert iou[0, 1] == pytest.approx(2 / 6)                 # half overlap: 2 / (4 + 4 - 2)
    octagon = 8 * (math.sqrt(2) - 1)                        # a square and itself turned 45°
    assert iou[1, 0] == pytest.approx(octagon / (8 - octagon), rel=1e-6)
    assert iou[2].tolist() == [0, 0, 0] and iou[:, 2].tolist() == [0, 0, 0]


# --- against torchvision's CPU algorithms (tv_shim) ----------------------------------------------
@pytest.fixture(scope="module")
def shim():
    torch = pytest.importorskip("torch")
    import importlib.util
    import os
    import sys
    name = "tsjit_zoo_tv_shim"      # (the zoo generator loads it under the same name)
    if name not in sys.modules and not hasattr(torch.ops.torchvision, "roi_align"):
        path = os.path.join(os.path.dirname(__file__), "..", "helpers", "zoo_tv_shim.py")
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        try:
            spec.loader.exec_module(mod)
        except ImportError as e:   # the shim patches torchvision; only its kernels matter here
            if "torchvision" not in str(e):
                raise
    return torch


def _boxes(rng, n, size):
    xy = rng.uniform(-4, size, (n, 2))
    wh = rng.uniform(0, size / 2, (n, 2))
    return np.concatenate([xy, xy + wh], 1).astype(np.float32)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(5))
def test_nms_matches_torchvision(shim, seed):
    torch = shim
    rng = np.random.default_rng(seed)
    # 200 boxes: several of the kernel's blocks of 64 (_NMS_BLOCK), so later blocks are
    # suppressed by earlier ones
    boxes = _boxes(rng, 200, 30)
    scores = rng.random(200).astype(np.float32)
    # and with ties: torchvision orders by torch's unstable sort, so which of two boxes of
    # equal score is kept follows that sort's order of equal elements
    tied = rng.integers(0, 4, 200).astype(np.float32) / 4
    for thr, scores in [(0.1, scores), (0.5, scores), (0.8, scores), (0.3, tied), (0.6, tied)]:
        ref = torch.ops.torchvision.nms(torch.from_numpy(boxes), torch.from_numpy(scores), thr)
        got = k("nms")(t(boxes), t(scores), thr)
        assert got.numpy().tolist() == ref.numpy().tolist()


@pytest.mark.parametrize("seed", range(4))
def test_roi_align_matches_torchvision(shim, seed):
    torch = shim
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 3, 9, 11)).astype(np.float32)
    rois = np.concatenate([rng.integers(0, 2, (12, 1)), _boxes(rng, 12, 20)], 1).astype(np.float32)
    for scale, ph, pw, ratio, aligned in [(0.5, 3, 2, 0, False), (0.5, 2, 2, 2, True),
                                          (1.0, 4, 3, -1, True), (0.25, 7, 7, 2, False)]:
        ref = torch.ops.torchvision.roi_align(torch.from_numpy(x), torch.from_numpy(rois), scale,
                                              ph, pw, ratio, aligned).numpy()
        got = k("roi_align")(t(x), t(rois), scale, ph, pw, ratio, aligned).numpy()
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)
