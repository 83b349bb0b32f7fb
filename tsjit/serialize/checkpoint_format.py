"""The layout of torch.save files (learned from PyTorch 2.13's files and its serialization notes).

Zip format (the default since PyTorch 1.6): one top folder (the file's stem, `archive/`
for buffers, any name on load) holding

* `data.pkl`: the object, pickled with protocol 2 (or `pickle_protocol`); each tensor is
  `torch._utils._rebuild_tensor_v2(<storage>, offset, size, stride, requires_grad,
  OrderedDict())` (`_rebuild_tensor_v3(..., dtype)` for dtypes without a typed storage
  class), its storage a persistent id `('storage', <torch.XStorage class>, key, location,
  numel)` (numel counts elements, or bytes for `torch.UntypedStorage`);
* `data/<key>`: each storage's bytes, stored, keys `0, 1, ...` in the order the pickler
  met them, data aligned to `.storage_alignment` (64) bytes;
* `.format_version` (`1`), `.storage_alignment`, `byteorder` (`little`/`big`), `version`
  (`3`), `.data/serialization_id`; files of PyTorch < 2.4 lack the first three.

Legacy format (`_use_new_zipfile_serialization=False`): five pickles in a row — the
magic number, the protocol version 1001, a dict of system information (`little_endian`,
`type_sizes`), the object (persistent ids `('storage', <class>, key, location, numel,
view_metadata)`), the list of storage keys — then, for each key in that order, an 8-byte
element count in the writer's byte order and the storage's bytes.
"""
from __future__ import annotations

from .pickle_format import STORAGE_DTYPES, Global

LEGACY_MAGIC = 0x1950A86A20F9469CFC6C   # the first pickle of a legacy file
LEGACY_PROTOCOL_VERSION = 1001          # its second pickle
LEGACY_COUNT_SIZE = 8                   # bytes of the element count before each storage
FORMAT_VERSION = 1                      # `.format_version` PyTorch 2.13 writes

DATA_PKL = "data.pkl"
STORAGE_FOLDER = "data/"
FORMAT_VERSION_RECORD = ".format_version"
ALIGNMENT_RECORD = ".storage_alignment"
BYTEORDER_RECORD = "byteorder"
VERSION_RECORD = "version"
SERIALIZATION_ID_RECORD = ".data/serialization_id"
TORCHSCRIPT_RECORD = "constants.pkl"    # a zip with it is a TorchScript archive (as torch tells)

STORAGE_TAG = "storage"                 # the first item of a storage's persistent id
# classes a storage's persistent id may name that hold bytes, whatever the dtype
UNTYPED_STORAGES = frozenset({Global("torch", "UntypedStorage"),
                              Global("torch.storage", "UntypedStorage")})
# `torch.<X>Storage` -> dtype name; quantized ones are named for a clear refusal
TYPED_STORAGES: dict[Global, str] = {
    Global("torch", cls): dtype for cls, dtype in {
        **STORAGE_DTYPES, "QInt8Storage": "qint8", "QUInt8Storage": "quint8",
        "QInt32Storage": "qint32", "QUInt4x2Storage": "quint4x2",
        "QUInt2x4Storage": "quint2x4"}.items()}

# Every dtype PyTorch 2.13 has, by the name it pickles (`torch.float8_e4m3fn`).
TORCH_DTYPE_NAMES = (
    "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "complex32",
    "complex64", "complex128", "bool", "qint8", "quint8", "qint32", "bfloat16", "quint4x2",
    "quint2x4", "bits1x8", "bits2x4", "bits4x2", "bits8", "bits16", "float8_e5m2",
    "float8_e4m3fn", "float8_e5m2fnuz", "float8_e4m3fnuz", "uint16", "uint32", "uint64",
    "uint1", "uint2", "uint3", "uint4", "uint5", "uint6", "uint7", "int1", "int2", "int3",
    "int4", "int5", "int6", "int7", "float8_e8m0fnu", "float4_e2m1fn_x2")
LAYOUT_NAMES = ("strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr",
                "sparse_bsc", "_mkldnn", "jagged")
MEMORY_FORMAT_NAMES = ("contiguous_format", "channels_last", "channels_last_3d",
                       "preserve_format")
QSCHEME_NAMES = ("per_tensor_affine", "per_channel_affine", "per_tensor_symmetric",
                 "per_channel_symmetric", "per_channel_affine_float_qparams")
