"""Files for the command line's tests: a torch.save checkpoint written by tsjit.save
({"w": float32 2x3, "b": int64 4}) and a model-zoo archive (skipped without PyTorch)."""
import numpy as np
import pytest

from tests.helpers.cli import zoo_archive


@pytest.fixture(scope="session")
def checkpoint(tmp_path_factory):
    import tsjit
    path = tmp_path_factory.mktemp("ckpt") / "state.pt"
    tsjit.save({"w": tsjit.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3)),
                "b": tsjit.from_numpy(np.arange(4, dtype=np.int64))}, str(path))
    return path


@pytest.fixture(scope="session")
def zoo():
    return zoo_archive()
