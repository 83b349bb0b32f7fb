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

PyTorch deflates with miniz; zlib produces different (equally valid) deflate streams
for most inputs, so deflated records are not byte-identical to PyTorch's. Given the same
compressed bytes (see `ArchiveWriter(deflate=...)`) the writer reproduces the whole file.
"""
from __future__ import annotations

import io
import mmap
import os
import re
import struct
import tempfile
import zlib
from dataclasses import dataclass
from typing import IO, Any, Callable, Optional, Union

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


def pad_extra_length(header_end: int) -> int:
    """Length of PyTorch's padding extra field for a header whose name ends at `header_end`."""
    length = ALIGNMENT - header_end % ALIGNMENT
    return length + ALIGNMENT if length < EXTRA_HEADER.size else length


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


# ----------------------------------------------------------------------------- writer

@dataclass
class _Written:
    name: bytes
    method: int
    crc: int
    compressed_size: int
    size: int
    header_offset: int


class ArchiveWriter:
    """Writes a zip the way PyTorch 2.13 does.

    `target`: a path (written to a temporary file next to it and moved into place by
    `close()`, so an existing file is untouched if anything fails), a binary file object,
    or None to build the archive in memory (`to_bytes()`). `top`: if given, record names
    are relative to this folder. `deflate`: compressor for deflated records.
    """

    def __init__(self, target: Union[str, os.PathLike, IO[bytes], None] = None, *,
                 top: Optional[str] = None,
                 deflate: Callable[[bytes], bytes] = default_deflate) -> None:
        self._path: Optional[str] = None
        self._tmp: Optional[str] = None
        self._deflate = deflate
        self._top = top.strip("/") + "/" if top else ""
        self._records: list[_Written] = []
        self._names: set[str] = set()
        self._offset = 0
        self._state = "open"
        if target is None:
            self._file: IO[bytes] = io.BytesIO()
        elif isinstance(target, (str, os.PathLike)):
            self._path = os.fspath(target)
            folder = os.path.dirname(os.path.abspath(self._path))
            fd, self._tmp = tempfile.mkstemp(
                dir=folder, prefix="." + os.path.basename(self._path) + ".", suffix=".tmp")
            self._file = os.fdopen(fd, "wb")
        else:
            self._file = target

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
        crc = zlib.crc32(view)
        encoded = name.encode("utf-8")
        header_offset = self._offset
        extra_len = pad_extra_length(header_offset + LOCAL_HEADER.size + len(encoded))
        if max(size, len(payload), header_offset + extra_len + len(payload)) >= U32_MAX:
            raise ArchiveError(f"record {name!r} needs zip64 entries, which this writer "
                               "does not write (records and archives must be < 4 GiB)",
                               record=name)
        version = VERSION_NEEDED_DEFLATED if method == METHOD_DEFLATED else VERSION_NEEDED_STORED
        self._write(LOCAL_HEADER.pack(LOCAL_HEADER_SIG, version, PYTORCH_FLAGS, method,
                                      DOS_TIME, DOS_DATE, 0, 0, 0, len(encoded), extra_len))
        self._write(encoded)
        self._write(EXTRA_HEADER.pack(PAD_EXTRA_ID, extra_len - EXTRA_HEADER.size)
                    + PAD_BYTE * (extra_len - EXTRA_HEADER.size))
        self._write(payload)
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
                CENTRAL_HEADER_SIG, VERSION_MADE_BY, version, PYTORCH_FLAGS, r.method,
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
        self._file.flush()
        if self._tmp is not None:
            os.fsync(self._file.fileno())
            self._file.close()
            _match_default_mode(self._tmp, self._path)
            os.replace(self._tmp, self._path)   # atomic: readers see old or new file
            self._tmp = None

    def abort(self) -> None:
        """Give up: remove the temporary file; an existing target stays as it was."""
        if self._state == "closed":
            return
        self._state = "aborted"
        if self._tmp is not None:
            try:
                self._file.close()
            finally:
                try:
                    os.unlink(self._tmp)
                except FileNotFoundError:
                    pass
                self._tmp = None

    def to_bytes(self) -> bytes:
        """The finished archive, when writing to memory (closes the writer if needed)."""
        if not isinstance(self._file, io.BytesIO):
            raise ArchiveError("to_bytes() needs a writer that writes to memory")
        self.close()
        return self._file.getvalue()


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
    data_offset: int = 0     # filled in from the local header


class ArchiveReader:
    """Opens and validates a TorchScript archive (a zip with one top folder).

    `source`: a path (the file is memory-mapped copy-on-write) or the archive's bytes.
    Names given to and returned by the methods are relative to the top folder.
    """

    def __init__(self, source: Union[str, os.PathLike, bytes, bytearray, memoryview]) -> None:
        self._mmap: Optional[mmap.mmap] = None
        if isinstance(source, (str, os.PathLike)):
            self.path = os.fspath(source)
            try:
                with open(self.path, "rb") as f:
                    if os.fstat(f.fileno()).st_size < EOCD.size:
                        raise self._not_zip()
                    # ACCESS_COPY: writes through views go to private pages, never the file.
                    self._mmap = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
            except OSError as exc:
                raise ArchiveError(f"cannot open archive {self.path}: "
                                   f"{exc.strerror or exc}") from exc
            self._buf = memoryview(self._mmap)
        else:
            self.path = "<bytes>"
            self._buf = memoryview(source).cast("B")
        try:
            self._entries = self._parse()
        except BaseException:
            self.close()
            raise
        first = next(iter(self._entries.values())).name
        self.top: str = first.split("/", 1)[0]
        self._relative = {e.name[len(self.top) + 1:]: e for e in self._entries.values()
                          if not e.name.endswith("/")}

    # ---------------------------------------------------------------- public API

    def names(self) -> list[str]:
        """Record names in archive order, relative to the top folder."""
        return list(self._relative)

    def has(self, name: str) -> bool:
        """Whether the archive has record `name` (relative to the top folder)."""
        return name in self._relative

    def info(self, name: str) -> ZipEntry:
        """The zip entry of record `name`."""
        try:
            return self._relative[name]
        except KeyError:
            raise ArchiveError(f"no record {self.top}/{name} in {self.path}",
                               record=f"{self.top}/{name}") from None

    def read(self, name: str) -> bytes:
        """The (inflated, CRC-checked) bytes of record `name`."""
        e = self.info(name)
        raw = self._buf[e.data_offset:e.data_offset + e.compressed_size]
        if e.method == METHOD_STORED:
            data = bytes(raw)
        else:
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
        if zlib.crc32(data) != e.crc:
            raise self._error(e, "CRC-32 mismatch (corrupted data)", e.data_offset)
        return data

    def storage_view(self, name: str) -> memoryview:
        """A zero-copy view of stored record `name` (copy-on-write for files)."""
        e = self.info(name)
        if e.method != METHOD_STORED:
            raise self._error(e, f"is compressed (method {e.method}); tensor storages must "
                                 "be stored uncompressed")
        return self._buf[e.data_offset:e.data_offset + e.size]

    def close(self) -> None:
        """Release the file mapping (views still in use keep it alive until dropped)."""
        if self._mmap is not None:
            try:
                self._buf.release()
                self._mmap.close()
            except BufferError:
                pass   # storage views are still exported; the map goes when they do
            self._mmap = None

    def __enter__(self) -> "ArchiveReader":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ---------------------------------------------------------------- validation

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
        buf = self._buf
        n = len(buf)
        sig = struct.pack("<I", EOCD_SIG)
        # The usual case, an archive without a comment: the end record is the last 22 bytes
        # (checked without copying the up to 64 KiB tail the general search needs).
        if n >= EOCD.size and buf[n - EOCD.size:n - EOCD.size + 4] == sig and \
                buf[n - 2:n] == b"\x00\x00":
            return n - EOCD.size
        start = max(0, n - EOCD.size - MAX_COMMENT)
        tail = bytes(buf[start:])
        pos = len(tail)
        while True:
            pos = tail.rfind(sig, 0, pos)
            if pos < 0:
                break
            if pos + EOCD.size <= len(tail):
                comment_len = struct.unpack_from("<H", tail, pos + EOCD.size - 2)[0]
                if pos + EOCD.size + comment_len == len(tail):
                    return start + pos
        if n >= 4 and struct.unpack_from("<I", buf, 0)[0] == LOCAL_HEADER_SIG:
            raise ArchiveError(f"truncated or damaged archive (no end of central directory "
                               f"record): {self.path}")
        raise self._not_zip()

    def _parse(self) -> dict[str, ZipEntry]:
        buf = self._buf
        eocd = self._find_eocd()
        (_, disk, cd_disk, n_disk, n, cd_size, cd_offset, _) = EOCD.unpack_from(buf, eocd)
        cd_end_expected = eocd
        loc = eocd - ZIP64_LOCATOR.size
        if loc >= 0 and struct.unpack_from("<I", buf, loc)[0] == ZIP64_LOCATOR_SIG:
            _, _, z64, _ = ZIP64_LOCATOR.unpack_from(buf, loc)
            if z64 + ZIP64_EOCD.size > loc or \
                    struct.unpack_from("<I", buf, z64)[0] != ZIP64_EOCD_SIG:
                raise self._bad("bad zip64 end of central directory record", z64)
            (_, _, _, _, disk, cd_disk, n_disk, n, cd_size, cd_offset) = \
                ZIP64_EOCD.unpack_from(buf, z64)
            cd_end_expected = z64
        if disk != 0 or cd_disk != 0 or n_disk != n:
            raise self._bad("multi-disk archives are not supported")
        if cd_offset + cd_size != cd_end_expected:
            raise self._bad("central directory is not where the end record says", cd_offset)
        if n == 0:
            raise self._bad("the archive has no records")
        # One copy of the directory: slicing bytes is cheaper than slicing the mapping.
        cd = bytes(buf[cd_offset:cd_end_expected])
        entries: dict[str, ZipEntry] = {}
        pos = 0
        for _ in range(n):
            e, pos = self._central_entry(cd, pos, cd_offset)
            if e.name in entries:
                raise ArchiveError(f"duplicate record name {e.name!r} in {self.path}",
                                   record=e.name)
            entries[e.name] = e
        if pos != len(cd):
            raise self._bad("central directory size does not match its entries", cd_offset + pos)
        self._check_layout(list(entries.values()), cd_offset)
        return entries

    def _central_entry(self, cd: bytes, pos: int, base: int) -> tuple[ZipEntry, int]:
        """The entry at `pos` of the directory bytes `cd` (file offset `base`), and the next pos."""
        if pos + CENTRAL_HEADER.size > len(cd):
            raise self._bad("central directory is truncated", base + pos)
        (sig, _, _, flags, method, _, _, crc, csize, size, nlen, xlen, clen,
         _, _, _, offset) = _UNPACK_CENTRAL(cd, pos)
        if sig != CENTRAL_HEADER_SIG:
            raise self._bad("bad central directory entry signature", base + pos)
        name_at = pos + CENTRAL_HEADER.size
        end = name_at + nlen + xlen + clen
        if end > len(cd):
            raise self._bad("central directory entry runs past the directory", base + pos)
        raw_name = cd[name_at:name_at + nlen]
        try:
            name = raw_name.decode("utf-8")
        except UnicodeDecodeError:
            raise self._bad(f"record name {raw_name!r} is not UTF-8", base + pos) from None
        check_name(name, self.path)
        if xlen:
            size, csize, offset = _apply_zip64_extra(cd[name_at + nlen:name_at + nlen + xlen],
                                                     size, csize, offset)
        e = ZipEntry(name, method, flags, crc, csize, size, offset)
        if flags & FLAG_ENCRYPTED:
            raise self._error(e, "is encrypted")
        if method != METHOD_STORED and method != METHOD_DEFLATED:
            raise self._error(e, f"uses unsupported compression method {method}")
        if method == METHOD_STORED and csize != size:
            raise self._error(e, f"is stored but its sizes differ ({csize} != {size})")
        return e, end

    def _check_layout(self, entries: list[ZipEntry], cd_offset: int) -> None:
        top = entries[0].name.partition("/")[0]
        prefix = top + "/"
        if not all(e.name.startswith(prefix) for e in entries):
            tops = {e.name.split("/", 1)[0] for e in entries}
            found = ", ".join(sorted(repr(t) for t in tops))
            raise ArchiveError(f"not a tsjit/TorchScript archive: expected every record in "
                               f"one top folder, found {found} in {self.path}")
        buf = self._buf
        by_offset = sorted(entries, key=_header_offset)
        limits = [e.header_offset for e in by_offset[1:]] + [cd_offset]
        for e, limit in zip(by_offset, limits):
            h = e.header_offset
            if h + LOCAL_HEADER.size > limit:
                raise self._error(e, "local header lies outside the record area", h)
            (sig, _, flags, method, _, _, crc, csize, size, nlen, xlen) = \
                _UNPACK_LOCAL(buf, h)
            if sig != LOCAL_HEADER_SIG:
                raise self._error(e, "has a bad local header signature", h)
            name_at = h + LOCAL_HEADER.size
            if buf[name_at:name_at + nlen] != e.name.encode("utf-8"):
                name_bytes = bytes(buf[name_at:name_at + nlen])
                raise self._error(e, f"local header names {name_bytes!r}", h)
            if method != e.method or (flags & FLAG_DATA_DESCRIPTOR) != \
                    (e.flags & FLAG_DATA_DESCRIPTOR):
                raise self._error(e, "local header disagrees with the central directory", h)
            if not (flags & FLAG_DATA_DESCRIPTOR) or crc or csize or size:
                if (crc, csize, size) != (e.crc, e.compressed_size, e.size) and \
                        U32_MAX not in (csize, size):
                    raise self._error(e, "local header sizes disagree with the central "
                                         "directory", h)
            e.data_offset = name_at + nlen + xlen
            data_end = e.data_offset + e.compressed_size
            if data_end > limit:
                raise self._error(e, f"data runs past the end of its record area "
                                     f"({data_end} > {limit}; truncated file?)", e.data_offset)
            if flags & FLAG_DATA_DESCRIPTOR:
                self._check_descriptor(e, data_end, limit)

    def _check_descriptor(self, e: ZipEntry, pos: int, limit: int) -> None:
        """The data descriptor after the data must repeat the central directory's values."""
        buf = self._buf
        if pos + 16 <= limit:   # room for the optional signature: read it all at once
            sig, crc, csize, size = _UNPACK_DESCRIPTOR(buf, pos)
            if sig == DATA_DESCRIPTOR_SIG:
                pos += 4
            else:
                crc, csize, size = sig, crc, csize
        else:
            if pos + 4 <= limit and struct.unpack_from("<I", buf, pos)[0] == DATA_DESCRIPTOR_SIG:
                pos += 4
            if pos + 12 > limit:
                raise self._error(e, "data descriptor is missing", pos)
            crc, csize, size = struct.unpack_from("<III", buf, pos)
        if e.size < U32_MAX and e.compressed_size < U32_MAX and \
                (crc, csize, size) != (e.crc, e.compressed_size, e.size):
            raise self._error(e, "data descriptor disagrees with the central directory", pos)


_UNPACK_CENTRAL = CENTRAL_HEADER.unpack_from
_UNPACK_LOCAL = LOCAL_HEADER.unpack_from
_UNPACK_DESCRIPTOR = DATA_DESCRIPTOR.unpack_from


def _header_offset(e: ZipEntry) -> int:
    return e.header_offset


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
