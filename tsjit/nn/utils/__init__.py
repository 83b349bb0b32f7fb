"""tsjit.nn.utils (torch.nn.utils): sequence packing for recurrent layers."""
from . import rnn

__all__ = ["rnn"]
