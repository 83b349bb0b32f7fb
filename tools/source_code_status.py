"""How many `code/` files tsjit writes exactly as PyTorch did when it scripts a corpus
case's own source (torch bound to tsjit) and saves it, against the case's archive.

    python tools/source_code_status.py [--diff] [CASE_PREFIX]

A measure of how closely scripting follows PyTorch's compiler and printer (the archive's
code is what torch.jit.script + torch.jit.save made of the same source).
"""
from __future__ import annotations

import difflib
import os
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))   # the project root: tests.helpers

from tests.helpers import corpus  # noqa: E402
from tests.helpers.corpus_sources import scripted_from_source  # noqa: E402


def code_files(path: str) -> dict[str, str]:
    """The archive's code files by their path under code/."""
    with zipfile.ZipFile(path) as z:
        return {n.split("/code/", 1)[1]: z.read(n).decode() for n in z.namelist()
                if "/code/" in n and n.endswith(".py")}


def main(argv: list[str]) -> int:
    import tsjit
    show = "--diff" in argv
    prefix = next((a for a in argv if not a.startswith("--")), "")
    same = total = failed = functions = 0
    with tempfile.TemporaryDirectory() as folder:
        for case in corpus.case_names(prefix):
            theirs = code_files(corpus.case_path(case))
            try:
                scripted = scripted_from_source(case)
                if getattr(scripted, "_c", None) is None:
                    functions += 1      # a scripted function: no module archive to compare
                    continue
                out = os.path.join(folder, f"{case}.pt")
                tsjit.save(scripted, out)
                ours = code_files(out)
            except Exception as err:   # noqa: BLE001 - a status tool reports and goes on
                failed += 1
                print(f"{case}: could not script and save: {err}".splitlines()[0])
                continue
            for name, text in sorted(theirs.items()):
                total += 1
                if ours.get(name) == text:
                    same += 1
                elif show:
                    print("".join(difflib.unified_diff(
                        text.splitlines(True), ours.get(name, "").splitlines(True),
                        f"{case}/{name} (PyTorch)", f"{case}/{name} (tsjit)")))
    print(f"code files identical when tsjit scripts the source: {same}/{total}"
          + (f" ({failed} cases failed to script)" if failed else "")
          + (f" ({functions} cases script functions, not compared)" if functions else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
