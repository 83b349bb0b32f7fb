"""The TorchScript differential oracle shared by the non-tensor operator tests.

Test modules import it as `from tests.helpers import scalar_oracle as T`. It compiles tiny
TorchScript functions with the installed PyTorch, runs them and the tsjit kernels on the
same inputs, and compares results (strict about int / float / bool types, NaN and the sign
of zero) or failures (exception type name and message).
"""
from __future__ import annotations

import copy
import math
import os
import re
from typing import Any, Callable, Optional

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

try:  # PyTorch is only an oracle: tsjit itself never imports it.
    import torch
except ImportError:  # pragma: no cover - depends on the environment
    torch = None

requires_torch = pytest.mark.skipif(
    torch is None, reason="PyTorch is not installed; the TorchScript differential oracle "
                          "(torch.jit) is unavailable")

# ---- value comparison --------------------------------------------------------------------

def same(a: Any, b: Any, rel: float = 0.0) -> bool:
    """Deep equality that distinguishes int / float / bool, NaN == NaN and -0.0 != 0.0."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, float) or isinstance(b, float):
        if not (isinstance(a, float) and isinstance(b, float)):
            return False
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if rel and math.isfinite(a) and math.isfinite(b):
            return math.isclose(a, b, rel_tol=rel, abs_tol=rel)
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if isinstance(a, complex) or isinstance(b, complex):
        return isinstance(a, complex) and isinstance(b, complex) and \
            same(a.real, b.real, rel) and same(a.imag, b.imag, rel)
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and \
            all(same(x, y, rel) for x, y in zip(a, b))
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and \
            same(list(a.items()), list(b.items()), rel)
    return type(a) is type(b) and a == b


# ---- running both sides ------------------------------------------------------------------

class Skip(Exception):
    """The oracle cannot express this example (e.g. a result that is not valid UTF-8)."""


_ENV: dict[str, Any] = {}
_compiled: dict[str, Callable] = {}


def ts_function(src: str) -> Callable:
    """Compile `def f(...): <body>` (one line allowed) with torch.jit, cached by source."""
    fn = _compiled.get(src)
    if fn is None:
        text = src
        if "\n" not in text:
            head, body = text.split("): ", 1)
            text = f"{head}):\n    return {body}\n" if not body.startswith(
                ("return", "raise")) and ";" not in body else \
                f"{head}):\n    " + "\n    ".join(p.strip() for p in body.split(";")) + "\n"
        if not _ENV:
            import typing
            _ENV.update(math=math, torch=torch, **{n: getattr(typing, n) for n in (
                "List", "Dict", "Tuple", "Optional", "Union", "Any")})
        cu = torch.jit.CompilationUnit()
        cu.define(text, rcb=lambda name: _ENV.get(name))
        fn = _compiled[src] = cu.f
    return fn


def ts_outcome(src: str, *args: Any) -> tuple:
    """("ok", value) or ("err", type name, message) from running the TorchScript function."""
    fn = ts_function(src)
    try:
        return ("ok", fn(*copy.deepcopy(args)))
    except UnicodeDecodeError as e:   # torch cannot hand invalid UTF-8 back to Python
        raise Skip(str(e)) from e
    except Exception as e:  # noqa: BLE001 - any failure is an outcome to compare
        text = str(e)
        marker = "<--- HERE\n"
        if marker in text:
            # The traceback may show more source lines after the marker; the error itself
            # starts at the first unindented line.
            text = text[text.rindex(marker) + len(marker):]
            m = re.search(r"^\S", text, re.M)
            text = text[m.start():] if m else text
        text = text[:-1] if text.endswith("\n") else text
        name, _, msg = text.partition(": ")
        return ("err", name, msg)


def kernel_outcome(qualified: str, *args: Any,
                   post: Optional[Callable[[list, Any], Any]] = None) -> tuple:
    """("ok", value) or ("err", type name, message) from calling the registered kernel."""
    from tsjit.ops import find
    kernel = find(qualified).kernel
    args_l = list(copy.deepcopy(args))
    try:
        r = kernel(*args_l)
    except Exception as e:  # noqa: BLE001
        return ("err", type(e).__name__, str(e))
    return ("ok", post(args_l, r) if post else r)


def check(qualified: str, src: str, *args: Any, post: Optional[Callable] = None,
          rel: float = 0.0, adapt: Optional[Callable[..., tuple]] = None) -> None:
    """Assert that the kernel and TorchScript agree on `args` (`adapt` maps the TorchScript
    function's arguments to the kernel's when they differ)."""
    try:
        want = ts_outcome(src, *args)
    except Skip:
        return
    got = kernel_outcome(qualified, *(adapt(*args) if adapt else args), post=post)
    if want[0] == "ok" and got[0] == "ok":
        assert same(got[1], want[1], rel), \
            f"{qualified}{args!r}: tsjit {got[1]!r} != TorchScript {want[1]!r}"
    else:
        assert got == want, f"{qualified}{args!r}: tsjit {got!r} != TorchScript {want!r}"


# ---- strategies ----------------------------------------------------------------------------

I64 = (-(2 ** 63), 2 ** 63 - 1)
EDGE_INTS = [0, 1, -1, 2, -2, 3, 7, -7, 63, 64, 65, 2 ** 31, 2 ** 53 + 1, 2 ** 62,
             I64[1], I64[0], I64[0] + 1, I64[1] - 1]
EDGE_FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.1, 1e-7, 1e20, 1e308,
               -1e308, 5e-324, 2.0 ** 63, -(2.0 ** 63), 2.0 ** 53, math.inf, -math.inf,
               math.nan, 1.0 / 3.0, 3.0, 100.0, 1e10]


def ints() -> st.SearchStrategy[int]:
    """int64 values, biased towards edges."""
    return st.one_of(st.sampled_from(EDGE_INTS), st.integers(-100, 100),
                     st.integers(*I64))


def small_ints() -> st.SearchStrategy[int]:
    return st.one_of(st.sampled_from([0, 1, -1, 2, -2, 5]), st.integers(-20, 20))


def floats() -> st.SearchStrategy[float]:
    """Doubles incl. NaN, ±inf, ±0.0, subnormals."""
    return st.one_of(st.sampled_from(EDGE_FLOATS), st.floats(-10, 10),
                     st.floats(allow_nan=True, allow_infinity=True))


def complexes() -> st.SearchStrategy[complex]:
    return st.builds(complex, floats(), floats())


_CHARS = list("aAbBzZ0159eEfinx+ _-.,\t\n\r\x0b\x0c\x1c%{}'") + ["é", "ß", "€", "\u2028", "\u3000", "😀"]


def texts(max_size: int = 8) -> st.SearchStrategy[str]:
    """Short strings: ASCII-heavy with spaces, digits, case, and some non-ASCII."""
    # A sampled alphabet is several times cheaper to generate than st.characters().
    return st.text(st.sampled_from(_CHARS), max_size=max_size)


KINDS: dict[str, Callable[[], st.SearchStrategy]] = {
    "i": ints, "I": small_ints, "f": floats, "c": complexes, "t": texts,
    "b": st.booleans, "s": lambda: st.one_of(ints(), floats()),
}


# ~25 examples per overload keeps the whole non-tensor suite near a minute; raise it with
# TSJIT_ORACLE_EXAMPLES=500 for a deeper run.
EXAMPLES = int(os.environ.get("TSJIT_ORACLE_EXAMPLES", "25"))


def sweep(qualified: str, src: str, kinds: str, *, valid: Optional[Callable] = None,
          prepare: Optional[Callable] = None, examples: int = 0, **check_kw: Any) -> None:
    """Property test: kernel == TorchScript on generated arguments (one per kind letter;
    `prepare` may reshape them, `valid` may reject them)."""
    strategy = st.tuples(*(KINDS[k]() for k in kinds))
    if prepare is not None:
        strategy = strategy.map(lambda a: prepare(*a))

    @settings(max_examples=examples or EXAMPLES, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def run(args: tuple) -> None:
        if valid is None or valid(*args):
            check(qualified, src, *args, **check_kw)
    run()


def draw_args(data: Any, kinds: str) -> tuple:
    """Draw one argument per kind letter (i int, I small int, f float, c complex, t str,
    b bool, s Scalar)."""
    return tuple(data.draw(KINDS[k](), label=f"arg{i}") for i, k in enumerate(kinds))


def separators() -> st.SearchStrategy[str]:
    """Short patterns for find / split / replace."""
    return st.one_of(st.sampled_from(["", " ", "a", "ab", ",", "\n", "é", "aa", "  "]),
                     texts(max_size=2))


KINDS["p"] = separators
KINDS["o"] = lambda: st.one_of(st.none(), small_ints())          # Optional[int] slice bound
KINDS["h"] = lambda: st.sampled_from([" ", "*", "0", "", "ab", "é"])  # fill characters


_SORT_FLOATS = st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.5, math.nan, math.inf, -math.inf, 3.0])
KINDS.update({
    "L": lambda: st.lists(small_ints(), max_size=8),                    # List[int]
    "F": lambda: st.lists(st.one_of(_SORT_FLOATS, floats()), max_size=8),  # List[float]
    "B": lambda: st.lists(st.booleans(), max_size=8),                   # List[bool]
    "S": lambda: st.lists(texts(3), max_size=6),                        # List[str]
    "G": lambda: st.lists(_SORT_FLOATS, max_size=70),                   # long float lists
    "J": lambda: st.lists(st.integers(-5, 5), max_size=70),             # long int lists
})


_KEY_FLOATS = st.sampled_from([0.0, -0.0, 1.0, 2.5, -1.0, math.inf, math.nan, 0.1])
KINDS.update({
    "D": lambda: st.dictionaries(texts(2), small_ints(), max_size=5),        # Dict[str, int]
    "E": lambda: st.dictionaries(small_ints(), floats(), max_size=5),         # Dict[int, float]
    "K": lambda: st.dictionaries(_KEY_FLOATS, small_ints(), max_size=5),      # Dict[float, int]
    "k": lambda: _KEY_FLOATS,                                                 # float keys
    "C": lambda: st.dictionaries(st.sampled_from([0j, 1j, 1 + 0j, -1j]), small_ints(),
                                 max_size=3),                                 # Dict[complex, int]
    "x": lambda: st.sampled_from([0j, 1j, 2j, 1 + 0j]),
    "P": lambda: st.lists(st.tuples(texts(2), small_ints()), max_size=5),      # List[(str, int)]
})
