"""A fast path for reading TorchScript pickles: CPython's C unpickler, checked, with the
pure-Python `unpickler.unpickle` as the fallback and the authority.

`unpickle_records(data, record, allowed)` returns what `unpickle` returns, except that the
records' `memo` flags are unset (None) and memoized tuples are plain tuples: the archive
loader needs neither; debug info and re-saving keep using `unpickle`. Whenever the fast path
is not certain, `unpickle` runs, and returns the value or raises its UnpicklingError, so
errors are always the Python unpickler's own. It is 3.4-4.5x faster on data.pkl records
of a kilobyte and more (records under 32 bytes go to `unpickle` directly). Its pattern is
shipped compiled for the interpreters tsjit supports; where it is not, see
COMPILE_AFTER_BYTES for when the fast path starts.

How. The C unpickler (`pickle.Unpickler`) runs with hooks that build the neutral records
instead of importing or calling anything (the allow-list is checked in `find_class`):

* A global is a *marker*: for an archive class (`__torch__.*`) a class whose NEWOBJ instance
  becomes an `Object` when BUILD gives it its state (its `__setstate__` switches its
  `__class__`), and whose call (REDUCE) builds a `Reduce`; for a tensor storage class the
  interned `Global` itself (only ever named in persistent ids); for anything else a function
  that builds a `Reduce`. Marker classes come from a pool, given a Global per run: making a
  class takes microseconds and an archive names dozens.
* `persistent_load` is `PersistentId`.

Where the C unpickler acts without a hook it differs from the Python unpickler (CPython
3.11's _pickle.c, confirmed by experiment); each difference is a pickle that C reads and
Python refuses, or reads differently:

* BUILD calls `inst.__setstate__(state)` if there is one, else updates `inst.__dict__`
  (the interned Global's too), and does nothing at all for a None state, on anything.
* APPENDS, SETITEMS, ADDITEMS with an empty mark do nothing, on anything; SETITEM(S) does
  `target[key] = value` on a list too; APPEND(S) `.extend`s a bytearray; READONLY_BUFFER of
  bytes does nothing; NEWOBJ of a class with arguments ignores them (object.__new__).
* INST and OBJ call the class as REDUCE does (or NEWOBJ it when it has no arguments); EXT
  looks the global up in copyreg's registry, and in a cache that bypasses find_class.
* STOP returns the top of the stack however many items or open marks there are and ignores
  what follows; text INT parses in base 0 ("I010" is 8) and "I+1" is True.
* LONG_BINPUT n grows the memo array to 2n entries: a 9-byte pickle can allocate GBs.

So before it runs, the pickle's *shape* must pass one regular expression (`_shape_ok`): it
must tokenize into exactly the opcodes TorchScript writes (the binary opcodes of protocols
0-2, GLOBAL, memo indexes below 65536, strings below 256 bytes), and the opcodes whose C
behaviour depends on their operands may only appear where it cannot differ:

* BUILD only as `) NEWOBJ [PUT] } [PUT] ( ... SETITEMS BUILD` (or with an empty state): the
  target is a fresh NEWOBJ instance (with its `__setstate__`) built exactly once, the state
  a fresh dict; NEWOBJ only so, hence with no arguments.
* SETITEMS only closes a mark opened right after a fresh `}`; APPENDS and TUPLE close any
  mark (APPENDS on a non-list fails in both); a mark closed by APPENDS/SETITEMS is empty
  only right after a fresh `]`/`}`; BINPERSID only right after a tuple is made.

Marks pair like parentheses, which a regular expression cannot check beyond a fixed depth:
the tuples of a tensor, flat containers and objects holding no other object are matched
inline; every other mark becomes a letter of a *skeleton* that is reduced pair by pair.
Anything else (POP, DUP, INST, OBJ, EXT, text opcodes, buffers, sets, ...) goes to the
Python unpickler. Scanning is linear in the input: nothing fails after a long run of tokens,
and a wrong shape takes the rest of the input in one step.

After the run: an extra MARK before the pickle and TUPLE in place of its STOP collect the
whole stack, which must be one value; and no marker may have escaped into that value (a
global used as a plain value, by memo too): the refcount of every marker handed out must be
back where it was. That is sound only if nothing else holds or drops references to the
markers meanwhile: they are private, one fast run happens at a time (a non-blocking lock: a
busy lock means the slow path), and after any run that did not succeed all markers are
retired, so that garbage from it can never touch live ones. A self-test on first use
(when the pattern compiles) disables the fast path should refcounts not add up.
"""
from __future__ import annotations

import array
import base64
import functools
import hashlib
import operator
import pickle
import re
import sys
import threading
import zlib
from typing import Any, Callable, Optional, Union

from tsjit.serialize.pickle_format import STORAGE_DTYPES, Global, Object, PersistentId, Reduce
from tsjit.serialize.unpickler import AllowFn, default_allowed, unpickle

__all__ = ["FALLBACK", "switched_on", "try_fast", "unpickle_records"]


def unpickle_records(data: bytes, record_name: str, allowed: Optional[AllowFn] = None) -> Any:
    """`unpickle`, faster, minus the records' memo flags and `MemoTuple`s (see the module doc)."""
    global _slow_bytes
    raw = bytes(data)
    if _shape is None and _slow_bytes < COMPILE_AFTER_BYTES and not _prebuilt_shape():
        _slow_bytes += len(raw)     # (a race here only moves the switch a little)
        return unpickle(raw, record_name, allowed)
    value = try_fast(raw, allowed)
    if value is FALLBACK:
        return unpickle(raw, record_name, allowed)
    return value


# The shape pattern takes ~20 ms for `re` to compile, and well under a millisecond to
# build from the regex code compiled ahead of time for the interpreter's regex engine
# (`_shape_code`, written by tools/precompile_shape_pattern.py). With that code the fast
# path runs from the first pickle. Without it (another engine, or the pattern changed
# since), compiling costs the time the Python unpickler takes for about 300 KB of pickles,
# which the fast path reads ~65 ns a byte faster: the fast path starts once a process has
# read that much the slow way, so the first load of a process never pays for the
# compilation, and a process loading many archives pays at most twice what the better
# choice in hindsight would have cost (the ski-rental rule).
COMPILE_AFTER_BYTES = 300_000
_slow_bytes = 0     # pickle bytes read by the Python unpickler before the switch


def switched_on() -> bool:
    """Whether `unpickle_records` takes the fast path in this process yet."""
    return _shape is not None


class _Fallback:
    """The type of FALLBACK: the fast path declined, the Python unpickler decides."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "FALLBACK"


FALLBACK = _Fallback()


def try_fast(raw: bytes, allowed: Optional[AllowFn] = None) -> Any:
    """The value of the pickle `raw` by the C unpickler, or FALLBACK if not certainly right."""
    if len(raw) < _MIN_SIZE or not _SUPPORTED or not _LOCK.acquire(blocking=False):
        return FALLBACK          # (a busy lock: another thread's fast run, see the module doc)
    ran = clean = False
    try:
        if _ready() and _shape_ok(raw):
            ran = True
            value, clean = _run(raw, allowed)
    finally:
        if ran and not clean:
            _retire_markers()    # (garbage of the run may refer to them: module doc)
        _LOCK.release()
    return value if clean else FALLBACK


# Below this size the Python unpickler is as fast (the fast path costs ~2 us whatever the
# size; most constants.pkl records are `PROTO 2, EMPTY_TUPLE, STOP`).
_MIN_SIZE = 32


# --------------------------------------------------------------------- shape check
# Patterns work on the pickle decoded as latin-1 (one character per byte) so that the
# skeleton can be built by `re.sub` with a C-level replacement (the name of the group that
# matched); `re` has no C-level replacement for bytes patterns.

_MEMO = r"(?:q.|r..\x00\x00)"      # BINPUT; LONG_BINPUT below 65536 (C allocates 2n slots)
_MEMOS = _MEMO + "*+"
_OPT_MEMO = "(?:q.|)"               # (an empty alternative is cheaper than `?` in `re`)
_PID = "(?:Q|)"                     # BINPERSID, only ever right after a fresh tuple
# GLOBAL (find_class sees it); lines bounded so that no failed attempt scans far.
_GLOBAL = r"c[^\n]{0,255}\n[^\n]{0,255}\n"
_INT = r"(?:K.|M..|J....)"


def _counted(prefix: str, size_bytes: int, limit: int) -> str:
    """`prefix`, a little-endian length of `size_bytes` bytes below `limit`, that many bytes."""
    pad = "\\x00" * (size_bytes - 1)
    alternatives = [re.escape(chr(n)) + pad + (f".{{{n}}}" if n else "") for n in range(limit)]
    return prefix + "(?:" + "|".join(alternatives) + ")"


def _flat_tokens(max_string: int) -> str:
    """One opcode (with its argument) that pushes a value or does nothing to the stack, the
    same in C and Python in any context; most frequent first."""
    return "|".join([
        r"[hqK].",                          # BINGET, BINPUT, BININT1
        r"[N\x88\x89R]",                    # NONE, NEWTRUE, NEWFALSE, REDUCE
        r"\)(?!\x81)" + _PID,               # EMPTY_TUPLE (NEWOBJ only in an object, below)
        r"[\x85-\x87]" + _PID,              # TUPLE1-3
        r"M..",                             # BININT2
        _counted("X", 4, max_string),       # BINUNICODE
        r"J....",                           # BININT
        _GLOBAL,
        r"G.{8}",                           # BINFLOAT
        r"j....",                           # LONG_BINGET
        r"r..\x00\x00",                     # LONG_BINPUT
        _counted("\\x8a", 1, 9),            # LONG1 (TorchScript ints fit in 8 bytes)
        r"\x80[\x00-\x05]",                 # PROTO
        # An object without state, or with an empty SETITEMS on its fresh dict.
        rf"\)\x81{_MEMOS}\}}{_MEMOS}(?:\(ub|b)",
        # An empty dict or list, maybe filled from an empty mark (in C an empty mark does
        # nothing whatever the target, but these targets are fresh).
        rf"\}}{_MEMOS}(?:\(u|(?!\())",
        rf"\]{_MEMOS}\(e", r"\]",
    ])


def _tensor_rest() -> str:
    """The usual `_rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks)`
    record after its callable and the two marks it starts with, in one piece: only a faster
    way through tokens the general loop takes too (`re` takes a sequence much faster than a
    loop iteration per token). First as it is once globals and strings are memoized."""
    ints = rf"(?:\({_INT}*+t|\))"
    short_string = _counted("X", 4, 32)
    memoized = (rf"h.h.(?:h.|{short_string}q.)h.{_INT}tQq.{_INT}{ints}{ints}[\x88\x89]"
                rf"h.\)RtRq.")
    call = rf"(?:h.|{_GLOBAL}{_OPT_MEMO})"
    string = rf"(?:h.|{short_string}{_OPT_MEMO})"
    general = (rf"{string}{call}(?:{string}){{2}}{_INT}tQ{_OPT_MEMO}{_INT}{_OPT_MEMO}"
               rf"{ints}{_OPT_MEMO}{ints}{_OPT_MEMO}[\x88\x89]{call}\)R{_OPT_MEMO}tR{_OPT_MEMO}")
    return rf"\(\((?:{memoized}|{general})"


def _shape_source() -> str:
    """The shape pattern's text (compiled with _SHAPE_FLAGS): the tokens of a pickle with
    the shape of the module doc, and its skeleton letters."""
    # Copies of the tokens inside nested constructs take shorter strings only (the
    # pattern compiles much faster; a longer string makes the inline match fail and the
    # outer loop take the marks instead).
    short, medium = _flat_tokens(32), _flat_tokens(64)
    # Containers of flat tokens, and tuples of those (a tensor's or a typed list's call).
    nested1 = (rf"\((?:{short})*+t{_PID}|\]{_MEMOS}\((?:{short})*+e|"
               rf"\}}{_MEMOS}\((?:{short})*+u")
    tuple2 = rf"\((?:{nested1}|{short})*+t{_PID}"
    # Values taken in one step, the most frequent first: a memo get (maybe a tensor's
    # callable, or a dict key and a constant value), BINPUT or BININT1, a tuple, a global
    # (maybe a tensor's callable), a list or dict of flat tokens.
    tensor = _tensor_rest()
    values = (rf"h.(?:{tensor}|[N\x88\x89]|)|[qK].|{tuple2}|{_GLOBAL}{_OPT_MEMO}(?:{tensor}|)|"
              rf"\]{_MEMOS}\((?:{medium})*+e|\}}{_MEMOS}\((?:{medium})*+u")
    # An object whose state holds no other object or deeper container, in one step (two
    # skeleton letters less; an object that holds one costs a failed attempt).
    leaf_object = rf"\)\x81{_MEMOS}\}}{_MEMOS}\((?:{values}|{medium})*+ub"
    token = f"{values}|{leaf_object}|{_flat_tokens(256)}"
    # Marks the loop did not take become skeleton letters.
    not_empty = "(?![eu])"   # APPENDS/SETITEMS right after this mark would see no items
    items = "|".join([
        rf"(?P<O>\)\x81{_MEMOS}\}}{_MEMOS}\(){not_empty}",   # object: SETITEMS BUILD closes
        rf"(?P<D>\}}{_MEMOS}\(){not_empty}",                 # dict: SETITEMS may close
        rf"(?P<M>\(){not_empty}",                            # other: TUPLE/APPENDS close
        r"(?P<B>ub)", r"(?P<u>u)", r"(?P<e>e)", rf"(?P<t>t{_PID})",
        r"(?P<E>\.)",                                        # STOP
    ])
    # Where the shape is wrong, R takes the rest of the input, or Z the end after a run of
    # tokens, in the same match: no match fails after a long run of tokens (sub would try
    # again one character on, in quadratic time) and nothing is scanned after the error.
    # (Z only after tokens: an empty match at the end would follow every STOP.)
    return rf"(?:(?:{token})++(?P<run>)|)(?:{items}|(?P<R>.+)|(?P<Z>(?(run)\Z|(?!))))"


_SHAPE_FLAGS = re.DOTALL


# Innermost pairs of the skeleton that may close each other (see the module doc).
_PAIRS = ("Du", "De", "Dt", "Me", "Mt")  # and "OB"
_LETTERS = "ODMBuet"                      # openers and closers
_LAST_GROUP = operator.attrgetter("lastgroup")
_shape: Optional["re.Pattern[str]"] = None   # compiled on first use: see _ready


def _skeleton(raw: bytes) -> str:
    """One letter per mark not matched inline and per STOP; R or Z where the shape is wrong."""
    assert _shape is not None
    return _shape.sub(_LAST_GROUP, raw.decode("latin-1"))


def _shape_ok(raw: bytes) -> bool:
    """Whether the C unpickler reads `raw` exactly as the Python unpickler does."""
    skeleton = _skeleton(raw)
    # No R or Z, one STOP, last: the last match ends at the end of the input.
    if skeleton[-1:] != "E" or skeleton.strip(_LETTERS) != "E":
        return False
    skeleton = skeleton[:-1]
    # Removing any matching adjacent pair, in any order, empties exactly the words whose
    # marks pair up as allowed; a round per level of nesting, so deep ones fall back.
    for _ in range(_MAX_DEPTH):
        if not skeleton:
            return True
        reduced = skeleton.replace("OB", "")   # (objects, by far the most frequent)
        for pair in _PAIRS:
            if pair in reduced:
                reduced = reduced.replace(pair, "")
        if reduced == skeleton:
            return False
        skeleton = reduced
    return False


_MAX_DEPTH = 64


# --------------------------------------------------------------------- markers

class _TorchClass(type):
    """Metaclass of the markers of archive classes: calling one (REDUCE) builds a Reduce;
    NEWOBJ does not call it, it calls the class's `__new__` (object's) directly."""

    def __call__(cls, *args: Any) -> Reduce:
        return Reduce(cls.global_[0], args)


class _Unbuilt(Object, metaclass=_TorchClass):
    """An instance NEWOBJ made of a marker class, until BUILD makes it an `Object`."""

    __slots__ = ()
    global_: list[Global]   # the class's Global in the current run

    def __setstate__(self, state: Any) -> None:
        g = self.global_[0]
        # Same layout (no slots added), so the instance itself becomes the record.
        self.__class__ = Object
        self.cls = g
        self.state = state
        self.memo = None


def _reduce_marker(g: Global) -> Callable[..., Reduce]:
    if (g.module, g.name) == _ORDERED_DICT:
        # Always called without arguments (a tensor's hooks): C-level, no Python frame.
        # (memo given too: an argument must be a TypeError, not taken for the memo flag)
        return functools.partial(Reduce, g, (), None)

    def call(*args: Any) -> Reduce:
        # (the dataclass's __init__ would be a second Python frame)
        record = _new_object(Reduce)
        record.func = g
        record.args = args
        record.memo = None
        return record
    return call


_new_object = object.__new__
_ORDERED_DICT = ("collections", "OrderedDict")
_STORAGE_GLOBALS = frozenset(("torch", name) for name in STORAGE_DTYPES)


class _ArchiveClass:
    """What the caches hold for an archive class; its marker is a class of _CLASS_POOL."""

    __slots__ = ("global_",)

    def __init__(self, g: Global) -> None:
        self.global_ = g


def _make_marker(module: str, name: str) -> Any:
    g = Global(module, name)
    if module == "__torch__" or module.startswith("__torch__."):
        return _ArchiveClass(g)
    if (module, name) in _STORAGE_GLOBALS:
        return g
    return _reduce_marker(g)


_MARKERS: dict[tuple[str, str], Any] = {}
_DEFAULT_MARKERS: dict[tuple[str, str], Any] = {}   # the same, for default_allowed's keys
_MAX_MARKERS = 4096                                 # hostile pickles may name many globals
_CLASS_POOL: list[type] = []                        # handed out afresh in each run
_LOCK = threading.Lock()


def _retire_markers() -> None:
    _MARKERS.clear()
    _DEFAULT_MARKERS.clear()
    _CLASS_POOL.clear()


class _Refused(Exception):
    """find_class met a global outside the allow-list, or more globals than it caches."""


# --------------------------------------------------------------------- the C run

class _Reader:
    """A file that hands the C unpickler the whole pickle at once, by `peek`. The shape
    check makes sure the C unpickler never reads past it; should it try, it gets nothing
    (an error, so the fallback)."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data

    def peek(self, n: int = 0) -> bytes:
        data, self.data = self.data, b""
        return data

    def read(self, n: int = -1) -> bytes:
        return b""            # (after a peek the C unpickler reads what it consumed)

    def readline(self) -> bytes:
        return b""


class _CUnpickler(pickle.Unpickler):
    """The C unpickler with the hooks of the module doc."""

    # A class: the C unpickler calls it with the persistent id (a fresh tuple, by shape).
    persistent_load = PersistentId
    allowed: Optional[AllowFn] = None   # None: default_allowed, whose markers are cached
    used: dict[Any, int]                # marker -> its refcount when handed out (_escaped)
    classes: dict[tuple[str, str], type]   # this run's archive classes -> their markers

    def find_class(self, module: str, name: str) -> Any:
        key = (module, name)
        marker = _DEFAULT_MARKERS.get(key) if self.allowed is None else None
        if marker is None:
            marker = self.checked_marker(module, name)
        kind = type(marker)
        if kind is Global:
            return marker
        if kind is _ArchiveClass:
            g = marker.global_
            classes = self.classes
            marker = classes.get(key)
            if marker is None:
                # The next class of the pool becomes this class's marker for the run.
                if len(classes) == len(_CLASS_POOL):
                    _CLASS_POOL.append(_TorchClass("torch_class", (_Unbuilt,),
                                                   {"__slots__": (), "global_": [None]}))
                marker = classes[key] = _CLASS_POOL[len(classes)]
                marker.global_[0] = g   # (a list: no class attribute, no type caches reset)
        used = self.used
        if marker not in used:
            # Counted as _escaped counts (see there): no other local may refer to it.
            used[marker] = 0
            used[marker] = _getrefcount(marker)
        return marker

    def checked_marker(self, module: str, name: str) -> Any:
        """The marker of module.name if the allow-list lets it in; _Refused if not."""
        if not (self.allowed or default_allowed)(module, name):
            raise _Refused(module, name)
        if len(_MARKERS) >= _MAX_MARKERS:
            raise _Refused("too many globals")   # (the failed run retires them all)
        key = (module, name)
        marker = _MARKERS.get(key)
        if marker is None:
            marker = _MARKERS[key] = _make_marker(module, name)
        if self.allowed is None:
            _DEFAULT_MARKERS[key] = marker
        return marker


_getrefcount = sys.getrefcount


def _run(raw: bytes, allowed: Optional[AllowFn]) -> tuple[Any, bool]:
    """(value, True) if the C run gave exactly one value and no marker escaped into it."""
    # An extra MARK in front and TUPLE before STOP collect the whole stack: the Python
    # unpickler requires exactly one value there, the C one just takes the top.
    unpickler = _CUnpickler(_Reader(b"(" + raw[:-1] + b"t."))
    if allowed is not None and allowed is not default_allowed:
        unpickler.allowed = allowed
    used: dict[Any, int] = {}
    classes: dict[tuple[str, str], type] = {}   # (kept until counted: it refers to them)
    unpickler.used, unpickler.classes = used, classes
    try:
        out = unpickler.load()
    except Exception:         # anything the C unpickler or a hook raised: fall back
        return FALLBACK, False
    del unpickler             # frees the C stack and memo: their marker references go
    if type(out) is not tuple or len(out) != 1 or _escaped(used):
        return FALLBACK, False
    return out[0], True


def _escaped(used: dict[Any, int]) -> bool:
    """Whether something still refers to a marker handed out in this run."""
    for marker in used:
        # Counted now as in find_class: the caches, `used`'s key, one local (this loop's
        # variable; find_class's `marker` then) and getrefcount's argument.
        if _getrefcount(marker) != used[marker]:
            return True
    return False


# --------------------------------------------------------------------- enabling

# The C unpickler's behaviour above is CPython's (3.11 checked; 3.12 and 3.13 read the
# same); possessive quantifiers need 3.11. Elsewhere the Python unpickler does it all.
_SUPPORTED = (sys.implementation.name == "cpython" and (3, 11) <= sys.version_info < (3, 14)
              and pickle.Unpickler.__module__ == "_pickle")
_self_tested: Optional[bool] = None


def _ready() -> bool:
    """Compile the shape pattern and self-test the escape check, once (under _LOCK)."""
    global _shape, _self_tested
    if _self_tested is None:
        _shape = _prebuilt_shape() or re.compile(_shape_source(), _SHAPE_FLAGS)
        _self_tested = _self_test()
    return _self_tested


# The shape pattern built from the shipped regex code; False if there is none for this
# interpreter (checked on first use: _prebuilt_shape).
_prebuilt: Optional[Union["re.Pattern[str]", bool]] = None


def _prebuilt_shape() -> Optional["re.Pattern[str]"]:
    """The shape pattern from the code compiled ahead of time for this interpreter's
    regex engine, if `_shape_code` has it for the current pattern; else None."""
    global _prebuilt
    if _prebuilt is None:
        _prebuilt = _SUPPORTED and _build_prebuilt(_shape_source()) or False
    return _prebuilt or None


def prebuilt_code(source: str) -> Optional[tuple[int, int, dict[str, int], list[int]]]:
    """(flags, group count with group 0, group indexes, regex code) that `_shape_code` holds
    for `source` and this interpreter's regex engine; None if it holds none."""
    import _sre

    from tsjit.serialize import _shape_code
    if _shape_code.PATTERN_SHA256 != hashlib.sha256(source.encode("utf-8")).hexdigest():
        return None
    entry = _shape_code.CODES.get((_sre.MAGIC, _sre.CODESIZE))
    typecode = next((c for c in "IL" if array.array(c).itemsize == _sre.CODESIZE), None)
    if entry is None or typecode is None:
        return None
    flags, groups, groupindex, packed = entry
    code = array.array(typecode, zlib.decompress(base64.b64decode(packed)))
    if sys.byteorder != "little":
        code.byteswap()         # (stored little-endian)
    return flags, groups, dict(groupindex), code.tolist()


def _build_prebuilt(source: str) -> Optional["re.Pattern[str]"]:
    """The compiled pattern for `source` from `prebuilt_code`, or None. (`_sre.compile` is
    what `re.compile` ends with; it validates the code, so bad code is an error, not a
    crash, and any error means compiling the usual way.)"""
    try:
        import _sre
        found = prebuilt_code(source)
        if found is None:
            return None
        flags, groups, groupindex, code = found
        indexgroup: list[Optional[str]] = [None] * groups
        for name, index in groupindex.items():
            indexgroup[index] = name
        return _sre.compile(source, flags, code, groups - 1, groupindex, tuple(indexgroup))
    except Exception:
        return None


# Pickles whose C run must succeed, and ones whose markers escape into the value.
_SELF_TEST_CLEAN = (b"\x80\x02c__torch__\nA\nq\x00)\x81}(X\x01\x00\x00\x00aNubh\x00)\x81}b\x86.",
                    b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\nq\x00)Rh\x00)R\x86.")
_SELF_TEST_ESCAPING = (b"\x80\x02c__torch__\nA\nq\x00)\x81}bh\x00\x86.",
                       b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\nq\x00)Rh\x00\x86.")


def _self_test() -> bool:
    """Whether the refcounts add up on this interpreter, so that escapes are caught."""
    try:
        ok = (all(_run(raw, None)[1] for raw in _SELF_TEST_CLEAN)
              and not any(_run(raw, None)[1] for raw in _SELF_TEST_ESCAPING))
    finally:
        _retire_markers()
    return ok
