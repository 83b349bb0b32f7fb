"""`torch.jit.fork` / `_fork` / `wait` / `_wait` in scripted code: a `prim::fork` node (the
call, run at once: a done Future), printed and loaded as PyTorch writes it (a closure
`def __forked_function(): return ...` and `fork(__forked_function)`)."""
import textwrap

import pytest

import tsjit
from tests.helpers.executors import executor
from tests.helpers.twin_torch import check_archives, import_twice, normalized

SOURCE = textwrap.dedent('''
    from typing import List
    import torch


    def helper(x: int, y: int) -> int:
        return x * y


    def forked(a: int) -> int:
        fut = torch.jit.fork(helper, a, 3)
        fut2 = torch.jit._fork(helper, a, y=4)
        return torch.jit.wait(fut) + torch.jit._wait(fut2)


    class Forks(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            futs: List[torch.jit.Future[torch.Tensor]] = []
            for i in range(3):
                futs.append(torch.jit.fork(torch.mul, x, i))
            out = x
            for fu in futs:
                out = out + torch.jit.wait(fu)
            return out
''')


@pytest.fixture(scope="module")
def twins(tmp_path_factory):
    return import_twice(SOURCE, tmp_path_factory.mktemp("fork"), "fork_cases")


@pytest.mark.parametrize("mode", ["interpreter", "codegen"])
def test_forked_calls_give_their_results(twins, mode):
    mine, _ = twins
    with executor(mode):
        fn = tsjit.jit.script(mine.forked)
        assert [fn(2) for _ in range(3)] == [mine.forked(2)] * 3 == [14] * 3
        m = tsjit.jit.script(mine.Forks())
        assert [m(tsjit.ones(2)).tolist() for _ in range(3)] == [[4.0, 4.0]] * 3


def test_code_is_pytorch_s(twins):
    mine, theirs = twins
    if theirs is None:
        pytest.skip("PyTorch is the reference for printed code")
    import torch
    a = normalized(tsjit.jit.script(mine.forked).code, "fork_cases")
    assert a == normalized(torch.jit.script(theirs.forked).code, "fork_cases")
    assert tsjit.jit.script(mine.Forks()).code == torch.jit.script(theirs.Forks()).code


def test_round_trips_through_both_loaders(twins, tmp_path):
    mine, theirs = twins
    code = check_archives(mine.Forks(), theirs.Forks() if theirs else None, [1.0, -2.0],
                          [4.0, -8.0], tmp_path)
    assert "fork(__forked_function)" in code


def test_future_is_torch_jit_future():
    fut = tsjit.jit.fork(lambda a: a + 1, 1)
    assert isinstance(fut, tsjit.jit.Future) and fut.done() and tsjit.jit.wait(fut) == 2


def test_a_nested_function_is_only_forked():
    with pytest.raises(RuntimeError, match="nested function"):
        tsjit.jit.CompilationUnit("def f(x: int) -> int:\n    def g():\n        return x\n"
                                  "    return g()\n", {})
