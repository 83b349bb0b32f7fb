"""tsjit.nn: Module, Parameter and layers written in scriptable Python, like torch.nn."""
from . import functional
from .modules import Linear, Module
from .parameter import Parameter

__all__ = ["functional", "Linear", "Module", "Parameter"]
