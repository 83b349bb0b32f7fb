"""The zip container of TorchScript archives: a validating reader and a PyTorch-style writer.

Layout PyTorch 2.13's `torch.jit.save` writes (learned from the corpus bytes):

* Records in the order they were written, each a local header, the data and a data
  descriptor (signature, CRC-32, compressed and uncompressed size, 32-bit each). Local
  headers carry flags 0x0808 (data descriptor follows, UTF-8 names), time and date 0
  (DOS 1980-00-00 00:00), CRC and sizes 0, "version needed" 0 (stored) or 20 (deflated).
* Every local header has one extra field, id ``b"FB"``, of ``b"Z"`` bytes that pads the
  record data to a 64-byte aligned file offset (so storages can be mapped in place); the
  field is 4..67 bytes long in total: a header whose data would already be aligned still
  gets a full 64-byte field.
* Records are stored (method 0) except those written with compression requested (code and
  debug info) that are longer than 200 bytes; those are deflated (method 8).
* The central directory repeats the entries (version made by 0, no extra field, no
  comment, attributes 0), followed by a zip64 end of central directory record (version
  made by 798, needed 45), a zip64 locator and the classic end record, always.

The reader checks the end records, the central directory and the names (one top folder,
no duplicates, nothing escaping it) when it opens an archive, but a record's local header
and data descriptor only when the record is first used (`info`, `read`, `storage_view`),
with the same errors a check at open would give: opening must not touch every record,
as the headers lie all over the file (a page to fault in each, when the file is mapped)
and a loader reads only some records. A record is checked before any of its bytes are
returned.

PyTorch deflates with miniz; zlib produces different (equally valid) deflate streams
for most inputs, so deflated records are not byte-identical to PyTorch's. Given the same
compressed bytes (see `ArchiveWriter(deflate=...)`) the writer reproduces the whole file.
"""
from __future__ import annotations

import errno
import hashlib
import io
import mmap
import operator
import os
import re
import stat
import struct
import sys
import tempfile
import threading
import zlib
from dataclasses import dataclass
from typing import IO, Any, Callable, Iterable, Optional, Union

from tsjit.ir.limits import INFLATION_ALLOWANCE, LimitError, current_limits as _current_limits
from tsjit.serialize.errors import ArchiveError

# ----------------------------------------------------------------------------- format

LOCAL_HEADER = struct.Struct("<IHHHHHIIIHH")   # local file header, 30 bytes
LOCAL_HEADER_SIG = 0x04034B50                   # b"PK\x03\x04"
CENTRAL_HEADER = struct.Struct("<IHHHHHHIIIHHHHHII")  # central directory entry, 46 bytes
CENTRAL_HEADER_SIG = 0x02014B50                 # b"PK\x01\x02"
DATA_DESCRIPTOR = struct.Struct("<IIII")        # signature, CRC-32, compressed, size
DATA_DESCRIPTOR_SIG = 0x08074B50                # b"PK\x07\x08"
EOCD = struct.Struct("<IHHHHIIH")               # end of central directory, 22 bytes
EOCD_SIG = 0x06054B50                           # b"PK\x05\x06"
ZIP64_EOCD = struct.Struct("<IQHHIIQQQQ")       # zip64 end of central directory, 56 bytes
ZIP64_EOCD_SIG = 0x06064B50                     # b"PK\x06\x06"
ZIP64_EOCD_BODY_SIZE = 44                       # its size field: bytes after that field
ZIP64_LOCATOR = struct.Struct("<IIQI")          # zip64 end of central directory locator
ZIP64_LOCATOR_SIG = 0x07064B50                  # b"PK\x06\x07"
ZIP64_EXTRA_ID = 0x0001                         # extra field: 64-bit sizes and offset
EXTRA_HEADER = struct.Struct("<HH")             # extra field id and data length
MAX_COMMENT = 0xFFFF                            # longest archive comment after the EOCD

METHOD_STORED = 0          # compression method: none
METHOD_DEFLATED = 8        # compression method: raw deflate
FLAG_ENCRYPTED = 0x0001    # general purpose flag: encrypted (never allowed)
FLAG_DATA_DESCRIPTOR = 0x0008  # general purpose flag: CRC and sizes follow the data
FLAG_UTF8 = 0x0800         # general purpose flag: the name is UTF-8
PYTORCH_FLAGS = FLAG_DATA_DESCRIPTOR | FLAG_UTF8  # what PyTorch sets on every record
VERSION_NEEDED_STORED = 0      # "version needed to extract" PyTorch writes for stored
VERSION_NEEDED_DEFLATED = 20   # ... and for deflated records (zip 2.0)
VERSION_MADE_BY = 0            # "version made by" of central directory entries
ZIP64_VERSION_MADE_BY = 798    # of the zip64 end record: 3 << 8 (Unix) | 30 (zip 3.0)
ZIP64_VERSION_NEEDED = 45      # of the zip64 end record: zip 4.5 (zip64)
DOS_TIME = 0                   # modification time PyTorch writes (00:00:00)
DOS_DATE = 0                   # modification date PyTorch writes (all-zero DOS date)
ALIGNMENT = 64                 # record data starts at a multiple of this file offset
PAD_EXTRA_ID = 0x4246          # b"FB": the padding extra field PyTorch uses
PAD_BYTE = b"Z"                # its filler
COMPRESS_MIN_SIZE = 200        # records of at most this many bytes are never deflated
U16_MAX = 0xFFFF               # "see zip64" marker in 16-bit fields
U32_MAX = 0xFFFFFFFF           # "see zip64" marker in 32-bit fields
DEFLATE_LEVEL = 6              # zlib level for deflated records (no level matches miniz)
RAW_DEFLATE_WBITS = -15        # zlib wbits for a raw deflate stream, 32 KiB window
NO_CRC = 0                     # the CRC-32 field of a record written without one
TAIL_READ = 16384              # bytes read from a file's end at open (where the directory is)


def pad_extra_length(header_end: int, alignment: int = ALIGNMENT) -> int:
    """Length of PyTorch's padding extra field for a header whose name ends at `header_end`."""
    length = alignment - header_end % alignment
    return length + alignment if length < EXTRA_HEADER.size else length


def default_deflate(data: bytes) -> bytes:
    """Raw deflate with zlib (PyTorch's miniz output differs; both inflate the same)."""
    c = zlib.compressobj(DEFLATE_LEVEL, zlib.DEFLATED, RAW_DEFLATE_WBITS)
    return c.compress(data) + c.flush()


def check_name(name: str, where: str) -> None:
    """Reject names that could escape the archive's folder when extracted."""
    if _SAFE_NAME.fullmatch(name):
        return      # the usual name, accepted by one match (what it accepts, the rest does)
    if not name or "\x00" in name or "\\" in name or name.startswith("/") or \
            (len(name) > 1 and name[1] == ":"):
        raise ArchiveError(f"unsafe record name {name!r} in {where}", record=name)
    parts = name.split("/")
    if parts[-1] == "":
        parts = parts[:-1]      # a folder entry "a/b/"
    if any(p in ("", ".", "..") for p in parts):
        raise ArchiveError(f"unsafe record name {name!r} in {where}", record=name)


# Names check_name accepts for sure: parts of characters other than "/", NUL and "\\" that
# are not "." or "..", joined by "/", maybe a final "/"; no ":" as the second character.
_SAFE_NAME = re.compile(r"(?!.:)(?!\.\.?(?:/|\Z))[^/\x00\\]+(?:/(?!\.\.?(?:/|\Z))[^/\x00\\]+)*/?", re.S)


def _plain_names(joined: str, count: int) -> bool:
    """Whether the `count` names joined by newlines all pass check_name, none of them a
    folder entry or with a newline: a few substring searches, much faster than a match
    per name (the reader checks every name of an archive when it opens it)."""
    if joined.count("\n") != count - 1 or "\x00" in joined or "\\" in joined:
        return False
    # With "/" between and around the names, every part of every name lies between two
    # "/": an empty part, an empty name, a leading "/" and a folder entry's trailing "/"
    # show as "//", "." and ".." parts as "/./" and "/../".
    slashed = "/" + joined.replace("\n", "/") + "/"
    if _EMPTY_OR_DOTS.search(slashed) is not None:
        return False
    return ":" not in joined or _DRIVE.search("\n" + joined) is None


_DRIVE = re.compile(r"\n[^\n]:")    # a name (after a newline) with ":" as second character
# "//", "/./" or "/../": one search (a search for each costs three times as much)
_EMPTY_OR_DOTS = re.compile(r"/(?:/|\.\.?/)")


# ----------------------------------------------------------------------------- writer

@dataclass
class _Written:
    name: bytes
    method: int
    crc: int
    compressed_size: int
    size: int
    header_offset: int


_U64 = (1 << 64) - 1


def serialization_id(crcs: list[int]) -> bytes:
    """The `.data/serialization_id` record from the CRC-32s of the records before it: 40
    digits, 20 of a digest of the CRC-32s, then the CRC-32s combined as PyTorch combines
    them (so the id changes with the content, and only with it, and costs no second pass
    over the data)."""
    combined = 0
    for c in crcs:
        combined = (combined ^ (c + 0x9E3779B9 + ((combined << 6) & _U64) + (combined >> 2))) & _U64
    digest = int.from_bytes(hashlib.sha256(repr(crcs).encode()).digest()[:8], "big")
    return f"{digest % 10 ** 20:020d}{combined:020d}".encode()


class ArchiveWriter:
    """Writes a zip the way PyTorch 2.13 does.

    `target`: a path (written to a temporary file next to it and moved into place by
    `close()`, so an existing file is untouched if anything fails), a binary file object,
    or None to build the archive in memory (`to_bytes()`). `top`: if given, record names
    are relative to this folder. `deflate`: compressor for deflated records.
    `alignment`: record data starts at a multiple of it (a power of two, at least 64);
    `crc32=False` writes zero CRC-32s, as PyTorch does when told not to compute them.
    `sync`: flush a path's file to disk before it is moved into place.
    """

    def __init__(self, target: Union[str, os.PathLike, IO[bytes], None] = None, *,
                 top: Optional[str] = None,
                 deflate: Callable[[bytes], bytes] = default_deflate,
                 alignment: int = ALIGNMENT, crc32: bool = True, sync: bool = True) -> None:
        if alignment < ALIGNMENT or alignment & (alignment - 1) or alignment > 1 << 15:
            raise ArchiveError(f"storage alignment {alignment!r} is not a power of two "
                               "from 64 to 32768")
        self._alignment = alignment
        self._crc32 = crc32
        self._sync = sync
        self._deflate = deflate
        self._top = top.strip("/") + "/" if top else ""
        self._records: list[_Written] = []
        self._names: set[str] = set()
        self._offset = 0
        self._state = "open"
        self._out = AtomicOutput(io.BytesIO() if target is None else target)
        self._file: IO[bytes] = self._out.file

    def __enter__(self) -> "ArchiveWriter":
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()

    def _write(self, data: Union[bytes, memoryview]) -> None:
        self._file.write(data)
        self._offset += len(data)

    def crcs(self) -> list[int]:
        """The CRC-32s of the non-empty records written so far, in order."""
        return [r.crc for r in self._records if r.size]

    def write_record(self, name: str, data: Union[bytes, bytearray, memoryview],
                     compress: bool = False) -> None:
        """Append one record; `compress` asks for deflate (applied above 200 bytes)."""
        if self._state != "open":
            raise ArchiveError(f"cannot write {name!r}: the archive writer is {self._state}")
        try:
            self._write_record(self._top + name, data, compress)
        except BaseException:
            self.abort()
            raise

    def _write_record(self, name: str, data: Any, compress: bool) -> None:
        check_name(name, "the archive being written")
        if name in self._names:
            raise ArchiveError(f"duplicate record name {name!r}", record=name)
        view = memoryview(data)
        if not view.c_contiguous:
            raise ArchiveError(f"record {name!r}: data is not contiguous", record=name)
        view = view.cast("B") if view.format != "B" or view.ndim != 1 else view
        size = view.nbytes
        method = METHOD_DEFLATED if compress and size > COMPRESS_MIN_SIZE else METHOD_STORED
        payload = self._deflate(bytes(view)) if method == METHOD_DEFLATED else view
        encoded = name.encode("utf-8")
        header_offset = self._offset
        extra_len = pad_extra_length(header_offset + LOCAL_HEADER.size + len(encoded),
                                     self._alignment)
        if max(size, len(payload), header_offset + extra_len + len(payload)) >= U32_MAX:
            raise ArchiveError(f"record {name!r} needs zip64 entries, which this writer "
                               "does not write (records and archives must be < 4 GiB)",
                               record=name)
        version = VERSION_NEEDED_DEFLATED if method == METHOD_DEFLATED else VERSION_NEEDED_STORED
        # an empty record has no data descriptor (PyTorch's writer: sizes and CRC are 0)
        flags = PYTORCH_FLAGS if size else FLAG_UTF8
        self._write(LOCAL_HEADER.pack(LOCAL_HEADER_SIG, version, flags, method,
                                      DOS_TIME, DOS_DATE, 0, 0, 0, len(encoded), extra_len)
                    + encoded + EXTRA_HEADER.pack(PAD_EXTRA_ID, extra_len - EXTRA_HEADER.size)
                    + PAD_BYTE * (extra_len - EXTRA_HEADER.size))
        self._write(payload)
        crc = zlib.crc32(view) if self._crc32 else NO_CRC
        if size:
            self._write(DATA_DESCRIPTOR.pack(DATA_DESCRIPTOR_SIG, crc, len(payload), size))
        self._names.add(name)
        self._records.append(_Written(encoded, method, crc, len(payload), size, header_offset))

    def close(self) -> None:
        """Write the central directory and end records; move the file into place."""
        if self._state != "open":
            if self._state == "closed":
                return
            raise ArchiveError(f"cannot close: the archive writer is {self._state}")
        try:
            self._finish()
        except BaseException:
            self.abort()
            raise
        self._state = "closed"

    def _finish(self) -> None:
        cd_offset = self._offset
        for r in self._records:
            version = VERSION_NEEDED_DEFLATED if r.method == METHOD_DEFLATED \
                else VERSION_NEEDED_STORED
            self._write(CENTRAL_HEADER.pack(
                CENTRAL_HEADER_SIG, VERSION_MADE_BY, version,
                PYTORCH_FLAGS if r.size else FLAG_UTF8, r.method,
                DOS_TIME, DOS_DATE, r.crc, r.compressed_size, r.size, len(r.name), 0, 0,
                0, 0, 0, r.header_offset))
            self._write(r.name)
        cd_size = self._offset - cd_offset
        zip64_offset = self._offset
        n = len(self._records)
        self._write(ZIP64_EOCD.pack(ZIP64_EOCD_SIG, ZIP64_EOCD_BODY_SIZE, ZIP64_VERSION_MADE_BY,
                                    ZIP64_VERSION_NEEDED, 0, 0, n, n, cd_size, cd_offset))
        self._write(ZIP64_LOCATOR.pack(ZIP64_LOCATOR_SIG, 0, zip64_offset, 1))
        self._write(EOCD.pack(EOCD_SIG, 0, 0, min(n, U16_MAX), min(n, U16_MAX),
                              min(cd_size, U32_MAX), min(cd_offset, U32_MAX), 0))
        self._out.commit(self._sync)

    def abort(self) -> None:
        """Give up: remove the temporary file; an existing target stays as it was."""
        if self._state == "closed":
            return
        self._state = "aborted"
        self._out.abort()

    def to_bytes(self) -> bytes:
        """The finished archive, when writing to memory (closes the writer if needed)."""
        if not isinstance(self._file, io.BytesIO):
            raise ArchiveError("to_bytes() needs a writer that writes to memory")
        self.close()
        return self._file.getvalue()


class AtomicOutput:
    """Where a file is written: for a path, a temporary file beside it that `commit()`
    moves into place (readers see the old file or the whole new one, never part of it)
    and `abort()` removes; a file object is written as it is."""

    def __init__(self, target: Union[str, os.PathLike, IO[bytes]]) -> None:
        self.path: Optional[str] = None
        self.tmp: Optional[str] = None
        if isinstance(target, (str, os.PathLike)):
            self.path = os.fspath(target)
            folder = os.path.dirname(os.path.abspath(self.path))
            fd, self.tmp = tempfile.mkstemp(
                dir=folder, prefix="." + os.path.basename(self.path) + ".", suffix=".tmp")
            self.file: IO[bytes] = os.fdopen(fd, "wb")
        else:
            self.file = target

    def commit(self, sync: bool = True) -> None:
        """Finish: flush, and move a temporary file into place (after fsync if `sync`)."""
        self.file.flush()
        if self.tmp is not None:
            if sync:
                os.fsync(self.file.fileno())
            self.file.close()
            _match_default_mode(self.tmp, self.path)
            old = _hold(self.path)
            os.replace(self.tmp, self.path)   # atomic: readers see old or new file
            self.tmp = None
            if old is not None:
                _release_later(old)

    def abort(self) -> None:
        """Remove the temporary file; an existing target stays as it was."""
        if self.tmp is not None:
            try:
                self.file.close()
            finally:
                try:
                    os.unlink(self.tmp)
                except FileNotFoundError:
                    pass
                self.tmp = None


def _hold(path: str) -> Optional[int]:
    """A descriptor of the file at `path` (None if there is none), so that replacing it
    does not free it yet."""
    try:
        return os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None


def _release_later(fd: int) -> None:
    """Close the replaced file's descriptor on a background thread: that frees the file,
    which costs about a millisecond per MiB on some filesystems (ext4 mounted with
    `discard`), and the caller need not wait for it."""
    threading.Thread(target=os.close, args=(fd,), daemon=True).start()


def _match_default_mode(tmp: str, target: str) -> None:
    """Give the temporary file (mkstemp makes it 0600) the target's mode, or the mode a
    newly created file would have."""
    try:
        mode = os.stat(target).st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    os.chmod(tmp, mode)


# ----------------------------------------------------------------------------- reader

@dataclass
class ZipEntry:
    """One record as the central directory describes it, with its data's file offset."""

    name: str                # full name, top folder included
    method: int
    flags: int
    crc: int
    compressed_size: int
    size: int
    header_offset: int
    data_offset: int = 0     # filled in from the local header (checked before it is seen)


# A central directory entry as the reader keeps it until the record is used: ZipEntry's
# fields but data_offset, in order. A tuple because building an object for every entry
# was most of the time of opening an archive.
_Central = tuple[str, int, int, int, int, int, int]
_HEADER_OFFSET = operator.itemgetter(6)


class ArchiveReader:
    """Opens and validates a TorchScript archive (a zip with one top folder).

    `source`: a path (the file is memory-mapped copy-on-write) or the archive's bytes.
    Names given to and returned by the methods are relative to the top folder. The
    directory is checked when the archive is opened, each record's local header and data
    descriptor when the record is first used (`info`, `read`, `storage_view`).
    """

    def __init__(self, source: Union[str, os.PathLike, bytes, bytearray, memoryview]) -> None:
        self._mmap: Optional[mmap.mmap] = None
        self._fd = -1       # the file's descriptor while records are read (see _span)
        self._released = False     # the file mapping is gone: no record can be checked
        if isinstance(source, (str, os.PathLike)):
            self.path = os.fspath(source)
            self._open_file()
        else:
            self.path = "<bytes>"
            self._buf = memoryview(source).cast("B")
            self._tail, self._tail_at = self._buf, 0
        self._size = len(self._buf)
        self._inflated = 0      # bytes inflated from deflated records read (see read)
        try:
            self._entries, self._cd_offset = self._parse()
            self.top, self._relative = self._check_names(self._entries)
            # Data offsets of the records (by relative name) whose local header and data
            # descriptor passed (ints, not ZipEntry objects: loading reads every storage
            # and needs only where its data is).
            self._data_at: dict[str, int] = {}
            # Bytes read past the last record checked (the next one's local header, usually):
            # (file offset, bytes, index in them of that offset), not sliced to save a copy.
            self._ahead: tuple[int, Union[bytes, memoryview], int] = _NOTHING_AHEAD
            self._limits: Optional[dict[str, int]] = None   # full name -> record area end
            # header offset -> record area end, where records lie in directory order: how
            # far to read ahead (see _read_after)
            self._area_ends: dict[int, int] = {}
            if len(self._relative) != len(self._entries):
                self._check_folder_entries()
        except BaseException:
            self.close()
            raise

    # ---------------------------------------------------------------- public API

    def names(self) -> list[str]:
        """Record names in archive order, relative to the top folder."""
        return list(self._relative)

    def has(self, name: str) -> bool:
        """Whether the archive has record `name` (relative to the top folder)."""
        return name in self._relative

    def info(self, name: str) -> ZipEntry:
        """The zip entry of record `name` (its local header is checked on first use)."""
        at = self._data_at.get(name)
        if at is None:
            at = self._check_record(name)
        return ZipEntry(*self._relative[name], at)

    def read(self, name: str) -> bytes:
        """The (inflated, CRC-checked) bytes of record `name`, within the limits in force
        (`Limits.max_record_bytes`, `max_inflation_ratio`: checked on the declared size
        before anything is inflated; inflating stops at that size)."""
        e = self.info(name)
        raw = self._span(e.data_offset, e.data_offset + e.compressed_size)
        if e.size > _current_limits().max_record_bytes:
            raise LimitError("max_record_bytes", f"the size of record {e.name} in {self.path}",
                             e.size)
        if e.method == METHOD_STORED:
            data = bytes(raw)
        else:
            self._inflate_budget(e)
            try:
                d = zlib.decompressobj(RAW_DEFLATE_WBITS)
                data = d.decompress(raw, e.size + 1)   # bound the output: no zip bombs
                complete = d.eof and not d.unconsumed_tail
            except zlib.error as exc:
                raise self._error(e, f"bad deflate data ({exc})", e.data_offset) from None
            if not complete:
                raise self._error(e, "deflate data does not match its size", e.data_offset)
        if len(data) != e.size:
            raise self._error(e, f"has {len(data)} bytes, the directory says {e.size}")
        # (a CRC of 0: PyTorch's writer with `compute_crc32` off leaves them out)
        if zlib.crc32(data) != e.crc and e.crc != NO_CRC:
            raise self._error(e, "CRC-32 mismatch (corrupted data)", e.data_offset)
        return data

    def _inflate_budget(self, e: ZipEntry) -> None:
        """Count record `e`'s size against the archive's inflation budget (see Limits)."""
        total = self._inflated + e.size
        ratio = _current_limits().max_inflation_ratio
        if total > INFLATION_ALLOWANCE and total > ratio * self._size:
            raise LimitError("max_inflation_ratio", f"record {e.name} would inflate "
                             f"{self.path} ({self._size} bytes) to {total} bytes in all, "
                             f"{total / max(self._size, 1):.0f} times its size")
        self._inflated = total

    def storage_view(self, name: str) -> memoryview:
        """A zero-copy view of stored record `name` (copy-on-write for files)."""
        # (no ZipEntry made, as `info` does: loading asks for every storage)
        at = self._data_at.get(name)
        if at is None:
            at = self._check_record(name)
        central = self._relative[name]
        if central[1] != METHOD_STORED:
            e = ZipEntry(*central, at)
            raise self._error(e, f"is compressed (method {e.method}); tensor storages must "
                                 "be stored uncompressed")
        return self._buf[at:at + central[5]]    # (stored: the size is the compressed size)

    def record_size(self, name: str) -> int:
        """The size of record `name` as the central directory says (nothing read)."""
        try:
            return self._relative[name][5]
        except KeyError:
            raise ArchiveError(f"no record {self.top}/{name} in {self.path}",
                               record=f"{self.top}/{name}") from None

    def readinto(self, name: str, out: Any) -> None:
        """Copy stored record `name` into the writable buffer `out` (its size): read
        from the file while it is open, so the pages of the mapping are not touched."""
        view = self.storage_view(name)
        target = memoryview(out).cast("B")
        if len(target) != len(view):
            raise ArchiveError(f"record {self.top}/{name} has {len(view)} bytes, not {len(target)}")
        at = self._data_at[name]
        done = 0
        if self._fd >= 0 and len(view):
            try:
                while done < len(view):
                    n = os.preadv(self._fd, [target[done:]], at + done)
                    if n <= 0:
                        break
                    done += n
            except (OSError, AttributeError):
                done = 0
        if done < len(view):
            target[done:] = view[done:]

    def view_at(self, name: str, data_offset: int) -> memoryview:
        """A zero-copy view of stored record `name` whose data offset was computed rather
        than read from its local header; checked to lie inside the record's area."""
        central = self._relative[name]
        if self._limits is None:
            self._find_record_areas()
        header, size = central[6], central[5]
        if central[1] != METHOD_STORED or \
                not header + _LOCAL_SIZE + len(central[0]) <= data_offset <= \
                self._limits[central[0]] - size:
            raise ArchiveError(f"record {self.top}/{name} does not lie at offset {data_offset} "
                               f"of {self.path}")
        return self._buf[data_offset:data_offset + size]

    def release_file(self) -> None:
        """Close the archive's file (the mapping stays): later reads go through the
        mapping. A loaded module keeps its reader; it need not keep a file open."""
        self._ahead = _NOTHING_AHEAD    # (up to 16 KB: the loading is done)
        fd = self._fd
        if fd >= 0:
            self._fd = -1
            os.close(fd)

    def __del__(self, _close: Callable[[int], None] = os.close) -> None:
        # The file is a descriptor, closed here: a file object and a weakref.finalize
        # cost 10% of opening an archive. (os.close bound early: modules may be torn
        # down before a reader alive at exit.)
        if self._fd >= 0:
            _close(self._fd)

    def close(self) -> None:
        """Release the file mapping (views still in use keep it alive until dropped)."""
        self.release_file()
        if self._mmap is not None:
            try:
                self._buf.release()
                self._released = True
                self._mmap.close()
            except BufferError:
                pass   # storage views are still exported; the map goes when they do
            self._mmap = None

    def __enter__(self) -> "ArchiveReader":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ---------------------------------------------------------------- validation

    def _open_file(self) -> None:
        """Map the file copy-on-write; read its last bytes (the directory, usually)."""
        try:
            fd = self._fd = os.open(self.path, os.O_RDONLY | _O_BINARY)
        except OSError as exc:
            raise ArchiveError(f"cannot open archive {self.path}: "
                               f"{exc.strerror or exc}") from exc
        try:
            try:
                # ACCESS_COPY: writes through views go to private pages, never the file.
                self._mmap = mmap.mmap(fd, 0, access=mmap.ACCESS_COPY, **_UNTRACKED)
            except ValueError:      # an empty file (the mapping finds out: no fstat first)
                raise self._not_zip() from None
            self._buf = memoryview(self._mmap)
            size = len(self._buf)
            if size < EOCD.size:
                raise self._not_zip()
            # Read, not taken from the mapping: that would fault in pages, which costs
            # more than reading them (and the records' pages are not needed yet).
            self._tail_at = max(0, size - TAIL_READ)
            self._tail = _read_at(fd, size - self._tail_at, self._tail_at)
        except OSError as exc:
            exc = _as_opening_error(exc, fd)
            self.close()
            raise ArchiveError(f"cannot open archive {self.path}: "
                               f"{exc.strerror or exc}") from exc
        if len(self._tail) != size - self._tail_at:     # the file changed size meanwhile
            self._tail, self._tail_at = b"", size

    def _span(self, start: int, end: int) -> Union[bytes, memoryview]:
        """The archive's bytes start:end (which lie inside it): from the tail read at open
        if it holds them, else read from the file while it is open, else from the mapping.
        (Touching a page of the mapping faults it in, which costs ten times a read of a
        few bytes: local headers and small records are read, storages mapped.)"""
        at = start - self._tail_at
        if at >= 0:
            return self._tail[at:at + end - start]
        if self._fd >= 0 and _PREAD is not None:
            try:
                data = _PREAD(self._fd, end - start, start)
            except OSError:
                data = b""
            if len(data) == end - start:
                return data
        return self._buf[start:end]

    def _not_zip(self) -> ArchiveError:
        return ArchiveError(f"not a tsjit/TorchScript archive (not a zip file): {self.path}")

    def _error(self, e: ZipEntry, what: str, offset: Optional[int] = None) -> ArchiveError:
        where = f" at offset {offset}" if offset is not None else ""
        return ArchiveError(f"record {e.name} in {self.path} {what}{where}",
                            record=e.name, offset=offset)

    def _bad(self, what: str, offset: Optional[int] = None) -> ArchiveError:
        where = f" at offset {offset}" if offset is not None else ""
        return ArchiveError(f"damaged archive {self.path}: {what}{where}", offset=offset)

    def _find_eocd(self) -> int:
        n = len(self._buf)
        # The usual case, an archive without a comment: the end record is the last 22 bytes
        # (checked without copying the up to 64 KiB tail the general search needs).
        if n >= EOCD.size:
            last = self._span(n - EOCD.size, n)
            if last[:4] == _EOCD_SIG_BYTES and last[-2:] == b"\x00\x00":
                return n - EOCD.size
        start = max(0, n - EOCD.size - MAX_COMMENT)
        tail = bytes(self._span(start, n))
        pos = len(tail)
        while True:
            pos = tail.rfind(_EOCD_SIG_BYTES, 0, pos)
            if pos < 0:
                break
            if pos + EOCD.size <= len(tail):
                comment_len = struct.unpack_from("<H", tail, pos + EOCD.size - 2)[0]
                if pos + EOCD.size + comment_len == len(tail):
                    return start + pos
        if n >= 4 and self._span(0, 4) == _LOCAL_SIG_BYTES:
            raise ArchiveError(f"truncated or damaged archive (no end of central directory "
                               f"record): {self.path}")
        raise self._not_zip()

    def _parse(self) -> tuple[dict[str, _Central], int]:
        """The central directory's entries by full name, in order, and the directory's offset."""
        eocd = self._find_eocd()
        (_, disk, cd_disk, n_disk, n, cd_size, cd_offset, _) = \
            EOCD.unpack(self._span(eocd, eocd + EOCD.size))
        cd_end_expected = eocd
        loc = eocd - ZIP64_LOCATOR.size
        if loc >= 0:
            _, _, z64, _ = locator = ZIP64_LOCATOR.unpack(self._span(loc, eocd))
            if locator[0] == ZIP64_LOCATOR_SIG:
                if z64 + ZIP64_EOCD.size > loc or \
                        self._span(z64, z64 + 4) != _ZIP64_EOCD_SIG_BYTES:
                    raise self._bad("bad zip64 end of central directory record", z64)
                (_, _, _, _, disk, cd_disk, n_disk, n, cd_size, cd_offset) = \
                    ZIP64_EOCD.unpack(self._span(z64, z64 + ZIP64_EOCD.size))
                cd_end_expected = z64
        if disk != 0 or cd_disk != 0 or n_disk != n:
            raise self._bad("multi-disk archives are not supported")
        if cd_offset + cd_size != cd_end_expected:
            raise self._bad("central directory is not where the end record says", cd_offset)
        if n == 0:
            raise self._bad("the archive has no records")
        # One copy of the directory (usually a slice of the tail): entries are parsed from
        # bytes, cheaper to slice than the mapping.
        cd = bytes(self._span(cd_offset, cd_end_expected))
        return self._central_directory(cd, n, cd_offset), cd_offset

    def _central_directory(self, cd: bytes, n: int, base: int) -> dict[str, _Central]:
        """The `n` entries of the directory bytes `cd` (at file offset `base`) by name.

        The loop only tells good entries from bad ones, with as few operations as it can
        (this is most of the time of opening an archive); `_directory_error` and
        `_entry_error` work out what is wrong with a bad one. Names are checked afterwards,
        all at once (`_check_names`).
        """
        entries: dict[str, _Central] = {}
        unpack = _UNPACK_CENTRAL_FIELDS
        size_cd = len(cd)
        pos = 0
        for _ in range(n):
            try:
                sig, flags, method, crc, csize, size, nlen, xlen, clen, offset = unpack(cd, pos)
            except struct.error:    # fewer bytes left than a header
                raise self._directory_error(entries, cd, pos, base) from None
            name_at = pos + _CENTRAL_SIZE
            end = name_at + nlen + xlen + clen
            if sig != CENTRAL_HEADER_SIG or end > size_cd:
                raise self._directory_error(entries, cd, pos, base)
            try:
                name = cd[name_at:name_at + nlen].decode()   # UTF-8
            except UnicodeDecodeError:
                raise self._directory_error(entries, cd, pos, base) from None
            if xlen:
                size, csize, offset = _apply_zip64_extra(cd[name_at + nlen:name_at + nlen + xlen],
                                                         size, csize, offset)
            entry = (name, method, flags, crc, csize, size, offset)
            if (csize != size if method == METHOD_STORED else method != METHOD_DEFLATED) \
                    or flags & FLAG_ENCRYPTED or name in entries:
                raise self._entry_error(entries, entry)
            entries[name] = entry
            pos = end
        if pos != size_cd:
            self._check_each_name(entries)
            raise self._bad("central directory size does not match its entries", base + pos)
        return entries

    def _check_each_name(self, names: Iterable[str]) -> None:
        """check_name for each of `names` in order: the exact error for the first unsafe one.

        Used before reporting a problem of a directory entry: names used to be checked entry
        by entry, so an unsafe name before the entry is still the error reported.
        """
        for name in names:
            check_name(name, self.path)

    def _directory_error(self, earlier: dict[str, _Central], cd: bytes, pos: int,
                         base: int) -> ArchiveError:
        """What is wrong with the directory entry at `pos` of `cd` that cannot be read."""
        self._check_each_name(earlier)
        if pos + _CENTRAL_SIZE > len(cd):
            return self._bad("central directory is truncated", base + pos)
        sig, _, _, _, _, _, nlen, xlen, clen, _ = _UNPACK_CENTRAL_FIELDS(cd, pos)
        if sig != CENTRAL_HEADER_SIG:
            return self._bad("bad central directory entry signature", base + pos)
        name_at = pos + _CENTRAL_SIZE
        if name_at + nlen + xlen + clen > len(cd):
            return self._bad("central directory entry runs past the directory", base + pos)
        raw_name = cd[name_at:name_at + nlen]
        return self._bad(f"record name {raw_name!r} is not UTF-8", base + pos)

    def _entry_error(self, earlier: dict[str, _Central], entry: _Central) -> ArchiveError:
        """What is wrong with the directory entry `entry` (read, but refused)."""
        name, method, flags, _, csize, size, _ = entry
        self._check_each_name([*earlier, name])
        e = ZipEntry(*entry)
        if flags & FLAG_ENCRYPTED:
            return self._error(e, "is encrypted")
        if method != METHOD_STORED and method != METHOD_DEFLATED:
            return self._error(e, f"uses unsupported compression method {method}")
        if method == METHOD_STORED and csize != size:
            return self._error(e, f"is stored but its sizes differ ({csize} != {size})")
        return ArchiveError(f"duplicate record name {name!r} in {self.path}", record=name)

    def _check_names(self, entries: dict[str, _Central]) -> tuple[str, dict[str, _Central]]:
        """The top folder and the records (folder entries left out) by relative name; an
        error for an unsafe name or a record outside the top folder."""
        joined = "\n".join(entries)
        plain = _plain_names(joined, len(entries))
        if not plain:
            self._check_each_name(entries)
        top = next(iter(entries)).partition("/")[0]
        prefix = top + "/"
        cut = len(prefix)
        if plain:
            # The names are the lines of `joined`: cut at each line starting with the
            # prefix, it gives the relative names if every name starts with it.
            relative = joined[cut:].split("\n" + prefix)
            in_top = joined.startswith(prefix) and len(relative) == len(entries)
        else:
            in_top = all(name.startswith(prefix) for name in entries)
        if not in_top:
            tops = {name.split("/", 1)[0] for name in entries}
            found = ", ".join(sorted(repr(t) for t in tops))
            raise ArchiveError(f"not a tsjit/TorchScript archive: expected every record in "
                               f"one top folder, found {found} in {self.path}")
        if plain:   # (no folder entries)
            return top, dict(zip(relative, entries.values()))
        return top, {name[cut:]: e for name, e in entries.items() if not name.endswith("/")}

    def _check_record(self, name: str) -> int:
        """Check record `name`'s local header and data descriptor (first use); its data's
        file offset."""
        try:
            central = self._relative[name]
        except KeyError:
            raise ArchiveError(f"no record {self.top}/{name} in {self.path}",
                               record=f"{self.top}/{name}") from None
        if self._released:
            raise ArchiveError(f"cannot read record {self.top}/{name}: archive {self.path} "
                               "is closed", record=f"{self.top}/{name}")
        if self._limits is None:
            self._find_record_areas()
        limit = self._limits[central[0]]
        at = self._regular_record(central, limit)
        if at is None:
            e = ZipEntry(*central)
            self._check_local(e, limit)
            at = e.data_offset
        self._data_at[name] = at
        return at

    def _regular_record(self, central: _Central, limit: int) -> Optional[int]:
        """The data offset of a record laid out as PyTorch writes them, whose local header
        and data descriptor say what the directory says, checked in one pass (loading
        checks every record it reads); None for `_check_local` to find what is wrong, or
        to take another layout.

        Only a sufficient test: whatever it accepts, `_check_local` accepts with the same
        data offset, so it may refuse more (a header read past the record area is not cut
        there: a name or extra field reaching past `limit` puts the data end past it too).
        """
        name, method, flags, crc, csize, size, h = central
        ahead = self._ahead
        if ahead[0] == h:
            _, head, at = ahead     # read with the record before (storages come in order)
        else:
            end = h + _HEAD_READ
            head, at = self._span(h, end if end < limit else limit), 0
        # One comparison for the local header's fields before the name's length: those of
        # PyTorch's headers depend on the method only (sizes in a data descriptor).
        if head[at:at + _LOCAL_FIXED] != _PYTORCH_LOCAL.get(method) or \
                not flags & FLAG_DATA_DESCRIPTOR:
            return None
        try:
            nlen, xlen = _UNPACK_LENGTHS(head, at + _LOCAL_FIXED)
            descriptor = _PACK_DESCRIPTOR(DATA_DESCRIPTOR_SIG, crc, csize, size)
        except struct.error:    # a header cut short by `limit`, zip64 sizes
            return None
        # (sums grouped to keep the file offsets made on the way few: each is an object)
        skip = _LOCAL_SIZE + nlen + xlen    # the header's length
        data = h + skip
        end = data + csize
        if end + 16 > limit or head[at + _LOCAL_SIZE:at + _LOCAL_SIZE + nlen] != name.encode():
            return None
        d = at + skip + csize       # where the descriptor is in `head`
        if d + _AHEAD_SIZE > len(head):     # (unless read with the record before)
            head, d = self._read_after(end, limit), 0
        if head[d:d + 16] != descriptor:
            return None
        self._ahead = (end + 16, head, d + 16)
        return data

    def _read_after(self, end: int, limit: int) -> Union[bytes, memoryview]:
        """The bytes from `end` (a data descriptor, the record area ending at `limit`): with
        the next record's local header, or, if that record is small, the whole record and
        the header after it (a read costs as much as copying 10 KB)."""
        stop = end + _AHEAD_SIZE
        area_end = self._area_ends.get(limit)
        if area_end is not None and area_end - end <= _READ_WHOLE:
            stop = area_end + _HEAD_READ
        return self._span(end, stop if stop < self._size else self._size)

    def _check_folder_entries(self) -> None:
        """Check the local headers of folder entries ("a/b/") now: they are never read.
        (PyTorch writes none, so this costs nothing for the archives it saves.)"""
        if self._limits is None:
            self._find_record_areas()
        for name, central in self._entries.items():
            if name.endswith("/"):
                self._check_local(ZipEntry(*central), self._limits[name])

    def _find_record_areas(self) -> None:
        """Where each record's area ends (`_limits`): at the next local header in the file,
        or at the central directory. (Sorting is stable: of two entries claiming one
        offset, the first in the directory gets an empty area, so it is reported.)"""
        cd = self._cd_offset
        offsets = list(map(_HEADER_OFFSET, self._entries.values()))
        if offsets[-1] <= cd and offsets == sorted(offsets):
            # The usual layout (records in directory order, before it): each area ends
            # where the next entry's begins; what the general case gives, without its sort.
            ends = offsets[1:] + [cd]
            self._limits = dict(zip(self._entries, ends))
            self._area_ends = dict(zip(offsets, ends))
            return
        by_offset = sorted(self._entries.values(), key=_HEADER_OFFSET)
        # Never past the directory: an entry placed after it fails its own check, but with
        # records checked one at a time, that check may never run for another's sake.
        ends = [min(_HEADER_OFFSET(c), cd) for c in by_offset[1:]] + [cd]
        self._limits = {c[0]: end for c, end in zip(by_offset, ends)}

    def _check_local(self, e: ZipEntry, limit: int) -> None:
        """The local header must agree with the central directory and the data (and data
        descriptor) end by `limit`; sets e.data_offset."""
        h = e.header_offset
        if h + LOCAL_HEADER.size > limit:
            raise self._error(e, "local header lies outside the record area", h)
        head = self._span(h, min(limit, h + _HEAD_READ))
        (sig, _, flags, method, _, _, crc, csize, size, nlen, xlen) = _UNPACK_LOCAL(head, 0)
        if sig != LOCAL_HEADER_SIG:
            raise self._error(e, "has a bad local header signature", h)
        name_at = h + LOCAL_HEADER.size
        if LOCAL_HEADER.size + nlen > len(head):
            head = self._span(h, min(limit, name_at + nlen))
        name_bytes = bytes(head[LOCAL_HEADER.size:LOCAL_HEADER.size + nlen])
        if name_bytes != e.name.encode("utf-8"):
            raise self._error(e, f"local header names {name_bytes!r}", h)
        if method != e.method or (flags & FLAG_DATA_DESCRIPTOR) != \
                (e.flags & FLAG_DATA_DESCRIPTOR):
            raise self._error(e, "local header disagrees with the central directory", h)
        if not (flags & FLAG_DATA_DESCRIPTOR) or crc or csize or size:
            if (crc, csize, size) != (e.crc, e.compressed_size, e.size) and \
                    U32_MAX not in (csize, size):
                raise self._error(e, "local header sizes disagree with the central "
                                     "directory", h)
        data_offset = name_at + nlen + xlen
        data_end = data_offset + e.compressed_size
        if data_end > limit:
            raise self._error(e, f"data runs past the end of its record area "
                                 f"({data_end} > {limit}; truncated file?)", data_offset)
        if flags & FLAG_DATA_DESCRIPTOR:
            self._check_descriptor(e, data_end, limit)
        e.data_offset = data_offset

    def _check_descriptor(self, e: ZipEntry, pos: int, limit: int) -> None:
        """The data descriptor after the data must repeat the central directory's values."""
        if pos + 16 <= limit:   # room for the optional signature: read it all at once
            sig, crc, csize, size = _UNPACK_DESCRIPTOR(self._span(pos, pos + 16))
            if sig == DATA_DESCRIPTOR_SIG:
                pos += 4
            else:
                crc, csize, size = sig, crc, csize
        else:
            if pos + 4 <= limit and self._span(pos, pos + 4) == _DESCRIPTOR_SIG_BYTES:
                pos += 4
            if pos + 12 > limit:
                raise self._error(e, "data descriptor is missing", pos)
            crc, csize, size = struct.unpack("<III", self._span(pos, pos + 12))
        if e.size < U32_MAX and e.compressed_size < U32_MAX and \
                (crc, csize, size) != (e.crc, e.compressed_size, e.size):
            raise self._error(e, "data descriptor disagrees with the central directory", pos)


# The central header fields the reader uses ("x": skipped): signature, flags, method,
# CRC-32, compressed size, size, name, extra and comment lengths, local header offset.
_UNPACK_CENTRAL_FIELDS = struct.Struct("<I4xHH4xIIIHHH8xI").unpack_from
_CENTRAL_SIZE = CENTRAL_HEADER.size
_EOCD_SIG_BYTES = struct.pack("<I", EOCD_SIG)
_ZIP64_EOCD_SIG_BYTES = struct.pack("<I", ZIP64_EOCD_SIG)
_LOCAL_SIG_BYTES = struct.pack("<I", LOCAL_HEADER_SIG)
_UNPACK_LOCAL = LOCAL_HEADER.unpack_from
_UNPACK_DESCRIPTOR = DATA_DESCRIPTOR.unpack
_PACK_DESCRIPTOR = DATA_DESCRIPTOR.pack
_DESCRIPTOR_SIG_BYTES = struct.pack("<I", DATA_DESCRIPTOR_SIG)
_PREAD = getattr(os, "pread", None)    # (not on Windows: records come from the mapping)
_O_BINARY = getattr(os, "O_BINARY", 0)  # (Windows: no newline translation)
# A map keeps a duplicate of the file's descriptor unless told not to (Python 3.13+), and
# a loaded module keeps its map: a process holding a thousand modules would run out of
# descriptors. (The map needs none: its size is taken once, it is never resized.)
_UNTRACKED = {"trackfd": False} if sys.version_info >= (3, 13) else {}
_LOCAL_SIZE = LOCAL_HEADER.size
# The local header fields up to the name's length (signature, versions, flags, method, time
# and date, CRC-32 and sizes), as PyTorch writes them, by compression method.
_LOCAL_FIXED = 26
_PYTORCH_LOCAL = {
    method: LOCAL_HEADER.pack(LOCAL_HEADER_SIG, version, PYTORCH_FLAGS, method, DOS_TIME,
                              DOS_DATE, 0, 0, 0, 0, 0)[:_LOCAL_FIXED]
    for method, version in ((METHOD_STORED, VERSION_NEEDED_STORED),
                            (METHOD_DEFLATED, VERSION_NEEDED_DEFLATED))}
_UNPACK_LENGTHS = struct.Struct("<HH").unpack_from    # the name and extra field lengths
# How much of a record to read to check its local header: the header, and a name and an
# extra field (PyTorch's alignment padding) of usual lengths; longer ones take a second read.
_HEAD_READ = 512
_AHEAD_SIZE = 16 + _HEAD_READ   # a data descriptor and the next record's header
_NOTHING_AHEAD = (-1, b"", 0)   # (see ArchiveReader._ahead)
# The longest record area read with the record before (its descriptor and the next local
# header then need no read of their own).
_READ_WHOLE = 16384


def _as_opening_error(exc: OSError, fd: int) -> OSError:
    """The error opening file `fd` as a file object would have given, if it is a folder
    (os.open opens folders; mapping one fails with a less telling error), else `exc`."""
    try:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            return IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
    except OSError:
        pass
    return exc


def _read_at(fd: int, n: int, offset: int) -> bytes:
    """Up to `n` bytes of file `fd` from `offset`."""
    if _PREAD is not None:
        return _PREAD(fd, n, offset)
    os.lseek(fd, offset, os.SEEK_SET)
    return os.read(fd, n)


def _apply_zip64_extra(extra: bytes, size: int, csize: int, offset: int) -> tuple[int, int, int]:
    """Replace 0xFFFFFFFF fields by their values in a zip64 extra field, if there is one."""
    pos = 0
    while pos + EXTRA_HEADER.size <= len(extra):
        tag, length = EXTRA_HEADER.unpack_from(extra, pos)
        body = extra[pos + EXTRA_HEADER.size:pos + EXTRA_HEADER.size + length]
        if tag == ZIP64_EXTRA_ID:
            values = [struct.unpack_from("<Q", body, i)[0] for i in range(0, len(body) - 7, 8)]
            if size == U32_MAX and values:
                size = values.pop(0)
            if csize == U32_MAX and values:
                csize = values.pop(0)
            if offset == U32_MAX and values:
                offset = values.pop(0)
        pos += EXTRA_HEADER.size + length
    return size, csize, offset
