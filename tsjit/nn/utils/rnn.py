"""torch.nn.utils.rnn: pad_sequence, pack_padded_sequence, pad_packed_sequence.

A PackedSequence holds the time steps of a batch of sequences one after the other (the
longest first): `data` has the batch_sizes[t] rows of step t for each t; sorted_indices /
unsorted_indices map between the caller's batch order and length order.
"""
from __future__ import annotations

from typing import Any, List, NamedTuple, Optional, Sequence, Tuple

from ..._tensor import Tensor, full, tensor
from ...ops import functions as E


class PackedSequence(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Optional[Tensor] = None
    unsorted_indices: Optional[Tensor] = None


def pad_sequence(sequences: Sequence[Tensor], batch_first: bool = False,
                 padding_value: float = 0.0, padding_side: str = "right") -> Tensor:
    """The sequences (each (L_i, *)) stacked into (T, B, *) (or (B, T, *)), padded."""
    if padding_side not in ("right", "left"):
        raise ValueError(f"padding_side must be 'left' or 'right', not {padding_side!r}")
    longest = max(int(s.shape[0]) for s in sequences)
    first = sequences[0]
    out = full((len(sequences), longest) + tuple(first.shape[1:]), padding_value,
               dtype=first.dtype)
    for i, s in enumerate(sequences):
        n = int(s.shape[0])
        start = 0 if padding_side == "right" else longest - n
        out[i, start:start + n] = s
    return out if batch_first else out.transpose(0, 1)


def pack_padded_sequence(input: Tensor, lengths: Any, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """A padded batch (T, B, *) (or (B, T, *)) with the sequences' `lengths` as packed."""
    lens = [int(x) for x in (lengths.tolist() if isinstance(lengths, Tensor) else lengths)]
    if enforce_sorted:
        if any(a < b for a, b in zip(lens, lens[1:])):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                               "`enforce_sorted` is True")
        order: Optional[List[int]] = None
    else:
        order = sorted(range(len(lens)), key=lambda i: -lens[i])
        input = E.index_select(input, 0 if batch_first else 1, tensor(order))
        lens = [lens[i] for i in order]
    if batch_first:
        input = input.transpose(0, 1)
    if lens and lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0")
    sizes = [sum(1 for n in lens if n > t) for t in range(lens[0] if lens else 0)]
    data = E.cat([input[t, :b] for t, b in enumerate(sizes)], 0)
    if order is None:
        return PackedSequence(data, tensor(sizes), None, None)
    inverse = [0] * len(order)
    for pos, i in enumerate(order):
        inverse[i] = pos
    return PackedSequence(data, tensor(sizes), tensor(order), tensor(inverse))


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False,
                        padding_value: float = 0.0,
                        total_length: Optional[int] = None) -> Tuple[Tensor, Tensor]:
    """(padded batch (T, B, *) or (B, T, *), lengths), in the caller's batch order."""
    data, sizes = sequence.data, [int(b) for b in sequence.batch_sizes.tolist()]
    steps = len(sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(f"Expected total_length to be at least the length of the longest "
                             f"sequence ({steps}), but got total_length={total_length}")
        steps = total_length
    batch = sizes[0] if sizes else 0
    out = full((steps, batch) + tuple(data.shape[1:]), padding_value, dtype=data.dtype)
    offset = 0
    for t, b in enumerate(sizes):
        out[t, :b] = data[offset:offset + b]
        offset += b
    lengths = tensor([sum(1 for b in sizes if b > i) for i in range(batch)])
    if sequence.unsorted_indices is not None:
        out = E.index_select(out, 1, sequence.unsorted_indices)
        lengths = E.index_select(lengths, 0, sequence.unsorted_indices)
    return (out.transpose(0, 1) if batch_first else out), lengths


__all__ = ["PackedSequence", "pad_sequence", "pack_padded_sequence", "pad_packed_sequence"]
