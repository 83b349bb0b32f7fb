"""Differential, archive level: generated programs (tests/program_gen.py) scripted and
saved by PyTorch, loaded and run by tsjit, give PyTorch's results; tsjit's re-save is
stable (no jitter) and PyTorch runs it with the same results. This exercises the
importer on the code PyTorch itself prints, beyond the corpus."""
import copy
import importlib.util
import os
import warnings

import pytest
from hypothesis import HealthCheck, given, settings

from tests.helpers import program_gen as pg
import tsjit

pytestmark = pytest.mark.slow

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")


def _run(fn, args) -> pg.Outcome:
    try:
        return pg.Outcome(fn(*copy.deepcopy(args)))
    except Exception as e:   # both raise under their own kinds; compare that they raise
        return pg.Outcome(error="RuntimeError", message=str(e).strip().splitlines()[-1])


@settings(max_examples=60, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(program=pg.programs(for_pytorch=True))   # no zero divisors: PyTorch's % by 0 is SIGFPE
def test_pytorch_archives_of_generated_programs(program, tmp_path_factory):
    tmp = str(tmp_path_factory.mktemp("gen"))
    path = os.path.join(tmp, "generated_module.py")
    with open(path, "w") as fh:
        fh.write(pg.module_source(program, "torch"))
    spec = importlib.util.spec_from_file_location(f"generated_module_{abs(hash(path))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scripted = torch.jit.script(module.M())
        torch.jit.save(scripted, os.path.join(tmp, "m.pt"))
    expected = _run(scripted, program.args)
    if "INTERNAL ASSERT FAILED" in expected.message:
        # PyTorch's own bug (seen: an Optional[int] loop-carried through `x % 2`): CPython
        # is the oracle for this program, and PyTorch is not asked to run tsjit's re-save.
        expected = pg.run_python(program.source, program.args)
        torch_runs_it = False
    else:
        torch_runs_it = True
    loaded = tsjit.load(os.path.join(tmp, "m.pt"))
    got = _run(loaded, program.args)
    assert pg.same_outcome(expected, got, kinds=False), \
        f"\n{program.source}\nargs: {program.args!r}\ntorch {expected}\ntsjit {got}"
    os.makedirs(os.path.join(tmp, "a"))
    os.makedirs(os.path.join(tmp, "b"))
    first, second = os.path.join(tmp, "a", "r.pt"), os.path.join(tmp, "b", "r.pt")
    tsjit.save(loaded, first)
    tsjit.save(tsjit.load(first), second)
    with open(first, "rb") as a, open(second, "rb") as b:
        assert a.read() == b.read(), f"re-saving jitters:\n{program.source}"
    if torch_runs_it:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            back = _run(torch.jit.load(first), program.args)
        assert pg.same_outcome(expected, back, kinds=False), \
            f"\n{program.source}\ntorch on tsjit's re-save: {back}"
