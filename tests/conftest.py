"""Shared test configuration (hypothesis profiles, the --update-golden option).

Shared test code lives in tests/helpers/ (`from tests.helpers import corpus`)."""
import os

# Every pass pipeline runs the IR verifier after each pass under the tests.
os.environ.setdefault("TSJIT_VERIFY", "1")

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
