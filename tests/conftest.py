"""Shared test configuration: the corpus helpers are importable as `corpus`."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

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
                     help="rewrite golden files under tests/golden/ from the current output")


import pytest  # noqa: E402


@pytest.fixture
def golden(request):
    """Compare text with tests/golden/<name>; with --update-golden, rewrite the file."""
    update = request.config.getoption("--update-golden")

    def check(name: str, text: str) -> None:
        path = os.path.join(os.path.dirname(__file__), "golden", name)
        if update or not os.path.exists(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
            if not update:
                pytest.fail(f"golden file {name} did not exist; written now, check it in")
            return
        with open(path) as f:
            expected = f.read()
        assert text == expected, f"output differs from golden {name} (run with --update-golden)"
    return check
