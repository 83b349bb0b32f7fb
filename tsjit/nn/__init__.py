"""tsjit.nn: Module, Parameter and layers written in scriptable Python, like torch.nn."""
from . import functional, init, utils
from .modules import *  # noqa: F401,F403  (every layer, as torch.nn exports them)
from .modules import __all__ as _modules_all
from .parameter import Buffer, Parameter

__all__ = ["functional", "init", "utils", "Parameter", "Buffer"] + list(_modules_all)
