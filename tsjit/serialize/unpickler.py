"""The restricted unpickler: one machine for archives and checkpoints.

Written from scratch (no `pickle.Unpickler`), for every opcode of protocols 0-5. It never
imports or calls anything: globals must pass an allow-list (a parameter: an archive's and
a checkpoint's are two allow-lists over this one machine), and what a pickle would call
becomes a record of the neutral model (`Object`, `Reduce`, `PersistentId`, see
`pickle_format`). Every malformed input is an `UnpicklingError` naming the record and the
offset of the opcode.

The machine is made from the opcode table `pickle_format.OPCODES`, as CPython generates
its evaluation loop from instruction definitions: `_READ` says in a few lines of Python
how each argument kind is read (it sets `arg` and advances `pos`), `_DO` what each opcode
does to the stack (`stack`, the frames below the marks `metastack`, `memo`). `_build_loop`
joins them into one function, a chain of `if op == <byte>` branches, the opcodes
TorchScript and torch.save pickles are made of first (`_HOT`); `_build_scanner` makes a
second one from the same readers that lists the opcodes and arguments without running
them (`disassemble`). The generated source is `LOOP_SOURCE`.
"""
from __future__ import annotations

import codecs
import functools
import linecache
import struct
from typing import Any, Callable, Optional

from tsjit.serialize.errors import UnpicklingError, clipped
from tsjit.serialize.pickle_format import (
    COUNTED, HIGHEST_PROTOCOL, NESTED_KEYS, OPCODE_BY_BYTE, OPCODES, STORAGE_DTYPES, Global,
    MemoTuple, Object, OpInfo, PersistentId, Reduce, key_problem)

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
    """The archive allow-list: PyTorch's helper globals and the archive's `__torch__.*` classes."""
    if module == _TORCH_CLASS_ROOT or module.startswith(_TORCH_CLASS_ROOT + "."):
        return bool(name) and "\n" not in name
    return (module, name) in DEFAULT_ALLOWED_GLOBALS


def unpickle(data: bytes, record_name: str, allowed: Optional[AllowFn] = None) -> Any:
    """Read one pickle into the neutral object model; `record_name` is used in errors."""
    return _run(data if type(data) is bytes else bytes(data), record_name,
                allowed or default_allowed)


def unpickle_prefix(data: Any, start: int, record_name: str,
                    allowed: Optional[AllowFn] = None) -> tuple[Any, int]:
    """The pickle at offset `start` of `data` (bytes or a mapping), and the offset after
    its STOP: for files of several pickles and data (torch.save's legacy format)."""
    return _machine(data, record_name, allowed or default_allowed, start)


def disassemble(data: bytes, record_name: str) -> list[tuple[int, OpInfo, Any]]:
    """(offset, opcode, argument) of each opcode up to STOP, without running any."""
    return _scan(data if type(data) is bytes else bytes(data), record_name)


# ----------------------------------------------------------------------------- helpers
# Called from the generated code for the rarer and the irregular cases.

def _error(record: str, offset: int, what: str) -> UnpicklingError:
    return UnpicklingError(f"{what} in {record} at offset {offset}", record=record, offset=offset)


def _short(record: str, offset: int, needed: int, left: int) -> UnpicklingError:
    return _error(record, offset, f"truncated pickle: needed {needed} bytes, {left} left")


def _global(module: Any, name: Any, allowed: AllowFn, record: str, offset: int) -> Global:
    """The Global for module.name, if the allow-list lets it in."""
    if type(module) is not str or type(name) is not str:
        raise _error(record, offset, "a global needs two strings")
    if not allowed(module, name):
        err = _error(record, offset, f"forbidden global '{module}.{name}'")
        err.forbidden = (module, name)
        raise err
    return Global(module, name)


def _extend(target: Any, items: list, what: str, record: str, offset: int) -> None:
    """APPEND(S) to a list subclass made by NEWOBJ or REDUCE: kept on the record."""
    if type(target) not in (Object, Reduce):
        raise _error(record, offset, f"{what} to a {type(target).__name__}, expected a list")
    if target.appended is None:
        target.appended = []
    target.appended.extend(items)


def _check_keys(keys: Any, record: str, offset: int) -> None:
    """Refuse keys (dict keys, set members) too costly to hash: see `key_problem`."""
    if not NESTED_KEYS.isdisjoint(map(type, keys)):
        for k in keys:
            problem = type(k) in NESTED_KEYS and key_problem(k)
            if problem:
                raise _error(record, offset, f"a dict key or set member holds {problem}")


def _setitems(target: Any, items: list, what: str, record: str, offset: int) -> None:
    """SETITEM(S) on a dict or a record (an OrderedDict, a dict subclass)."""
    if len(items) % 2:
        raise _error(record, offset, f"{what} with an odd number of items")
    if type(target) is dict:
        _check_keys(items[::2], record, offset)
        for i in range(0, len(items), 2):
            target[items[i]] = items[i + 1]
    elif type(target) in (Object, Reduce):
        if target.items is None:
            target.items = []
        target.items.extend(zip(items[::2], items[1::2]))
    else:
        raise _error(record, offset, f"{what} on a {type(target).__name__}, expected a dict")


def _dict(items: list, record: str, offset: int) -> dict:
    if len(items) % 2:
        raise _error(record, offset, "DICT with an odd number of items")
    _check_keys(items[::2], record, offset)
    return {items[i]: items[i + 1] for i in range(0, len(items), 2)}


def _build(target: Any, state: Any, built: set, record: str, offset: int) -> None:
    """BUILD: the state of an object or of a call's result, kept on its record."""
    if type(target) not in (Object, Reduce):
        raise _error(record, offset, f"BUILD on a {type(target).__name__}, expected an object")
    if id(target) in built:
        raise _error(record, offset, "BUILD on an object that already has a state")
    built.add(id(target))
    target.state = state


def _new_object(cls: Any, args: Any, kwargs: Any, what: str, record: str,
                offset: int) -> Object:
    if type(cls) is not Global:
        raise _error(record, offset, f"{what} of a {type(cls).__name__}, expected a global")
    if not isinstance(args, tuple) or type(kwargs) is not dict:
        raise _error(record, offset, f"{what} with arguments that are not a tuple")
    return Object(cls, None, False, tuple(args), kwargs or None)


def _reduce(func: Any, args: Any, record: str, offset: int) -> Reduce:
    if type(func) is not Global:
        raise _error(record, offset, f"REDUCE of a {type(func).__name__}, expected a global")
    if not isinstance(args, tuple):
        if func.module.startswith("__torch__") and type(args) in (int, float, str):
            # TorchScript pickles an enum value as `GLOBAL <enum class>; <value>; REDUCE`
            return Reduce(func, (args,), False)
        raise _error(record, offset,
                     f"REDUCE with {type(args).__name__} arguments, expected a tuple")
    return Reduce(func, tuple(args), False)


def _persistent_id(pid: Any, record: str, offset: int) -> PersistentId:
    if not isinstance(pid, tuple):
        raise _error(record, offset, f"persistent id is a {type(pid).__name__}, expected a tuple")
    return PersistentId(tuple(pid), False)


def _memo_index(arg: Any, record: str, offset: int) -> int:
    if type(arg) is not int or arg < 0:
        raise _error(record, offset, f"bad memo index {arg!r}")
    return arg


def _int_line(line: bytes) -> Any:
    return False if line == b"00" else True if line == b"01" else int(line)


def _long_line(line: bytes) -> int:
    return int(line[:-1] if line.endswith(b"L") else line)


def _quoted(line: bytes, record: str, offset: int) -> str:
    if len(line) < 2 or line[0] != line[-1] or line[:1] not in (b"'", b'"'):
        raise _error(record, offset, "STRING argument is not quoted")
    return _ascii(codecs.escape_decode(line[1:-1])[0], record, offset)


def _ascii(raw: bytes, record: str, offset: int) -> str:
    """Protocol 0-2 byte strings load as str, ASCII only (as Python 3 does by default)."""
    try:
        return raw.decode("ascii")
    except UnicodeDecodeError:
        raise _error(record, offset, "non-ASCII byte string") from None


def _refuse(what: str, record: str, offset: int) -> UnpicklingError:
    return _error(record, offset, what)


# ----------------------------------------------------------------------------- the table's code
# How each argument kind is read: sets `arg`, advances `pos` (a short input is an error).
# `need(N)` checks that N more bytes are there.
_NEED = "if pos + {n} > end: raise _short(record, op_pos, {n}, end - pos)"
_LINE = ("nl = data.find(b'\\n', pos)\n"
         "if nl < 0: raise _error(record, op_pos, 'truncated pickle: text argument without newline')\n"
         "arg = data[pos:nl]\npos = nl + 1")
_COUNTED = ("need({size})\nn = {length}\nif n < 0 or pos + {size} + n > end: "
            "raise _short(record, op_pos, {size} + max(n, 0), end - pos)\n"
            "arg = data[pos + {size}:pos + {size} + n]\npos += {size} + n")
_LENGTH = {1: "data[pos]", 4: "_U4(data, pos)[0]", 8: "_U8(data, pos)[0]"}
_READ: dict[str, str] = {
    "none": "",
    "uint1": "need(1)\narg = data[pos]\npos += 1",
    "uint2": "need(2)\narg = data[pos] | data[pos + 1] << 8\npos += 2",
    "int4": "need(4)\narg = _I4(data, pos)[0]\npos += 4",
    "uint4": "need(4)\narg = _U4(data, pos)[0]\npos += 4",
    "uint8": "need(8)\narg = _U8(data, pos)[0]\npos += 8",
    "float8": "need(8)\narg = _F8(data, pos)[0]\npos += 8",
    "decimalnl_short": _LINE + "\narg = _int_line(arg)",
    "decimalnl_long": _LINE + "\narg = _long_line(arg)",
    "floatnl": _LINE + "\narg = float(arg)",
    "stringnl": _LINE + "\narg = _quoted(arg, record, op_pos)",
    "stringnl_noescape": _LINE + "\narg = arg.decode('utf-8')",
    "stringnl_noescape_pair": _LINE + "\nfirst = arg.decode('utf-8')\n" + _LINE
    + "\narg = (first, arg.decode('utf-8'))",
    "unicodestringnl": _LINE + "\narg = arg.decode('raw-unicode-escape')",
    "long1": "{counted}\narg = int.from_bytes(arg, 'little', signed=True)",
    "long4": "{counted}\narg = int.from_bytes(arg, 'little', signed=True)",
    "string1": "{counted}\narg = _ascii(arg, record, op_pos)",
    "string4": "{counted}\narg = _ascii(arg, record, op_pos)",
    "bytes1": "{counted}",
    "bytes4": "{counted}",
    "bytes8": "{counted}",
    "bytearray8": "{counted}\narg = bytearray(arg)",
    # surrogatepass: Python's pickle writes lone surrogates that way
    "unicodestring1": "{counted}\narg = arg.decode('utf-8', 'surrogatepass')",
    "unicodestring4": "{counted}\narg = arg.decode('utf-8', 'surrogatepass')",
    "unicodestring8": "{counted}\narg = arg.decode('utf-8', 'surrogatepass')",
}
_SIGNED_LENGTH = {"long4": "_I4(data, pos)[0]", "string4": "_I4(data, pos)[0]"}

# The items since the topmost mark as `items`; the frame below becomes the stack again.
_POP_MARK = ("if not metastack: raise _error(record, op_pos, 'no MARK on the stack')\n"
             "items = stack\nstack = metastack.pop()")
_MEMO_PUT = ("value = stack[-1]\nkind = type(value)\n"
             # remembered, so that writing the value again memoizes it too
             "if kind is tuple: value = stack[-1] = MemoTuple(value)\n"
             "elif kind is Object or kind is Reduce or kind is PersistentId: value.memo = True\n"
             "memo[arg] = value")
_PUSH = "stack.append(arg)"

# What each opcode does, after its argument is read.
_DO: dict[str, str] = {
    **{name: _PUSH for name in (
        "INT", "BININT", "BININT1", "BININT2", "LONG", "LONG1", "LONG4", "FLOAT", "BINFLOAT",
        "STRING", "BINSTRING", "SHORT_BINSTRING", "UNICODE", "BINUNICODE", "SHORT_BINUNICODE",
        "BINUNICODE8", "BINBYTES", "SHORT_BINBYTES", "BINBYTES8", "BYTEARRAY8")},
    "NEXT_BUFFER": "raise _refuse('out-of-band buffers (NEXT_BUFFER) are not supported: a file "
                   "must hold its data in-band', record, op_pos)",
    "READONLY_BUFFER": "raise _refuse('out-of-band buffers (READONLY_BUFFER) are not "
                       "supported', record, op_pos)",
    "NONE": "stack.append(None)",
    "NEWTRUE": "stack.append(True)",
    "NEWFALSE": "stack.append(False)",
    "EMPTY_LIST": "stack.append([])",
    "APPEND": "value = stack.pop()\ntarget = stack[-1]\n"
              "if type(target) is list: target.append(value)\n"
              "else: _extend(target, [value], 'APPEND', record, op_pos)",
    "APPENDS": _POP_MARK + "\ntarget = stack[-1]\nif type(target) is list: target.extend(items)\n"
                           "else: _extend(target, items, 'APPENDS', record, op_pos)",
    "LIST": _POP_MARK + "\nstack.append(items)",
    "EMPTY_TUPLE": "stack.append(())",
    "TUPLE": _POP_MARK + "\nstack.append(tuple(items))",
    "TUPLE1": "stack[-1] = (stack[-1],)",
    "TUPLE2": "if len(stack) < 2: raise IndexError\nstack[-2:] = [(stack[-2], stack[-1])]",
    "TUPLE3": "if len(stack) < 3: raise IndexError\n"
              "stack[-3:] = [(stack[-3], stack[-2], stack[-1])]",
    "EMPTY_DICT": "stack.append({})",
    "DICT": _POP_MARK + "\nstack.append(_dict(items, record, op_pos))",
    "SETITEM": "value = stack.pop()\nkey = stack.pop()\ntarget = stack[-1]\n"
               "if type(target) is dict and type(key) not in NESTED_KEYS: target[key] = value\n"
               "else: _setitems(target, [key, value], 'SETITEM', record, op_pos)",
    "SETITEMS": _POP_MARK + "\n_setitems(stack[-1], items, 'SETITEMS', record, op_pos)",
    "EMPTY_SET": "stack.append(set())",
    "ADDITEMS": _POP_MARK + "\ntarget = stack[-1]\nif type(target) is not set: raise _error("
                            "record, op_pos, f'ADDITEMS to a {type(target).__name__}, "
                            "expected a set')\n_check_keys(items, record, op_pos)\ntarget.update(items)",
    "FROZENSET": _POP_MARK + "\n_check_keys(items, record, op_pos)\nstack.append(frozenset(items))",
    # POP with an empty frame discards the mark itself, as CPython does
    "POP": "if stack: stack.pop()\nelif metastack: stack = metastack.pop()\nelse: raise IndexError",
    "DUP": "stack.append(stack[-1])",
    "MARK": "metastack.append(stack)\nstack = []",
    "POP_MARK": _POP_MARK,
    "GET": "stack.append(memo[arg])",
    "BINGET": "stack.append(memo[arg])",
    "LONG_BINGET": "stack.append(memo[arg])",
    "PUT": "arg = _memo_index(arg, record, op_pos)\n" + _MEMO_PUT,
    "BINPUT": _MEMO_PUT,
    "LONG_BINPUT": _MEMO_PUT,
    "MEMOIZE": "arg = len(memo)\n" + _MEMO_PUT,
    **{name: "raise _refuse(f'unregistered extension code {arg}', record, op_pos)"
       for name in ("EXT1", "EXT2", "EXT4")},
    "GLOBAL": "stack.append(_global(arg[0], arg[1], allowed, record, op_pos))",
    "STACK_GLOBAL": "name = stack.pop()\n"
                    "stack[-1] = _global(stack[-1], name, allowed, record, op_pos)",
    "REDUCE": "args = stack.pop()\nfunc = stack[-1]\n"
              "if type(func) is Global and isinstance(args, tuple):\n"
              "    stack[-1] = Reduce(func, tuple(args), False)\n"
              "else: stack[-1] = _reduce(func, args, record, op_pos)",
    "BUILD": "state = stack.pop()\n_build(stack[-1], state, built, record, op_pos)",
    "INST": _POP_MARK + "\ncls = _global(arg[0], arg[1], allowed, record, op_pos)\n"
                        "stack.append(_new_object(cls, tuple(items), {}, 'INST', record, op_pos))",
    "OBJ": _POP_MARK + "\nif not items: raise IndexError\n"
                       "stack.append(_new_object(items[0], tuple(items[1:]), {}, 'OBJ', record, op_pos))",
    "NEWOBJ": "args = stack.pop()\n"
              "stack[-1] = _new_object(stack[-1], args, {}, 'NEWOBJ', record, op_pos)",
    "NEWOBJ_EX": "kwargs = stack.pop()\nargs = stack.pop()\n"
                 "stack[-1] = _new_object(stack[-1], args, kwargs, 'NEWOBJ_EX', record, op_pos)",
    "PERSID": "stack.append(PersistentId(arg, False))",
    "BINPERSID": "stack[-1] = _persistent_id(stack[-1], record, op_pos)",
    "PROTO": f"if arg > {HIGHEST_PROTOCOL}: "
             "raise _error(record, op_pos, f'unsupported pickle protocol {arg}')",
    # frames only group opcodes: check the length and read on
    "FRAME": "if pos + arg > end: raise _error(record, op_pos, f'truncated pickle: frame of "
             "{arg} bytes')",
    "STOP": "if metastack: raise _error(record, op_pos, 'STOP inside an unclosed MARK')\n"
            "if len(stack) != 1: raise _error(record, op_pos, "
            "f'STOP with {len(stack)} items on the stack, expected 1')\n"
            "return stack[0], pos",
}

# The opcodes of TorchScript and torch.save pickles, the most frequent first (as counted
# on the corpus's data.pkl records): their branches come first in the loop (the rest
# follow in the table's order).
_HOT = ("BINGET", "BINPUT", "BININT1", "MARK", "TUPLE", "REDUCE", "BINUNICODE", "EMPTY_TUPLE",
        "NEWFALSE", "NONE", "BINPERSID", "NEWTRUE", "NEWOBJ", "EMPTY_DICT", "SETITEMS",
        "BUILD", "GLOBAL", "SHORT_BINUNICODE", "MEMOIZE", "TUPLE1", "TUPLE2", "TUPLE3",
        "BININT2", "BININT", "EMPTY_LIST", "APPENDS", "APPEND", "SETITEM", "LONG_BINGET",
        "LONG_BINPUT", "BINFLOAT", "LONG1", "STACK_GLOBAL", "FRAME", "STOP")


def _reader(info: OpInfo) -> str:
    kind = info.arg
    text = _READ[kind.name]
    if kind.layout == COUNTED:
        length = _SIGNED_LENGTH.get(kind.name, _LENGTH[kind.size])
        text = text.replace("{counted}", _COUNTED.format(size=kind.size, length=length))
    lines = []
    for line in text.split("\n"):
        if line.startswith("need("):
            line = _NEED.format(n=line[5:-1])
        lines.append(line)
    return "\n".join(lines)


def _branches(body: Callable[[OpInfo], str]) -> list[str]:
    """`if op == <byte>:` branches, hot opcodes first, each with `body(info)`."""
    order = [OPCODE_BY_BYTE[b] for b in sorted({i.code for i in OPCODES},
                                                key=lambda b: (_rank(b), b))]
    out = []
    for n, info in enumerate(order):
        out.append(f"{'if' if n == 0 else 'elif'} op == {info.code}:  # {info.name}")
        text = body(info).strip() or "pass"
        out.extend("    " + line for line in text.split("\n"))
    return out


def _rank(code: int) -> int:
    name = OPCODE_BY_BYTE[code].name
    return _HOT.index(name) if name in _HOT else len(_HOT)


_LOOP_HEAD = """\
def _machine(data, record, allowed, pos):
    end = len(data)
    op_pos = pos
    stack = []
    metastack = []
    memo = {}
    built = set()
    try:
        while pos < end:
            op_pos = pos
            op = data[pos]
            pos += 1
"""
_LOOP_TAIL = """\
            else:
                raise _error(record, op_pos, f'unknown opcode {op:#04x} ({chr(op)!r})')
    except UnpicklingError:
        raise
    except IndexError:
        raise _error(record, op_pos, 'stack underflow') from None
    except KeyError as exc:
        raise _error(record, op_pos, f'the memo has no entry {exc}') from None
    except (TypeError, ValueError, OverflowError, UnicodeError, MemoryError, RecursionError,
            struct.error) as exc:
        # A malformed pickle must never escape as a bare Python error.
        raise _error(record, op_pos, f'malformed pickle ({type(exc).__name__}: {clipped(str(exc))})') from exc
    raise _error(record, pos, 'pickle ends without STOP')
"""


def _indent(lines: list[str], n: int) -> str:
    return "\n".join(" " * n + line for line in lines) + "\n"


def _build_loop() -> str:
    """The machine's source: one branch per opcode, its argument read, then its action."""
    return (_LOOP_HEAD
            + _indent(_branches(lambda info: _reader(info) + "\n" + _DO[info.name]), 12)
            + _LOOP_TAIL)


def _build_scanner() -> str:
    """A loop that reads the opcodes and their arguments only (see `disassemble`)."""
    return (_LOOP_HEAD.replace("_machine", "_scanner") + "            found = pos - 1\n"
            + _indent(_branches(lambda info: _reader(info)
                                + f"\nops.append((found, _INFO[{info.code}], arg))"
                                + ("\nreturn ops" if info.name == "STOP" else "")), 12)
            + _LOOP_TAIL).replace("    end = len(data)\n", "    end = len(data)\n    ops = []\n"
                                  "    arg = None\n")


_I4 = struct.Struct("<i").unpack_from
_U4 = struct.Struct("<I").unpack_from
_U8 = struct.Struct("<Q").unpack_from
_F8 = struct.Struct(">d").unpack_from


def _compile(source: str, name: str) -> Callable:
    filename = f"<tsjit unpickler {name}>"
    # registered so that tracebacks through the machine show its lines
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {k: v for k, v in globals().items() if k.startswith("_") or k in (
        "Global", "MemoTuple", "NESTED_KEYS", "clipped", "Object", "PersistentId", "Reduce",
        "UnpicklingError", "struct")}
    namespace["_INFO"] = OPCODE_BY_BYTE
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 (our own table's text)
    return namespace[name]


_missing = [i.name for i in OPCODES if i.name not in _DO or i.arg.name not in _READ]
if _missing:   # (a new table row without its code: fail at import, not at the first pickle)
    raise AssertionError(f"opcodes without an action or an argument reader: {_missing}")

LOOP_SOURCE = _build_loop()
_machine = _compile(LOOP_SOURCE, "_machine")


def _run(data: bytes, record: str, allowed: AllowFn) -> Any:
    result, end = _machine(data, record, allowed, 0)
    if end != len(data):
        raise _error(record, end, f"{len(data) - end} bytes of trailing data after STOP")
    return result


@functools.cache
def _scanner() -> Callable:
    return _compile(_build_scanner(), "_scanner")   # (made when first asked: rarely used)


def _scan(data: bytes, record: str) -> list[tuple[int, OpInfo, Any]]:
    return _scanner()(data, record, None, 0)
