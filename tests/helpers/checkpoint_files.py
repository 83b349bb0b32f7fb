"""Hand-made torch.save files for tests that must not need PyTorch: a data.pkl written from
the neutral pickle model (tsjit's pickler) and storages, in torch's zip layout."""
from __future__ import annotations

import os
from typing import Any, Optional

from tsjit.serialize import pickle_format as P
from tsjit.serialize.pickler import pickle_value
from tsjit.serialize.zip_archive import ArchiveWriter


def storage(key: str, numel: int, cls: str = "FloatStorage") -> P.PersistentId:
    """A storage's persistent id, as torch.save writes it."""
    return P.PersistentId(("storage", P.Global("torch", cls), key, "cpu", numel))


def tensor(pid: P.PersistentId, offset: int, size: tuple, stride: tuple,
           requires_grad: bool = False) -> P.Reduce:
    """A `_rebuild_tensor_v2` record."""
    return P.Reduce(P.REBUILD_TENSOR_V2, (pid, offset, size, stride, requires_grad,
                                          P.Reduce(P.ORDERED_DICT, ())))


def write_checkpoint(path: os.PathLike, model: Any, storages: dict[str, bytes],
                     byteorder: Optional[str] = "little", pickled: Optional[bytes] = None,
                     top: str = "ckpt") -> str:
    """A zip checkpoint of `model` (or the pickle `pickled`) and the storages' bytes."""
    with ArchiveWriter(path, top=top) as w:
        w.write_record("data.pkl", pickled if pickled is not None else pickle_value(model))
        w.write_record(".format_version", b"1")
        w.write_record(".storage_alignment", b"64")
        if byteorder is not None:
            w.write_record("byteorder", byteorder.encode())
        for key, data in storages.items():
            w.write_record(f"data/{key}", data)
        w.write_record("version", b"3\n")
    return os.fspath(path)
