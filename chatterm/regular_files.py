"""Only regular files: what chatterm reads from, and writes to, a path that someone else may have put anything at.

A FIFO blocks whoever opens it, a device never ends (or swallows what is written to it), and a file written
atomically (a temporary file renamed over the path) replaces whatever the path held, a device or a FIFO alike. So a
path is looked at before it is written: a regular file or nothing may be there (`check_writable`); and a file is read
only if it is a regular one, opened without blocking and read within a bound (`read_regular`). Links are followed:
a link to a FIFO is a FIFO.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

KINDS = {
    stat.S_IFDIR: "a directory",
    stat.S_IFIFO: "a named pipe (FIFO)",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
    stat.S_IFSOCK: "a socket",
}


class FileRefused(OSError):
    """A path chatterm will not read or write as it stands. `strerror` says why in a phrase that follows "cannot
    write PATH (...)"; `str()` is the path and the reason; `hint` says what to do instead."""

    def __init__(self, path: Path, reason: str, hint: str, code: int = errno.EINVAL) -> None:
        super().__init__(code, reason, str(path))
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def kind(mode: int) -> str:
    return KINDS.get(stat.S_IFMT(mode), "not a file")


def check_writable(path: Path, folder_must_exist: bool = False) -> bool:
    """Whether a regular file is at `path` (False: nothing is, or a link to nothing). Raises FileRefused when something
    else is there, or, with `folder_must_exist`, when the folder it would go in is missing: a path the user named
    is written where it says, never in folders made for it."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        if folder_must_exist:
            _check_folder(path)
        return False
    if not stat.S_ISREG(info.st_mode):
        raise _not_regular(path, info.st_mode, "name a file to write")
    return True


def _not_regular(path: Path, mode: int, hint: str) -> FileRefused:
    return FileRefused(path, f"{kind(mode)}, not a regular file", hint)


def _check_folder(path: Path) -> None:
    folder = path.parent
    try:
        info = os.stat(folder)
    except FileNotFoundError:
        hint = "create it first, or name a path in a folder that exists"
        raise FileRefused(path, f"the folder {folder} does not exist", hint) from None
    if not stat.S_ISDIR(info.st_mode):
        what = "a file" if stat.S_ISREG(info.st_mode) else kind(info.st_mode)
        raise FileRefused(path, f"{folder} is {what}, not a folder", "name a path in a folder")


def read_regular(path: Path, most: int) -> bytes:
    """The bytes of the regular file at `path`, at most `most` of them (FileRefused beyond). It is opened without
    blocking and looked at again once open, so nothing put in its place meanwhile is waited on or read without end."""
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise _not_regular(path, info.st_mode, "only regular files are read")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    with os.fdopen(os.open(path, flags), "rb") as handle:
        mode = os.fstat(handle.fileno()).st_mode
        if not stat.S_ISREG(mode):
            raise _not_regular(path, mode, "only regular files are read")
        data = handle.read(most + 1)
    if len(data) > most:
        raise FileRefused(path, f"larger than {_size(most)}", "name a smaller file", errno.EFBIG)
    return data


def _size(count: int) -> str:
    return f"{count // 2**20} MiB" if count >= 2**20 else f"{count // 2**10} KiB"
