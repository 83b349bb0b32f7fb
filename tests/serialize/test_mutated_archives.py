"""Corpus archives damaged at random (bytes flipped, truncated, a pickle or code record
changed, a code line cut, dropped or repeated): loading and running them ends in a tsjit
error or works, never in another exception (the no-bare-exception rule, fuzzed)."""
import io
import random
import zipfile

from hypothesis import HealthCheck, given, settings, strategies as st

import tsjit
from tests.helpers.corpus import case_names, case_path, load_calls, to_tsjit
from tsjit.ir.diagnostics import TsjitError

CASES = case_names()


def _rewrite(data: bytes, change) -> bytes:
    """The archive with each record's bytes passed through change(name, bytes)."""
    zin = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zout:
        for name in zin.namelist():
            zout.writestr(name, change(name, zin.read(name)))
    return out.getvalue()


def _mutate(data: bytes, rng: random.Random, kind: int) -> bytes:
    if kind == 0:                                   # bytes flipped anywhere
        b = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b)
    if kind == 1:                                   # truncated
        return data[:rng.randrange(len(data))]
    names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    if kind == 2:                                   # a pickle or code record's bytes
        target = rng.choice([n for n in names if n.endswith((".pkl", ".py"))])

        def flip(name: str, b: bytes) -> bytes:
            if name != target or not b:
                return b
            b = bytearray(b)
            for _ in range(rng.randint(1, 5)):
                b[rng.randrange(len(b))] = rng.randrange(256)
            return bytes(b)
        return _rewrite(data, flip)
    target = rng.choice([n for n in names if n.endswith(".py")])

    def edit(name: str, b: bytes) -> bytes:          # a code line cut, dropped or repeated
        if name != target:
            return b
        lines = b.decode("utf-8").split("\n")
        j = rng.randrange(len(lines))
        op = rng.randrange(3)
        if op == 0:
            del lines[j]
        elif op == 1:
            lines[j] = lines[j][:rng.randrange(len(lines[j]) + 1)]
        else:
            lines.insert(j, rng.choice(lines))
        return "\n".join(lines).encode("utf-8")
    return _rewrite(data, edit)


@settings(max_examples=150, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from(CASES), kind=st.integers(0, 3), seed=st.integers(0, 2 ** 32 - 1))
def test_damaged_archives_fail_with_tsjit_errors(case, kind, seed, tmp_path_factory):
    with open(case_path(case), "rb") as f:
        data = _mutate(f.read(), random.Random(seed), kind)
    path = tmp_path_factory.mktemp("damaged") / "model.pt"
    path.write_bytes(data)
    try:
        m = tsjit.load(str(path))
        for call in load_calls(case)[:2]:
            try:
                getattr(m, call.method)(*to_tsjit(call.args))
            except TsjitError:
                pass
    except TsjitError:
        pass
