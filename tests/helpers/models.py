"""Small modules used by several tests (defined in a file so they can be scripted)."""
import tsjit
from tsjit import nn


class Net(nn.Module):
    """The quickstart model."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.scale = 2

    def forward(self, x: tsjit.Tensor, n: int) -> tsjit.Tensor:
        y = tsjit.relu(self.fc(x))
        i = 0
        while i < n:
            if i % 2 == 0:
                y = y * self.scale
            else:
                y = y + 1.0
            i += 1
        return y


def collatz_steps(n: int) -> int:
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def mixed(x: tsjit.Tensor, k: int, f: float, flag: bool) -> tsjit.Tensor:
    for i in range(k):
        if flag:
            x = x * f
        else:
            x = x - i
    return x


class Tiny(nn.Module):
    """A one-layer module (for save-failure tests)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)

    def forward(self, x: tsjit.Tensor) -> tsjit.Tensor:
        return self.fc(x)
