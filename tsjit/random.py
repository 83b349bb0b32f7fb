"""`torch.random`: the global generator's seed and state, and `fork_rng`."""
from __future__ import annotations

import contextlib
from typing import Any, Iterator

from ._tensor import get_rng_state, initial_seed, manual_seed, seed, set_rng_state


@contextlib.contextmanager
def fork_rng(devices: Any = None, enabled: bool = True, **_: Any) -> Iterator[None]:
    """Random numbers drawn inside do not change the generator outside (the state is
    restored on exit). tsjit has CPU devices only, so `devices` changes nothing."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


__all__ = ["fork_rng", "get_rng_state", "set_rng_state", "manual_seed", "seed", "initial_seed"]
