"""tsjit.nn.utils.rnn: padding and packing sequences (facts of torch.nn.utils.rnn)."""
import pytest

import tsjit
from tsjit.nn.utils import rnn


def _seqs():
    return [tsjit.arange(6.).reshape(3, 2), tsjit.ones(1, 2), tsjit.zeros(2, 2) + 5]


def test_pad_sequence_time_major_and_batch_first():
    p = rnn.pad_sequence(_seqs())
    assert list(p.shape) == [3, 3, 2] and p[:, 1].tolist() == [[1.0, 1.0], [0.0, 0.0], [0.0, 0.0]]
    b = rnn.pad_sequence(_seqs(), batch_first=True, padding_value=-1)
    assert b[1].tolist() == [[1.0, 1.0], [-1.0, -1.0], [-1.0, -1.0]]
    left = rnn.pad_sequence(_seqs(), batch_first=True, padding_side="left")
    assert left[1, 2].tolist() == [1.0, 1.0] and left[1, 0].tolist() == [0.0, 0.0]


def test_pack_then_pad_round_trips_in_the_callers_order():
    padded = rnn.pad_sequence(_seqs())
    packed = rnn.pack_padded_sequence(padded, tsjit.tensor([3, 1, 2]), enforce_sorted=False)
    assert packed.batch_sizes.tolist() == [3, 2, 1]
    assert packed.sorted_indices.tolist() == [0, 2, 1] and packed.unsorted_indices.tolist() == [0, 2, 1]
    assert packed.data.tolist() == [[0.0, 1.0], [5.0, 5.0], [1.0, 1.0], [2.0, 3.0], [5.0, 5.0],
                                    [4.0, 5.0]]
    out, lengths = rnn.pad_packed_sequence(packed, total_length=4)
    assert lengths.tolist() == [3, 1, 2] and list(out.shape) == [4, 3, 2]
    assert tsjit.equal(out[:3], padded)


def test_sorted_lengths_are_required_unless_told_otherwise():
    with pytest.raises(RuntimeError, match="sorted in decreasing order"):
        rnn.pack_padded_sequence(rnn.pad_sequence(_seqs()), [3, 1, 2])
    packed = rnn.pack_padded_sequence(rnn.pad_sequence(_seqs(), batch_first=True)[[0, 2, 1]],
                                      [3, 2, 1], batch_first=True)
    assert packed.sorted_indices is None and packed.batch_sizes.tolist() == [3, 2, 1]
