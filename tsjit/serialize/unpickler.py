"""A restricted unpickler for the pickles inside TorchScript archives.

Written from scratch (no `pickle.Unpickler`): a table-driven loop over the opcodes of
protocols 0-2 and the data opcodes of 3-5. It never imports or calls anything. Globals
must pass an allow-list before anything is built from them; what a pickle would call
becomes a neutral record (`Object`, `Reduce`, `PersistentId`, see `pickle_format`).
Every malformed input is reported as `UnpicklingError` naming the record and the offset.
"""
from __future__ import annotations

import codecs
import struct
from typing import Any, Callable, Optional

from tsjit.serialize.errors import UnpicklingError
from tsjit.serialize.pickle_format import (
    HIGHEST_PROTOCOL, STORAGE_DTYPES, Global, MemoTuple, Object, Op, PersistentId, Reduce)

AllowFn = Callable[[str, str], bool]

# Exactly the globals PyTorch 2.13's TorchScript pickler writes (checked on the corpus,
# plus `torch.device`, which it writes for device-valued attributes).
DEFAULT_ALLOWED_GLOBALS: frozenset[tuple[str, str]] = frozenset(
    [("torch._utils", "_rebuild_tensor_v2"),
     ("collections", "OrderedDict"),
     ("torch", "device")]
    + [("torch", storage) for storage in STORAGE_DTYPES]
    + [("torch.jit._pickle", name) for name in (
        "restore_type_tag", "build_intlist", "build_doublelist", "build_boollist",
        "build_tensorlist", "build_tensor_from_id")])

_TORCH_CLASS_ROOT = "__torch__"  # the archive's own classes live under this module


def default_allowed(module: str, name: str) -> bool:
    """The default allow-list: PyTorch's helper globals and the archive's `__torch__.*` classes."""
    if module == _TORCH_CLASS_ROOT or module.startswith(_TORCH_CLASS_ROOT + "."):
        return bool(name) and "\n" not in name
    return (module, name) in DEFAULT_ALLOWED_GLOBALS


def unpickle(data: bytes, record_name: str, allowed: Optional[AllowFn] = None) -> Any:
    """Read one pickle into the neutral object model; `record_name` is used in errors."""
    return _Unpickler(bytes(data), record_name, allowed or default_allowed).load()


_UNPACK_I4 = struct.Struct("<i").unpack_from
_UNPACK_U4 = struct.Struct("<I").unpack_from
_UNPACK_U2 = struct.Struct("<H").unpack_from
_UNPACK_U8 = struct.Struct("<Q").unpack_from
_UNPACK_F8 = struct.Struct(">d").unpack_from


class _Stop(Exception):
    """Raised by the STOP handler to leave the loop."""


class _Unpickler:
    """State of one unpickling run: input, position, stack, mark stack and memo."""

    def __init__(self, data: bytes, record: str, allowed: AllowFn) -> None:
        self.data = data
        self.record = record
        self.allowed = allowed
        self.pos = 0
        self.op_pos = 0        # offset of the opcode being executed, for errors
        self.stack: list[Any] = []
        self.metastack: list[list[Any]] = []
        self.memo: dict[int, Any] = {}
        self.built: set[int] = set()   # ids of Objects that BUILD already gave a state
        self.result: Any = None

    # ----------------------------------------------------------------- driver

    def load(self) -> Any:
        # The opcodes TorchScript pickles consist of are inlined here, in the order of how
        # often they occur (the loop is most of the time of loading a small archive): each
        # takes only its regular case and leaves anything else (too few bytes or items, a
        # wrong type) to its handler in _DISPATCH, which repeats the step with all checks
        # and reports the error. The rest of the opcodes always go to their handlers.
        data, table = self.data, _DISPATCH
        end = len(data)
        memo, metastack, built = self.memo, self.metastack, self.built
        stack = self.stack
        pos = op_pos = 0
        try:
            while pos < end:
                op = data[pos]
                op_pos = pos
                pos += 1
                if op == 0x68:                                  # BINGET
                    if pos < end and data[pos] in memo:
                        stack.append(memo[data[pos]])
                        pos += 1
                        continue
                elif op == 0x28:                                # MARK
                    metastack.append(stack)
                    stack = []
                    continue
                elif op == 0x71 or op == 0x94:                  # BINPUT, MEMOIZE
                    if stack and (op == 0x94 or pos < end):
                        if op == 0x71:
                            index = data[pos]
                            pos += 1
                        else:
                            index = len(memo)
                        value = stack[-1]
                        kind = type(value)
                        if kind is tuple:
                            value = stack[-1] = MemoTuple(value)
                        elif kind is Object or kind is Reduce or kind is PersistentId:
                            value.memo = True
                        memo[index] = value
                        continue
                elif op == 0x74:                                # TUPLE
                    if metastack:
                        items = tuple(stack)
                        stack = metastack.pop()
                        stack.append(items)
                        continue
                elif op == 0x4D:                                # BININT2
                    if pos + 2 <= end:
                        stack.append(data[pos] | data[pos + 1] << 8)
                        pos += 2
                        continue
                elif op == 0x4B:                                # BININT1
                    if pos < end:
                        stack.append(data[pos])
                        pos += 1
                        continue
                elif op == 0x52:                                # REDUCE
                    if len(stack) > 1 and type(stack[-2]) is Global and \
                            isinstance(stack[-1], tuple):
                        args = tuple(stack.pop())
                        stack[-1] = Reduce(stack[-1], args, False)
                        continue
                elif op == 0x29:                                # EMPTY_TUPLE
                    stack.append(())
                    continue
                elif op == 0x58 or op == 0x8C:                  # BINUNICODE, SHORT_
                    if op == 0x58:
                        size = _UNPACK_U4(data, pos)[0] if pos + 4 <= end else end
                        start = pos + 4
                    else:
                        size = data[pos] if pos < end else end
                        start = pos + 1
                    if start + size <= end:
                        # surrogatepass: Python's pickle writes lone surrogates that way
                        stack.append(data[start:start + size].decode("utf-8", "surrogatepass"))
                        pos = start + size
                        continue
                elif op == 0x51:                                # BINPERSID
                    if stack and isinstance(stack[-1], tuple):
                        stack[-1] = PersistentId(tuple(stack[-1]), False)
                        continue
                elif op == 0x88:                                # NEWTRUE
                    stack.append(True)
                    continue
                elif op == 0x89:                                # NEWFALSE
                    stack.append(False)
                    continue
                elif op == 0x4E:                                # NONE
                    stack.append(None)
                    continue
                elif op == 0x81:                                # NEWOBJ
                    if len(stack) > 1 and type(stack[-2]) is Global and stack[-1] == ():
                        stack.pop()
                        stack[-1] = Object(stack[-1], None, False)
                        continue
                elif op == 0x7D:                                # EMPTY_DICT
                    stack.append({})
                    continue
                elif op == 0x75:                                # SETITEMS
                    if metastack and metastack[-1] and type(metastack[-1][-1]) is dict and \
                            not len(stack) % 2:
                        items = stack
                        stack = metastack.pop()
                        target = stack[-1]
                        for i in range(0, len(items), 2):
                            target[items[i]] = items[i + 1]
                        continue
                elif op == 0x62:                                # BUILD
                    if len(stack) > 1 and type(stack[-2]) is Object and \
                            id(stack[-2]) not in built:
                        state = stack.pop()
                        built.add(id(stack[-1]))
                        stack[-1].state = state
                        continue
                elif op == 0x2E:                                # STOP
                    if not metastack and len(stack) == 1:
                        self.result = stack.pop()
                        break
                elif op == 0x4A:                                # BININT
                    if pos + 4 <= end:
                        stack.append(_UNPACK_I4(data, pos)[0])
                        pos += 4
                        continue
                elif op == 0x5D:                                # EMPTY_LIST
                    stack.append([])
                    continue
                handler = table[op]
                if handler is None:
                    raise self.error(f"unknown or unsupported opcode {op:#04x} ({chr(op)!r})",
                                     op_pos)
                self.stack, self.pos, self.op_pos = stack, pos, op_pos
                handler(self)
                stack, pos = self.stack, self.pos
            else:
                raise self.error("pickle ends without STOP", pos)
        except _Stop:
            pos = self.pos
        except UnpicklingError:
            raise
        except (IndexError, KeyError, TypeError, ValueError, OverflowError, struct.error,
                UnicodeError, MemoryError, RecursionError) as exc:
            # A malformed pickle must never escape as a bare Python error.
            raise self.error(f"malformed pickle ({type(exc).__name__}: {exc})", op_pos) from exc
        if pos != end:
            raise self.error(f"{end - pos} bytes of trailing data after STOP", pos)
        return self.result

    def error(self, what: str, offset: Optional[int] = None) -> UnpicklingError:
        """An UnpicklingError naming the record and the offset of the current opcode."""
        off = self.op_pos if offset is None else offset
        return UnpicklingError(f"{what} in {self.record} at offset {off}",
                               record=self.record, offset=off)

    # ----------------------------------------------------------------- input

    def read(self, n: int) -> bytes:
        """The next `n` bytes; a truncated pickle is an error, not a short read."""
        start = self.pos
        if n < 0 or start + n > len(self.data):
            raise self.error(f"truncated pickle: needed {n} bytes, "
                             f"{len(self.data) - start} left")
        self.pos = start + n
        return self.data[start:start + n]

    def readline(self) -> bytes:
        """A text argument of protocol 0, without its newline."""
        nl = self.data.find(b"\n", self.pos)
        if nl < 0:
            raise self.error("truncated pickle: text argument without newline")
        line = self.data[self.pos:nl]
        self.pos = nl + 1
        return line

    def read_u1(self) -> int:
        pos = self.pos          # (the most frequent read: memo indexes, short lengths)
        if pos >= len(self.data):
            raise self.error("truncated pickle: needed 1 bytes, 0 left")
        self.pos = pos + 1
        return self.data[pos]

    def read_u4(self) -> int:
        return _UNPACK_U4(self.read(4))[0]

    def read_u8(self) -> int:
        return _UNPACK_U8(self.read(8))[0]

    # ----------------------------------------------------------------- stack

    def pop(self) -> Any:
        if not self.stack:
            raise self.error("stack underflow")
        return self.stack.pop()

    def top(self) -> Any:
        if not self.stack:
            raise self.error("stack underflow")
        return self.stack[-1]

    def pop_mark(self) -> list[Any]:
        """The items pushed since the topmost MARK; the mark is removed."""
        if not self.metastack:
            raise self.error("no MARK on the stack")
        items = self.stack
        self.stack = self.metastack.pop()
        return items

    def push(self, value: Any) -> None:
        self.stack.append(value)

    # ----------------------------------------------------------------- memo

    def memo_get(self, index: int) -> None:
        try:
            self.push(self.memo[index])
        except KeyError:
            raise self.error(f"bad memo index {index}") from None

    def memo_put(self, index: int) -> None:
        value = self.top()
        # Remember that the pickle memoized it, so that writing it again does the same.
        if isinstance(value, (Object, Reduce, PersistentId)):
            value.memo = True
        elif type(value) is tuple:
            value = MemoTuple(value)
            self.stack[-1] = value
        self.memo[index] = value

    def check_global(self, module: str, name: str) -> Global:
        """The Global for module.name, if the allow-list lets it in."""
        if not self.allowed(module, name):
            raise self.error(f"forbidden global '{module}.{name}'")
        return Global(module, name)


# --------------------------------------------------------------------- handlers
# One function per opcode, each taking the _Unpickler; _DISPATCH maps byte -> handler.

def _proto(u: _Unpickler) -> None:
    version = u.read_u1()
    if version > HIGHEST_PROTOCOL:
        raise u.error(f"unsupported pickle protocol {version}")


def _frame(u: _Unpickler) -> None:
    size = u.read_u8()
    if u.pos + size > len(u.data):   # frames only group opcodes; check and read on
        raise u.error(f"truncated pickle: frame of {size} bytes")


def _stop(u: _Unpickler) -> None:
    if u.metastack:
        raise u.error("STOP inside an unclosed MARK")
    if len(u.stack) != 1:
        raise u.error(f"STOP with {len(u.stack)} items on the stack, expected 1")
    u.result = u.stack.pop()
    raise _Stop


def _mark(u: _Unpickler) -> None:
    u.metastack.append(u.stack)
    u.stack = []


def _pop(u: _Unpickler) -> None:
    if u.stack:
        u.stack.pop()
    elif u.metastack:
        u.pop_mark()   # POP with an empty frame discards the mark itself, as CPython does
    else:
        raise u.error("stack underflow")


def _pop_mark(u: _Unpickler) -> None:
    u.pop_mark()


def _int_text(u: _Unpickler) -> None:
    line = u.readline()
    if line == b"00":
        u.push(False)
    elif line == b"01":
        u.push(True)
    else:
        u.push(int(line))


def _long_text(u: _Unpickler) -> None:
    line = u.readline()
    u.push(int(line[:-1] if line.endswith(b"L") else line))


def _long_n(u: _Unpickler, size: int) -> None:
    u.push(int.from_bytes(u.read(size), "little", signed=True))


def _string_text(u: _Unpickler) -> None:
    line = u.readline()
    if len(line) < 2 or line[0] != line[-1] or line[:1] not in (b"'", b'"'):
        raise u.error("STRING argument is not quoted")
    u.push(_legacy_str(u, codecs.escape_decode(line[1:-1])[0]))


def _legacy_str(u: _Unpickler, raw: bytes) -> str:
    """Protocol 0-2 byte strings load as str, ASCII only (as Python 3 does by default)."""
    try:
        return raw.decode("ascii")
    except UnicodeDecodeError:
        raise u.error("non-ASCII byte string") from None


def _get_text(u: _Unpickler) -> None:
    u.memo_get(int(u.readline()))


def _put_text(u: _Unpickler) -> None:
    index = int(u.readline())
    if index < 0:
        raise u.error(f"bad memo index {index}")
    u.memo_put(index)


def _global_text(u: _Unpickler) -> None:
    module = u.readline().decode("utf-8")
    name = u.readline().decode("utf-8")
    u.push(u.check_global(module, name))


def _stack_global(u: _Unpickler) -> None:
    name = u.pop()
    module = u.pop()
    if type(module) is not str or type(name) is not str:
        raise u.error("STACK_GLOBAL needs two strings")
    u.push(u.check_global(module, name))


def _reduce(u: _Unpickler) -> None:
    args = u.pop()
    func = u.pop()
    if not isinstance(func, Global):
        raise u.error(f"REDUCE of a {type(func).__name__}, expected a global")
    if not isinstance(args, tuple):
        raise u.error(f"REDUCE with {type(args).__name__} arguments, expected a tuple")
    u.push(Reduce(func, tuple(args), memo=False))


def _new_object(u: _Unpickler, cls: Any, args: Any, kwargs: Any = None) -> None:
    if not isinstance(cls, Global):
        raise u.error(f"NEWOBJ of a {type(cls).__name__}, expected a global")
    if args != () or kwargs:
        raise u.error("NEWOBJ with arguments is not supported")
    u.push(Object(cls, None, memo=False))


def _newobj(u: _Unpickler) -> None:
    args = u.pop()
    _new_object(u, u.pop(), args)


def _newobj_ex(u: _Unpickler) -> None:
    kwargs = u.pop()
    args = u.pop()
    _new_object(u, u.pop(), args, kwargs)


def _build(u: _Unpickler) -> None:
    state = u.pop()
    obj = u.top()
    if not isinstance(obj, Object):
        raise u.error(f"BUILD on a {type(obj).__name__}, expected an object made by NEWOBJ")
    if id(obj) in u.built:
        raise u.error("BUILD on an object that already has a state")
    u.built.add(id(obj))
    obj.state = state


def _binpersid(u: _Unpickler) -> None:
    pid = u.pop()
    if not isinstance(pid, tuple):
        raise u.error(f"persistent id is a {type(pid).__name__}, expected a tuple")
    u.push(PersistentId(tuple(pid), memo=False))


def _tuple_n(u: _Unpickler, n: int) -> None:
    if len(u.stack) < n:
        raise u.error("stack underflow")
    items = tuple(u.stack[len(u.stack) - n:])
    del u.stack[len(u.stack) - n:]
    u.push(items)


def _append(u: _Unpickler) -> None:
    value = u.pop()
    target = u.top()
    if type(target) is not list:
        raise u.error(f"APPEND to a {type(target).__name__}, expected a list")
    target.append(value)


def _appends(u: _Unpickler) -> None:
    items = u.pop_mark()
    target = u.top()
    if type(target) is not list:
        raise u.error(f"APPENDS to a {type(target).__name__}, expected a list")
    target.extend(items)


def _setitem(u: _Unpickler) -> None:
    value = u.pop()
    key = u.pop()
    target = u.top()
    if type(target) is not dict:
        raise u.error(f"SETITEM on a {type(target).__name__}, expected a dict")
    target[key] = value


def _setitems(u: _Unpickler) -> None:
    items = u.pop_mark()
    target = u.top()
    if type(target) is not dict:
        raise u.error(f"SETITEMS on a {type(target).__name__}, expected a dict")
    if len(items) % 2:
        raise u.error("SETITEMS with an odd number of items")
    for i in range(0, len(items), 2):
        target[items[i]] = items[i + 1]


def _dict_from_mark(u: _Unpickler) -> None:
    items = u.pop_mark()
    if len(items) % 2:
        raise u.error("DICT with an odd number of items")
    u.push({items[i]: items[i + 1] for i in range(0, len(items), 2)})


def _additems(u: _Unpickler) -> None:
    items = u.pop_mark()
    target = u.top()
    if type(target) is not set:
        raise u.error(f"ADDITEMS to a {type(target).__name__}, expected a set")
    target.update(items)


def _utf8(u: _Unpickler, size: int) -> None:
    # surrogatepass: Python's pickle writes lone surrogates that way
    u.push(u.read(size).decode("utf-8", "surrogatepass"))


def _unsupported(what: str) -> Callable[[_Unpickler], None]:
    def handler(u: _Unpickler) -> None:
        raise u.error(f"{what} are not supported")
    return handler


_H = Callable[[_Unpickler], None]
_HANDLERS: dict[int, _H] = {
    Op.PROTO: _proto,
    Op.FRAME: _frame,
    Op.STOP: _stop,
    Op.MARK: _mark,
    Op.POP: _pop,
    Op.POP_MARK: _pop_mark,
    Op.DUP: lambda u: u.push(u.top()),
    Op.NONE: lambda u: u.push(None),
    Op.NEWTRUE: lambda u: u.push(True),
    Op.NEWFALSE: lambda u: u.push(False),
    Op.INT: _int_text,
    Op.BININT: lambda u: u.push(_UNPACK_I4(u.read(4))[0]),
    Op.BININT1: lambda u: u.push(u.read_u1()),
    Op.BININT2: lambda u: u.push(_UNPACK_U2(u.read(2))[0]),
    Op.LONG: _long_text,
    Op.LONG1: lambda u: _long_n(u, u.read_u1()),
    Op.LONG4: lambda u: _long_n(u, _UNPACK_I4(u.read(4))[0]),
    Op.FLOAT: lambda u: u.push(float(u.readline())),
    Op.BINFLOAT: lambda u: u.push(_UNPACK_F8(u.read(8))[0]),
    Op.STRING: _string_text,
    Op.BINSTRING: lambda u: u.push(_legacy_str(u, u.read(_UNPACK_I4(u.read(4))[0]))),
    Op.SHORT_BINSTRING: lambda u: u.push(_legacy_str(u, u.read(u.read_u1()))),
    Op.UNICODE: lambda u: u.push(u.readline().decode("raw-unicode-escape")),
    Op.BINUNICODE: lambda u: _utf8(u, u.read_u4()),
    Op.SHORT_BINUNICODE: lambda u: _utf8(u, u.read_u1()),
    Op.BINUNICODE8: lambda u: _utf8(u, u.read_u8()),
    Op.BINBYTES: lambda u: u.push(u.read(u.read_u4())),
    Op.SHORT_BINBYTES: lambda u: u.push(u.read(u.read_u1())),
    Op.BINBYTES8: lambda u: u.push(u.read(u.read_u8())),
    Op.BYTEARRAY8: lambda u: u.push(bytearray(u.read(u.read_u8()))),
    Op.EMPTY_TUPLE: lambda u: u.push(()),
    Op.TUPLE: lambda u: u.push(tuple(u.pop_mark())),
    Op.TUPLE1: lambda u: _tuple_n(u, 1),
    Op.TUPLE2: lambda u: _tuple_n(u, 2),
    Op.TUPLE3: lambda u: _tuple_n(u, 3),
    Op.EMPTY_LIST: lambda u: u.push([]),
    Op.LIST: lambda u: u.push(u.pop_mark()),
    Op.APPEND: _append,
    Op.APPENDS: _appends,
    Op.EMPTY_DICT: lambda u: u.push({}),
    Op.DICT: _dict_from_mark,
    Op.SETITEM: _setitem,
    Op.SETITEMS: _setitems,
    Op.EMPTY_SET: lambda u: u.push(set()),
    Op.ADDITEMS: _additems,
    Op.FROZENSET: lambda u: u.push(frozenset(u.pop_mark())),
    Op.GET: _get_text,
    Op.BINGET: lambda u: u.memo_get(u.read_u1()),
    Op.LONG_BINGET: lambda u: u.memo_get(u.read_u4()),
    Op.PUT: _put_text,
    Op.BINPUT: lambda u: u.memo_put(u.read_u1()),
    Op.LONG_BINPUT: lambda u: u.memo_put(u.read_u4()),
    Op.MEMOIZE: lambda u: u.memo_put(len(u.memo)),
    Op.GLOBAL: _global_text,
    Op.STACK_GLOBAL: _stack_global,
    Op.REDUCE: _reduce,
    Op.NEWOBJ: _newobj,
    Op.NEWOBJ_EX: _newobj_ex,
    Op.BUILD: _build,
    Op.BINPERSID: _binpersid,
    Op.PERSID: _unsupported("text persistent ids (PERSID)"),
    Op.INST: _unsupported("protocol 0 instances (INST)"),
    Op.OBJ: _unsupported("protocol 1 instances (OBJ)"),
    Op.EXT1: _unsupported("extension registry codes (EXT1)"),
    Op.EXT2: _unsupported("extension registry codes (EXT2)"),
    Op.EXT4: _unsupported("extension registry codes (EXT4)"),
    Op.NEXT_BUFFER: _unsupported("out-of-band buffers (NEXT_BUFFER)"),
    Op.READONLY_BUFFER: _unsupported("out-of-band buffers (READONLY_BUFFER)"),
}

_DISPATCH: list[Optional[_H]] = [None] * 256
for _op, _handler in _HANDLERS.items():
    _DISPATCH[_op] = _handler
