"""`torch.autograd`: tsjit has no autograd; this package holds the grad-mode context
managers (`torch.autograd.grad_mode`), named as PyTorch's so scripted code using them
saves the classes PyTorch's archives hold."""
from __future__ import annotations

from . import grad_mode
from .grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled

__all__ = ["enable_grad", "grad_mode", "inference_mode", "no_grad", "set_grad_enabled"]
