"""Saved sessions: one vcrpy cassette per conversation in the user data dir's `sessions/`.

Saving never blocks the UI: a background thread renders the newest snapshot (the C YAML emitter) and writes what
changed since the last write, in place after the finished turns (`growing_file`), mode 0600. File names carry the
time, the process id and a random suffix, so two chatterm processes never write the same file. A failure to write is
reported once and the chat goes on.

A conversation stays one file: one opened from the sessions list goes on in its own file (`go_on_in`), and what the
sessions list does to the open one (move it to the archive and back, name it, delete it) is done between two
writes, the saver then writing where the file now lives, with its name, or no more.
"""

from __future__ import annotations

import functools
import os
import secrets as random_names
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from chatterm import locations
from chatterm.cassette import session_index
from chatterm.cassette.filelock import Hold
from chatterm.cassette.growing_file import GrowingFile
from chatterm.cassette.model import Interaction, Recording
from chatterm.cassette.redact import clean_interaction
from chatterm.cassette.session_index import SessionIndex, index_session
from chatterm.cassette.session_rows import TITLE, SessionInfo, first_prompt, items_row, read_row
from chatterm.cassette.vcr_yaml import ItemWriter, vcr_parts
from chatterm.private_files import claim

__all__ = [
    "ELSEWHERE",
    "SessionInfo",
    "SessionSaver",
    "first_prompt",
    "list_sessions",
    "new_session_path",
    "session_info",
]


def new_session_path(directory: Path | None = None) -> Path:
    directory = directory or locations.sessions_dir()
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return directory / f"{stamp}-{os.getpid()}-{random_names.token_hex(3)}.yaml"


ELSEWHERE = "open in another window"
"""Why a chat does not go on in the session it continues: another chat goes on in it (`go_on_in`)."""


class SessionSaver:
    """Writes the newest snapshot of a recording on a background thread.

    Args:
        path: the session file.
        on_error: called (from the saving thread) with a one-line message when a write fails, once until a write
            succeeds again.
        own_file: take a file of its own, never one that exists (a new name if `path` does), and keep its row in
            the sessions list's index (at the end of each turn, and when closed); False writes `path` whatever is
            there if it is a regular file, in a folder that exists (`ask --record PATH`).
        failure: the message on_error gets, with `{path}` and `{reason}` filled in.
    """

    def __init__(
        self,
        path: Path,
        secrets: tuple[str, ...] = (),
        on_error: Callable[[str], None] | None = None,
        own_file: bool = True,
        failure: str = "cannot save the session to {path} ({reason}); the chat goes on",
    ) -> None:
        self.path = path
        self.secrets = secrets
        self.on_error = on_error
        self.failure = failure
        self.failed = False
        self.writes = 0
        self._claimed = not own_file
        self._indexed = own_file
        self._unindexed: list[bytes] | None = None
        """The items last written, while their row is not in the index yet."""
        self._rendered: dict[int, tuple[Interaction, bytes]] = {}
        self._writers: dict[int, tuple[Interaction, ItemWriter]] = {}
        self._pending: Recording | None = None
        self._file = GrowingFile(folders=own_file)
        self._lock = threading.Lock()
        self._hold = Hold()
        """The session file's hold, while this saver writes a session (`filelock`)."""
        self._file_lock = threading.Lock()
        """Held while the file is written, and while the sessions list changes it (`relocate`)."""
        self.gone = False
        """The file was deleted from the sessions list: nothing more is written."""
        self._title: str | None = None
        """The name the sessions list gave the open session, kept in every later write."""
        self._wake = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="chatterm-session-saver", daemon=True)
        self._thread.start()

    def save(self, recording: Recording) -> None:
        """Ask for a write of the recording as it is now (only the newest request is written)."""
        snapshot = Recording("vcr", list(recording.interactions), list(recording.switches))
        with self._lock:
            self._pending = snapshot
            self._idle.clear()
        self._wake.set()

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until every requested write is done."""
        return self._idle.wait(timeout)

    def close(self) -> None:
        self.flush()
        self._closed = True
        self._wake.set()
        self._thread.join(5)
        if self._unindexed is not None and not self._thread.is_alive():
            self._index(self._unindexed)
        self._hold.release()

    def go_on_in(self, path: Path) -> str | None:
        """Write from now on into `path`, the file of a saved session this conversation continues (its snapshots hold
        the whole of it): None, or why it goes on in a file of its own instead (one was written already, or another
        chat goes on in `path`)."""
        with self._file_lock:
            if self._claimed and self.writes:
                return "a file of its own was written"
            if self._indexed and not self._hold.take(path):
                return ELSEWHERE
            if self._claimed and self.path != path:
                self.path.unlink(missing_ok=True)  # (claimed, still empty)
            self.path, self._claimed = path, True
            self._file.forget()
            return None

    def relocate(self, move: Callable[[Path], Path]) -> Path:
        """Move or delete the file between two writes (`move` is given its path, returns where it now is); the saver
        goes on writing there, or no more when the file is gone. Returns what `move` returns."""
        with self._file_lock:
            where = move(self.path)
            if where.exists():
                self.path = where
                self._hold.take(where)
            else:
                self.gone = True
                self._hold.release()
            return where

    def rename(self, title: str, name: Callable[[Path, str], str]) -> str:
        """Give the session a name between two writes (`name` writes it in the file and returns the title the list
        shows); every later write keeps it. An empty name gives the session back its first prompt as its title."""
        with self._file_lock:
            shown = name(self.path, title)
            self._title = " ".join(title.split())
            return shown

    def _run(self) -> None:
        while not self._closed:
            self._wake.wait()
            self._wake.clear()
            with self._lock:
                snapshot, self._pending = self._pending, None
            if snapshot is not None:
                self._write(snapshot)
            with self._lock:
                if self._pending is None:
                    self._idle.set()

    def _render(self, snapshot: Recording) -> tuple[list[bytes], int]:
        """The cassette's items, and how many at the start are finished: a finished interaction is rendered once, a
        streaming one from what it added since."""
        self._keep_title(snapshot)
        items = []
        for interaction in snapshot.interactions:
            cached = self._rendered.get(id(interaction))
            if cached is not None and cached[0] is interaction:
                items.append(cached[1])
                continue
            growing = self._writers.get(id(interaction))
            writer = growing[1] if growing is not None and growing[0] is interaction else ItemWriter()
            text = writer.render(clean_interaction(interaction, self.secrets))
            if interaction.done:
                self._rendered[id(interaction)] = (interaction, text)
                self._writers.pop(id(interaction), None)
            else:
                self._writers[id(interaction)] = (interaction, writer)
            items.append(text)
        present = {id(interaction) for interaction in snapshot.interactions}
        self._writers = {key: value for key, value in self._writers.items() if key in present}
        settled = next((n for n, interaction in enumerate(snapshot.interactions) if not interaction.done), len(items))
        return items, settled

    def _keep_title(self, snapshot: Recording) -> None:
        """Put the name given by the sessions list on the first exchange, where the list reads it."""
        if self._title is None or not snapshot.interactions:
            return
        first = snapshot.interactions[0]
        if first.meta.get(TITLE) == (self._title or None):
            return
        if self._title:
            first.meta[TITLE] = self._title
        else:
            first.meta.pop(TITLE, None)
        self._rendered.pop(id(first), None)

    def _write(self, snapshot: Recording) -> None:
        with self._file_lock:
            if not self.gone:
                self._write_file(snapshot)

    def _write_file(self, snapshot: Recording) -> None:
        try:
            if not self._claimed:
                while not claim(self.path):  # never write over another process's session
                    self.path = new_session_path(self.path.parent)
                self._claimed = True
                if self._indexed:
                    self._hold.take(self.path)
            items, settled = self._render(snapshot)
            parts = vcr_parts(items, snapshot.switches)
            self._file.write(self.path, parts[0], items, settled, parts[1 + len(items) :])
            self.writes += 1
            self.failed = False
            if self._indexed:
                self._unindexed = items
                if settled == len(items):
                    self._index(items)
        except Exception as exc:
            if not self.failed and self.on_error is not None:
                reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
                self.on_error(self.failure.format(path=self.path, reason=reason))
            self.failed = True

    def _index(self, items: list[bytes]) -> None:
        """Put the row of what was written in the sessions list's index (read from the items' bytes themselves, so it
        is what the list would read)."""
        row = items_row(items, self.path.name)
        try:
            if row is not None:
                index_session(self.path, row)
        except OSError:
            pass  # (the list reads the file instead)
        self._unindexed = None


def session_info(path: Path) -> SessionInfo:
    """The row of one saved session; read again only when the file has changed."""
    try:
        stat = path.stat()
    except OSError:
        return _read_info(path, (0, 0))
    return _read_info(path, (stat.st_mtime_ns, stat.st_size))


@functools.lru_cache(maxsize=64)
def _read_info(path: Path, stamp: tuple[int, int]) -> SessionInfo:
    """(`stamp`, the file's change time in ns and size, keys the cache.)"""
    return read_row(path, stamp[0] / 1e9)


def session_paths(directory: Path | None = None) -> list[Path]:
    """The saved sessions' files, newest first."""
    return session_index.session_paths(directory or locations.sessions_dir())


def list_sessions(directory: Path | None = None) -> list[SessionInfo]:
    """Saved sessions, newest first, their rows from the index where it is up to date; corrupt files are listed
    with their error. The index is written again when rows had to be read."""
    directory = directory or locations.sessions_dir()
    index = SessionIndex(directory)
    paths = session_paths(directory)
    rows = [index.row(path) for path in paths]
    index.settle({path.name for path in paths})
    return rows
