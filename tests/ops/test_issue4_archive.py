"""End to end: a module using issue 4's operators, scripted and saved by PyTorch, loaded by
tsjit.load, gives PyTorch's outputs."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed: it writes the archive")


class _Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.emb = torch.nn.EmbeddingBag(6, 3, mode="mean", padding_idx=0)

    def forward(self, x: torch.Tensor, grid: torch.Tensor, idx: torch.Tensor,
                offs: torch.Tensor) -> list[torch.Tensor]:
        cols = torch.nn.functional.unfold(x, kernel_size=2, padding=1)
        back = torch.nn.functional.fold(cols, (x.shape[2], x.shape[3]), kernel_size=2,
                                        padding=1)
        sampled = torch.nn.functional.grid_sample(x, grid, mode="bilinear",
                                                  padding_mode="border", align_corners=False)
        q = torch.quantile(x.flatten(1), torch.tensor([0.25, 0.5], dtype=x.dtype), dim=1)
        d = torch.diff(x, n=1, dim=-1)
        s = torch.special.erfinv(torch.tanh(x)) + torch.digamma(x.abs() + 1)
        c = torch.addcdiv(x, x, x.abs() + 1, value=0.5)
        r = torch.view_as_real(torch.view_as_complex(torch.stack([x, d.sum(-1, True)
                                                                  .expand_as(x)], -1)))
        loss = torch.nn.functional.cosine_embedding_loss(
            x.flatten(1), back.flatten(1), torch.ones(x.shape[0]))
        return [cols, back, sampled, q, d, s, c, r, loss, self.emb(idx, offs),
                torch.heaviside(x, torch.zeros_like(x)), torch.float_power(x, 2)]


@pytest.mark.slow
def test_torch_archive_runs_in_tsjit(tmp_path: Path) -> None:
    import tsjit
    torch.manual_seed(0)
    net = _Net().eval()
    path = tmp_path / "issue4.pt"
    torch.jit.save(torch.jit.script(net), str(path))
    x = torch.randn(2, 2, 4, 5)
    grid = torch.rand(2, 3, 3, 2) * 2.4 - 1.2
    idx = torch.tensor([0, 2, 4, 0, 5, 1])
    offs = torch.tensor([0, 2, 4])
    expected = net(x, grid, idx, offs)
    loaded = tsjit.load(str(path))
    got = loaded(*(tsjit.tensor(t.numpy()) for t in (x, grid, idx, offs)))
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert str(g.dtype) == str(e.dtype) and tuple(g.shape) == tuple(e.shape)
        np.testing.assert_allclose(g.numpy(), e.detach().numpy(), rtol=1e-4, atol=1e-5)
