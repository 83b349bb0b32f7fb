"""Startup cost: lark is imported lazily and the LALR tables come from a cache."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tsjit.frontend import _parser_cache

ROOT = Path(__file__).resolve().parents[2]

PROBE = r"""
import json, sys, time
t0 = time.perf_counter()
import tsjit.frontend.parser as P
t1 = time.perf_counter()
lark_after_import = "lark" in sys.modules
P.parse("def f(x: int) -> int:\n    return x + 1\n")
t2 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "first_parse": t2 - t1, "lark_after_import": lark_after_import}))
"""


def _probe(env: dict) -> dict:
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True, timeout=120)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_cold_then_warm_cache(tmp_path: Path) -> None:
    env = dict(os.environ, TSJIT_PARSER_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("TSJIT_NO_PARSER_CACHE", None)
    cold = _probe(env)
    assert not cold["lark_after_import"]  # importing the parser module does not load lark
    files = list((tmp_path / "cache").glob("grammar-*.lark-cache"))
    assert len(files) == 1  # the cold run built the tables and saved them
    warm = min((_probe(env) for _ in range(2)), key=lambda r: r["first_parse"])
    print(f"cold first parse {cold['first_parse']:.3f}s, warm {warm['first_parse']:.3f}s")
    # The target is < 0.15 s with a warm cache; the bound here leaves room for slow CI.
    assert warm["first_parse"] < 1.0
    assert warm["first_parse"] < cold["first_parse"]


def test_cache_location_rules(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("TSJIT_PARSER_CACHE_DIR", str(tmp_path / "c"))
    path = _parser_cache.cache_file("grammar", "1.0")
    assert path is not None and Path(path).parent == tmp_path / "c"
    assert _parser_cache.cache_file("grammar", "1.0") == path  # stable key
    assert _parser_cache.cache_file("grammar2", "1.0") != path  # keyed by grammar text
    assert _parser_cache.cache_file("grammar", "1.1") != path  # and by lark version
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)  # writable by others: a pickle from there is never trusted
    monkeypatch.setenv("TSJIT_PARSER_CACHE_DIR", str(shared))
    assert _parser_cache.cache_file("grammar", "1.0") is None
    monkeypatch.setenv("TSJIT_NO_PARSER_CACHE", "1")
    monkeypatch.setenv("TSJIT_PARSER_CACHE_DIR", str(tmp_path / "c"))
    assert _parser_cache.cache_file("grammar", "1.0") is None
