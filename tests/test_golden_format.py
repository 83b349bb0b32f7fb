"""The golden-case driver (tests/helpers/golden.py): reading, running and rewriting cases."""
import pytest

from tests.helpers import golden

TEXT = """About this file.

[case add]
def f(a: int, b: int) -> int:
    return a + b

[out f(2, 3)]
6
[error f(1, 2)]
stale

[case div]
def f(a: int) -> int:
    return 10 // a
[out f(5)]
2
"""


def test_cases_and_sections_are_read():
    cases = golden.parse(TEXT)
    assert [c.name for c in cases] == ["add", "div"]
    add = cases[0]
    assert add.source == "def f(a: int, b: int) -> int:\n    return a + b\n"
    assert [(s.kind, s.expr, s.expected) for s in add.sections] == \
        [("out", "f(2, 3)", "6\n"), ("error", "f(1, 2)", "stale\n")]


def test_run_gives_each_sections_output():
    add, div = golden.parse(TEXT)
    assert golden.run(div) == ["2\n"]
    out, error = golden.run(add)
    assert out == "5\n"                       # differs from the (wrong) expected 6
    assert error == "(no error: f(1, 2) gave 3)\n"


def test_rewrite_replaces_only_the_named_case(tmp_path):
    path = tmp_path / "t.test"
    path.write_text(TEXT)
    golden.rewrite(str(path), "add", ["5\n", "(none)\n"])
    new = path.read_text()
    assert new == TEXT.replace("[out f(2, 3)]\n6\n", "[out f(2, 3)]\n5\n").replace(
        "stale\n", "(none)\n")
    assert [c.name for c in golden.parse(new)] == ["add", "div"]


@pytest.mark.parametrize("text,message", [
    ("[graph]\nx\n", "before the first"),
    ("[case a]\ndef f(): pass\n", "has no sections"),
    ("[case a]\ndef f(): pass\n[grpah]\n", "unknown section [grpah]"),
    ("[case a]\ndef f(): pass\n[out f()]\nNone\n[case a]\ndef f(): pass\n[out f()]\nNone\n",
     "a second case named 'a'"),
    ("[case]\n", "needs a name"),
])
def test_malformed_files_are_reported_with_their_line(text, message):
    with pytest.raises(golden.GoldenFormatError, match=message.replace("[", r"\[")):
        golden.parse(text, "t.test")
