"""PythonPrint as PyTorch prints: after tsjit.load + tsjit.save, every corpus code file is
the text PyTorch wrote, except those listed in code_text_known_differing.txt (regenerate
it with `python tools/code_text_status.py --write`)."""
import os

import pytest

from tests.helpers.corpus import case_names
from tests.helpers.serialize_corpus import code_after_round_trip

pytestmark = pytest.mark.slow

KNOWN_PATH = os.path.join(os.path.dirname(__file__), "code_text_known_differing.txt")
KNOWN = {line.strip() for line in open(KNOWN_PATH) if line.strip() and not line.startswith("#")}


@pytest.mark.parametrize("case", case_names())
def test_round_trip_prints_pytorchs_code(case, tmp_path):
    for name, theirs, ours in code_after_round_trip(case, tmp_path):
        if f"{case}/{name}" in KNOWN:
            assert ours != theirs, f"{case}/{name} is now printed as PyTorch did: remove it " \
                                   "from code_text_known_differing.txt"
            continue
        assert ours == theirs, f"{case}/{name} differs from PyTorch's text " \
                               "(python tools/code_text_status.py --diff)"
