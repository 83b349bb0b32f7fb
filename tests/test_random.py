"""`tsjit.random` (torch.random): fork_rng restores the generator; get/set_rng_state."""
import pytest

import tsjit


def test_fork_rng_leaves_the_generator_as_it_was():
    tsjit.manual_seed(3)
    with tsjit.random.fork_rng(devices=[]):
        inside = tsjit.rand(4)
    assert tsjit.equal(tsjit.rand(4), inside)


def test_scripted_and_eager_draws_agree_under_fork_rng():
    @tsjit.jit.script
    def draw(mean: tsjit.Tensor, std: tsjit.Tensor) -> tsjit.Tensor:
        return tsjit.normal(mean, std)
    mean, std = tsjit.zeros(3, 3), tsjit.ones(3, 3)
    with tsjit.random.fork_rng():
        eager = tsjit.normal(mean, std)
    with tsjit.random.fork_rng():
        scripted = draw(mean, std)
    assert tsjit.equal(eager, scripted)


def test_rng_state_round_trips_and_refuses_garbage():
    state = tsjit.get_rng_state()
    assert state.dtype == tsjit.uint8
    first = tsjit.randn(5)
    tsjit.random.set_rng_state(state)
    assert tsjit.equal(tsjit.randn(5), first)
    with pytest.raises(RuntimeError, match="set_rng_state"):
        tsjit.set_rng_state(tsjit.zeros(3, dtype=tsjit.uint8))
