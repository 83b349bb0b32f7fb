"""Scripted code survives save -> load: dtype constants print as PyTorch prints them
(ScalarType codes, which archive code can read back), and a NamedTuple declared in another
code/ file than the code naming it first is found when loading."""
import io
from typing import List, NamedTuple, Tuple

import tsjit


def _roundtrip(m):
    buf = io.BytesIO()
    tsjit.jit.save(m, buf)
    return tsjit.jit.load(buf.getvalue())


def _convert(x: tsjit.Tensor) -> Tuple[tsjit.Tensor, tsjit.Tensor, tsjit.Tensor]:
    return (tsjit.zeros_like(x, dtype=tsjit.uint8), tsjit.ones(2, dtype=tsjit.float64),
            x.to(tsjit.int32))


class _Convert(tsjit.nn.Module):
    def forward(self, x: tsjit.Tensor) -> Tuple[tsjit.Tensor, tsjit.Tensor, tsjit.Tensor]:
        return _convert(x)


def test_dtype_constants_print_as_scalar_type_codes_and_load_back():
    scripted = tsjit.jit.script(_convert)
    assert "dtype=0" in scripted.code and "dtype=7" in scripted.code
    loaded = _roundtrip(tsjit.jit.script(_Convert()))
    got = loaded(tsjit.ones(2))
    assert [t.dtype for t in got] == [tsjit.uint8, tsjit.float64, tsjit.int32]


class Named(NamedTuple):
    t: int


Named.__module__ = "elsewhere"          # declared in code/__torch__/elsewhere.py


def _make() -> Named:
    return Named(1)


_make.__module__ = "elsewhere"


class _UsesNamed(tsjit.nn.Module):
    def forward(self) -> Named:
        return _make()


def test_a_named_tuple_of_another_code_file_is_found_after_reload():
    loaded = _roundtrip(tsjit.jit.script(_UsesNamed()))
    assert tuple(loaded()) == (1,)


class _HasA(tsjit.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = 0


class _Loops(tsjit.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.mods = tsjit.nn.ModuleList([_HasA(), _HasA()])

    def forward(self) -> List[int]:
        out: List[int] = []
        for mod in self.mods:
            if hasattr(mod, "a"):
                out.append(mod.a)
        return out


def _code(m) -> dict:
    import zipfile
    buf = io.BytesIO()
    tsjit.jit.save(m, buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as z:
        return {n.split("/", 1)[1]: z.read(n) for n in z.namelist() if n.endswith(".py")}


def test_names_of_module_list_entries_survive_save_and_load():
    m = tsjit.jit.script(_Loops())
    first = _code(m)
    assert _code(_roundtrip(m)) == first
    assert any(b"mod = getattr(mods, \"0\")" in text for text in first.values())
