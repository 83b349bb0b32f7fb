"""`Device`: where a tensor lives. tsjit only has the CPU, but archives name devices."""
from __future__ import annotations

from typing import Any, Optional


class Device:
    """A device such as `device(type='cpu')`; compares by type and index."""

    __slots__ = ("type", "index")

    def __init__(self, type: Any, index: Optional[int] = None) -> None:
        if isinstance(type, Device):
            type, index = type.type, type.index
        elif isinstance(type, int) and not isinstance(type, bool):
            # torch.device(0) means the first accelerator; tsjit has none
            type, index = "cuda", type
        elif isinstance(type, str) and ":" in type:
            type, _, idx = type.partition(":")
            # (ASCII digits, and few: int() refuses thousands of digits with a ValueError)
            if not (idx.isascii() and idx.isdigit()) or len(idx) > 18:
                raise RuntimeError(f"Invalid device string: '{type}:{idx[:40]}'")
            index = int(idx)
        if not isinstance(type, str) or not type:
            raise RuntimeError(f"Invalid device string: '{type}'")
        known = ("cpu", "cuda", "meta", "mps", "xpu", "xla", "hip", "ipu", "mtia", "hpu",
                 "lazy", "vulkan", "privateuseone")
        if type not in known:
            raise RuntimeError(
                f"Expected one of {', '.join(known)} device type at start of device string: {type}")
        self.type = type
        self.index = index

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            try:
                other = Device(other)
            except RuntimeError:
                return False
        return isinstance(other, Device) and self.type == other.type and self.index == other.index

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __reduce__(self) -> Any:
        return (Device, (self.type, self.index))


device = Device
CPU = Device("cpu")


def as_device(d: Any) -> Device:
    """A Device from a Device, a string or None (the CPU); only the CPU is supported."""
    if d is None:
        return CPU
    dev = d if isinstance(d, Device) else Device(d)
    if dev.type not in ("cpu", "meta"):
        raise RuntimeError(
            f"Attempting to use device '{dev}' but tsjit only supports the CPU")
    return dev
