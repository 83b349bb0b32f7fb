"""tsjit.linalg / tsjit.special (torch.linalg / torch.special): eager calls, scripted calls
compile to the aten::linalg_* / aten::special_* operators, unknown names are clear errors."""
from __future__ import annotations

import numpy as np
import pytest

import tsjit
import tsjit as torch_like

try:  # PyTorch is only an oracle
    import torch
except ImportError:  # pragma: no cover - depends on the environment
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed; the "
                                 "differential oracle is unavailable")

M = [[2.0, 1.0], [1.0, 3.0]]


def test_eager_linalg_is_the_registered_operator() -> None:
    a = tsjit.tensor(M, dtype=tsjit.float64)
    x = tsjit.linalg.solve(a, tsjit.ones(2, dtype=tsjit.float64))
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(np.array(M), np.ones(2)))
    np.testing.assert_allclose(tsjit.linalg.det(a).item(), 5.0)
    assert tsjit.linalg.solve.name == "linalg_solve"


def test_namespace_listing_and_errors() -> None:
    assert {"solve", "det", "norm", "vector_norm", "svdvals"} <= set(dir(tsjit.linalg))
    assert {"expit", "ndtr", "xlogy", "softmax"} <= set(dir(tsjit.special))
    with pytest.raises(AttributeError, match="module 'tsjit.linalg' has no attribute 'nope'"):
        tsjit.linalg.nope  # noqa: B018
    with pytest.raises(AttributeError, match="tsjit.special"):
        tsjit.special.solve  # noqa: B018  (linalg's, not special's)


class _Uses(torch_like.nn.Module):
    def forward(self, m: torch_like.Tensor, x: torch_like.Tensor) -> list[torch_like.Tensor]:
        return [torch_like.linalg.solve(m, x), torch_like.linalg.det(m),
                torch_like.linalg.norm(m), torch_like.special.expit(x),
                torch_like.special.xlogy(x, x), torch_like.special.softmax(x, 0)]


def test_scripted_calls_compile_to_the_aten_operators() -> None:
    s = tsjit.script(_Uses())
    kinds = {n.kind for n in s.forward.graph.nodes}
    assert {"aten::linalg_solve", "aten::linalg_det", "aten::linalg_norm",
            "aten::special_expit", "aten::special_xlogy", "aten::special_softmax"} <= kinds
    m, x = tsjit.tensor(M), tsjit.tensor([0.5, 2.0])
    for got, want in zip(s(m, x), _Uses()(m, x)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


@needs_torch
def test_scripted_results_match_torch() -> None:
    m, x = np.array(M, np.float32), np.array([0.5, 2.0], np.float32)
    mine = tsjit.script(_Uses())(tsjit.from_numpy(m), tsjit.from_numpy(x))
    tm, tx = torch.from_numpy(m), torch.from_numpy(x)
    theirs = [torch.linalg.solve(tm, tx), torch.linalg.det(tm), torch.linalg.norm(tm),
              torch.special.expit(tx), torch.special.xlogy(tx, tx), torch.special.softmax(tx, 0)]
    for a, b in zip(mine, theirs):
        assert str(a.dtype) == str(b.dtype)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
