"""tsjit.utils: helpers named as PyTorch's `torch.utils` ones."""
