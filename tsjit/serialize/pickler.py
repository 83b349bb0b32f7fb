"""Write neutral pickle values (see `pickle_format`) the way PyTorch 2.13's TorchScript
pickler does, protocol 2, byte for byte; and (`pickle_python`) the way Python's own pickler
writes them, which is what `torch.save` files hold.

The conventions, learned from the archives PyTorch writes:

* ``PROTO 2`` first, ``STOP`` last, no FRAME; one memo counter for everything, BINPUT for
  indices < 256 and LONG_BINPUT above (BINGET / LONG_BINGET likewise).
* Strings: always BINUNICODE, memoized *by value* (a repeated string is a BINGET).
* Globals: ``GLOBAL "module\\nname\\n"``, memoized by (module, name).
* Ints: BININT1 for 0..255, BININT2 for 256..65535, BININT for the rest of int32, LONG1
  with 8 bytes for the rest of int64 (beyond int64, Python's minimal LONG1 / LONG4).
  Floats: BINFLOAT. Booleans: NEWTRUE / NEWFALSE. None: NONE.
* Containers are memoized *after* they are complete, and only when PyTorch held another
  reference to them when saving: objects (``GLOBAL; EMPTY_TUPLE; NEWOBJ; state; BUILD``),
  persistent ids (``pid tuple; BINPERSID``), tensors (``_rebuild_tensor_v2`` reductions)
  and devices always; other reductions, lists, dicts and tuples only when shared (or when
  the value read says so: `memo` fields, `MemoTuple`). Object state dicts never.
* Lists: ``EMPTY_LIST MARK items APPENDS`` and dicts ``EMPTY_DICT MARK k v ... SETITEMS``,
  even when empty and however long (no batching at 1000 as Python's pickle does).
* Tuples built as TorchScript values: EMPTY_TUPLE, TUPLE1..3, else ``MARK ... TUPLE``.
  Tuples PyTorch writes literally (persistent ids, the arguments of `_rebuild_tensor_v2`
  with its size and stride tuples, and of `torch.jit._pickle.build_*`) are always
  ``MARK ... TUPLE``, even when empty or short.
"""
from __future__ import annotations

import _compat_pickle
import struct
from typing import Any

from tsjit.serialize.errors import PicklingError
from tsjit.serialize.pickle_format import (
    REBUILD_TENSOR_V2, TORCH_DEVICE, TORCHSCRIPT_PROTOCOL, Global, MemoTuple, Object, Op,
    PersistentId, Reduce)

_PACK_U4 = struct.Struct("<I").pack
_PACK_I4 = struct.Struct("<i").pack
_PACK_U2 = struct.Struct("<H").pack
_PACK_F8 = struct.Struct(">d").pack

_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_BYTE_LIMIT = 256            # 1-byte operands (BININT1, BINPUT, BINGET, LONG1 length ...)
_SHORT_LIMIT = 1 << 16       # BININT2 operands
_JIT_PICKLE_MODULE = "torch.jit._pickle"

# Reductions PyTorch memoizes even when nothing else in the pickle refers to them.
_ALWAYS_MEMOIZED_REDUCTIONS = (REBUILD_TENSOR_V2, TORCH_DEVICE)

# Kinds of values whose identity matters: shared ones are memoized once.
_IDENTITY_TYPES = (list, dict, tuple, MemoTuple, Object, Reduce, PersistentId)


def pickle_value(obj: Any) -> bytes:
    """The protocol-2 pickle of a neutral value, as PyTorch's TorchScript pickler writes it."""
    return _Pickler().dump(obj)


def _literal_args(func: Global) -> bool:
    """Whether PyTorch writes the argument tuple of `func` literally (MARK ... TUPLE)."""
    return func is REBUILD_TENSOR_V2 or (
        func.module == _JIT_PICKLE_MODULE and func.name.startswith("build_"))


class _Pickler:
    """State of one pickling run: output, memo counter, string/global/object memos."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.next_memo = 0
        self.strings: dict[str, int] = {}
        self.globals: dict[tuple[str, str], int] = {}
        self.objects: dict[int, int] = {}        # id(value) -> memo index
        self.refcount: dict[int, int] = {}       # id(value) -> references in the value
        self.in_progress: set[int] = set()       # ids being written, to catch cycles

    def dump(self, obj: Any) -> bytes:
        try:
            self.count_refs(obj)
            self.out += bytes((Op.PROTO, TORCHSCRIPT_PROTOCOL))
            self.save(obj, False)
            self.out.append(Op.STOP)
        except RecursionError:
            raise PicklingError("value is nested too deeply to pickle") from None
        return bytes(self.out)

    # ----------------------------------------------------------------- sharing

    def count_refs(self, obj: Any) -> None:
        """Count how often each identity-carrying value is referenced."""
        t = type(obj)
        if t not in _IDENTITY_TYPES or (t is tuple and not obj):
            return
        key = id(obj)
        seen = self.refcount.get(key, 0)
        self.refcount[key] = seen + 1
        if seen:
            return
        if t is list or t is tuple or t is MemoTuple:
            for item in obj:
                self.count_refs(item)
        elif t is dict:
            for k, v in obj.items():
                self.count_refs(k)
                self.count_refs(v)
        elif t is Object:
            self.count_refs(obj.state)
        elif t is Reduce:
            self.count_refs(obj.args)
        else:
            self.count_refs(obj.pid)

    def should_memo(self, obj: Any) -> bool:
        if self.refcount.get(id(obj), 0) > 1:
            return True   # shared: memoizing keeps it one object when read back
        t = type(obj)
        if t is MemoTuple:
            return True
        if t is Object or t is PersistentId:
            return obj.memo is None or obj.memo
        if t is Reduce:
            if obj.memo is None:
                return obj.func in _ALWAYS_MEMOIZED_REDUCTIONS
            return obj.memo
        return False

    # ----------------------------------------------------------------- memo opcodes

    def put(self) -> int:
        index = self.next_memo
        self.next_memo += 1
        if index < _BYTE_LIMIT:
            self.out += bytes((Op.BINPUT, index))
        else:
            self.out.append(Op.LONG_BINPUT)
            self.out += _PACK_U4(index)
        return index

    def get(self, index: int) -> None:
        if index < _BYTE_LIMIT:
            self.out += bytes((Op.BINGET, index))
        else:
            self.out.append(Op.LONG_BINGET)
            self.out += _PACK_U4(index)

    # ----------------------------------------------------------------- values

    def save(self, obj: Any, literal: bool) -> None:
        """Write `obj`; `literal`: tuples in it are written MARK ... TUPLE."""
        t = type(obj)
        if obj is None:
            self.out.append(Op.NONE)
        elif t is bool:
            self.out.append(Op.NEWTRUE if obj else Op.NEWFALSE)
        elif t is int:
            self.save_int(obj)
        elif t is float:
            self.out.append(Op.BINFLOAT)
            self.out += _PACK_F8(obj)
        elif t is str:
            self.save_str(obj)
        elif t is bytes:
            self.save_bytes(obj)
        elif t is Global:
            self.save_global(obj)
        elif t in _IDENTITY_TYPES:
            self.save_shared(obj, literal)
        else:
            raise PicklingError(f"cannot pickle a value of type {t.__name__}")

    def save_int(self, n: int) -> None:
        out = self.out
        if 0 <= n < _BYTE_LIMIT:
            out += bytes((Op.BININT1, n))
        elif 0 <= n < _SHORT_LIMIT:
            out.append(Op.BININT2)
            out += _PACK_U2(n)
        elif _INT32_MIN <= n <= _INT32_MAX:
            out.append(Op.BININT)
            out += _PACK_I4(n)
        elif _INT64_MIN <= n <= _INT64_MAX:
            out += bytes((Op.LONG1, 8))     # PyTorch always writes int64 as 8 bytes
            out += n.to_bytes(8, "little", signed=True)
        else:
            encoded = _encode_long(n)
            if len(encoded) < _BYTE_LIMIT:
                out += bytes((Op.LONG1, len(encoded)))
            else:
                out.append(Op.LONG4)
                out += _PACK_I4(len(encoded))
            out += encoded

    def save_str(self, s: str) -> None:
        index = self.strings.get(s)
        if index is not None:
            self.get(index)
            return
        encoded = s.encode("utf-8", "surrogatepass")
        self.out.append(Op.BINUNICODE)
        self.out += _PACK_U4(len(encoded))
        self.out += encoded
        self.strings[s] = self.put()

    def save_bytes(self, b: bytes) -> None:
        # TorchScript never pickles bytes; protocol 3's opcodes are the plain way to do it.
        if len(b) < _BYTE_LIMIT:
            self.out += bytes((Op.SHORT_BINBYTES, len(b)))
        else:
            self.out.append(Op.BINBYTES)
            self.out += _PACK_U4(len(b))
        self.out += b

    def save_global(self, g: Global) -> None:
        key = (g.module, g.name)
        index = self.globals.get(key)
        if index is not None:
            self.get(index)
            return
        if "\n" in g.module or "\n" in g.name:
            raise PicklingError(f"global name with a newline: {g.qualname!r}")
        self.out.append(Op.GLOBAL)
        self.out += f"{g.module}\n{g.name}\n".encode("utf-8")
        self.globals[key] = self.put()

    def save_shared(self, obj: Any, literal: bool) -> None:
        """Write a value whose identity matters: BINGET if written already, else its body."""
        if type(obj) is tuple and not obj:
            self.save_tuple(obj, literal)   # the empty tuple is a constant, never memoized
            return
        key = id(obj)
        index = self.objects.get(key)
        if index is not None:
            self.get(index)
            return
        if key in self.in_progress:
            raise PicklingError(f"cannot pickle a cyclic value (a {type(obj).__name__} "
                                "contains itself); TorchScript values are acyclic")
        self.in_progress.add(key)
        t = type(obj)
        if t is tuple or t is MemoTuple:
            self.save_tuple(obj, literal)
        elif t is list:
            self.out += bytes((Op.EMPTY_LIST, Op.MARK))
            for item in obj:
                self.save(item, False)
            self.out.append(Op.APPENDS)
        elif t is dict:
            self.out += bytes((Op.EMPTY_DICT, Op.MARK))
            for k, v in obj.items():
                self.save(k, False)
                self.save(v, False)
            self.out.append(Op.SETITEMS)
        elif t is Object:
            self.save_object(obj)
        elif t is Reduce:
            self.save_reduce(obj)
        else:
            self.save_persistent_id(obj)
        self.in_progress.discard(key)
        if self.should_memo(obj):
            self.objects[key] = self.put()

    def save_tuple(self, items: tuple, literal: bool) -> None:
        n = len(items)
        if literal or n > 3:
            self.out.append(Op.MARK)
            for item in items:
                self.save(item, literal)
            self.out.append(Op.TUPLE)
        elif n == 0:
            self.out.append(Op.EMPTY_TUPLE)
        else:
            for item in items:
                self.save(item, False)
            self.out.append((Op.TUPLE1, Op.TUPLE2, Op.TUPLE3)[n - 1])

    def save_object(self, obj: Object) -> None:
        if type(obj.cls) is not Global:
            raise PicklingError(f"object class must be a Global, not {type(obj.cls).__name__}")
        self.save_global(obj.cls)
        self.out += bytes((Op.EMPTY_TUPLE, Op.NEWOBJ))
        self.save(obj.state, False)
        self.out.append(Op.BUILD)

    def save_reduce(self, red: Reduce) -> None:
        if type(red.func) is not Global:
            raise PicklingError(f"reduce function must be a Global, not {type(red.func).__name__}")
        if not isinstance(red.args, tuple):
            raise PicklingError(f"arguments of {red.func.qualname} must be a tuple")
        self.save_global(red.func)
        if red.func.module.startswith("__torch__") and len(red.args) == 1:
            self.save(red.args[0], False)    # an enum value: its value, not a tuple
        else:
            self.save_shared(red.args, _literal_args(red.func))
        self.out.append(Op.REDUCE)

    def save_persistent_id(self, pid: PersistentId) -> None:
        if not isinstance(pid.pid, tuple):
            raise PicklingError("a persistent id must be a tuple")
        self.save_shared(pid.pid, True)
        self.out.append(Op.BINPERSID)


def _encode_long(n: int) -> bytes:
    """Minimal little-endian two's complement bytes of `n`, as Python's pickle writes them."""
    nbytes = (n.bit_length() >> 3) + 1
    encoded = n.to_bytes(nbytes, "little", signed=True)
    if n < 0 and nbytes > 1 and encoded[-1] == 0xFF and (encoded[-2] & 0x80):
        encoded = encoded[:-1]
    return encoded


# ------------------------------------------------------------------------ Python's pickle

# Python's pickler writes lists and dicts in APPENDS / SETITEMS batches of this many items.
_PYTHON_BATCH = 1000
_CODECS_ENCODE = Global("_codecs", "encode")
_LATIN1 = "latin1"
_PYTHON_PROTOCOLS = (2, 3)


def pickle_python(obj: Any, protocol: int = 2) -> bytes:
    """The pickle Python's pickler (and so `torch.save`) writes for neutral value `obj`,
    protocol 2 or 3, byte for byte; values are memoized by identity as Python does."""
    if protocol not in _PYTHON_PROTOCOLS:
        raise PicklingError(f"pickle protocol {protocol} is not written (tsjit writes "
                            "protocols 2 and 3; PyTorch's weights-only loader reads no "
                            "protocol above 3)")
    return _PythonPickler(protocol).dump(obj)


class _PythonPickler(_Pickler):
    """Python's conventions: every str, tuple, list, dict, global, reduction and object is
    memoized (BINPUT) once, by identity, lists and dicts before their items; ints in the
    fewest bytes; bytes as `_codecs.encode` below protocol 3; Python 3 module names mapped
    back to Python 2's (`builtins` -> `__builtin__`) below protocol 3, as `fix_imports`."""

    def __init__(self, protocol: int) -> None:
        super().__init__()
        self.protocol = protocol
        self.keep: list[Any] = []        # memoized values stay alive: their ids stay unique
        self.reduced_bytes: dict[int, Reduce] = {}

    def dump(self, obj: Any) -> bytes:
        try:
            self.out += bytes((Op.PROTO, self.protocol))
            self.save(obj, False)
            self.out.append(Op.STOP)
        except RecursionError:
            raise PicklingError("value is nested too deeply to pickle") from None
        return bytes(self.out)

    def memoize(self, obj: Any) -> None:
        self.objects[id(obj)] = self.put()
        self.keep.append(obj)

    def memo_get(self, obj: Any) -> bool:
        index = self.objects.get(id(obj))
        if index is None:
            return False
        self.get(index)
        return True

    def save_int(self, n: int) -> None:
        if 0 <= n < _SHORT_LIMIT or _INT32_MIN <= n <= _INT32_MAX:
            super().save_int(n)
            return
        encoded = _encode_long(n)
        if len(encoded) < _BYTE_LIMIT:
            self.out += bytes((Op.LONG1, len(encoded)))
        else:
            self.out.append(Op.LONG4)
            self.out += _PACK_I4(len(encoded))
        self.out += encoded

    def save_str(self, s: str) -> None:
        if self.memo_get(s):
            return
        encoded = s.encode("utf-8", "surrogatepass")
        self.out.append(Op.BINUNICODE)
        self.out += _PACK_U4(len(encoded))
        self.out += encoded
        self.memoize(s)

    def save_bytes(self, b: bytes) -> None:
        if self.protocol >= 3:
            if self.memo_get(b):
                return
            super().save_bytes(b)
            self.memoize(b)
            return
        red = self.reduced_bytes.get(id(b))
        if red is None:
            args = (b.decode("latin-1"), _LATIN1) if b else ()
            red = Reduce(_CODECS_ENCODE if b else Global("builtins", "bytes"), args)
            self.reduced_bytes[id(b)] = red
            self.keep.append(b)
        self.save_shared(red, False)

    def save_global(self, g: Global) -> None:
        if self.protocol < 3:
            key = (g.module, g.name)
            module, name = _compat_pickle.REVERSE_NAME_MAPPING.get(key, key)
            module = _compat_pickle.REVERSE_IMPORT_MAPPING.get(module, module)
            g = Global(module, name)
        super().save_global(g)

    def save_shared(self, obj: Any, literal: bool) -> None:
        t = type(obj)
        if t is tuple and not obj:
            self.out.append(Op.EMPTY_TUPLE)
            return
        if self.memo_get(obj):
            return
        if t is tuple or t is MemoTuple:
            self.save_python_tuple(obj)
        elif t is list:
            self.out.append(Op.EMPTY_LIST)
            self.memoize(obj)
            self.batch_appends(obj, len(obj) == 1)
        elif t is dict:
            self.out.append(Op.EMPTY_DICT)
            self.memoize(obj)
            self.batch_setitems(list(obj.items()), len(obj) == 1)
        elif t is Reduce:
            if type(obj.func) is not Global or not isinstance(obj.args, tuple):
                raise PicklingError("a reduction needs a Global function and a tuple of "
                                    "arguments")
            self.save_global(obj.func)
            self.save(obj.args, False)
            self.out.append(Op.REDUCE)
            self.memoize(obj)
            self.after_reduction(obj.appended, obj.items, obj.state)
        elif t is Object:
            if type(obj.cls) is not Global:
                raise PicklingError("an object's class must be a Global")
            self.save_global(obj.cls)
            self.save(tuple(obj.args), False)
            self.out.append(Op.NEWOBJ)
            self.memoize(obj)
            self.after_reduction(obj.appended, obj.items, obj.state)
        else:
            if not isinstance(obj.pid, tuple):
                raise PicklingError("a persistent id must be a tuple")
            self.save(obj.pid, False)
            self.out.append(Op.BINPERSID)

    def save_python_tuple(self, items: tuple) -> None:
        n = len(items)
        if n <= 3:
            for item in items:
                self.save(item, False)
            self.out.append((Op.TUPLE1, Op.TUPLE2, Op.TUPLE3)[n - 1])
        else:
            self.out.append(Op.MARK)
            for item in items:
                self.save(item, False)
            self.out.append(Op.TUPLE)
        self.memoize(items)

    def after_reduction(self, appended: Any, items: Any, state: Any) -> None:
        if appended:
            self.batch_appends(list(appended), None)
        if items:
            self.batch_setitems(list(items), None)
        if state is not None:
            self.save(state, False)
            self.out.append(Op.BUILD)

    # `single`: True / False when the container alone decides between APPEND and APPENDS
    # (a list or dict of one item / of any other length: its batches are all MARKed);
    # None for the items after a reduction, where each batch of one is a single APPEND.
    # (This is what CPython's C pickler, the one torch.save uses, does.)
    def batch_appends(self, items: list, single: Any) -> None:
        for start in range(0, len(items), _PYTHON_BATCH):
            batch = items[start:start + _PYTHON_BATCH]
            one = len(batch) == 1 if single is None else single
            if not one:
                self.out.append(Op.MARK)
            for item in batch:
                self.save(item, False)
            self.out.append(Op.APPEND if one else Op.APPENDS)

    def batch_setitems(self, pairs: list, single: Any) -> None:
        for start in range(0, len(pairs), _PYTHON_BATCH):
            batch = pairs[start:start + _PYTHON_BATCH]
            one = len(batch) == 1 if single is None else single
            if not one:
                self.out.append(Op.MARK)
            for k, v in batch:
                self.save(k, False)
                self.save(v, False)
            self.out.append(Op.SETITEM if one else Op.SETITEMS)
