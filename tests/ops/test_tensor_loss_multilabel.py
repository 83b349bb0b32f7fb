"""multilabel_margin_loss (tensor_loss_multilabel) against PyTorch."""
from __future__ import annotations

import numpy as np
from hypothesis import given, strategies as st

from tests.helpers import tensor_oracle as O

pytestmark = O.requires_torch
SET = O.SETTINGS
TOL = dict(rtol=1e-4, atol=1e-5)


@SET
@given(data=st.data(), red=st.integers(0, 2), batched=st.booleans())
def test_multilabel_margin_loss(data: st.DataObject, red: int, batched: bool) -> None:
    c = data.draw(st.integers(1, 5))
    # an empty batch reduced reads uninitialised memory in PyTorch: not drawn
    n = data.draw(st.integers(1 if red else 0, 3))
    shape = (n, c) if batched else (c,)
    x = data.draw(O.arrays(O.FLOATS, shape=shape, special=False))
    y = np.asarray(data.draw(st.lists(st.integers(-1, c - 1), min_size=int(np.prod(shape)),
                                      max_size=int(np.prod(shape)))), np.int64).reshape(shape)
    O.diff("aten::multilabel_margin_loss", x, y, red, **TOL)
    O.diff("aten::multilabel_margin_loss", x, y.astype(np.float32), red)      # not Long
    O.diff("aten::multilabel_margin_loss", x.astype(np.int64), y, red)       # not floating
    O.diff("aten::multilabel_margin_loss", x, y + c, red)                    # out of range
    O.diff("aten::multilabel_margin_loss", x, y[..., :-1], red)              # size mismatch
    O.diff("aten::multilabel_margin_loss", x[None, None], y[None, None], red)   # 3-d+
