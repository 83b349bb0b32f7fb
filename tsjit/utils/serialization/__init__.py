"""tsjit.utils.serialization: the settings of `tsjit.save` / `tsjit.load` (as torch's)."""
from . import config

__all__ = ["config"]
