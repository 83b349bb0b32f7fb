"""Errors raised inside loaded code show two tracebacks, as PyTorch does: where the
archive's code/ file failed and where that code came from (its .debug_pkl records)."""
import inspect
import re
import zipfile

import pytest

import tsjit
from tests.helpers.corpus import ExpectedError, case_path, load_calls
from tsjit.interpreter.errors import ScriptError

SERIALIZED = "Traceback of TorchScript, serialized code (most recent call last):"
ORIGINAL = "Traceback of TorchScript, original code (most recent call last):"


def _sections(message: str) -> tuple[str, str]:
    assert SERIALIZED in message and ORIGINAL in message, message
    serialized, original = message.split(SERIALIZED, 1)[1].split(ORIGINAL, 1)
    return serialized, original


def _frames(section: str) -> list[tuple[str, int, str]]:
    """(file, line, first source line shown) of each frame of a traceback section."""
    lines = section.split("\n")
    out = []
    for i, line in enumerate(lines):
        m = re.match(r'  File "([^"]+)", line (\d+), col \d+, in ', line)
        if m:
            out.append((m.group(1), int(m.group(2)), lines[i + 1].strip()))
            assert "^" in lines[i + 2]
    return out


ERROR_CALLS = [(i, c) for i, c in enumerate(load_calls("lang_errors"))
               if isinstance(c.expected, ExpectedError)]


@pytest.mark.parametrize("index,call", ERROR_CALLS, ids=[str(i) for i, _ in ERROR_CALLS])
def test_corpus_error_shows_code_and_original_locations(index, call):
    m = tsjit.load(case_path("lang_errors"))
    with pytest.raises(ScriptError) as info:
        getattr(m, call.method)(*call.args)
    message = str(info.value)
    assert call.expected.message in message
    serialized, original = _sections(message)
    code_frames, original_frames = _frames(serialized), _frames(original)
    assert code_frames and original_frames
    assert code_frames[-1][0].startswith("model/code/__torch__/")
    source = open(case_path("lang_errors", "source.py")).read().split("\n")
    file, line, shown = original_frames[-1]
    assert file.endswith("lang_errors.py")
    assert source[line - 1].strip() == shown


def _check_positive(x: int) -> int:
    if x < 0:
        raise ValueError("negative input")
    return x


class Raising(tsjit.nn.Module):
    def forward(self, x: tsjit.Tensor, n: int) -> tsjit.Tensor:
        k = _check_positive(n)
        return x[k]


def _line_of(fn, text: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


@pytest.fixture
def loaded(tmp_path):
    path = str(tmp_path / "raising.pt")
    tsjit.save(tsjit.script(Raising()), path)
    return tsjit.load(path), path


def test_raise_in_a_called_function_shows_both_locations(loaded):
    m, _ = loaded
    with pytest.raises(ScriptError) as info:
        m(tsjit.ones(3), -1)
    serialized, original = _sections(str(info.value))
    code_frames, original_frames = _frames(serialized), _frames(original)
    assert len(code_frames) == len(original_frames) == 2
    assert all(f.startswith("raising/code/__torch__/") for f, _, _ in code_frames)
    assert [(f, line) for f, line, _ in original_frames] == [
        (__file__, _line_of(Raising.forward, "_check_positive(n)")),
        (__file__, _line_of(_check_positive, "raise ValueError"))]
    assert original_frames[-1][2] == 'raise ValueError("negative input")'
    assert "negative input" in str(info.value)


def test_failing_op_shows_both_locations(loaded):
    m, _ = loaded
    with pytest.raises(ScriptError) as info:
        m(tsjit.ones(3), 7)
    serialized, original = _sections(str(info.value))
    file, line, shown = _frames(original)[-1]
    assert (file, line, shown) == (__file__, _line_of(Raising.forward, "x[k]"), "return x[k]")
    code_file, code_line, code_shown = _frames(serialized)[-1]
    assert code_file.startswith("raising/code/__torch__/")
    assert "x" in code_shown


def test_scripted_code_has_one_traceback():
    m = tsjit.script(Raising())
    with pytest.raises(ScriptError) as info:
        m(tsjit.ones(3), -1)
    message = str(info.value)
    assert "Traceback of TorchScript (most recent call last):" in message
    assert SERIALIZED not in message
    assert f'File "{__file__}", line {_line_of(_check_positive, "raise ValueError")}' in message


def test_unreadable_debug_records_still_give_a_traceback(loaded, tmp_path):
    _, path = loaded
    broken = str(tmp_path / "broken.pt")
    with zipfile.ZipFile(path) as z, zipfile.ZipFile(broken, "w") as out:
        for info in z.infolist():
            data = z.read(info)
            out.writestr(info, b"\x80\x02garbage" if info.filename.endswith(".debug_pkl") else data)
    m = tsjit.load(broken)
    with pytest.raises(ScriptError) as info:
        m(tsjit.ones(3), -1)
    serialized, original = _sections(str(info.value))
    assert _frames(serialized)
    assert "debug records are unreadable" in original
