"""Hostile variants of corpus archives, seeded: bytes flipped, records truncated, replaced,
swapped, code lines cut, values in data.pkl replaced by hostile ones; and one case run:
load it under limits, call its methods, and say what escaped.

Used by tests/hostile/test_fuzz_archives.py (a short derandomized run) and by
tools/fuzz_archives.py (the long run).
"""
from __future__ import annotations

import io
import random
import time
import zipfile
from dataclasses import dataclass
from typing import Any, Callable, Optional

from tests.helpers.corpus import case_names, case_path, load_calls, to_tsjit

KINDS = ("flip", "truncate", "record_flip", "record_cut", "record_swap", "code_line",
         "pickle_value", "pickle_bytes", "pickle_crafted")


def crafted_pickles(depth: int) -> list[bytes]:
    """Pickles no pickler writes: `depth`-deep lists, tuples, dicts and marks, dict keys
    and set members of tuples nested `depth` deep or built of shared halves (2**depth
    elements to hash)."""
    # memo 1 := (); then memo 1 := (memo 1, memo 1), `depth` times (POP keeps the stack flat)
    halves = b")q\x010" + b"h\x01h\x01\x86q\x010" * depth + b"h\x01"
    shared_key = b"\x80\x02}" + halves + b"K\x01s."
    nested_key = b"\x80\x02}" + b")" + b"\x85" * depth + b"K\x01s."
    shared_set = b"\x80\x02\x8f(" + halves + b"\x90."
    return [
        b"\x80\x02" + b"]" * depth + b"a" * (depth - 1) + b".",      # lists in lists
        b"\x80\x02" + b"(" * depth + b")" + b"t" * depth + b".",      # tuples by marks
        b"\x80\x02)" + b"\x85" * depth + b".",                        # TUPLE1 chains
        b"\x80\x02" + b"}X\x01\x00\x00\x00k" * depth + b"}" + b"s" * depth + b".",
        shared_key, nested_key, shared_set,
    ]


def rewrite(data: bytes, change: Callable[[str, bytes], Optional[bytes]]) -> bytes:
    """The archive with each record's bytes passed through change(name, bytes) (None
    drops the record)."""
    zin = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zout:
        for name in zin.namelist():
            new = change(name, zin.read(name))
            if new is not None:
                zout.writestr(name, new)
    return out.getvalue()


def _flip(b: bytes, rng: random.Random, most: int = 8) -> bytes:
    if not b:
        return b
    out = bytearray(b)
    for _ in range(rng.randint(1, most)):
        out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out)


def _hostile_values(rng: random.Random) -> list:
    """Values a hostile data.pkl might hold where an attribute or argument is expected."""
    from tsjit.serialize import pickle_format as P
    deep: Any = 0
    for _ in range(rng.choice((50, 20_000))):
        deep = [deep] if rng.random() < 0.5 else (deep,)
    return [
        2 ** 63, -2 ** 63 - 1, 10 ** 40, -1, 0, 1.5, float("nan"), "x" * rng.choice((1, 10 ** 5)),
        b"bytes", None, True, [], {}, (), deep, [1, "a", None],
        P.Global("torch", "FloatStorage"),
        P.Reduce(P.TORCH_DEVICE, (rng.choice(["cuda:999", "garbage", "", "cpu:1", "meta"]),)),
        P.Reduce(P.REBUILD_TENSOR_V2, (None, 0, (2 ** 40, 2 ** 40), (0, 0), False, None)),
        P.Reduce(P.BUILD_INTLIST, ([1, 2, "x"],)),
    ]


def _mutate_model(data: bytes, rng: random.Random) -> bytes:
    """A data.pkl with one value (a number, a string, a container, a record's arguments)
    replaced by a hostile one."""
    from tsjit.serialize import pickle_format as P
    from tsjit.serialize.pickler import pickle_value
    from tsjit.serialize.unpickler import unpickle
    root = unpickle(data, "data.pkl")
    # (parent, key) places where a value sits, found without recursion
    places: list[tuple[Any, Any]] = []
    work, seen = [root], set()
    while work:
        v = work.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, P.Object) and isinstance(v.state, dict):
            places.extend((v.state, k) for k in v.state)
            work.extend(v.state.values())
        elif isinstance(v, P.Reduce):
            places.append((v, "args"))
            work.extend(v.args)
        elif isinstance(v, list):
            places.extend((v, i) for i in range(len(v)))
            work.extend(v)
        elif isinstance(v, tuple):
            work.extend(v)
        elif isinstance(v, dict):
            places.extend((v, k) for k in v)
            work.extend(v.values())
    if not places:
        return data
    parent, key = rng.choice(places)
    if key == "args" and isinstance(parent, P.Reduce):
        args = list(parent.args)
        if args:
            args[rng.randrange(len(args))] = rng.choice(_hostile_values(rng))
        parent.args = tuple(args)
    else:
        parent[key] = rng.choice(_hostile_values(rng))
    return pickle_value(root)


def mutate(data: bytes, rng: random.Random, kind: str) -> bytes:
    """A hostile variant of archive `data` of mutation `kind` (one of KINDS)."""
    if kind == "flip":
        return _flip(data, rng)
    if kind == "truncate":
        return data[:rng.randrange(len(data))]
    names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    if kind in ("record_flip", "record_cut"):
        target = rng.choice(names)
        cut = kind == "record_cut"
        return rewrite(data, lambda n, b: b if n != target else
                       (b[:rng.randrange(len(b) + 1)] if cut else _flip(b, rng)))
    if kind == "record_swap":
        a, b = rng.choice(names), rng.choice(names)
        zin = zipfile.ZipFile(io.BytesIO(data))
        content = zin.read(b)
        return rewrite(data, lambda n, d: content if n == a else d)
    if kind == "code_line":
        code = [n for n in names if n.endswith(".py")]
        if not code:
            return _flip(data, rng)
        target = rng.choice(code)

        def edit(name: str, b: bytes) -> bytes:
            if name != target:
                return b
            lines = b.decode("utf-8", "replace").split("\n")
            j = rng.randrange(len(lines))
            op = rng.randrange(4)
            if op == 0:
                del lines[j]
            elif op == 1:
                lines[j] = lines[j][:rng.randrange(len(lines[j]) + 1)]
            elif op == 2:
                lines.insert(j, rng.choice(lines))
            else:
                lines[j], lines[-1 - j] = lines[-1 - j], lines[j]
            return "\n".join(lines).encode("utf-8")
        return rewrite(data, edit)
    pkl = [n for n in names if n.endswith(("data.pkl", "constants.pkl"))]
    target = rng.choice(pkl)
    if kind == "pickle_crafted":
        content = rng.choice(crafted_pickles(rng.choice((30, 200, 20_000))))
        return rewrite(data, lambda n, b: content if n == target else b)
    if kind == "pickle_value":
        def edit_model(name: str, b: bytes) -> bytes:
            if name != target:
                return b
            try:
                return _mutate_model(b, rng)
            except Exception:   # noqa: BLE001 - a model the pickler cannot write: flip bytes
                return _flip(b, rng)
        return rewrite(data, edit_model)
    return rewrite(data, lambda n, b: _flip(b, rng, 3) if n == target else b)


@dataclass
class Outcome:
    """How one case ended: "ok", a tsjit error's class name, or "ESCAPED <class>"; its
    wall-clock and CPU seconds (a shared machine stretches the first, not the second)."""

    result: str
    seconds: float
    detail: str = ""
    cpu: float = 0.0


def run_case(data: bytes, calls: list, limits: Any) -> Outcome:
    """Load archive bytes `data` under `limits` and make `calls` (corpus calls): only tsjit
    errors may come out."""
    import tsjit
    from tsjit.ir.diagnostics import TsjitError
    start, cpu = time.perf_counter(), time.process_time()
    result = "ok"
    detail = ""
    try:
        m = tsjit.load(data, limits=limits)
        for call in calls:
            try:
                getattr(m, call.method)(*to_tsjit(call.args))
            except TsjitError as err:
                result = f"call {type(err).__name__}"
    except TsjitError as err:
        result = type(err).__name__
    except BaseException as err:    # noqa: BLE001 - what the fuzzer looks for
        if isinstance(err, KeyboardInterrupt):
            raise
        result, detail = f"ESCAPED {type(err).__name__}", str(err)[:300]
    return Outcome(result, time.perf_counter() - start, detail, time.process_time() - cpu)


class Corpus:
    """The corpus archives' bytes and first calls, read once."""

    def __init__(self, calls_per_case: int = 1) -> None:
        self.names = case_names()
        self.data = {n: open(case_path(n), "rb").read() for n in self.names}
        self.calls = {n: load_calls(n)[:calls_per_case] for n in self.names}

    def case(self, seed: int) -> tuple[str, str, bytes, list]:
        """(corpus case, mutation kind, mutated bytes, calls) of case number `seed`."""
        rng = random.Random(seed)
        name = rng.choice(self.names)
        kind = rng.choice(KINDS)
        return name, kind, mutate(self.data[name], rng, kind), self.calls[name]
