"""tsjit: a TorchScript-style compiler and archive runtime over numpy."""
