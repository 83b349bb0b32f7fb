"""`tsjit.utils.serialization.config`: the options of checkpoint saving and loading."""
from . import config

__all__ = ["config"]
