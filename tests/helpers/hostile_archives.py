"""Hostile archives made from a small valid one: records rewritten, pickles edited, and
zip records whose directory claims more than their bytes hold (bombs), all in memory.
"""
from __future__ import annotations

import io
import struct
import zipfile
import zlib
from typing import Any, Callable, Optional

import tsjit
from tsjit import nn
from tsjit.serialize import pickle_format as P
from tsjit.serialize.pickler import pickle_value
from tsjit.serialize.unpickler import unpickle

TOP = "archive"


class Base(nn.Module):
    """Attributes of the usual kinds, all read by forward."""

    def __init__(self) -> None:
        super().__init__()
        self.flag = True
        self.name = "x"
        self.t = tsjit.ones(3)
        self.w = nn.Parameter(tsjit.ones(2, 3))
        self.idx = tsjit.arange(4)

    def forward(self, x: tsjit.Tensor) -> tsjit.Tensor:
        if self.flag:
            return x + self.t.sum() + self.w.sum() + self.idx.sum() + len(self.name)
        return x


def base_archive() -> bytes:
    """The archive of `Base`, saved by tsjit (records under the folder TOP)."""
    buf = io.BytesIO()
    tsjit.save(tsjit.script(Base()), buf)
    data = buf.getvalue()
    top = zipfile.ZipFile(io.BytesIO(data)).namelist()[0].split("/")[0]
    return rewrite(data, lambda n, b: b, rename=lambda n: TOP + n[len(top):])


def rewrite(data: bytes, edit: Callable[[str, bytes], Optional[bytes]],
            add: tuple = (), rename: Callable[[str], str] = lambda n: n) -> bytes:
    """The archive with each record's bytes replaced by edit(name relative to the top
    folder, bytes) (None drops it), then the (relative name, bytes) records of `add`."""
    zin = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zout:
        for name in zin.namelist():
            new = edit(name.split("/", 1)[1], zin.read(name))
            if new is not None:
                zout.writestr(rename(name), new)
        top = zin.namelist()[0].split("/")[0]
        for name, content in add:
            zout.writestr(f"{rename(top)}/{name}", content)
    return out.getvalue()


def replace(record: str, content: bytes) -> Callable[[str, bytes], bytes]:
    """An edit that replaces one record's bytes."""
    return lambda n, b: content if n == record else b


def edit_data(data: bytes, change: Callable[[Any], None], record: str = "data.pkl") -> bytes:
    """The archive with its data.pkl's model (root object) passed through `change`."""
    def edit(name: str, b: bytes) -> bytes:
        if name != record:
            return b
        root = unpickle(b, name)
        change(root)
        return pickle_value(root)
    return rewrite(data, edit)


def tensor_record(root: P.Object, attribute: str) -> P.Reduce:
    """The `_rebuild_tensor_v2` record of a tensor attribute of the root object."""
    r = root.state[attribute]
    assert isinstance(r, P.Reduce) and r.func is P.REBUILD_TENSOR_V2
    return r


def with_args(r: P.Reduce, **changes: Any) -> None:
    """Replace some of a tensor record's arguments (pid, offset, size, stride, grad)."""
    names = ("pid", "offset", "size", "stride", "requires_grad")
    args = list(r.args)
    for k, v in changes.items():
        args[names.index(k)] = v
    r.args = tuple(args)


def storage_pid(r: P.Reduce, **changes: Any) -> P.PersistentId:
    """A tensor record's storage persistent id with fields changed (cls, key, location,
    numel)."""
    names = ("tag", "cls", "key", "location", "numel")
    pid = list(r.args[0].pid)
    for k, v in changes.items():
        pid[names.index(k)] = v
    return P.PersistentId(tuple(pid), False)


def zeros_deflated(size: int) -> bytes:
    """A raw deflate stream inflating to `size` zero bytes (size a multiple of 16 MiB),
    made without compressing them all: a fully flushed block of 16 MiB, repeated."""
    chunk = 16 << 20
    assert size % chunk == 0
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = c.compress(bytes(chunk)) + c.flush(zlib.Z_FULL_FLUSH)
    return block * (size // chunk) + c.flush()


def zip_with_claims(data: bytes, record: str, payload: bytes, size: int) -> bytes:
    """The archive with record `record` replaced by deflated `payload`, its directory
    entry claiming `size` inflated bytes (and a CRC of 0: not checked)."""
    zin = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    central = []
    for name in zin.namelist():
        if name.split("/", 1)[1] == record:
            method, body, length = 8, payload, size
        else:
            method, body, length = 0, zin.read(name), len(zin.read(name))
        encoded = name.encode()
        crc = 0 if method == 8 else zlib.crc32(body)
        offset = out.tell()
        out.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0x0800, method, 0, 0, crc,
                              len(body), length, len(encoded), 0) + encoded + body)
        central.append(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0x0800, method,
                                   0, 0, crc, len(body), length, len(encoded), 0, 0, 0, 0,
                                   0, offset) + encoded)
    cd = out.tell()
    for entry in central:
        out.write(entry)
    out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(central), len(central),
                          out.tell() - cd, cd, 0))
    return out.getvalue()
