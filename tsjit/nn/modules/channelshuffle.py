"""ChannelShuffle, as torch.nn.modules.channelshuffle."""
from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module


class ChannelShuffle(Module):
    """Channels split into groups and interleaved across them."""

    __constants__ = ["groups"]
    groups: int

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"


__all__ = ["ChannelShuffle"]
