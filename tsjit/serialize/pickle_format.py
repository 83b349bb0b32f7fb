"""A neutral object model for the pickles inside TorchScript archives.

The unpickler never imports or calls anything: where a pickle would call a class or a
function it builds one of the small records below instead, and the archive loader decides
what they mean (a tensor, a TorchScript object, a typed list ...). The pickler writes the
same records back. Plain None/bool/int/float/str/bytes/tuple/list/dict carry the rest.

Sharing is by identity: an object referenced twice in a value is memoized once and read
back as one object. PyTorch also memoizes some objects that are referenced only once
(it memoizes every IValue that had other owners when it was saved); the `memo` fields and
`MemoTuple` remember that, so that unpickling and pickling again gives the same bytes.
"""
from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass, field
from typing import Any, ClassVar, Optional

from tsjit._tensor.dtypes import STORAGE_TYPES, UNTYPED_STORAGE as _UNTYPED_STORAGE


@dataclass(frozen=True, eq=False)
class Global:
    """A reference to a class or function `module.name`; one object per (module, name)."""

    module: str
    name: str

    # Interned so that `Global(a, b) is Global(a, b)`; weak so hostile pickles with many
    # distinct names cannot grow the table forever.
    _interned: ClassVar["weakref.WeakValueDictionary[tuple[str, str], Global]"] = \
        weakref.WeakValueDictionary()
    # WeakValueDictionary.setdefault is not atomic: two threads making the same Global at
    # once could each keep their own.
    _interning: ClassVar[threading.Lock] = threading.Lock()

    def __new__(cls, module: str, name: str) -> "Global":
        key = (module, name)
        found = cls._interned.get(key)
        if found is None:
            with cls._interning:
                found = cls._interned.get(key)
                if found is None:
                    found = super().__new__(cls)
                    object.__setattr__(found, "module", module)
                    object.__setattr__(found, "name", name)
                    cls._interned[key] = found
        return found

    def __reduce__(self) -> tuple:
        return (Global, (self.module, self.name))

    @property
    def qualname(self) -> str:
        """`module.name`, the way error messages and allow-lists spell it."""
        return f"{self.module}.{self.name}"

    def __repr__(self) -> str:
        return f"Global({self.module!r}, {self.name!r})"


@dataclass(eq=False)
class Object:
    """`GLOBAL cls; EMPTY_TUPLE; NEWOBJ; <state>; BUILD`: a TorchScript object or module.

    `state` is what BUILD received (usually a dict of attributes, or whatever a class's
    `__getstate__` returned); None when the pickle never BUILT the object.
    `memo`: whether the pickle memoized it (None: the pickler's default, which is yes).
    """

    cls: Global
    state: Any = None
    memo: Optional[bool] = None
    args: tuple = field(default=(), kw_only=True)   # NEWOBJ's (a namedtuple's fields)


@dataclass(eq=False)
class Reduce:
    """`GLOBAL func; <args tuple>; REDUCE`: a call the loader interprets, e.g.
    `torch._utils._rebuild_tensor_v2`, `collections.OrderedDict`,
    `torch.jit._pickle.restore_type_tag` or `torch.jit._pickle.build_intlist`.

    `memo`: whether the pickle memoized the result (None: the pickler's default, which
    memoizes tensors and devices only, as PyTorch does).
    """

    func: Global
    args: tuple
    memo: Optional[bool] = None
    # What Python's pickle writes after a reduction: items SETITEMS adds to the result
    # (an OrderedDict's), items APPENDS adds, and the state BUILD sets (attributes such as
    # a state dict's `_metadata`). Empty / None: nothing. (Keyword-only: a call with
    # more positional arguments stays a TypeError.)
    dictitems: Optional[list] = field(default=None, kw_only=True)
    listitems: Optional[list] = field(default=None, kw_only=True)
    state: Any = field(default=None, kw_only=True)


@dataclass(eq=False)
class PersistentId:
    """`<tuple>; BINPERSID`: a reference out of the pickle, e.g. a tensor storage
    `('storage', Global('torch', 'FloatStorage'), '0', 'cpu', 96)`.

    `memo`: whether the pickle memoized it (None: the pickler's default, which is yes).
    """

    pid: tuple
    memo: Optional[bool] = None


class MemoTuple(tuple):
    """A tuple the pickle memoized although nothing else in it refers to it.

    PyTorch memoizes a tuple that had other owners when it was saved (debug-info source
    descriptions, a `__getstate__` result ...). Otherwise it is an ordinary tuple.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"MemoTuple({tuple.__repr__(self)})"


# Globals that TorchScript archives use, named once for the loader, pickler and tests.
REBUILD_TENSOR_V2 = Global("torch._utils", "_rebuild_tensor_v2")
ORDERED_DICT = Global("collections", "OrderedDict")
TORCH_DEVICE = Global("torch", "device")
RESTORE_TYPE_TAG = Global("torch.jit._pickle", "restore_type_tag")
BUILD_INTLIST = Global("torch.jit._pickle", "build_intlist")
BUILD_DOUBLELIST = Global("torch.jit._pickle", "build_doublelist")
BUILD_BOOLLIST = Global("torch.jit._pickle", "build_boollist")
BUILD_TENSORLIST = Global("torch.jit._pickle", "build_tensorlist")
BUILD_TENSOR_FROM_ID = Global("torch.jit._pickle", "build_tensor_from_id")

# `torch.<X>Storage` classes named in tensor persistent ids, by dtype name (the table is
# the dtypes': `tsjit._tensor.dtypes.STORAGE_TYPES`).
STORAGE_DTYPES: dict[str, str] = {cls: d.name for cls, d in STORAGE_TYPES.items()}
# The storage class of dtypes without a typed one (`_rebuild_tensor_v3` names the dtype).
UNTYPED_STORAGE = Global(*_UNTYPED_STORAGE)
REBUILD_TENSOR_V3 = Global("torch._utils", "_rebuild_tensor_v3")


class Op:
    """Pickle opcodes (one byte each), by the protocol that introduced them."""

    # Protocol 0 (text) and 1 (binary).
    MARK = 0x28             # '(' push a mark; TUPLE/LIST/DICT/APPENDS/SETITEMS pop to it
    STOP = 0x2E             # '.' end of pickle; the top of the stack is the result
    POP = 0x30              # '0' discard the top of the stack
    POP_MARK = 0x31         # '1' discard everything down to the topmost mark
    DUP = 0x32              # '2' push the top of the stack again
    FLOAT = 0x46            # 'F' float as a text line
    INT = 0x49              # 'I' int as a text line ("00"/"01" are False/True)
    BININT = 0x4A           # 'J' 4-byte signed little-endian int
    BININT1 = 0x4B          # 'K' 1-byte unsigned int
    LONG = 0x4C             # 'L' int as a text line ending in "L"
    BININT2 = 0x4D          # 'M' 2-byte unsigned little-endian int
    NONE = 0x4E             # 'N' None
    PERSID = 0x50           # 'P' persistent id as a text line
    BINPERSID = 0x51        # 'Q' persistent id taken from the stack
    REDUCE = 0x52           # 'R' call func(*args)
    STRING = 0x53           # 'S' quoted byte string as a text line
    BINSTRING = 0x54        # 'T' byte string, 4-byte length
    SHORT_BINSTRING = 0x55  # 'U' byte string, 1-byte length
    UNICODE = 0x56          # 'V' raw-unicode-escaped text line
    BINUNICODE = 0x58       # 'X' UTF-8 string, 4-byte length
    APPEND = 0x61           # 'a' list.append(top)
    BUILD = 0x62            # 'b' set an object's state
    GLOBAL = 0x63           # 'c' push module.name, two text lines
    DICT = 0x64             # 'd' dict from the items since the mark
    APPENDS = 0x65          # 'e' list.extend(items since the mark)
    GET = 0x67              # 'g' push memo[text line]
    BINGET = 0x68           # 'h' push memo[1-byte index]
    INST = 0x69             # 'i' build an instance (protocol 0 classes)
    LONG_BINGET = 0x6A      # 'j' push memo[4-byte index]
    LIST = 0x6C             # 'l' list from the items since the mark
    OBJ = 0x6F              # 'o' build an instance (protocol 1 classes)
    PUT = 0x70              # 'p' memo[text line] = top
    BINPUT = 0x71           # 'q' memo[1-byte index] = top
    LONG_BINPUT = 0x72      # 'r' memo[4-byte index] = top
    SETITEM = 0x73          # 's' dict[key] = value
    TUPLE = 0x74            # 't' tuple from the items since the mark
    SETITEMS = 0x75         # 'u' dict.update(pairs since the mark)
    EMPTY_TUPLE = 0x29      # ')' ()
    EMPTY_LIST = 0x5D       # ']' []
    EMPTY_DICT = 0x7D       # '}' {}
    BINFLOAT = 0x47         # 'G' 8-byte big-endian IEEE double
    # Protocol 2.
    PROTO = 0x80            # protocol version, 1 byte
    NEWOBJ = 0x81           # cls.__new__(cls, *args)
    EXT1 = 0x82             # extension registry code, 1 byte
    EXT2 = 0x83             # extension registry code, 2 bytes
    EXT4 = 0x84             # extension registry code, 4 bytes
    TUPLE1 = 0x85           # tuple of the top item
    TUPLE2 = 0x86           # tuple of the top 2 items
    TUPLE3 = 0x87           # tuple of the top 3 items
    NEWTRUE = 0x88          # True
    NEWFALSE = 0x89         # False
    LONG1 = 0x8A            # little-endian two's complement int, 1-byte length
    LONG4 = 0x8B            # little-endian two's complement int, 4-byte length
    # Protocol 3.
    BINBYTES = 0x42         # 'B' bytes, 4-byte length
    SHORT_BINBYTES = 0x43   # 'C' bytes, 1-byte length
    # Protocol 4.
    SHORT_BINUNICODE = 0x8C  # UTF-8 string, 1-byte length
    BINUNICODE8 = 0x8D      # UTF-8 string, 8-byte length
    BINBYTES8 = 0x8E        # bytes, 8-byte length
    EMPTY_SET = 0x8F        # set()
    ADDITEMS = 0x90         # set.update(items since the mark)
    FROZENSET = 0x91        # frozenset of the items since the mark
    NEWOBJ_EX = 0x92        # cls.__new__(cls, *args, **kwargs)
    STACK_GLOBAL = 0x93     # module and name taken from the stack
    MEMOIZE = 0x94          # memo[len(memo)] = top
    FRAME = 0x95            # 8-byte length of the following frame (a read-ahead hint)
    # Protocol 5.
    BYTEARRAY8 = 0x96       # bytearray, 8-byte length
    NEXT_BUFFER = 0x97      # out-of-band buffer
    READONLY_BUFFER = 0x98  # make the top buffer read-only


HIGHEST_PROTOCOL = 5   # the newest pickle protocol the unpickler understands
TORCHSCRIPT_PROTOCOL = 2  # the protocol TorchScript archives are written with
