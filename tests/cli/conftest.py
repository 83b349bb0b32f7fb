"""A torch.save checkpoint (tsjit.save writes archives only), for the commands that must
recognise one: {"w": float32 2x3, "b": int64 4}."""
import numpy as np
import pytest

from tests.helpers.checkpoint_files import storage, tensor, write_checkpoint


@pytest.fixture(scope="session")
def checkpoint(tmp_path_factory):
    path = tmp_path_factory.mktemp("ckpt") / "state.pt"
    w, b = np.arange(6, dtype=np.float32), np.arange(4, dtype=np.int64)
    model = {"w": tensor(storage("0", 6), 0, (2, 3), (3, 1)),
             "b": tensor(storage("1", 4, "LongStorage"), 0, (4,), (1,))}
    write_checkpoint(path, model, {"0": w.tobytes(), "1": b.tobytes()})
    return path
