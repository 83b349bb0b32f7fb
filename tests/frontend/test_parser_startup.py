"""Startup cost: lark is imported lazily and the driver's tables come from a cache; the
cache is keyed by grammar and lark release, written atomically, and any bad file is
rebuilt (tsjit/frontend/_parser_cache.py)."""
from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

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
print(json.dumps({"import": t1 - t0, "first_parse": t2 - t1, "lark_after_import": lark_after_import,
                  "lark_after_parse": "lark" in sys.modules}))
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
    assert cold["lark_after_parse"] and not warm["lark_after_parse"]  # tables without lark
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


# ---------------------------------------------------------------- the cache file itself

import lark  # noqa: E402

from tsjit.frontend import parser as P  # noqa: E402


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setenv("TSJIT_PARSER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TSJIT_NO_PARSER_CACHE", raising=False)
    return tmp_path / "cache"


def _fresh_driver() -> Any:
    """Build the driver as a first parse of a process would: from the cache, else lark."""
    cached = P._cached_driver()
    return cached if cached is not None else P._make_driver(P._get_lark(), lark.__version__)


def _parses_alike(driver: Any) -> None:
    text = "def f(x: int, y: float = 1.0) -> int:\n    if x > 0:\n        return x + 1\n    return [i for i in range(x)][0]\n"
    with pytest.MonkeyPatch.context() as m:
        m.setattr(P, "_driver", driver)
        got = P.parse(text)
    assert repr(got) == repr(P.parse(text))


def test_lark_version_is_read_without_importing_lark() -> None:
    assert _parser_cache.lark_version() == lark.__version__


def test_tables_are_cached_and_read_back(cache_dir: Path) -> None:
    assert P._cached_driver() is None               # nothing cached yet
    built = _fresh_driver()
    assert isinstance(built, P._Driver)
    files = list(cache_dir.glob("grammar-*.lark-cache"))
    assert len(files) == 1 and not list(cache_dir.glob(".tmp-*"))
    cached = P._cached_driver()
    assert isinstance(cached, P._Driver) and cached.states.keys() == built.states.keys()
    _parses_alike(cached)


@pytest.mark.parametrize("damage", ["empty", "truncated", "flipped", "not marshal",
                                    "wrong shape", "a directory"])
def test_a_bad_cache_file_is_rebuilt(cache_dir: Path, damage: str) -> None:
    _fresh_driver()
    (path,) = cache_dir.glob("grammar-*.lark-cache")
    blob = path.read_bytes()
    header, payload = blob.split(b"\n", 1)
    if damage == "a directory":
        path.unlink()
        path.mkdir()
    else:
        bad = {"empty": b"",
               "truncated": blob[:len(blob) // 2],
               "flipped": header + b"\n" + payload[:100] + bytes([payload[100] ^ 1]) + payload[101:],
               "not marshal": _signed(b"{not marshal"),
               "wrong shape": _signed(marshal.dumps({"patterns": 1}))}[damage]
        path.write_bytes(bad)
    assert P._cached_driver() is None                # never trusted, never an exception
    if damage == "a directory":
        path.rmdir()
    driver = _fresh_driver()                          # rebuilt from lark, and cached again
    assert isinstance(driver, P._Driver) and isinstance(P._cached_driver(), P._Driver)
    _parses_alike(driver)


def _signed(payload: bytes) -> bytes:
    return _parser_cache.seal(payload)


def test_an_unwritable_cache_changes_nothing_but_speed(cache_dir: Path, monkeypatch) -> None:
    def refuse(*args: Any) -> None:
        raise PermissionError("read-only file system")
    monkeypatch.setattr(os, "replace", refuse)
    driver = _fresh_driver()
    assert isinstance(driver, P._Driver)
    assert not list(cache_dir.iterdir())              # no file, and no temporary left
    _parses_alike(driver)
    # and where no directory can be made at all, there is no cache
    monkeypatch.setenv("TSJIT_PARSER_CACHE_DIR", str(cache_dir / "file" / "below"))
    (cache_dir / "file").write_text("a file, not a directory")
    assert _parser_cache.cache_file("grammar", "1.0") is None


def test_a_write_is_all_or_nothing(tmp_path: Path, monkeypatch) -> None:
    path = str(tmp_path / "x.lark-cache")
    assert _parser_cache.write_data(path, {"a": 1})
    seen = []

    def replace(src: str, dst: str) -> None:
        seen.append((_parser_cache.read_data(dst), Path(src).name.startswith(".tmp-")))
        os.rename(src, dst)
    monkeypatch.setattr(os, "replace", replace)
    assert _parser_cache.write_data(path, {"a": 2})
    # until the rename, readers see the old whole file; then the new one
    assert seen == [({"a": 1}, True)] and _parser_cache.read_data(path) == {"a": 2}


CONCURRENT = r"""
import sys
import tsjit.frontend.parser as P
tree = P.parse("def f(x: int) -> int:\n    return x * 2\n")
print(type(P._driver).__name__, tree.body[0].name)
"""


@pytest.mark.slow
def test_processes_building_the_cache_at_once(tmp_path: Path) -> None:
    env = dict(os.environ, TSJIT_PARSER_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("TSJIT_NO_PARSER_CACHE", None)
    procs = [subprocess.Popen([sys.executable, "-c", CONCURRENT], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(4)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    assert all(out.split() == ["_Driver", "f"] for out, _ in outs), outs
    files = list((tmp_path / "cache").iterdir())
    assert len(files) == 1 and _parser_cache.read_data(str(files[0])) is not None
