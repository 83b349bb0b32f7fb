"""Debug info (`.debug_pkl`): decoding PyTorch's records and encoding them back exactly."""
from __future__ import annotations

import zipfile

import pytest

from tests.helpers.serialize_corpus import CORPUS, pickle_records
from tsjit.serialize.debug_info import (
    DebugRecord, DebugSource, decode_debug_info, encode_debug_info, split_lines)
from tsjit.serialize.errors import ArchiveError
from tsjit.serialize.pickle_format import MemoTuple
from tsjit.serialize.pickler import pickle_value
from tsjit.serialize.unpickler import unpickle

DEBUG = [(c, n, d) for c, n, d in pickle_records() if n.endswith(".debug_pkl")]


@pytest.mark.parametrize("case,name,data", DEBUG, ids=[f"{c}:{n.split('/', 2)[2]}"
                                                       for c, n, _ in DEBUG])
def test_corpus_debug_info_round_trips_byte_identically(case: str, name: str, data: bytes) -> None:
    records = decode_debug_info(data, name)
    assert records and records[0].offset == 0
    assert [r.offset for r in records] == sorted(r.offset for r in records)
    assert encode_debug_info(records) == data


def test_decoded_ranges_point_at_the_original_source() -> None:
    with zipfile.ZipFile(CORPUS / "lang_attributes" / "model.pt") as z:
        data = z.read("model/code/__torch__/lang_attributes.py.debug_pkl")
        code = z.read("model/code/__torch__/lang_attributes.py")
    records = decode_debug_info(data, "lang_attributes.py.debug_pkl")
    assert records[0] == DebugRecord(0, None, 0, 0, 0)
    first = records[1]
    assert first.source is not None and first.source.filename == "lang_attributes.py"
    assert first.source.text[first.start:first.end] == "self.calls += 1"
    assert code[first.offset:].startswith(b"torch.add(calls, 1)")
    assert first.source.text.startswith("    def forward(self, name: str, v: int)")
    # one DebugSource object per source, shared by its records
    sources = {id(r.source) for r in records if r.source is not None}
    assert len(sources) == 1


def test_source_line_numbers_and_text() -> None:
    with zipfile.ZipFile(CORPUS / "model_mlp" / "model.pt") as z:
        data = z.read("model/code/__torch__/torch/nn/modules/linear.py.debug_pkl")
    records = decode_debug_info(data, "linear.py.debug_pkl")
    src = records[1].source
    assert src is not None
    assert src.filename == "torch/nn/modules/linear.py" and src.starting_line == 130
    assert src.text.splitlines()[0] == "    def forward(self, input: Tensor) -> Tensor:"
    assert src.text[records[1].start:records[1].end] == "F.linear"


def test_encoding_new_records() -> None:
    src = DebugSource("def f(x):\n    return x + 1\n", "f.py", 10)
    other = DebugSource("", None, 0)          # an empty source that is not "no source"
    records = [DebugRecord(0, None, 0, 0, 0), DebugRecord(12, src, 14, 26, 1),
               DebugRecord(20, src, 21, 26, 2), DebugRecord(30, other, 0, 1, 3),
               DebugRecord(31, None, 0, 0, 0)]
    data = encode_debug_info(records)
    value = unpickle(data, "t")
    assert value[0] == "FORMAT_WITH_STRING_TABLE"
    assert value[1] == ("", "def f(x):\n", "    return x + 1\n", "f.py")
    assert type(value[1]) is MemoTuple and type(value[2]) is MemoTuple
    assert value[2][1][1][0] is value[2][2][1][0]      # one memoized source tuple
    back = decode_debug_info(data, "t")
    assert [(r.offset, r.start, r.end, r.tag) for r in back] == \
        [(r.offset, r.start, r.end, r.tag) for r in records]
    assert back[0].source is None and back[4].source is None
    assert back[1].source is back[2].source and back[1].source.text == src.text
    assert back[3].source is not None and back[3].source.text == ""
    assert encode_debug_info(back) == data == pickle_value(value)


def test_split_lines() -> None:
    assert split_lines("a\nb\n") == ["a\n", "b\n", ""]
    assert split_lines("a\nb") == ["a\n", "b"]
    assert split_lines("") == [""]


@pytest.mark.parametrize("value", [
    ("OTHER_FORMAT", (), ()),
    ("FORMAT_WITH_STRING_TABLE", ("a", 1), ()),
    ("FORMAT_WITH_STRING_TABLE", ("a",), ((0, None, 0),)),
    ("FORMAT_WITH_STRING_TABLE", ("a",), [(0, (None, 0, 0), 0)]),
])
def test_bad_debug_info_is_an_archive_error(value: object) -> None:
    with pytest.raises(ArchiveError, match="bad debug info in m.py.debug_pkl"):
        decode_debug_info(pickle_value(value), "m.py.debug_pkl")


def test_string_index_out_of_range() -> None:
    records = [DebugRecord(0, DebugSource("x\n", "f.py", 1), 0, 1, 1)]
    value = unpickle(encode_debug_info(records), "t")
    strings = MemoTuple(value[1][:1])            # drop the file name from the table
    with pytest.raises(ArchiveError, match="out of range"):
        decode_debug_info(pickle_value((value[0], strings, value[2])), "m.debug_pkl")
