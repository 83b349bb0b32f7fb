"""Container behaviour (indexing, slicing, len, iteration, mutation) compared with torch.nn."""
from collections import OrderedDict

import numpy as np
import pytest

import tsjit
import tsjit.nn as jnn
from tests.helpers.nn_util import needs_torch, tnn, torch

pytestmark = needs_torch


def _names(m):
    return [type(c).__name__ for c in m]


def _both(fn):
    return fn(tnn), fn(jnn)


def test_sequential_construction_and_access():
    t, j = _both(lambda nn: nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1),
                                          nn.Tanh()))
    assert len(j) == len(t) == 4
    assert _names(j) == _names(t)
    assert type(j[0]).__name__ == "Linear" and type(j[-1]).__name__ == "Tanh"
    assert isinstance(j[1:3], jnn.Sequential) and _names(j[1:3]) == _names(t[1:3])
    assert list(j[1:3]._modules) == list(t[1:3]._modules)
    assert _names(j[::-1]) == _names(t[::-1])
    with pytest.raises(IndexError):
        j[4]
    with pytest.raises(IndexError):
        t[4]
    od = _both(lambda nn: nn.Sequential(OrderedDict([("fc", nn.Linear(2, 2)),
                                                     ("act", nn.ReLU())])))
    assert list(od[1].state_dict()) == list(od[0].state_dict()) == ["fc.weight", "fc.bias"]
    assert type(od[1].act).__name__ == "ReLU" and od[1][1] is od[1].act


def test_sequential_mutation():
    for nn in (tnn, jnn):
        s = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
        s.append(nn.Linear(3, 4))
        s.insert(1, nn.Tanh())
        s.extend([nn.Sigmoid()])
        assert _names(s) == ["Linear", "Tanh", "ReLU", "Linear", "Sigmoid"]
        del s[1]
        assert list(s._modules) == ["0", "1", "2", "3"]
        s[0] = nn.Identity()
        assert type(s[0]).__name__ == "Identity"
        popped = s.pop(1)
        assert type(popped).__name__ == "ReLU" and len(s) == 3
        s2 = s + nn.Sequential(nn.ReLU())
        assert _names(s2) == ["Identity", "Linear", "Sigmoid", "ReLU"]
        s += nn.Sequential(nn.Tanh())
        assert _names(s) == ["Identity", "Linear", "Sigmoid", "Tanh"]


def test_sequential_forward_matches_torch():
    torch.manual_seed(0)
    t = tnn.Sequential(tnn.Conv2d(1, 2, 3), tnn.BatchNorm2d(2), tnn.ReLU(), tnn.Flatten(),
                       tnn.Linear(2 * 4 * 4, 3), tnn.LogSoftmax(dim=1)).eval()
    j = jnn.Sequential(jnn.Conv2d(1, 2, 3), jnn.BatchNorm2d(2), jnn.ReLU(), jnn.Flatten(),
                       jnn.Linear(2 * 4 * 4, 3), jnn.LogSoftmax(dim=1)).eval()
    j.load_state_dict({k: tsjit.from_numpy(v.numpy().copy()) for k, v in t.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((5, 1, 6, 6)).astype(np.float32)
    np.testing.assert_allclose(j(tsjit.from_numpy(x)).numpy(),
                               t(torch.from_numpy(x)).detach().numpy(), rtol=1e-5, atol=1e-5)


def test_module_list():
    for nn in (tnn, jnn):
        ml = nn.ModuleList([nn.Linear(2, 2), nn.ReLU()])
        ml.append(nn.Tanh())
        ml.extend([nn.Sigmoid(), nn.Identity()])
        ml.insert(0, nn.ELU())
        assert _names(ml) == ["ELU", "Linear", "ReLU", "Tanh", "Sigmoid", "Identity"]
        assert type(ml[-1]).__name__ == "Identity" and len(ml) == 6
        assert _names(ml[1:3]) == ["Linear", "ReLU"]
        del ml[0]
        assert list(ml._modules) == ["0", "1", "2", "3", "4"]
        ml[0] = nn.GELU()
        assert type(ml.pop(0)).__name__ == "GELU"
        ml += [nn.ReLU()]
        assert _names(ml + nn.ModuleList([nn.Tanh()]))[-2:] == ["ReLU", "Tanh"]
        with pytest.raises(IndexError):
            ml[10]
        with pytest.raises(TypeError):
            ml.extend(nn.ReLU())
    assert list(jnn.ModuleList([jnn.Linear(2, 3)]).state_dict()) == ["0.weight", "0.bias"]


def test_module_dict():
    for nn in (tnn, jnn):
        md = nn.ModuleDict({"b": nn.Linear(2, 2), "a": nn.ReLU()})
        assert list(md.keys()) == ["b", "a"] and len(md) == 2 and "a" in md
        md["c"] = nn.Tanh()
        md.update([("d", nn.Identity())])
        assert list(md) == ["b", "a", "c", "d"]
        assert type(md.pop("a")).__name__ == "ReLU"
        assert [k for k, _ in md.items()] == ["b", "c", "d"]
        assert _names(md.values()) == ["Linear", "Tanh", "Identity"]
        del md["b"]
        assert list(md.state_dict()) == []
        md.clear()
        assert len(md) == 0


def test_parameter_list_and_dict():
    for nn, lib in ((tnn, torch), (jnn, tsjit)):
        pl = nn.ParameterList([nn.Parameter(lib.ones(2)), lib.zeros(3)])
        assert all(isinstance(p, nn.Parameter) for p in pl)   # tensors become Parameters
        pl.append(nn.Parameter(lib.ones(1)))
        assert len(pl) == 3 and [tuple(p.shape) for p in pl] == [(2,), (3,), (1,)]
        assert list(pl.state_dict()) == ["0", "1", "2"]
        assert tuple(pl[-1].shape) == (1,)
        pd = nn.ParameterDict({"w": lib.ones(2), "a": nn.Parameter(lib.zeros(1))})
        assert list(pd.keys()) == ["a", "w"]                 # plain dicts are sorted
        pd["z"] = lib.ones(4)
        assert isinstance(pd["z"], nn.Parameter) and "z" in pd and len(pd) == 3
        assert list(pd.state_dict()) == ["a", "w", "z"]
        assert tuple(pd.pop("w").shape) == (2,) and list(pd) == ["a", "z"]
        assert pd.get("missing") is None


def test_module_traversal_and_modes():
    j = jnn.Sequential(jnn.Linear(2, 2), jnn.Sequential(jnn.Dropout(0.5), jnn.BatchNorm1d(2)))
    j.eval()
    assert all(not m.training for m in j.modules())
    j.train()
    assert all(m.training for m in j.modules())
    assert [n for n, _ in j.named_children()] == ["0", "1"]
    assert j.get_submodule("1.1").num_features == 2
    assert j.get_parameter("0.weight") is j[0].weight
    seen = []
    j.apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "Dropout", "BatchNorm1d", "Sequential", "Sequential"]


def test_to_double_keeps_rnn_weights_in_step():
    lstm = jnn.LSTM(3, 4, 2)
    lstm.double()
    assert all(p.dtype == tsjit.float64 for p in lstm.parameters())
    assert all(w.dtype == tsjit.float64 for w in lstm._flat_weights)
    y, (h, c) = lstm(tsjit.randn(5, 2, 3, dtype=tsjit.float64))
    assert y.dtype == tsjit.float64 and h.shape == (2, 2, 4)
    lstm.weight_ih_l0 = jnn.Parameter(tsjit.zeros(16, 3, dtype=tsjit.float64))
    assert lstm._flat_weights[0] is lstm.weight_ih_l0


def test_deepcopy_is_independent():
    import copy
    a = jnn.Sequential(jnn.Linear(2, 2), jnn.LSTM(2, 3))
    b = copy.deepcopy(a)
    b[0].weight.fill_(0)
    assert not np.allclose(a[0].weight.numpy(), 0)
    assert b[1]._flat_weights[0] is b[1].weight_ih_l0
    assert b[1]._flat_weights[0] is not a[1].weight_ih_l0
