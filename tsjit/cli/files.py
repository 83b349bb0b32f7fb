"""What a file given to a command is, and the errors for files a command cannot use."""
from __future__ import annotations

import os
import tempfile
from typing import Any, Optional

from ..ir.diagnostics import TsjitError


def checkpoint_kind(path: str) -> Optional[str]:
    """A description when `path` is a torch.save checkpoint ("a torch.save checkpoint (zip, 3
    storages)"), None for a TorchScript archive; a missing file or a directory is an error."""
    from ..serialize.checkpoint_load import describe
    if os.path.isdir(path):
        raise TsjitError(f"{path} is a directory, not a file")
    if not os.path.exists(path):
        raise TsjitError(f"no such file: {path}")
    return describe(path)


def archive_only(path: str, command: str) -> None:
    """An error saying what the file is when it is a torch.save checkpoint, which has no
    code or methods."""
    what = checkpoint_kind(path)
    if what is not None:
        raise TsjitError(f"{path} is {what}, not a TorchScript archive: it has no code or "
                         f"methods for `tsjit {command}` (`tsjit info {path}` and "
                         f"`tsjit list {path}` show what it holds; tsjit.load loads its tensors)")


class replacing:
    """A temporary name beside `out`, renamed to `out` when the block succeeds and removed
    when it fails: no half-written output file."""

    def __init__(self, out: str) -> None:
        self.out = out

    def __enter__(self) -> str:
        fd, self.tmp = tempfile.mkstemp(prefix=".tsjit-", dir=os.path.dirname(os.path.abspath(self.out)))
        os.close(fd)
        # mkstemp's file is private (0600); an output gets the permissions `open` would give
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(self.tmp, 0o666 & ~mask)
        return self.tmp

    def __exit__(self, kind: Any, *rest: Any) -> None:
        if kind is None:
            os.replace(self.tmp, self.out)
        elif os.path.exists(self.tmp):
            os.unlink(self.tmp)


def write_text(path: str, text: str) -> None:
    """Write a text output file (UTF-8) through a temporary name."""
    with replacing(path) as tmp:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
