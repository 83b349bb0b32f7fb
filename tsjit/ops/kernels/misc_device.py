"""Devices in archive code: `torch.device("cpu")` (`aten::device`), `torch.device("cuda", 0)`
and `x.cpu()`. Traced models name the device they were traced on in every `to` / factory call.
"""
from __future__ import annotations

from ..._tensor.device import Device
from ..._tensor.tensor import Tensor
from ..registry import op


@op("aten::device(str a) -> Device")
def device_of_string(a: str) -> Device:
    """torch.device("cpu"): a device from its name ("cpu", "cuda:1")."""
    return Device(a)


@op("aten::device.with_index(str type, int index) -> Device")
def device_with_index(type: str, index: int) -> Device:
    """torch.device("cuda", 0): a device from its type and index."""
    if ":" in type:
        raise RuntimeError(f"type (string) must not include an index because index was passed "
                           f"explicitly: {type}")
    if index < 0:
        raise RuntimeError(f"Device index must be -1 or non-negative, got {index}")
    return Device(type, index)


@op("aten::cpu(Tensor(a) self) -> Tensor(a|b)")
def cpu(self: Tensor) -> Tensor:
    """The tensor itself: every tsjit tensor is on the CPU."""
    return self
