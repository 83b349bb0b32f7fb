"""`with` statements: objects of classes with `__enter__`/`__exit__` (scripted classes,
`torch.no_grad()`), as PyTorch compiles them (prim::Enter / prim::Exit), in both executors,
through save/load and PyTorch's loader; the programs PyTorch refuses are refused."""
import textwrap

import pytest

import tsjit
from tests.helpers.executors import executor
from tests.helpers.twin_torch import check_archives, import_twice, normalized

SOURCE = textwrap.dedent('''
    from typing import Any, List
    import torch


    class Ctx(object):
        def __init__(self, a: int):
            self.a = a
            self.log: List[int] = []

        def __enter__(self) -> int:
            self.log.append(self.a)
            return self.a * 10

        def __exit__(self, exc_type: Any, exc_value: Any, tb: Any) -> None:
            self.log.append(-self.a)


    def early_return(x: int) -> List[int]:
        c = Ctx(1)
        with c as v:
            y = x + v
            if x > 3:
                return c.log + [y]
            y = y + 1
        return c.log + [y]


    def nested(x: int) -> List[int]:
        a = Ctx(x)
        with a as v, Ctx(v) as w:
            out = [v, w]
        return a.log + out


    def inner_return(x: int) -> List[int]:
        c, d = Ctx(1), Ctx(2)
        with c:
            with d:
                if x > 0:
                    return c.log + d.log
            x = x - 1
        return c.log + d.log + [x]


    def in_loop(n: int) -> List[int]:
        c = Ctx(7)
        total = 0
        for i in range(n):
            with c as v:
                if i == 1:
                    continue
                if i == 3:
                    break
                total += v
        return c.log + [total]


    def simple_return(x: int, c: Ctx) -> int:
        with c as v:
            y = x + v
            if x > 3:
                return y
        return y + 1


    class Raises(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.c = Ctx(4)

        def forward(self, x: int) -> List[int]:
            with self.c:
                if x > 0:
                    raise ValueError("positive")
            return self.c.log


    def grad_flags(x: torch.Tensor) -> List[bool]:
        flags = [torch.is_grad_enabled()]
        with torch.no_grad():
            flags.append(torch.is_grad_enabled())
            y = x * 2
        flags.append(torch.is_grad_enabled())
        return flags


    class NoGrad(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            with torch.no_grad():
                y = x * 2
            return y + 1
''')

# None stands for a fresh Ctx(3) (a Python instance: scripted code gets a copy).
FUNCTIONS = [("simple_return", (1, None)), ("simple_return", (5, None)), ("early_return", (1,)),
             ("early_return", (5,)), ("nested", (2,)), ("inner_return", (1,)), ("inner_return", (0,)), ("in_loop", (5,)),
             ("in_loop", (2,)), ("grad_flags", (tsjit.ones(2),))]


@pytest.fixture(scope="module")
def twins(tmp_path_factory):
    return import_twice(SOURCE, tmp_path_factory.mktemp("with"), "with_cases")


@pytest.mark.parametrize("mode", ["interpreter", "codegen"])
@pytest.mark.parametrize("name, args", FUNCTIONS)
def test_results_are_python_s(twins, name, args, mode):
    mine, _ = twins

    def fresh() -> tuple:
        return tuple(mine.Ctx(3) if a is None else a for a in args)
    expected = getattr(mine, name)(*fresh())       # eager Python on tsjit
    with executor(mode):
        fn = tsjit.jit.script(getattr(mine, name))
        assert [fn(*fresh()) for _ in range(3)] == [expected] * 3


@pytest.mark.parametrize("mode", ["interpreter", "codegen"])
def test_exit_runs_when_the_body_raises(twins, mode):
    mine, theirs = twins
    with executor(mode):
        m = tsjit.jit.script(mine.Raises())
        with pytest.raises(tsjit.jit.Error, match="positive"):
            m(1)
        with pytest.raises(tsjit.jit.Error, match="positive"):
            m(1)
        assert m(0) == [4, -4] * 3 and m.c.log == [4, -4] * 3
    if theirs is not None:          # what PyTorch does
        import torch
        t = torch.jit.script(theirs.Raises())
        for _ in range(2):
            with pytest.raises(torch.jit.Error):
                t(1)
        assert t(0) == [4, -4] * 3


def test_no_grad_sets_the_flag_and_restores_it(twins):
    mine, _ = twins
    fn = tsjit.jit.script(mine.grad_flags)
    assert fn(tsjit.ones(1)) == [True, False, True]
    with tsjit.no_grad():
        assert fn(tsjit.ones(1)) == [False, False, False]
    assert tsjit.is_grad_enabled()


def test_code_is_pytorch_s(twins):
    mine, theirs = twins
    if theirs is None:
        pytest.skip("PyTorch is the reference for printed code")
    import torch
    for name in ("nested", "grad_flags"):
        a = tsjit.jit.script(getattr(mine, name)).code
        b = torch.jit.script(getattr(theirs, name)).code
        assert normalized(a, "with_cases") == normalized(b, "with_cases"), name
    a = tsjit.jit.script(mine.NoGrad()).code
    b = torch.jit.script(theirs.NoGrad()).code
    assert a == b


def test_no_grad_round_trips_through_both_loaders(twins, tmp_path):
    mine, theirs = twins
    code = check_archives(mine.NoGrad(), theirs.NoGrad() if theirs else None, [1.0, -2.0],
                          [3.0, -3.0], tmp_path)
    assert "with _0:" in code


def test_script_class_object_round_trips(twins, tmp_path):
    mine, _ = twins

    class Holder(tsjit.nn.Module):
        def forward(self, x: int) -> list:
            return mine.early_return(x)
    Holder.forward.__annotations__["return"] = __import__("typing").List[int]
    path = str(tmp_path / "h.pt")
    m = tsjit.jit.script(Holder())
    m.save(path)
    assert tsjit.load(path)(5) == m(5) == mine.early_return(5)


REFUSED = [
    ("def f(x: Tensor):\n    with x:\n        pass\n", "With item expression must return an object"),
    ("def f(x: int):\n    with torch.enable_grad():\n        pass\n", "aten::enable_grad"),
    ("def f(x: int):\n    with torch.inference_mode():\n        pass\n", "aten::inference_mode"),
    ("def f(x: int):\n    with torch.set_grad_enabled(False):\n        pass\n",
     "With item expression must return an object"),
]


@pytest.mark.parametrize("src, message", REFUSED)
def test_refused_as_pytorch_refuses(src, message):
    with pytest.raises(RuntimeError, match=message):
        tsjit.jit.CompilationUnit(src, {"torch": tsjit, "Tensor": tsjit.Tensor})


CLASSES = textwrap.dedent('''
    from typing import Any


    class NoEnter:
        def __init__(self):
            self.a = 1

        def __exit__(self, a: Any, b: Any, c: Any) -> None:
            pass


    class BadExit:
        def __init__(self):
            self.a = 1

        def __enter__(self) -> None:
            pass

        def __exit__(self, a: Any) -> None:
            pass


    class BadEnter:
        def __init__(self):
            self.a = 1

        def __enter__(self, y: int) -> None:
            pass

        def __exit__(self, a: Any, b: Any, c: Any) -> None:
            pass


    def no_enter(x: int):
        with NoEnter():
            pass


    def bad_exit(x: int):
        with BadExit():
            pass


    def bad_enter(x: int):
        with BadEnter():
            pass
''')


@pytest.mark.parametrize("name, message", [
    ("no_enter", "does not define __enter__ and __exit__ methods"),
    ("bad_exit", "__exit__ must have four arguments"),
    ("bad_enter", "__enter__ must have only one argument and one return value")])
def test_context_classes_are_checked(tmp_path, name, message):
    mine, theirs = import_twice(CLASSES, tmp_path, "with_classes")
    with pytest.raises(RuntimeError, match=message):
        tsjit.jit.script(getattr(mine, name))
    if theirs is not None:
        import torch
        with pytest.raises(RuntimeError, match=message):
            torch.jit.script(getattr(theirs, name))
