"""docs/operators.md is what tools/gen_operator_docs.py makes of the registered operators."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_operators_doc_is_up_to_date():
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_operator_docs.py"), "--check"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr + "(run python tools/gen_operator_docs.py)"
