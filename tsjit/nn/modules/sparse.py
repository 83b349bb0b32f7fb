"""Embedding: a lookup table of vectors."""
from __future__ import annotations

from typing import Any, Optional

from ..._tensor import Tensor, empty
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module


def _padding_index(padding_idx: Optional[int], num_embeddings: int) -> Optional[int]:
    """`padding_idx` checked against the table size, negative ones counted from the end."""
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < num_embeddings, "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -num_embeddings, "Padding_idx must be within num_embeddings"
            padding_idx = num_embeddings + padding_idx
    return padding_idx


def _norm_repr(max_norm: Optional[float], norm_type: float, scale_grad_by_freq: bool) -> str:
    """The repr part of the row-renormalisation options, where they differ from defaults."""
    s = ""
    if max_norm is not None:
        s += f", max_norm={max_norm}"
    if norm_type != 2:
        s += f", norm_type={norm_type}"
    if scale_grad_by_freq is not False:
        s += f", scale_grad_by_freq={scale_grad_by_freq}"
    return s


class Embedding(Module):
    """Rows of a (num_embeddings, embedding_dim) table selected by integer indices."""

    __constants__ = ["num_embeddings", "embedding_dim", "padding_idx", "max_norm",
                     "norm_type", "scale_grad_by_freq", "sparse"]
    num_embeddings: int
    embedding_dim: int
    padding_idx: Optional[int]
    max_norm: Optional[float]
    norm_type: float
    scale_grad_by_freq: bool
    weight: Tensor
    freeze: bool
    sparse: bool

    def __init__(self, num_embeddings: int, embedding_dim: int,
                 padding_idx: Optional[int] = None, max_norm: Optional[float] = None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False,
                 _weight: Optional[Tensor] = None, _freeze: bool = False, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = _padding_index(padding_idx, num_embeddings)
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if _weight is None:
            self.weight = Parameter(empty(num_embeddings, embedding_dim, dtype=dtype),
                                    requires_grad=not _freeze)
            self.reset_parameters()
        else:
            assert list(_weight.shape) == [num_embeddings, embedding_dim], \
                "Shape of weight does not match num_embeddings and embedding_dim"
            self.weight = Parameter(_weight, requires_grad=not _freeze)
        self.sparse = sparse

    def reset_parameters(self) -> None:
        """N(0, 1) rows; the padding row zero."""
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self) -> None:
        if self.padding_idx is not None:
            self.weight[self.padding_idx].fill_(0)

    def forward(self, input: Tensor) -> Tensor:
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm,
                           self.norm_type, self.scale_grad_by_freq, self.sparse)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        s += _norm_repr(self.max_norm, self.norm_type, self.scale_grad_by_freq)
        if self.sparse is not False:
            s += ", sparse=True"
        return s

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True,
                        padding_idx: Optional[int] = None, max_norm: Optional[float] = None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        sparse: bool = False) -> "Embedding":
        """An Embedding whose table is `embeddings` (2-D)."""
        assert embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional"
        rows, cols = embeddings.shape
        return cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings,
                   _freeze=freeze, padding_idx=padding_idx, max_norm=max_norm,
                   norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)



class EmbeddingBag(Module):
    """Sums, means or maxima of bags of embedding rows, without building the rows first."""

    __constants__ = ["num_embeddings", "embedding_dim", "max_norm", "norm_type",
                     "scale_grad_by_freq", "mode", "sparse", "include_last_offset",
                     "padding_idx"]
    num_embeddings: int
    embedding_dim: int
    max_norm: Optional[float]
    norm_type: float
    scale_grad_by_freq: bool
    weight: Tensor
    mode: str
    sparse: bool
    include_last_offset: bool
    padding_idx: Optional[int]

    def __init__(self, num_embeddings: int, embedding_dim: int,
                 max_norm: Optional[float] = None, norm_type: float = 2.0,
                 scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                 _weight: Optional[Tensor] = None, include_last_offset: bool = False,
                 padding_idx: Optional[int] = None, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.padding_idx = _padding_index(padding_idx, num_embeddings)
        if _weight is None:
            self.weight = Parameter(empty(num_embeddings, embedding_dim, dtype=dtype))
            self.reset_parameters()
        else:
            assert list(_weight.shape) == [num_embeddings, embedding_dim], \
                "Shape of weight does not match num_embeddings and embedding_dim"
            self.weight = Parameter(_weight)
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset

    def reset_parameters(self) -> None:
        """N(0, 1) rows; the padding row zero."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            self.weight[self.padding_idx].fill_(0)

    def forward(self, input: Tensor, offsets: Optional[Tensor] = None,
                per_sample_weights: Optional[Tensor] = None) -> Tensor:
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                               self.scale_grad_by_freq, self.mode, self.sparse,
                               per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        s += _norm_repr(self.max_norm, self.norm_type, self.scale_grad_by_freq)
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s

__all__ = ["Embedding", "EmbeddingBag"]
