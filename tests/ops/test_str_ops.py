"""str kernels against TorchScript: methods, slicing, formatting, conversions."""
from __future__ import annotations

import pytest

from tests.helpers import scalar_oracle as T

from tsjit.ops import find  # noqa: E402

CASES = [
    ("aten::len.str", "def f(a: str): len(a)", "t"),
    ("aten::__getitem__.str", "def f(a: str, i: int): a[i]", "tI"),
    ("aten::slice.str", "def f(a: str, i: Optional[int], j: Optional[int], k: int): a[i:j:k]",
     "tooI"),
    ("aten::add.str", "def f(a: str, b: str): a + b", "tt"),
    ("aten::list", "def f(a: str): list(a)", "t"),
    ("aten::join", "def f(a: str, b: str, c: str): a.join([b, c])", "ttt",
     lambda a, b, c: (a, [b, c])),
    ("aten::ord", "def f(a: str): ord(a)", "t"),
    ("aten::ord", "def f(a: str): ord(a[0])", "t",                 # single bytes >= 0x80
     lambda a: (find("aten::__getitem__.str").kernel(a, 0),), lambda a: a != ""),
    ("aten::chr", "def f(i: int): chr(i)", "i"),
    ("aten::hex", "def f(i: int): hex(i)", "i"),
    ("aten::oct", "def f(i: int): oct(i)", "i"),
    ("aten::bin", "def f(i: int): bin(i)", "i"),
    ("aten::find", "def f(a: str, b: str, i: int, j: int): a.find(b, i, j)", "tpII"),
    ("aten::find", "def f(a: str, b: str): a.find(b)", "tp"),
    ("aten::rfind", "def f(a: str, b: str, i: int, j: int): a.rfind(b, i, j)", "tpII"),
    ("aten::index.str", "def f(a: str, b: str, i: int): a.index(b, i)", "tpI"),
    ("aten::rindex", "def f(a: str, b: str): a.rindex(b)", "tp"),
    ("aten::startswith", "def f(a: str, b: str, i: int, j: int): a.startswith(b, i, j)",
     "tpII"),
    ("aten::endswith", "def f(a: str, b: str, i: int, j: int): a.endswith(b, i, j)", "tpII"),
    ("aten::replace", "def f(a: str, b: str, c: str, n: int): a.replace(b, c, n)", "tptI",
     None, lambda a, b, c, n: b != "" or n >= 0),   # PyTorch loops forever otherwise
    ("aten::split.str", "def f(a: str, n: int): a.split(None, n)", "tI",
     lambda a, n: (a, None, n)),
    ("aten::split.str", "def f(a: str, b: str, n: int): a.split(b, n)", "tpI"),
    ("aten::rsplit", "def f(a: str, n: int): a.rsplit(' ', n)", "tI", lambda a, n: (a, " ", n)),
    ("aten::splitlines", "def f(a: str, k: bool): a.splitlines(k)", "tb"),
    ("aten::partition", "def f(a: str, b: str): a.partition(b)", "tp"),
    ("aten::rpartition", "def f(a: str, b: str): a.rpartition(b)", "tp"),
    ("aten::strip", "def f(a: str): a.strip()", "t"),
    ("aten::strip", "def f(a: str, b: str): a.strip(b)", "tp"),
    ("aten::lstrip", "def f(a: str): a.lstrip()", "t"),
    ("aten::rstrip", "def f(a: str, b: str): a.rstrip(b)", "tp"),
    ("aten::center", "def f(a: str, n: int, c: str): a.center(n, c)", "tIh",
     None, lambda a, n, c: n >= 0),                  # PyTorch loops forever otherwise
    ("aten::ljust", "def f(a: str, n: int, c: str): a.ljust(n, c)", "tIh"),
    ("aten::rjust", "def f(a: str, n: int, c: str): a.rjust(n, c)", "tIh"),
    ("aten::zfill", "def f(a: str, n: int): a.zfill(n)", "tI"),
    ("aten::expandtabs", "def f(a: str, n: int): a.expandtabs(n)", "tI"),
    ("aten::format", "def f(a: str, b: int, c: float): a.format(b, c)", "tif"),
    ("aten::format", "def f(a: int, b: float, c: str): '{}-{}|{}'.format(a, [b], c)",
     "ift", lambda a, b, c: ("{}-{}|{}", a, [b], c)),
    ("aten::percentFormat", "def f(a: str, b: int, c: float): a % (b, c)", "tif",
     lambda a, b, c: (a, (b, c))),
    ("aten::percentFormat",
     "def f(a: int, b: float, c: str): '%d %f %e %s %i' % (a, b, b, c, a)", "ift",
     lambda a, b, c: ("%d %f %e %s %i", (a, b, b, c, a))),
    ("aten::percentFormat", "def f(a: float): '%d|%c|%s' % (a, 65, a)", "f",
     lambda a: ("%d|%c|%s", (a, 65, a))),
    ("aten::percentFormat", "def f(a: int): '%c' % a", "i", lambda a: ("%c", a)),
    ("aten::percentFormat", "def f(a: int, b: float): '%E|%E' % (a, b)", "if",
     lambda a, b: ("%E|%E", (a, b))),
    ("aten::percentFormat", "def f(a: str): '%c' % a", "t", lambda a: ("%c", a)),
    ("aten::str", "def f(a: float): str(a)", "f"),
    ("aten::str", "def f(a: complex): str(a)", "c"),
    ("aten::str", "def f(a: int, b: float, c: str, d: bool): str([(a, b, d), (a, c, d)])",
     "iftb", lambda a, b, c, d: ([(a, b, d), (a, c, d)],)),
    ("aten::Int.str", "def f(a: str): int(a)", "t"),
    ("aten::Float.str", "def f(a: str): float(a)", "t"),
]
for _m in ("lower", "upper", "title", "capitalize", "swapcase", "isdigit", "isalpha",
           "isalnum", "isspace", "islower", "isupper", "istitle", "isdecimal", "isnumeric",
           "isprintable", "isidentifier"):
    CASES.append((f"aten::{_m}", f"def f(a: str): a.{_m}()", "t"))
for _n, _op in (("eq", "=="), ("ne", "!="), ("lt", "<"), ("ge", ">=")):
    CASES.append((f"aten::{_n}.str", f"def f(a: str, b: str): a {_op} b", "tt"))


@T.requires_torch
@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}:{i}" for i, c in enumerate(CASES)])
def test_matches_torchscript(case):  # type: ignore[no-untyped-def]
    qualified, src, kinds = case[:3]
    adapt, valid = (tuple(case[3:]) + (None, None))[:2]
    T.sweep(qualified, src, kinds, adapt=adapt, valid=valid)


def k(q: str):  # type: ignore[no-untyped-def]
    return find(q).kernel


def test_strings_are_utf8_bytes() -> None:
    assert k("aten::len.str")("é") == 2
    halves = [k("aten::__getitem__.str")("é", i) for i in (0, 1)]
    assert halves[0] != "é" and k("aten::add.str")(*halves) == "é"
    assert k("aten::upper")("éa") == "éA" and not k("aten::isalpha")("é")


def test_python_differences() -> None:
    assert k("aten::find")("abc", "c", 0, -1) == 2           # end=-1 means "to the end"
    assert k("aten::find")("abc", "", 5, -1) == 5
    assert k("aten::split.str")(" a b c ", None, 1) == ["a", "b", "c"]
    assert k("aten::rsplit")("a  b", " ", -1) == ["a", "", "b"]
    assert k("aten::strip")("\r a \r", " \n\t\f\v") == "\r a \r"
    assert k("aten::zfill")("-12", 5) == "00-12"
    assert k("aten::splitlines")("a\r\nb", True) == ["a", "\r", "", "\n", "b"]
    assert not k("aten::isidentifier")("_a")
    assert k("aten::replace")("abc", "", "-", 2) == "--abc"


def test_count_and_errors() -> None:
    assert k("aten::count")("aaa", "aa", 0, 1) == 1             # a match may cross `end`
    with pytest.raises(RuntimeError, match="^ValueError: substring not found$"):
        k("aten::index.str")("abc", "z", 0, -1)
    with pytest.raises(RuntimeError, match=r"^basic_string::at: __n \(which is 18446744073709551615\)"):
        k("aten::__getitem__.str")("abc", -4)
    with pytest.raises(RuntimeError, match="The fill character must be exactly one"):
        k("aten::center")("a", 5, "é")


def test_format() -> None:
    fmt = k("aten::format")
    assert fmt("{} and {}", 1.0, [0.1, "a"]) == "1. and [0.10000000000000001, a]"
    assert fmt("{{}}", 1) == "{1}" and fmt("{0}", 1) == "{0}"
    with pytest.raises(RuntimeError, match=r"^Too few arguments for format string: \{\} \{\}$"):
        fmt("{} {}", 1)
    pf = k("aten::percentFormat")
    assert pf("%d %d %s %f", (2 ** 40, 2.0 ** 40, "x", 16777217.0)) == \
        "1099511627776 -2147483648 x 16777216.000000"
    assert pf("%s", [1]) == "[1]" and pf("%d%%", 5) == "5%"
    with pytest.raises(RuntimeError, match="^Too many arguments for format string$"):
        pf("%%", 1)
    with pytest.raises(RuntimeError, match="specifier %x is not supported"):
        pf("%x", 1)


# ---- ASCII fast paths agree with the byte-level definitions ---------------------------------

from hypothesis import given, strategies as st  # noqa: E402

from tsjit.ops.kernels import str_methods as _sm  # noqa: E402
from tsjit.ops.kernels.str_common import from_bytes as _fb, to_bytes as _tb  # noqa: E402

_TEXT = st.text(alphabet=st.sampled_from(list("aZ9 ,.\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f_é€")), max_size=12)


@given(_TEXT)
def test_split_fast_path_matches_bytes(s):
    ws = frozenset(b" \t\n\v\f\r\x1c\x1d\x1e\x85\xe2\x80\xa8\xa9")
    parts, cur = [], bytearray()
    for c in _tb(s):
        if c in ws:
            if cur:
                parts.append(bytes(cur))
                cur = bytearray()
        else:
            cur.append(c)
    if cur:
        parts.append(bytes(cur))
    assert _sm.split(s) == [_fb(p) for p in parts]


@given(_TEXT, st.sampled_from([".,;:!?", " \n\t\f\v", "a", "é", ""]))
def test_strip_fast_paths_match_bytes(s, chars):
    for name in ("strip", "lstrip", "rstrip"):
        expected = _fb(getattr(_tb(s), name)(_tb(chars)))
        assert getattr(_sm, name)(s, chars) == expected


@given(_TEXT)
def test_case_fast_paths_match_bytes(s):
    from tsjit.ops import registry
    for name in sorted(_sm._ASCII_SAME) + ["isspace"]:
        expected = getattr(_tb(s), name)()
        expected = _fb(expected) if isinstance(expected, bytes) else expected
        assert registry.find(f"aten::{name}").kernel(s) == expected, name
