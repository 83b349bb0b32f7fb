"""ScriptModule as PyTorch's RecursiveScriptModule is: an nn.Module; `code_with_constants`,
`inlined_graph`, `define`, `_c._get_method`; `torch.jit.ScriptModule` subclasses with
`@script_method` methods; a script module inside a module being scripted."""
import textwrap

import pytest

import tsjit
from tests.helpers.twin_torch import import_twice, normalized

SOURCE = textwrap.dedent('''
    import torch


    class Sub(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x * 2


    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.sub = Sub()
            self.w = torch.nn.Parameter(torch.tensor([1.0, -1.0]))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.sub(x) * self.w + 1


    class Scaled(torch.jit.ScriptModule):
        def __init__(self, k: int):
            super().__init__()
            self.k = k
            self.lin = torch.nn.Linear(2, 2)

        @torch.jit.script_method
        def forward(self, x: int) -> int:
            return self.twice(x) + self.k

        @torch.jit.script_method
        def twice(self, x: int) -> int:
            return 2 * x

        def python_only(self) -> str:
            return "never compiled"


    def add_one(x: int) -> int:
        return x + 1


    def on_cpu(x: torch.Tensor) -> torch.Tensor:
        if torch.jit.is_scripting():
            x = x.cpu() + 1
        return x.to(torch.device("cpu"))


    def float_limits(x: torch.Tensor) -> float:
        return torch.finfo(torch.float32).eps


    def int_limits(x: torch.Tensor) -> int:
        return torch.iinfo(torch.int32).max


    class Outer(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, x: int) -> int:
            return self.inner(x) + 1
''')


@pytest.fixture(scope="module")
def twins(tmp_path_factory):
    return import_twice(SOURCE, tmp_path_factory.mktemp("sm"), "sm_cases")


def test_script_modules_are_nn_modules(twins, tmp_path):
    mine, _ = twins
    m = tsjit.jit.script(mine.Net())
    assert isinstance(m, tsjit.nn.Module) and isinstance(m, tsjit.jit.RecursiveScriptModule)
    m.save(str(tmp_path / "n.pt"))
    assert isinstance(tsjit.load(str(tmp_path / "n.pt")), tsjit.nn.Module)


def test_code_with_constants_names_the_tensor_constants(twins):
    mine, theirs = twins
    frozen = tsjit.jit.freeze(tsjit.jit.script(mine.Net()).eval())
    code, consts = frozen.code_with_constants
    assert code == frozen.code and "CONSTANTS.c0" in code
    assert tsjit.equal(consts.c0, tsjit.tensor([1.0, -1.0])) and list(consts.const_mapping) == ["c0"]
    if theirs is not None:
        import torch
        t_code, t_consts = torch.jit.freeze(torch.jit.script(theirs.Net()).eval()).code_with_constants
        assert code == t_code and list(t_consts.const_mapping) == ["c0"]


def test_inlined_graph_has_no_calls(twins):
    mine, _ = twins
    m = tsjit.jit.script(mine.Net())
    text = str(m.inlined_graph)
    assert "prim::CallMethod" in str(m.graph) and "prim::CallMethod" not in text
    assert "aten::mul" in text and str(m.graph) != text


def test_define_adds_methods(twins):
    mine, theirs = twins

    def offset(x: int) -> int:      # names resolve in the caller's variables
        return x + 3
    src = "def shifted(self, x: int) -> int:\n    return offset(x)\n"
    m = tsjit.jit.script(mine.Net())
    m.define(src)
    assert m.shifted(4) == 7
    if theirs is not None:
        import torch
        t = torch.jit.script(theirs.Net())
        t.define(src)
        assert t.shifted(4) == 7 and t.shifted.code == m.shifted.code


def test_get_method_of_the_object(twins):
    mine, _ = twins
    m = tsjit.jit.script(mine.Net())
    x = tsjit.tensor([1.0, 2.0])
    assert tsjit.equal(m._c._get_method("forward")(x), m(x))


def test_script_module_subclasses_compile_at_init(twins, tmp_path):
    mine, theirs = twins
    m = mine.Scaled(5)
    assert isinstance(m, tsjit.jit.ScriptModule) and isinstance(m, tsjit.nn.Module)
    assert m(3) == 11 and m.twice(4) == 8 and m.k == 5 and m.python_only() == "never compiled"
    assert "twice" in m.code and set(dict(m.named_parameters())) == {"lin.weight", "lin.bias"}
    path = str(tmp_path / "s.pt")
    m.save(path)
    assert tsjit.load(path)(3) == 11
    if theirs is not None:
        import torch
        t = theirs.Scaled(5)
        assert t(3) == 11 and t.code == m.code
        assert torch.jit.load(path)(3) == 11


def test_a_script_module_inside_a_module_is_shared(twins):
    mine, theirs = twins
    inner = mine.Scaled(2)
    outer = tsjit.jit.script(mine.Outer(inner))
    assert outer(3) == 9 and outer.inner._c is inner._c
    if theirs is not None:
        import torch
        assert torch.jit.script(theirs.Outer(theirs.Scaled(2)))(3) == 9


def test_a_script_function_saves_as_pytorch_saves_it(twins, tmp_path):
    mine, theirs = twins
    path = str(tmp_path / "f.pt")
    tsjit.jit.save(tsjit.jit.script(mine.add_one), path)
    loaded = tsjit.load(path)
    assert loaded(1) == 2 and loaded.original_name == "PlaceholderModule"
    if theirs is not None:
        import torch
        assert torch.jit.load(path)(1) == 2
        theirs_path = str(tmp_path / "t.pt")
        torch.jit.save(torch.jit.script(theirs.add_one), theirs_path)
        assert tsjit.load(theirs_path).code == loaded.code


def test_scripted_device_idioms(twins):
    mine, theirs = twins
    fn = tsjit.jit.script(mine.on_cpu)
    assert fn(tsjit.ones(2)).tolist() == [2.0, 2.0] and mine.on_cpu(tsjit.ones(1)).tolist() == [1.0]
    if theirs is not None:
        import torch
        assert normalized(fn.code, "sm_cases") == \
            normalized(torch.jit.script(theirs.on_cpu).code, "sm_cases")


@pytest.mark.parametrize("name", ["float_limits", "int_limits"])
def test_type_limits_are_refused_in_scripted_code_as_pytorch_refuses_them(twins, name):
    mine, theirs = twins
    assert getattr(mine, name)(tsjit.ones(1)) > 0      # eager
    with pytest.raises(RuntimeError, match="builtin op aten::[fi]info"):
        tsjit.jit.script(getattr(mine, name))
    if theirs is not None:
        import torch
        with pytest.raises(RuntimeError, match="builtin op: aten::[fi]info"):
            torch.jit.script(getattr(theirs, name))
