"""The eager operators as a module namespace: `functions.relu(x)` runs aten::relu's kernel.

`tsjit.relu` and the `torch.relu` of tsjit's nn code (scripted as `aten::relu`) come from
here. The module holds nothing but them (each resolved on first use, then kept as an
attribute), so an operator named like a builtin (`all`, `max`, `sum`) shadows no code, as
it would in `eager`, whose functions call `all()` and `max()`.
"""
from . import eager as _eager


def __getattr__(name: str) -> "_eager.Dispatcher":
    if name.startswith("__"):
        raise AttributeError(name)
    d = globals()[name] = _eager.lookup(name)   # later lookups skip this function
    return d
