"""Writing chatterm's own files: atomically, readable by the user only (files 0600, new folders 0700), and only
over a regular file (`regular_files`): the rename that makes a write atomic would replace anything else."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from chatterm.regular_files import check_writable


def private_dirs(directory: Path) -> None:
    """Create a directory and any missing parents, each new one with mode 0700."""
    missing = []
    while not directory.exists():
        missing.append(directory)
        directory = directory.parent
    for new in reversed(missing):
        new.mkdir(mode=0o700, exist_ok=True)
        os.chmod(new, 0o700)


def claim(path: Path) -> bool:
    """Create `path` empty (mode 0600) only if nothing is there yet; False if it already exists."""
    private_dirs(path.parent)
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        return False
    return True


def write_private(path: Path, data: bytes | Iterable[bytes], folders: bool = True) -> None:
    """Write a file atomically (temporary file + rename) with mode 0600; missing folders are made (0700) when
    `folders`, else refused (a path the user named). `data` may come in parts, written one after another (a large
    file need not be joined in memory first). Raises `FileRefused` (an OSError) when something other than a regular
    file is at `path`."""
    if folders:
        private_dirs(path.parent)
    check_writable(path, folder_must_exist=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.writelines([data] if isinstance(data, bytes) else data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
