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
from dataclasses import dataclass
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
    """`GLOBAL cls; <args>; NEWOBJ; <state>; BUILD`: a TorchScript object or module, or
    an instance of a class a checkpoint names (also made by NEWOBJ_EX, INST and OBJ).

    `state` is what BUILD received (usually a dict of attributes, or whatever a class's
    `__getstate__` returned); None when the pickle never BUILT the object. `args` /
    `kwargs` are what `cls.__new__` would receive. `items` (SETITEM(S): key, value pairs)
    and `appended` (APPEND(S)) are what the pickle added to it, for a dict or list
    subclass; the loader decides what they mean.
    `memo`: whether the pickle memoized it (None: the pickler's default, which is yes).
    """

    cls: Global
    state: Any = None
    memo: Optional[bool] = None
    args: tuple = ()
    kwargs: Optional[dict] = None
    items: Optional[list] = None
    appended: Optional[list] = None


@dataclass(eq=False)
class Reduce:
    """`GLOBAL func; <args tuple>; REDUCE`: a call the loader interprets, e.g.
    `torch._utils._rebuild_tensor_v2`, `collections.OrderedDict`,
    `torch.jit._pickle.restore_type_tag` or `torch.jit._pickle.build_intlist`.

    `state`, `items` and `appended`: what BUILD, SETITEM(S) and APPEND(S) applied to the
    result (an OrderedDict's items and `_metadata`), as for Object.
    `memo`: whether the pickle memoized the result (None: the pickler's default, which
    memoizes tensors and devices only, as PyTorch does).
    """

    func: Global
    args: tuple
    memo: Optional[bool] = None
    state: Any = None
    items: Optional[list] = None
    appended: Optional[list] = None


@dataclass(eq=False)
class PersistentId:
    """`<tuple>; BINPERSID` (or a PERSID text line): a reference out of the pickle, e.g. a
    tensor storage `('storage', Global('torch', 'FloatStorage'), '0', 'cpu', 96)`.

    `memo`: whether the pickle memoized it (None: the pickler's default, which is yes).
    """

    pid: Any
    memo: Optional[bool] = None


class MemoTuple(tuple):
    """A tuple the pickle memoized although nothing else in it refers to it.

    PyTorch memoizes a tuple that had other owners when it was saved (debug-info source
    descriptions, a `__getstate__` result ...). Otherwise it is an ordinary tuple.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"MemoTuple({tuple.__repr__(self)})"


# Tuples used as dict keys or set members are hashed, and Python hashes a tuple by
# recursion without a depth check (a deep one crashes the interpreter) and without caching
# (one built of shared halves costs 2**depth): such keys are bounded before they are
# hashed, by the unpickler and the loaders. Real keys are flat.
MAX_KEY_DEPTH = 100         # tuples in tuples, in a key
MAX_KEY_ELEMENTS = 100_000  # elements of a key's tuples, repeats counted (the hashing cost)
NESTED_KEYS = frozenset({tuple, MemoTuple})   # the key types that nest


def key_problem(key: tuple) -> Optional[str]:
    """What is wrong with tuple `key` as a dict key or set member (None: nothing)."""
    level = [key]
    for _ in range(MAX_KEY_DEPTH):     # (level by level: no recursion before the depth is known)
        level = list({id(x): x for t in level for x in t if type(x) in NESTED_KEYS}.values())
        if not level:
            break
    else:
        return f"tuples nested more than {MAX_KEY_DEPTH} deep"
    sizes: dict[int, int] = {}

    def size(t: tuple) -> int:      # (recursion at most MAX_KEY_DEPTH deep, each tuple once)
        n = sizes.get(id(t))
        if n is None:
            n = sizes[id(t)] = len(t) + sum(size(x) for x in t if type(x) in NESTED_KEYS)
        return n
    if size(key) > MAX_KEY_ELEMENTS:
        return f"tuples of more than {MAX_KEY_ELEMENTS} elements in all"
    return None


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


@dataclass(frozen=True)
class ArgKind:
    """How an opcode's argument is laid out in the bytes after it (pickletools' argument
    descriptors): `size` bytes, or TEXT_LINE (up to a newline) or COUNTED (a length of
    `size` bytes, then that many bytes)."""

    name: str
    size: int
    layout: str
    doc: str


FIXED, TEXT_LINE, COUNTED = "fixed", "line", "counted"


def _args(*kinds: tuple) -> dict[str, ArgKind]:
    return {k[0]: ArgKind(*k) for k in kinds}


ARG_KINDS: dict[str, ArgKind] = _args(
    ("none", 0, FIXED, "no argument"),
    ("uint1", 1, FIXED, "one unsigned byte"),
    ("uint2", 2, FIXED, "2-byte unsigned little-endian int"),
    ("int4", 4, FIXED, "4-byte signed little-endian int"),
    ("uint4", 4, FIXED, "4-byte unsigned little-endian int"),
    ("uint8", 8, FIXED, "8-byte unsigned little-endian int"),
    ("float8", 8, FIXED, "8-byte big-endian IEEE double"),
    ("decimalnl_short", 0, TEXT_LINE, "decimal int text; 00/01 are False/True"),
    ("decimalnl_long", 0, TEXT_LINE, "decimal int text, maybe ending in L"),
    ("floatnl", 0, TEXT_LINE, "float as repr text"),
    ("stringnl", 0, TEXT_LINE, "quoted, escaped byte string"),
    ("stringnl_noescape", 0, TEXT_LINE, "raw text"),
    ("stringnl_noescape_pair", 0, TEXT_LINE, "two lines of raw text: module, name"),
    ("unicodestringnl", 0, TEXT_LINE, "raw-unicode-escaped text"),
    ("long1", 1, COUNTED, "two's complement little-endian int, 1-byte length"),
    ("long4", 4, COUNTED, "two's complement little-endian int, 4-byte signed length"),
    ("string1", 1, COUNTED, "byte string (str when ASCII), 1-byte length"),
    ("string4", 4, COUNTED, "byte string (str when ASCII), 4-byte signed length"),
    ("bytes1", 1, COUNTED, "bytes, 1-byte length"),
    ("bytes4", 4, COUNTED, "bytes, 4-byte length"),
    ("bytes8", 8, COUNTED, "bytes, 8-byte length"),
    ("bytearray8", 8, COUNTED, "bytearray, 8-byte length"),
    ("unicodestring1", 1, COUNTED, "UTF-8 text, 1-byte length"),
    ("unicodestring4", 4, COUNTED, "UTF-8 text, 4-byte length"),
    ("unicodestring8", 8, COUNTED, "UTF-8 text, 8-byte length"),
)


@dataclass(frozen=True)
class OpInfo:
    """One pickle opcode: its byte, name, argument, stack effect and protocol.

    `before` / `after` name the stack items it takes and leaves, topmost last ("mark" is
    a MARK, "*" every item above it), as pickletools documents them.
    """

    code: int
    name: str
    arg: ArgKind
    before: tuple[str, ...]
    after: tuple[str, ...]
    proto: int
    doc: str


def _op(code: str, name: str, arg: str, before: str, after: str, proto: int,
        doc: str) -> OpInfo:
    return OpInfo(ord(code), name, ARG_KINDS[arg], tuple(before.split()),
                  tuple(after.split()), proto, doc)


# Every opcode of pickle protocols 0-5 (CPython's pickletools lists the same; a test
# compares them). The unpickler's dispatch is built from this table.
OPCODES: tuple[OpInfo, ...] = (
    # integers, floats, strings and bytes
    _op("I", "INT", "decimalnl_short", "", "int", 0, "int (or bool) as text"),
    _op("J", "BININT", "int4", "", "int", 1, "4-byte signed int"),
    _op("K", "BININT1", "uint1", "", "int", 1, "1-byte unsigned int"),
    _op("M", "BININT2", "uint2", "", "int", 1, "2-byte unsigned int"),
    _op("L", "LONG", "decimalnl_long", "", "int", 0, "int as text"),
    _op("\x8a", "LONG1", "long1", "", "int", 2, "int of up to 255 bytes"),
    _op("\x8b", "LONG4", "long4", "", "int", 2, "int of up to 2**31 bytes"),
    _op("F", "FLOAT", "floatnl", "", "float", 0, "float as text"),
    _op("G", "BINFLOAT", "float8", "", "float", 1, "8-byte big-endian double"),
    _op("S", "STRING", "stringnl", "", "str", 0, "quoted byte string as text"),
    _op("T", "BINSTRING", "string4", "", "str", 1, "byte string, 4-byte length"),
    _op("U", "SHORT_BINSTRING", "string1", "", "str", 1, "byte string, 1-byte length"),
    _op("V", "UNICODE", "unicodestringnl", "", "str", 0, "raw-unicode-escaped text line"),
    _op("X", "BINUNICODE", "unicodestring4", "", "str", 1, "UTF-8 string, 4-byte length"),
    _op("\x8c", "SHORT_BINUNICODE", "unicodestring1", "", "str", 4, "UTF-8, 1-byte length"),
    _op("\x8d", "BINUNICODE8", "unicodestring8", "", "str", 4, "UTF-8, 8-byte length"),
    _op("B", "BINBYTES", "bytes4", "", "bytes", 3, "bytes, 4-byte length"),
    _op("C", "SHORT_BINBYTES", "bytes1", "", "bytes", 3, "bytes, 1-byte length"),
    _op("\x8e", "BINBYTES8", "bytes8", "", "bytes", 4, "bytes, 8-byte length"),
    _op("\x96", "BYTEARRAY8", "bytearray8", "", "bytearray", 5, "bytearray, 8-byte length"),
    _op("\x97", "NEXT_BUFFER", "none", "", "buffer", 5, "out-of-band buffer (refused)"),
    _op("\x98", "READONLY_BUFFER", "none", "buffer", "buffer", 5, "read-only buffer (refused)"),
    # constants
    _op("N", "NONE", "none", "", "None", 0, "None"),
    _op("\x88", "NEWTRUE", "none", "", "bool", 2, "True"),
    _op("\x89", "NEWFALSE", "none", "", "bool", 2, "False"),
    # containers
    _op("]", "EMPTY_LIST", "none", "", "list", 1, "[]"),
    _op("a", "APPEND", "none", "list any", "list", 0, "list.append(top)"),
    _op("e", "APPENDS", "none", "list mark *", "list", 1, "list.extend(items since mark)"),
    _op("l", "LIST", "none", "mark *", "list", 0, "list of the items since the mark"),
    _op(")", "EMPTY_TUPLE", "none", "", "tuple", 1, "()"),
    _op("t", "TUPLE", "none", "mark *", "tuple", 0, "tuple of the items since the mark"),
    _op("\x85", "TUPLE1", "none", "any", "tuple", 2, "tuple of the top item"),
    _op("\x86", "TUPLE2", "none", "any any", "tuple", 2, "tuple of the top 2 items"),
    _op("\x87", "TUPLE3", "none", "any any any", "tuple", 2, "tuple of the top 3 items"),
    _op("}", "EMPTY_DICT", "none", "", "dict", 1, "{}"),
    _op("d", "DICT", "none", "mark *", "dict", 0, "dict of the pairs since the mark"),
    _op("s", "SETITEM", "none", "dict any any", "dict", 0, "dict[key] = value"),
    _op("u", "SETITEMS", "none", "dict mark *", "dict", 1, "dict.update(pairs since mark)"),
    _op("\x8f", "EMPTY_SET", "none", "", "set", 4, "set()"),
    _op("\x90", "ADDITEMS", "none", "set mark *", "set", 4, "set.update(items since mark)"),
    _op("\x91", "FROZENSET", "none", "mark *", "frozenset", 4, "frozenset of the items"),
    # the stack
    _op("0", "POP", "none", "any", "", 0, "discard the top"),
    _op("2", "DUP", "none", "any", "any any", 0, "push the top again"),
    _op("(", "MARK", "none", "", "mark", 0, "push a mark"),
    _op("1", "POP_MARK", "none", "mark *", "", 1, "discard down to the topmost mark"),
    # the memo
    _op("g", "GET", "decimalnl_short", "", "any", 0, "push memo[n]"),
    _op("h", "BINGET", "uint1", "", "any", 1, "push memo[n]"),
    _op("j", "LONG_BINGET", "uint4", "", "any", 1, "push memo[n]"),
    _op("p", "PUT", "decimalnl_short", "", "", 0, "memo[n] = top"),
    _op("q", "BINPUT", "uint1", "", "", 1, "memo[n] = top"),
    _op("r", "LONG_BINPUT", "uint4", "", "", 1, "memo[n] = top"),
    _op("\x94", "MEMOIZE", "none", "any", "any", 4, "memo[len(memo)] = top"),
    # the extension registry (copyreg): empty in a loading process, as in CPython's default
    _op("\x82", "EXT1", "uint1", "", "any", 2, "extension registry code (refused)"),
    _op("\x83", "EXT2", "uint2", "", "any", 2, "extension registry code (refused)"),
    _op("\x84", "EXT4", "int4", "", "any", 2, "extension registry code (refused)"),
    # globals, calls and objects: records of the neutral model, nothing is called
    _op("c", "GLOBAL", "stringnl_noescape_pair", "", "global", 0, "module.name"),
    _op("\x93", "STACK_GLOBAL", "none", "str str", "global", 4, "module.name from the stack"),
    _op("R", "REDUCE", "none", "global tuple", "Reduce", 0, "func(*args)"),
    _op("b", "BUILD", "none", "any state", "any", 0, "set the state of the top"),
    _op("i", "INST", "stringnl_noescape_pair", "mark *", "Object", 0, "cls(*items)"),
    _op("o", "OBJ", "none", "mark global *", "Object", 1, "cls(*items)"),
    _op("\x81", "NEWOBJ", "none", "global tuple", "Object", 2, "cls.__new__(cls, *args)"),
    _op("\x92", "NEWOBJ_EX", "none", "global tuple dict", "Object", 4,
        "cls.__new__(cls, *args, **kwargs)"),
    _op("P", "PERSID", "stringnl_noescape", "", "PersistentId", 0, "persistent id as text"),
    _op("Q", "BINPERSID", "none", "any", "PersistentId", 1, "persistent id from the stack"),
    # framing
    _op("\x80", "PROTO", "uint1", "", "", 2, "protocol version"),
    _op("\x95", "FRAME", "uint8", "", "", 4, "length of the next frame (a read-ahead hint)"),
    _op(".", "STOP", "none", "any", "", 0, "end of the pickle; the top is the result"),
)


class Op:
    """Pickle opcode bytes by name (`Op.MARK == 0x28`), made from OPCODES."""


for _info in OPCODES:
    setattr(Op, _info.name, _info.code)
OPCODE_BY_BYTE: dict[int, OpInfo] = {info.code: info for info in OPCODES}


HIGHEST_PROTOCOL = 5   # the newest pickle protocol the unpickler understands
TORCHSCRIPT_PROTOCOL = 2  # the protocol TorchScript archives are written with
