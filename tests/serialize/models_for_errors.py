"""A tiny module for save-failure tests."""
import tsjit
from tsjit import nn


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)

    def forward(self, x: tsjit.Tensor) -> tsjit.Tensor:
        return self.fc(x)


def build():
    return Tiny()
