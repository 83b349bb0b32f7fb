"""tsjit.utils: helpers that mirror `torch.utils` (serialization config)."""
