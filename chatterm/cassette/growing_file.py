"""A session file written where it changed: the finished turns at its start are never written again.

A session is saved every second while an answer streams, after each turn and at each branch switch. Its file is a
head, one part per exchange and a rest (the branch switches and the trailer); the parts of finished exchanges never
change. A save finds the first part that differs from what the file holds and writes from there, in place: the file
is cut at that point, the new end written after it and synced. So a save writes the streaming answer, the
switches and the trailer, not the session; and the file's start is never at risk. A kill during a save leaves the
parts before that point whole and a start of what followed (`torn` reads such a file as far as it got).

A whole file is written atomically (a temporary file and a rename, `private_files`) when there is nothing to keep:
the first save of a file this writer has not written (one opened and continued, or changed since by another hand:
its device, inode, size or time differ from what the last save left), a save whose finished part changed (the
sessions list named the session: its first exchange changed), or one with no part before the change.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from chatterm.private_files import write_private

_Stamp = tuple[int, int, int, int]


class GrowingFile:
    """Writes one file again and again, each time from the first part that changed."""

    def __init__(self, folders: bool = True) -> None:
        self._folders = folders
        """Make missing folders for the file (else a missing one is an error: a path the user named)."""
        self._head = b""
        self._parts: list[bytes] = []
        """The parts the file holds after its head, as last written."""
        self._ends: list[int] = []
        """Where each of `_parts` ends in the file."""
        self._settled = 0
        """How many of `_parts` were finished when written: writing before their end writes the file whole."""
        self._stamp: _Stamp | None = None
        """The file as the last write left it; another one is written whole."""

    def forget(self) -> None:
        """The next write goes to a file this writer has not written: it is written whole."""
        self._stamp = None

    def write(self, path: Path, head: bytes, parts: Sequence[bytes], settled: int, rest: Sequence[bytes]) -> None:
        """Make the file hold `head`, `parts` and `rest`, the first `settled` parts finished (never to change). The
        parts are written one after another, never joined in memory."""
        kept = self._kept(head, parts)
        tail = [*parts[kept:], *rest]
        if kept == 0 or kept < self._settled or not self._write_end(path, self._ends[kept - 1], tail):
            write_private(path, [head, *parts, *rest], folders=self._folders)
            self._stamp, kept = _stamp(os.stat(path)), 0
            self._head, self._ends = head, []
        ends = self._ends[:kept]
        end = ends[-1] if ends else len(head)
        for part in parts[kept:]:
            end += len(part)
            ends.append(end)
        self._parts, self._ends, self._settled = list(parts), ends, settled

    def _kept(self, head: bytes, parts: Sequence[bytes]) -> int:
        """How many parts at the start the file holds already as they are now."""
        if self._stamp is None or head != self._head:
            return 0
        kept = 0
        for old, new in zip(self._parts, parts, strict=False):
            if old is not new and old != new:
                break
            kept += 1
        return kept

    def _write_end(self, path: Path, start: int, parts: list[bytes]) -> bool:
        """Write from `start` in the file as the last write left it; False (nothing written) if it is not so any
        more. The file is cut first: a kill mid-write leaves a start of the new end, never a mix of old and new. (Opened
        without blocking: a FIFO put in its place is not waited on.)"""
        try:
            fd = os.open(path, os.O_WRONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        except OSError:  # (gone, or something else is there: written whole, which says why it cannot be)
            return False
        try:
            if _stamp(os.fstat(fd)) != self._stamp:
                return False
            os.ftruncate(fd, start)
            os.lseek(fd, start, os.SEEK_SET)
            for part in parts:
                view = memoryview(part)
                while view:
                    view = view[os.write(fd, view) :]
            os.fsync(fd)
            self._stamp = _stamp(os.fstat(fd))
            return True
        finally:
            os.close(fd)


def _stamp(info: os.stat_result) -> _Stamp:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
