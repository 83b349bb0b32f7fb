"""Archives of the fold / unpool / LP-pool / LRN / distance / loss layers cross between PyTorch
and tsjit: torch.jit.save -> tsjit.load and tsjit.save -> torch.jit.load give equal outputs."""
import warnings

import numpy as np
import pytest

import tsjit
import tsjit.nn as jnn
from tests.helpers.nn_cases import EXTRA_LAYERS, EXTRA_LOSSES, SPARSE
from tests.helpers.nn_util import assert_close, build_pair, needs_torch, to_numpy, to_torch, to_tsjit, torch

pytestmark = needs_torch

# MaxUnpool*d and GaussianNLLLoss are left out: torch.jit.script fails on them in PyTorch
# itself (an internal assert on the unpool output size; a comprehension with an if)
IDS = ["Unfold", "Fold", "LPPool2d", "LocalResponseNorm", "PairwiseDistance", "CTCLoss",
       "HuberLoss", "MultiLabelMarginLoss", "TripletMarginLoss", "MarginRankingLoss",
       "EmbeddingBag-offsets-sum", "EmbeddingBag-max-padding_idx",
       "EmbeddingBag-weighted-last-offset"]
CASES = [c for c in EXTRA_LAYERS + EXTRA_LOSSES + SPARSE if c.id in IDS]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_archives_cross(case, tmp_path):
    t, j = build_pair(case)
    args = case.inputs(np.random.default_rng(3))
    want = to_numpy(t(*to_torch(args)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.jit.save(torch.jit.script(t), str(tmp_path / "torch.pt"))
    loaded = tsjit.load(str(tmp_path / "torch.pt"))
    assert_close(to_numpy(loaded(*to_tsjit(args))), want, case.rtol, case.atol)
    scripted = tsjit.script(j)
    assert scripted.original_name == type(t).__name__
    assert scripted.code == torch.jit.script(t).code
    tsjit.save(scripted, str(tmp_path / "tsjit.pt"))
    back = torch.jit.load(str(tmp_path / "tsjit.pt"))
    assert_close(to_numpy(back(*to_torch(args))), want, case.rtol, case.atol)


def test_functionals_exported():
    """The functionals exist under torch.nn.functional's names and module."""
    F = jnn.functional
    for name in ["unfold", "fold", "grid_sample", "affine_grid", "max_unpool1d", "lp_pool3d",
                 "local_response_norm", "gumbel_softmax", "ctc_loss", "multilabel_margin_loss",
                 "gaussian_nll_loss", "embedding_bag", "upsample_bilinear"]:
        assert getattr(F, name).__module__ == "tsjit.nn.functional", name
        assert name in F.__all__, name
    import tsjit as t
    assert t.nn.LPPool2d.__module__ == "tsjit.nn.modules.pooling"
