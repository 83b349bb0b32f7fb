"""`cli/contents.py` reads what `tsjit.load` reads, without loading: for every corpus archive
and checkpoint case, the same module tree and the same tensors (names, shapes, dtypes,
values), or an explicit step off the fast path (to the loader)."""
import glob
import os

import numpy as np
import pytest

from tests.helpers.cli import ROOT
from tsjit.cli.contents import OffTheFastPath, open_file

FILES = sorted(glob.glob(str(ROOT / "tests" / "data" / "corpus" / "*" / "model.pt"))) + \
    sorted(p for p in glob.glob(str(ROOT / "tests" / "data" / "ckpt" / "cases" / "*" / "*"))
           if p.endswith((".pt", ".pth", ".bin", ".tar", ".ckpt")))


@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.basename(os.path.dirname(p)))
def test_the_lazy_view_agrees_with_the_loader(path):
    view = open_file(path)
    try:
        fast = view._fast_tensors()
    except OffTheFastPath:
        return                      # tensors() asks the loader: the same answer by construction
    try:
        loaded = view._loaded_tensors()
    except Exception:               # noqa: BLE001 - the loader refuses it (a gadget): looking
        # needs no trust, so the view still reads every tensor's bytes
        assert all(view.array(r).size == r.numel for r in fast)
        return
    assert [(r.name, r.shape, r.dtype) for r in fast] == [(r.name, r.shape, r.dtype) for r in loaded]
    for r, s in zip(fast, loaded):
        a, b = view.array(r), s.array.numpy(force=True)
        assert a.shape == b.shape and np.array_equal(_bytes(a), _bytes(b)), r.name
        streamed = [c.reshape(-1) for c in view.chunks(r)]
        assert np.array_equal(_bytes(np.concatenate(streamed)), _bytes(b)), r.name
    if view.kind == "torchscript":
        import tsjit
        assert [n for n, _ in view.modules()] == [n for n, _ in tsjit.jit.load(path).named_modules()]


def _bytes(x):
    """The values' bytes in C order (bitwise: nans and float8 compare too)."""
    return np.ascontiguousarray(x).reshape(-1).view(np.uint8)
