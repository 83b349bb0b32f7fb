"""`tsjit show`: one record of a file, readably: a pickle as nested calls and objects (tensors
as storage references, classes by qualified name; nothing imported or run), or a text file."""
from __future__ import annotations

import argparse
from typing import Any

HELP = "show a record: a pickle (data.pkl, constants.pkl, *.debug_pkl) readably, or a file's text"
EXAMPLE = "tsjit show model.pt data.pkl"
_WIDTH = 100          # a container whose one-line form fits stays on one line
_LONG = 200           # strings and bytes longer than this are cut (--full shows all)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The command's arguments."""
    p.add_argument("file", help="a TorchScript archive or a torch.save checkpoint")
    p.add_argument("record", nargs="?", default="data.pkl",
                   help="a record (`tsjit list` names them; the top folder may be left out) or "
                        "an extra file's name; default data.pkl")
    p.add_argument("--full", action="store_true", help="do not shorten long strings and bytes")


def run(args: argparse.Namespace) -> int:
    """Print the record."""
    from .contents import open_file
    view = open_file(args.file)
    print(show(view, args.record, full=args.full))
    return 0


def show(view: Any, record: str, full: bool = False) -> str:
    """The text of `record` of the file `view` looks at."""
    names = set(view.names())
    top = view.reader.top + "/" if view.reader is not None else ""
    if top and record.startswith(top) and record[len(top):] in names:
        record = record[len(top):]
    if record not in names and "extra/" + record in names:
        record = "extra/" + record
    if record.endswith((".pkl", ".debug_pkl")) or view.reader is None:
        folder = "" if view.reader is None else "constants/" if record == "constants.pkl" else "data/"
        return Renderer(folder=folder, full=full).render(view.pickle(record))
    data = view.read(record)
    if record.startswith(("data/", "constants/")) and not record.endswith(".pkl"):
        return (f"{record}: tensor storage, {len(data)} bytes (`tsjit weights {view.path}` shows "
                "the tensors over it)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        head = data[:64].hex(" ")
        return f"{record}: binary, {len(data)} bytes: {head}{' ...' if len(data) > 64 else ''}"


class Renderer:
    """Neutral pickle model -> indented text. A value met a second time (the pickle's memo
    shared it) is printed as a reference to where it was first shown."""

    def __init__(self, folder: str = "data/", full: bool = False) -> None:
        self.folder = folder
        self.full = full
        self.seen: dict[int, str] = {}

    def render(self, v: Any) -> str:
        """The whole value."""
        return self.value(v, "", "")

    def value(self, v: Any, indent: str, path: str) -> str:
        from ..serialize.pickle_format import Global, Object, PersistentId, Reduce
        from .contents import is_tensor_record, qualified
        if isinstance(v, (Object, Reduce, dict, list)) or (isinstance(v, tuple) and v):
            if id(v) in self.seen:
                return f"<same as {self.seen[id(v)] or 'the whole'}>"
            self.seen[id(v)] = path
        if is_tensor_record(v):
            return self.tensor(v)
        if type(v) is Object:
            return self.call(qualified(v.cls), [], self.state(v), indent, path)
        if type(v) is Reduce:
            return self.call(qualified(v.func), [("", a) for a in v.args], self.state(v), indent, path)
        if type(v) is Global:
            return f"<global {qualified(v)}>"
        if type(v) is PersistentId:
            return f"<persistent id {self.value(v.pid, indent, path)}>"
        if isinstance(v, dict):
            return self.block("{", "}", [(f"{self.value(k, indent, path)}: ", x, f"[{k!r}]")
                                         for k, x in v.items()], indent, path)
        if isinstance(v, list):
            return self.block("[", "]", [("", x, f"[{i}]") for i, x in enumerate(v)], indent, path)
        if isinstance(v, tuple):
            close = ",)" if len(v) == 1 else ")"
            return self.block("(", close, [("", x, f"[{i}]") for i, x in enumerate(v)], indent, path)
        if isinstance(v, (str, bytes, bytearray)) and len(v) > _LONG and not self.full:
            unit = "characters" if isinstance(v, str) else "bytes"
            return f"{v[:_LONG]!r}... ({len(v)} {unit}; --full shows all)"
        return repr(v)

    def tensor(self, r: Any) -> str:
        from ..serialize.pickle_format import STORAGE_DTYPES, PersistentId
        pid = r.args[0].pid if type(r.args[0]) is PersistentId else None
        # (a legacy file's ids have a sixth item, the view metadata)
        if not (isinstance(pid, tuple) and len(pid) in (5, 6)) or len(r.args) < 4:
            return f"tensor(<unusual record {r.args!r}>)"
        dtype = STORAGE_DTYPES.get(getattr(pid[1], "name", ""), str(pid[1]))
        shape, stride = list(r.args[2]), list(r.args[3])
        grad = ", requires_grad=True" if len(r.args) > 4 and r.args[4] is True else ""
        return (f"tensor({dtype}, shape={shape}, stride={stride}, storage={self.folder}{pid[2]}, "
                f"offset={r.args[1]}, device={pid[3]!r}{grad})")

    @staticmethod
    def state(v: Any) -> list[tuple[str, Any]]:
        """What BUILD, SETITEM(S) and APPEND(S) gave an object or call result."""
        out: list[tuple[str, Any]] = []
        if isinstance(v.state, dict):
            out += [(f"{k}=", x) for k, x in v.state.items()]
        elif v.state is not None:
            out.append(("__setstate__=", v.state))
        if v.items:
            out.append(("items=", dict(v.items) if _hashable_keys(v.items) else list(v.items)))
        if v.appended:
            out.append(("appended=", list(v.appended)))
        return out

    def call(self, name: str, args: list[tuple[str, Any]], state: list[tuple[str, Any]],
             indent: str, path: str) -> str:
        entries = [(label, x, f".{label.rstrip('=')}" if label else f"[{i}]")
                   for i, (label, x) in enumerate(args + state)]
        return self.block(f"{name}(", ")", entries, indent, path)

    def block(self, open_: str, close: str, entries: list[tuple[str, Any, str]],
              indent: str, path: str) -> str:
        inner = indent + "  "
        parts = [label + self.value(x, inner, path + sub) for label, x, sub in entries]
        one_line = open_ + ", ".join(parts) + (")" if close == ",)" and len(parts) != 1 else close)
        if len(one_line) + len(indent) <= _WIDTH and "\n" not in one_line:
            return one_line
        body = "".join(f"\n{inner}{p}," for p in parts)
        return f"{open_}{body}\n{indent}{close.lstrip(',')}"


def _hashable_keys(items: list) -> bool:
    try:
        return all(isinstance(kv, tuple) and len(kv) == 2 and hash(kv[0]) is not None
                   for kv in items)
    except TypeError:
        return False

