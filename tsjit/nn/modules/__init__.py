"""Layers, named and laid out as in torch.nn.modules so scripted class names match."""
from .linear import Linear
from .module import Module

__all__ = ["Linear", "Module"]
