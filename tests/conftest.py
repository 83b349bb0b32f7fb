"""Shared test configuration (hypothesis profiles, the --update-golden option).

Shared test code lives in tests/helpers/ (`from tests.helpers import corpus`)."""
import gc
import os
from pathlib import Path

# Every pass pipeline runs the IR verifier after each pass under the tests.
os.environ.setdefault("TSJIT_VERIFY", "1")

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

# the session-end check that every tensor operator was exercised
pytest_plugins = ["tests.helpers.oracle_coverage"]

# Shared machines are noisy: no per-example deadline (a slow example is not a failure).
# 50 examples a property (not 100) in the derandomized run; TSJIT_FUZZ=1 uses hypothesis's defaults.
# Examples are derandomized so that a run (and CI) is reproducible; TSJIT_FUZZ=1 draws
# fresh ones each run, to look for new failures.
settings.register_profile("tsjit", deadline=None, derandomize=True, max_examples=50)
settings.register_profile("fuzz", deadline=None)
settings.load_profile("fuzz" if os.environ.get("TSJIT_FUZZ") else "tsjit")


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true",
                     help="rewrite the expected texts of failing cases in tests/golden/*.test")
    parser.addoption("--zoo", action="store_true",
                     help="also run the model zoo (tests/zoo: real models PyTorch generates, "
                          "cached; about 10 minutes the first time)")


# Whole modules that sweep (PyTorch oracles over generated inputs, property tests over
# archives and pickles): `slow`, left out of the quick subset like @pytest.mark.slow tests.
# The tensor-oracle tests are slow too (found by the oracle module they use).
SLOW_MODULES = {
    "tests/ops/test_list_ops.py", "tests/ops/test_dict_ops.py", "tests/ops/test_str_ops.py",
    "tests/ops/test_scalar_math.py", "tests/ops/test_scalar_arith.py",
    "tests/serialize/test_ser_pickler.py", "tests/serialize/test_ser_zip.py",
    "tests/serialize/test_op_archives.py", "tests/serialize/test_loader_values.py",
    "tests/serialize/test_mutated_archives.py", "tests/nn/test_script_layers.py",
    "tests/nn/test_layers_eager.py", "tests/nn/test_properties.py",
    "tests/codegen/test_optimize.py", "tests/frontend/test_code_outline.py",
    "tests/hostile/test_source_depth.py", "tests/test_layering.py", "tests/test_suite_layout.py",
}


ZOO = Path(__file__).resolve().parent / "zoo"


def _zoo_requested(config) -> bool:
    """--zoo, or a path inside tests/zoo named on the command line."""
    here = Path(config.invocation_params.dir)
    named = (Path(here, arg.split("::")[0]).resolve() for arg in config.args)
    return config.getoption("--zoo") or any(p == ZOO or ZOO in p.parents for p in named)


def pytest_ignore_collect(collection_path, config):
    """Under exactly `-m "not slow"` (the quick subset) the SLOW_MODULES are not even imported:
    every test in them would be deselected, and importing them costs each worker seconds."""
    if config.option.markexpr.strip() != "not slow":
        return None
    return str(collection_path).replace(str(config.rootpath) + "/", "", 1) in SLOW_MODULES or None


def pytest_collection_modifyitems(config, items):
    """Marks SLOW_MODULES and the tests using the tensor oracle slow; leaves out the zoo
    unless asked for."""
    from tests.helpers import tensor_oracle
    root = str(config.rootpath) + "/"
    if not _zoo_requested(config):
        # the zoo is opt-in: it builds and runs 39 real models (CI runs it: see README)
        zoo = {item for item in items if ZOO in item.path.parents}
        if zoo:
            config.hook.pytest_deselected(items=list(zoo))
            items[:] = [item for item in items if item not in zoo]
    for item in items:
        module = getattr(item, "module", None)
        if str(item.path).replace(root, "", 1) in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
        if module is not None and any(v is tensor_oracle for v in vars(module).values()):
            item.add_marker(pytest.mark.slow)


def pytest_collection_finish(session):
    """Objects made while collecting (test modules, torch, hypothesis) live for the whole run:
    freeze them out of the cyclic collector, whose full passes (and the gc.collect() of tests
    that measure memory) would otherwise walk them again and again."""
    gc.collect()
    gc.freeze()
