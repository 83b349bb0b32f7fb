"""Compile work grows with program size no faster than the program's own structure needs.

Work is counted, not timed: how many times the compiler reads a variable table
(`Environment.vars`) while compiling `if`s nested n deep, each binding a new name. Each
level hands on the names bound inside it, so the names merged are O(n^2); looking each
up through the enclosing blocks made it O(n^3) (frontend/environment.py `_Open`)."""
import tsjit.frontend.environment as E
from tests.helpers.hostile_code import archive_with_forward, nested_binding_ifs
import tsjit


class _Counting(dict):
    reads = 0

    def get(self, *a):
        _Counting.reads += 1
        return super().get(*a)

    def __getitem__(self, k):
        _Counting.reads += 1
        return super().__getitem__(k)

    def __contains__(self, k):
        _Counting.reads += 1
        return super().__contains__(k)


def _reads(tmp_path, monkeypatch, n: int) -> int:
    init = E.Environment.__init__

    def counting_init(self, *a, **k):
        init(self, *a, **k)
        self.vars = _Counting()
    monkeypatch.setattr(E.Environment, "__init__", counting_init)
    m = tsjit.jit.load(archive_with_forward(tmp_path / f"m{n}.pt", nested_binding_ifs(n)))
    _Counting.reads = 0
    assert m(1000) == 1001 and m(-1) == -1
    monkeypatch.setattr(E.Environment, "__init__", init)
    return _Counting.reads


def test_nested_ifs_binding_names_compile_in_quadratic_work(tmp_path, monkeypatch):
    small, big = _reads(tmp_path, monkeypatch, 40), _reads(tmp_path, monkeypatch, 160)
    # 4x the depth: 16x is quadratic, 64x cubic.
    assert big / small < 24, (small, big)   # measured: 40x before, under 16x after
