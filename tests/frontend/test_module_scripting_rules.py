"""How scripting treats module members and call arguments where PyTorch has a rule:
`__constants__` naming a submodule, tuples passed for list (and Union-with-list)
parameters."""
import warnings
from typing import List, Optional, Tuple, Union

import numpy as np
import pytest

import tsjit
from tsjit import Tensor, nn


def count(size: Optional[Union[int, List[int]]] = None) -> int:
    if size is None:
        return -1
    if isinstance(size, int):
        return size
    return len(size) * 100 + size[0]


def total(sizes: List[int]) -> int:
    return sum(sizes)


class _Sizes(nn.Module):
    __constants__ = ["size"]

    def __init__(self) -> None:
        super().__init__()
        self.size = (7, 9)

    def forward(self, x: int) -> Tuple[int, int, int, int]:
        return count(self.size), count(x), count(), total(self.size)


def test_tuple_converts_to_the_list_member_of_a_union():
    scripted = tsjit.script(_Sizes())
    assert scripted(3) == _Sizes()(3) == (207, 3, -1, 16)
    assert "prim::ListConstruct" in str(scripted.graph)


def test_tuple_of_the_wrong_element_type_still_fails():
    class Wrong(nn.Module):
        def forward(self, x: float) -> int:
            return count((x, 2.0))

    with pytest.raises(tsjit.CompileError, match="count"):
        tsjit.script(Wrong())


class _WithNorm(nn.Module):
    __constants__ = ["norm", "scale"]

    def __init__(self) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(4)
        self.scale = 2.0

    def forward(self, x: Tensor) -> Tensor:
        return self.norm(x) * self.scale


def test_constant_naming_a_submodule_is_skipped_with_a_warning():
    m = _WithNorm()
    with pytest.warns(UserWarning, match="'norm' was found in ScriptModule constants"):
        scripted = tsjit.script(m)
    assert "norm" not in scripted._type.constants and scripted._type.constants["scale"] == 2.0
    x = tsjit.randn(3, 4)
    np.testing.assert_allclose(scripted(x).numpy(), m(x).numpy(), rtol=1e-6)


def test_constant_of_an_unsupported_type_is_an_error():
    class Bad(nn.Module):
        __constants__ = ["table"]

        def __init__(self) -> None:
            super().__init__()
            self.table = {"a": 1}

        def forward(self, x: Tensor) -> Tensor:
            return x

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(tsjit.CompileError, match="constant 'table' of type dict"):
            tsjit.script(Bad())
