"""A torch.save checkpoint written by tsjit.save, for the commands that must recognise one:
{"w": float32 2x3, "b": int64 4}."""
import numpy as np
import pytest


@pytest.fixture(scope="session")
def checkpoint(tmp_path_factory):
    import tsjit
    path = tmp_path_factory.mktemp("ckpt") / "state.pt"
    tsjit.save({"w": tsjit.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3)),
                "b": tsjit.from_numpy(np.arange(4, dtype=np.int64))}, str(path))
    return path
