"""Shared test configuration (hypothesis profiles, the --update-golden option).

Shared test code lives in tests/helpers/ (`from tests.helpers import corpus`)."""
import os

# Every pass pipeline runs the IR verifier after each pass under the tests.
os.environ.setdefault("TSJIT_VERIFY", "1")

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

# Shared machines are noisy: no per-example deadline (a slow example is not a failure).
# Examples are derandomized so that a run (and CI) is reproducible; TSJIT_FUZZ=1 draws
# fresh ones each run, to look for new failures.
settings.register_profile("tsjit", deadline=None, derandomize=True)
settings.register_profile("fuzz", deadline=None)
settings.load_profile("fuzz" if os.environ.get("TSJIT_FUZZ") else "tsjit")


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true",
                     help="rewrite the expected texts of failing cases in tests/golden/*.test")


def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (`-n`, `--dist loadgroup`), the tests using the tensor oracle run in
    one worker: test_tensor_zcoverage checks the operators they exercised in the session."""
    from tests.helpers import tensor_oracle
    group = pytest.mark.xdist_group("tensor_oracle")
    for item in items:
        module = getattr(item, "module", None)
        if module is not None and any(v is tensor_oracle for v in vars(module).values()):
            item.add_marker(group)
