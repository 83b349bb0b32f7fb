"""Idioms of PyTorch's test/jit families beyond the peer files, each compared with PyTorch
(and with eager Python on tsjit): PEP 604 unions, torch.jit.isinstance, static methods,
magic methods of classes, _unwrap_optional, type comments, ModuleDict iteration, getattr
with a default, module interfaces, ScriptModule subclasses, class instances as module
attributes."""
import textwrap

import pytest

import tsjit
from tests.helpers.twin_torch import import_twice, normalized

SOURCE = textwrap.dedent('''
    from typing import Any, List, Optional, Tuple
    import torch


    def pep604(x: int | None, y: List[int] | Tuple[int, int]) -> int:
        if x is None:
            return 0
        return x


    def jit_isinstance(x: Any) -> int:
        if torch.jit.isinstance(x, List[int]):
            return len(x)
        return -1


    class SM:
        def __init__(self, a: int):
            self.a = a

        @staticmethod
        def make(a: int) -> "SM":
            return SM(a)

        @staticmethod
        def twice(a: int) -> int:
            return 2 * a

        def use(self) -> int:
            return SM.twice(self.a)


    def use_static(a: int) -> int:
        return SM.twice(a) + SM.make(a).a + SM(a).use()


    class Magic:
        def __init__(self, xs: List[int]):
            self.xs = xs

        def __len__(self) -> int:
            return len(self.xs)

        def __contains__(self, x: int) -> bool:
            return x in self.xs

        def __bool__(self) -> bool:
            return len(self.xs) > 0

        def __and__(self, other: "Magic") -> "Magic":
            out: List[int] = []
            for x in self.xs:
                if x in other.xs:
                    out.append(x)
            return Magic(out)

        def __getitem__(self, i: int) -> int:
            return self.xs[i]

        def __delitem__(self, i: int) -> None:
            del self.xs[i]

        def __setitem__(self, i: int, v: int) -> None:
            self.xs[i] = v


    def use_magic(a: int) -> List[int]:
        m = Magic([1, 2, 3, a])
        r = m & Magic([2, 3])
        del m[0]
        m[0] = 9
        out = [len(m), int(2 in m), int(bool(m)), m[1], len(r)]
        if m:
            out.append(1)
        return out


    def unwrap(x: Optional[int]) -> int:
        return torch.jit._unwrap_optional(x)


    def type_comment(x, s):
        # type: (torch.Tensor, str) -> int
        return len(s) + x.dim()


    class MD(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.d = torch.nn.ModuleDict({"a": torch.nn.ReLU(), "b": torch.nn.Tanh()})

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            for k, m in self.d.items():
                x = m(x) + len(k)
            return x


    class GA(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = 3

        def forward(self, x: int) -> int:
            return getattr(self, "a", 5) + getattr(self, "missing", 7) + x


    @torch.jit.interface
    class OneInt(torch.nn.Module):
        def forward(self, x: int) -> int:
            pass


    class Impl(torch.nn.Module):
        def forward(self, x: int) -> int:
            return x + 1


    class UsesIface(torch.nn.Module):
        sub: OneInt

        def __init__(self):
            super().__init__()
            self.sub = Impl()

        def forward(self, x: int) -> int:
            return self.sub.forward(x)


    class SMod(torch.jit.ScriptModule):
        def __init__(self):
            super().__init__()
            self.w = 2

        @torch.jit.script_method
        def forward(self, x: int) -> int:
            return x * self.w


    class Holder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.c = SM(5)

        def forward(self, x: int) -> int:
            return self.c.a + self.c.use() + x
''')

FUNCTIONS = [("pep604", (3, [1])), ("pep604", (None, (1, 2))), ("jit_isinstance", ([1, 2],)),
             ("jit_isinstance", ("no",)), ("use_static", (3,)), ("use_magic", (4,)),
             ("unwrap", (4,)), ("type_comment", (tsjit.ones(2), "ab"))]
MODULES = [("MD", (tsjit.ones(1),)), ("GA", (1,)), ("UsesIface", (1,)), ("Holder", (1,))]


@pytest.fixture(scope="module")
def twins(tmp_path_factory):
    return import_twice(SOURCE, tmp_path_factory.mktemp("families"), "families")


def _torch_args(args: tuple) -> tuple:
    import torch
    return tuple(torch.tensor(a.tolist()) if isinstance(a, tsjit.Tensor) else a for a in args)


def _same(a, b) -> bool:
    if hasattr(b, "tolist"):
        return a.tolist() == pytest.approx(b.tolist())
    return a == b


@pytest.mark.parametrize("name, args", FUNCTIONS)
def test_functions_agree(twins, name, args):
    mine, theirs = twins
    got = tsjit.jit.script(getattr(mine, name))(*args)
    assert _same(got, getattr(mine, name)(*args))
    if theirs is not None:
        import torch
        assert _same(got, torch.jit.script(getattr(theirs, name))(*_torch_args(args)))


@pytest.mark.parametrize("name, args", MODULES)
def test_modules_agree(twins, name, args, tmp_path):
    mine, theirs = twins
    m = tsjit.jit.script(getattr(mine, name)())
    got = m(*args)
    assert _same(got, getattr(mine, name)()(*args))
    path = str(tmp_path / "m.pt")
    m.save(path)
    assert _same(tsjit.load(path)(*args), got)
    if theirs is not None:
        import torch
        assert _same(got, torch.jit.script(getattr(theirs, name)())(*_torch_args(args)))
        assert _same(got, torch.jit.load(path)(*_torch_args(args)))


def test_script_module_subclass(twins):
    mine, theirs = twins
    assert mine.SMod()(3) == 6 and isinstance(mine.SMod(), tsjit.nn.Module)
    if theirs is not None:
        assert theirs.SMod()(3) == 6 and theirs.SMod().code == mine.SMod().code


def test_static_methods_are_functions_as_in_pytorch(twins):
    mine, theirs = twins
    code = tsjit.jit.script(mine.use_static).code
    assert "__torch__.families_tsjit.twice(a, )" in code
    if theirs is not None:
        import torch
        assert normalized(code, "families") == \
            normalized(torch.jit.script(theirs.use_static).code, "families")
