"""Archive code checked at load (check="full", `tsjit check`) and bounded in time: code
that does not compile is refused before it is served, code that runs for ever stops at
its budget (Limits.load_seconds for __setstate__, Limits.call_seconds for calls)."""
import signal

import pytest

import tsjit
from tests.helpers import hostile_archives as H
from tests.helpers.cli import tsjit as run_cli
from tsjit.ir.limits import LimitError
from tsjit.jit.code_check import CodeCheckError

CODE = "code/__torch__/tests/helpers/hostile_archives.py"
CLASS = "__torch__.tests.helpers.hostile_archives.Base"


@pytest.fixture(scope="module")
def base():
    return H.base_archive()


def _edit_code(base, old, new):
    def edit(name, b):
        if name != CODE:
            return b
        assert old.encode() in b
        return b.replace(old.encode(), new.encode())
    return H.rewrite(base, edit)


def _with_method(base, method):
    """The archive with `method` (source at method indentation) added to class Base."""
    return _edit_code(base, "  def forward(", method + "  def forward(")


BROKEN = "  def helper(self: __torch__.tests.helpers.hostile_archives.Base) -> int:\n" \
         "    return undefined_name\n"


@pytest.mark.parametrize("load", [tsjit.load, tsjit.jit.load])
def test_check_full_refuses_code_that_does_not_compile(base, load):
    bad = _with_method(base, BROKEN)
    assert load(bad)(tsjit.zeros(1)) == 16      # (lazily compiled: never called, never seen)
    with pytest.raises(CodeCheckError, match=f"the archive's code does not check "
                       rf"\(check=\"full\"\): {CLASS}.helper: .*undefined_name"):
        load(bad, check="full")
    assert load(base, check="full")(tsjit.zeros(1)) == 16


def test_check_full_refuses_an_operator_without_a_kernel(base):
    bad = _edit_code(base, "torch.len(name)", "ops.aten.no_such_op_xyz(name)")
    with pytest.raises(CodeCheckError, match=f"{CLASS}.forward"):
        tsjit.load(bad, check="full")


def test_check_must_be_none_or_full(base):
    with pytest.raises(tsjit.TsjitError, match="check='most': expected None or \"full\""):
        tsjit.load(base, check="most")


def test_the_command_line_check_lists_the_same_problems(base, tmp_path):
    path = tmp_path / "bad.pt"
    path.write_bytes(_with_method(base, BROKEN))
    proc = run_cli("check", str(path))
    assert proc.returncode == 1
    assert f"{CLASS}.helper: " in proc.stdout and "undefined_name" in proc.stdout
    assert "2 methods checked, 1 problem" in proc.stdout


# ------------------------------------------------------------------ execution budgets

# The interpreter checks the deadline at loop back-edges and calls (the compiler/interpreter
# half of issue 16); until it does, a loop without end is not stopped and these fail.


class _Hung(Exception):
    pass


@pytest.fixture
def watchdog():
    """Fail, rather than hang, a test whose code is not stopped within 20 s."""
    def ring(signum, frame):
        raise _Hung("not stopped within 20 s")
    old = signal.signal(signal.SIGALRM, ring)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


FOREVER = "    i = 0\n    while True:\n      i = i + 1\n"


def _zero_state(root):
    root.state = 0      # (what the __getstate__ below returns)


def test_a_call_that_runs_for_ever_stops_at_call_seconds(base, watchdog):
    bad = _edit_code(base, "    flag = self.flag\n", FOREVER + "    flag = self.flag\n")
    m = tsjit.load(bad, limits=tsjit.Limits(call_seconds=0.5))
    with pytest.raises(LimitError, match=f"a call of {CLASS}.forward .*exceeds "
                       "Limits.call_seconds"):
        m(tsjit.zeros(1))


def test_a_setstate_that_runs_for_ever_stops_at_load_seconds(base, watchdog):
    setstate = ("  def __getstate__(self: __torch__.tests.helpers.hostile_archives.Base) -> int:\n"
                "    return 0\n"
                "  def __setstate__(self: __torch__.tests.helpers.hostile_archives.Base,\n"
                "    state: int) -> None:\n" + FOREVER + "    return None\n")
    bad = H.edit_data(_with_method(base, setstate), _zero_state)
    with pytest.raises(LimitError, match="code run while loading <bytes> .*exceeds "
                       "Limits.load_seconds"):
        tsjit.load(bad, limits=tsjit.Limits(load_seconds=0.5))


def test_setstate_runs_under_the_load_budget(base, monkeypatch):
    # (the mechanism, whatever the interpreter does: the budget is set while it runs)
    from tsjit.ir import limits as L
    from tsjit.serialize import loader
    setstate = ("  def __getstate__(self: __torch__.tests.helpers.hostile_archives.Base) -> int:\n"
                "    return 0\n"
                "  def __setstate__(self: __torch__.tests.helpers.hostile_archives.Base,\n"
                "    state: int) -> None:\n    return None\n")
    archive = H.edit_data(_with_method(base, setstate), _zero_state)
    seen = []
    real = loader.call_function
    monkeypatch.setattr(loader, "call_function",
                        lambda fn, args: seen.append(L._DEADLINE.get()) or real(fn, args))
    tsjit.load(archive, limits=tsjit.Limits(load_seconds=7.0))
    assert seen and seen[0][1:3] == ("load_seconds", "code run while loading <bytes>")
