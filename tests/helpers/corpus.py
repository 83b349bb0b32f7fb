"""Reading the conformance corpus (tests/data/corpus, see its FORMAT.md) and comparing results."""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # tests/
CORPUS = os.path.join(TESTS, "data", "corpus")


@dataclass
class ExpectedError:
    message: str


@dataclass
class Call:
    method: str
    args: list
    expected: Any


def case_names(prefix: str = "") -> list[str]:
    """Every case folder (optionally only those whose name starts with `prefix`)."""
    return sorted(d for d in os.listdir(CORPUS)
                  if os.path.isdir(os.path.join(CORPUS, d)) and d.startswith(prefix))


def case_path(case: str, name: str = "model.pt") -> str:
    return os.path.join(CORPUS, case, name)


def load_calls(case: str) -> list[Call]:
    """The calls of a case with decoded arguments (numpy arrays for tensors)."""
    with open(case_path(case, "calls.json")) as f:
        calls = json.load(f)["calls"]
    tensors = dict(np.load(case_path(case, "tensors.npz")))

    def dec(v: Any) -> Any:
        if not isinstance(v, dict):
            return v
        if "tensor" in v:
            return tensors[v["tensor"]].copy()
        if "float" in v:
            return float(v["float"])
        if "list" in v:
            return [dec(x) for x in v["list"]]
        if "tuple" in v:
            return tuple(dec(x) for x in v["tuple"])
        if "dict" in v:
            return {dec(k): dec(x) for k, x in v["dict"]}
        if "error" in v:
            return ExpectedError(v["error"])
        raise ValueError(f"unknown tag {v}")
    return [Call(c["method"], [dec(a) for a in c["args"]], dec(c["expected"])) for c in calls]


def to_tsjit(v: Any) -> Any:
    """Arguments as tsjit values: numpy arrays become tensors (copied, inputs may be mutated)."""
    import tsjit
    if isinstance(v, np.ndarray):
        return tsjit.from_numpy(v.copy())
    if isinstance(v, list):
        return [to_tsjit(x) for x in v]
    if isinstance(v, tuple):
        return tuple(to_tsjit(x) for x in v)
    if isinstance(v, dict):
        return {to_tsjit(k): to_tsjit(x) for k, x in v.items()}
    return v


def mismatch(actual: Any, expected: Any, path: str = "result") -> str | None:
    """None when `actual` matches `expected` under FORMAT.md's rule, else what differs."""
    if isinstance(expected, np.ndarray):
        a = getattr(actual, "numpy", None)
        if a is None:
            return f"{path}: expected a tensor, got {type(actual).__name__}"
        a = np.asarray(actual.numpy())
        if a.dtype != expected.dtype:
            return f"{path}: dtype {a.dtype} != {expected.dtype}"
        if a.shape != expected.shape:
            return f"{path}: shape {a.shape} != {expected.shape}"
        if expected.dtype == np.float32:
            ok = np.allclose(a, expected, rtol=1e-5, atol=1e-6, equal_nan=True)
        elif expected.dtype == np.float64:
            ok = np.allclose(a, expected, rtol=1e-9, atol=1e-12, equal_nan=True)
        else:
            ok = np.array_equal(a, expected)
        if ok and expected.dtype.kind == "f":
            ok = np.array_equal(np.isinf(a) & (a > 0), np.isinf(expected) & (expected > 0)) and \
                np.array_equal(np.isinf(a) & (a < 0), np.isinf(expected) & (expected < 0))
        return None if ok else f"{path}: values differ:\n{a}\nexpected\n{expected}"
    if isinstance(expected, float):
        if type(actual) is not float:
            return f"{path}: expected float {expected!r}, got {type(actual).__name__} {actual!r}"
        if math.isnan(expected):
            return None if math.isnan(actual) else f"{path}: {actual} != nan"
        if math.isinf(expected) or math.isinf(actual):
            return None if actual == expected else f"{path}: {actual} != {expected}"
        return None if math.isclose(actual, expected, rel_tol=1e-9, abs_tol=1e-12) else \
            f"{path}: {actual!r} != {expected!r}"
    if isinstance(expected, (bool, int, str)) or expected is None:
        if type(actual) is not type(expected) or actual != expected:
            return f"{path}: {actual!r} ({type(actual).__name__}) != {expected!r} ({type(expected).__name__})"
        return None
    if isinstance(expected, (list, tuple)):
        if type(actual) is not type(expected) and not (isinstance(expected, tuple) and isinstance(actual, tuple)):
            return f"{path}: expected {type(expected).__name__}, got {type(actual).__name__}"
        if len(actual) != len(expected):
            return f"{path}: length {len(actual)} != {len(expected)}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            m = mismatch(a, e, f"{path}[{i}]")
            if m:
                return m
        return None
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{path}: expected dict, got {type(actual).__name__}"
        if list(actual.keys()) != list(expected.keys()):
            ka = [k if not hasattr(k, "numpy") else "tensor" for k in actual.keys()]
            return f"{path}: keys {ka} != {list(expected.keys())}"
        for k in expected:
            m = mismatch(actual[k], expected[k], f"{path}[{k!r}]")
            if m:
                return m
        return None
    return f"{path}: cannot compare with {type(expected).__name__}"


def run_calls(module: Any, case: str) -> list[str]:
    """Make every call of `case` on `module` in order; the list of failures (empty: pass)."""
    failures = []
    for i, call in enumerate(load_calls(case)):
        method = getattr(module, call.method)
        try:
            result = method(*[to_tsjit(a) for a in call.args])
        except Exception as err:  # noqa: BLE001  (a call may be expected to raise)
            if isinstance(call.expected, ExpectedError):
                if call.expected.message not in str(err):
                    failures.append(f"call {i} {call.method}: error {str(err)!r} lacks "
                                    f"{call.expected.message!r}")
            else:
                failures.append(f"call {i} {call.method}: raised {type(err).__name__}: {err}")
            continue
        if isinstance(call.expected, ExpectedError):
            failures.append(f"call {i} {call.method}: expected an error containing "
                            f"{call.expected.message!r}, got {result!r}")
            continue
        m = mismatch(result, call.expected)
        if m:
            failures.append(f"call {i} {call.method}: {m}")
    return failures


STATUS_FILES = {"archives": os.path.join(TESTS, "serialize", "corpus_known_failing.txt"),
                "sources": os.path.join(TESTS, "frontend", "sources_known_failing.txt")}


def known_failing(kind: str) -> dict[str, dict[str, str]]:
    """The ratchet file of `kind` ("archives" or "sources"): mode -> case -> reason.

    Archive lines are `<mode> <case> <reason>`; source lines `<case> <reason>` (mode "source").
    """
    out: dict[str, dict[str, str]] = {}
    path = STATUS_FILES[kind]
    if not os.path.exists(path):
        return out
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if kind == "archives":
            mode, case, reason = line.split(" ", 2)
        else:
            mode, (case, reason) = "source", line.split(" ", 1)
        out.setdefault(mode, {})[case] = reason
    return out


# Their __setstate__ changes the state on every load, under PyTorch too (see FORMAT.md):
# a re-saved archive holds the changed state, so its calls cannot match the recorded ones.
SETSTATE_CASES = {"lang_getstate_setstate", "lang_setstate_calibration"}
