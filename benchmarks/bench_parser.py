"""Parser timings (not a test): `python benchmarks/bench_parser.py [repeats]`.

Prints the first-parse cost in fresh processes (cold and warm table cache, lark import
included), the best-of-N parse time of a few corpus files, one of ~65 lines, and that of
all the corpus archives' code files with the parser's own LALR driver and with lark's
loop (LarkLoop, what lark releases the driver is not tested on use).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "corpus"
PROBE = r"""
import json, time
import tsjit.frontend.parser as P
w, c = time.perf_counter(), time.process_time()
P.parse("def f(x: int) -> int:\n    return x + 1\n")
print(json.dumps([time.perf_counter() - w, time.process_time() - c]))
"""


def first_parse(cache_dir: str) -> tuple[float, float]:
    env = dict(os.environ, TSJIT_PARSER_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True).stdout
    wall, cpu = json.loads(out.strip().splitlines()[-1])
    return wall, cpu


def samples() -> dict[str, str]:
    def code(case: str, name: str) -> str:
        with zipfile.ZipFile(CORPUS / case / "model.pt") as z:
            return z.read(f"model/code/__torch__/{name}").decode()

    src = (CORPUS / "lang_control_flow" / "source.py").read_text()
    return {
        "lang_control_flow/source.py without imports":
            "".join(ln for ln in src.splitlines(True) if not ln.startswith(("import", "from"))),
        "lang_bool_logic code": code("lang_bool_logic", "lang_bool_logic.py"),
        "model_activations code": code("model_activations", "model_activations.py"),
        "transformer.py code": code("model_transformer_encoder_layer",
                                    "torch/nn/modules/transformer.py"),
    }


def corpus_code() -> list[tuple[str, str]]:
    out = []
    for archive in sorted(CORPUS.glob("*/model.pt")):
        with zipfile.ZipFile(archive) as z:
            out += [(n, z.read(n).decode()) for n in z.namelist()
                    if n.endswith(".py") and "/code/" in n]
    return out


def best_of(repeats: int, fn: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeats):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


def main(repeats: int) -> None:
    with tempfile.TemporaryDirectory() as cache:
        wall, cpu = first_parse(cache)
        print(f"first parse, cold cache: {wall * 1e3:.0f} ms wall, {cpu * 1e3:.0f} ms cpu")
        warm = [first_parse(cache) for _ in range(5)]
        wall, cpu = min(warm)
        print(f"first parse, warm cache (best of 5): {wall * 1e3:.0f} ms wall, {cpu * 1e3:.0f} ms cpu")
    sys.path.insert(0, str(ROOT))
    from tsjit.frontend.parser import parse

    texts = samples()
    best = {k: float("inf") for k in texts}
    for text in texts.values():
        parse(text)
    for _ in range(repeats):
        for k, text in texts.items():
            t = time.perf_counter()
            parse(text)
            best[k] = min(best[k], time.perf_counter() - t)
    for k, text in texts.items():
        print(f"{k}: {len(text.splitlines())} lines, {len(text)} chars: {best[k] * 1e3:.1f} ms")

    import tsjit.frontend.parser as P
    files = corpus_code()
    driver = P._driver
    for label, loop in [("driver", driver), ("lark's loop", P.LarkLoop(P._get_lark()))]:
        P._driver = loop
        took = best_of(max(1, repeats // 10), lambda: [parse(t, n) for n, t in files])
        print(f"all {len(files)} corpus code files, {label}: {took * 1e3:.0f} ms cpu")
    P._driver = driver


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 30)
