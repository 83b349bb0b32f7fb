"""tsjit.nn: Module, Parameter and layers written in scriptable Python, like torch.nn."""
from . import functional, init
from .modules import *  # noqa: F401,F403  (every layer, as torch.nn exports them)
from .modules import __all__ as _modules_all
from .parameter import Parameter

__all__ = ["functional", "init", "Parameter"] + list(_modules_all)
