"""A session file's hold: one chat at a time goes on in a session, whatever the number of windows.

Two chats that wrote one session file would each write their own snapshot of it over the other's turns. A chat
that writes a session holds an advisory lock (`flock`) on a hidden file beside it; another chat that finds it held
goes on in a file of its own. The system lets go of the lock when the process ends, however it ends, so a window
that was killed holds nothing. Where there is no `flock` (Windows) every hold is granted, as before.
"""

from __future__ import annotations

import os
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover (Windows)
    fcntl = None  # type: ignore[assignment]


def lock_path(path: Path) -> Path:
    """The hidden file beside a session whose lock is the session's hold."""
    return path.with_name(f".{path.name}.lock")


class Hold:
    """A hold on one session file at a time."""

    def __init__(self) -> None:
        self.path: Path | None = None
        self._fd: int | None = None

    def take(self, path: Path) -> bool:
        """Hold `path` (letting go of any other held); False when another chat holds it."""
        if path == self.path:
            return True
        if fcntl is None:
            self.release()
            self.path = path
            return True
        while True:
            try:
                fd = os.open(lock_path(path), os.O_RDWR | os.O_CREAT, 0o600)
            except OSError:
                return True  # (a directory that takes no lock file: the session is written as before)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                return False
            if _still_there(fd, lock_path(path)):
                break
            os.close(fd)  # (its holder removed it as we opened it: take the one there now)
        self.release()
        self.path, self._fd = path, fd
        return True

    def release(self) -> None:
        """Let go of the file held, and remove its lock file."""
        if self._fd is not None and self.path is not None:
            lock_path(self.path).unlink(missing_ok=True)
            os.close(self._fd)
        self.path, self._fd = None, None


def _still_there(fd: int, path: Path) -> bool:
    """The file open as `fd` is the one at `path` (not one its holder removed on letting go)."""
    try:
        return os.fstat(fd).st_ino == os.stat(path).st_ino
    except OSError:
        return False
