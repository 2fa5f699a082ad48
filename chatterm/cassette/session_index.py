"""The sessions list's index: beside the session files, the row each one shows, so that the list opens at once.

`sessions/.index.json` holds, per file name, the file's size and change time (in ns) when its row was made, and the
row. The files stay the truth: a row is taken from the index only while its file still has that size and time; any
other file is read again (`session_rows.read_row`) and its row put in the index. An index that is missing,
unreadable or not what chatterm writes is rebuilt from the files. The session store puts a session's row in when
it saves a turn; the sessions list puts in those it had to read. Two processes writing it at once may lose each
other's rows, which only means reading those files again.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from chatterm.cassette.dataio import load_json, read_bytes
from chatterm.cassette.model import RecordingError
from chatterm.cassette.session_rows import Row, SessionInfo, read_row
from chatterm.private_files import write_private
from chatterm.regular_files import kind

INDEX_NAME = ".index.json"
VERSION = 2
"""The index's version: an index of another one (rows made another way) is rebuilt from the files."""
INDEX_LIMIT = 64 * 1024 * 1024
"""A larger index is not read (it is rebuilt): about 200 bytes a session."""

Stamp = tuple[int, int]
"""A file's size and change time in ns."""



def session_paths(directory: Path) -> list[Path]:
    """The session files of a directory, newest first (a name that cannot be looked at, last)."""
    try:
        with os.scandir(directory) as entries:
            found = [(_mtime(entry), Path(entry.path)) for entry in entries if _is_session(entry.name)]
    except OSError:
        return []
    found.sort(key=lambda pair: pair[0], reverse=True)
    return [path for _, path in found]


def _is_session(name: str) -> bool:
    return name.endswith(".yaml") and not name.startswith(".")


def _mtime(entry: os.DirEntry[str]) -> float:
    try:
        return entry.stat().st_mtime
    except OSError:
        return 0.0


class SessionIndex:
    """The index of one sessions directory, as loaded, with the rows put in since (see the module's docstring)."""

    def __init__(self, directory: Path, load: bool = True) -> None:
        """`load`: read the index file now (else only rows put in are known, until `save` merges them in)."""
        self.directory = directory
        self.path = directory / INDEX_NAME
        self.rows: dict[str, tuple[Stamp, SessionInfo]] = _load(self.path, directory) if load else {}
        self.changed = False

    def row(self, path: Path) -> SessionInfo:
        """The row of a session file: from the index while the file is unchanged, else read from the file."""
        try:
            info = os.stat(path)
        except FileNotFoundError:
            return _bad(path, 0.0, "a link to a file that is not there" if path.is_symlink() else "no such file")
        except OSError as exc:
            return _bad(path, 0.0, f"cannot be looked at ({exc.strerror or exc})")
        if not stat.S_ISREG(info.st_mode):
            return _bad(path, info.st_mtime, f"{kind(info.st_mode)}, not a session file")
        stamp = (info.st_size, info.st_mtime_ns)
        known = self.rows.get(path.name)
        if known is not None and known[0] == stamp:
            return known[1]
        row = read_row(path, info.st_mtime)
        self.put(path, stamp, row)
        return row

    def put(self, path: Path, stamp: Stamp, row: SessionInfo) -> None:
        self.rows[path.name] = (stamp, row)
        self.changed = True

    def settle(self, names: set[str]) -> None:
        """Write the index if rows were read or `names` (the files there are) lost some."""
        if self.changed or not names.issuperset(self.rows):
            self.save(names)

    def save(self, names: set[str] | None = None) -> bool:
        """Write the index, with the rows another process put in since it was loaded, less those of files that are
        gone (`names`: the files there are, when known). False when it cannot be written: the rows are right
        without it, and the files are read again next time."""
        merged = _load(self.path, self.directory)
        merged.update(self.rows)
        if names is not None:
            merged = {name: row for name, row in merged.items() if name in names}
        entries = {name: {"size": s[0], "mtime_ns": s[1], **_dump(row)} for name, (s, row) in merged.items()}
        data = json.dumps({"version": VERSION, "sessions": entries}, ensure_ascii=False, separators=(",", ":"))
        try:
            write_private(self.path, data.encode("utf-8"))
        except OSError:
            return False
        self.rows, self.changed = merged, False
        return True


def index_session(path: Path, row: Row) -> bool:
    """Put a session's row in its directory's index, as the file is now (the session store, after a save)."""
    info = os.stat(path)
    index = SessionIndex(path.parent, load=False)
    index.put(path, (info.st_size, info.st_mtime_ns), SessionInfo(path, row[0][:80], info.st_mtime, *row[1:]))
    return index.save()


def _dump(row: SessionInfo) -> dict[str, Any]:
    return {
        "title": row.title,
        "profile": row.profile,
        "model": row.model,
        "turns": row.turns,
        "error": row.error,
    }


def _bad(path: Path, modified: float, reason: str) -> SessionInfo:
    return SessionInfo(path, path.name, modified, "", "", 0, error=f"{path.name}: {reason}")


def _load(path: Path, directory: Path) -> dict[str, tuple[Stamp, SessionInfo]]:
    """The rows of an index file; none when it is missing or not an index chatterm wrote, and none of an entry that
    is not one."""
    try:
        if os.stat(path).st_size > INDEX_LIMIT:
            return {}
        data = load_json(read_bytes(path).decode("utf-8"), str(path))
    except (OSError, RecordingError, UnicodeDecodeError):
        return {}
    if not isinstance(data, dict) or data.get("version") != VERSION or not isinstance(data.get("sessions"), dict):
        return {}
    rows = {}
    for name, entry in data["sessions"].items():
        row = _entry(directory / name, entry) if _is_session(name) and "/" not in name else None
        if row is not None:
            rows[name] = row
    return rows


def _entry(path: Path, entry: Any) -> tuple[Stamp, SessionInfo] | None:
    """One entry of the index, or None when it is not one chatterm writes."""
    if not isinstance(entry, dict):
        return None
    size, mtime, turns = (_count(entry.get(key)) for key in ("size", "mtime_ns", "turns"))
    title, profile, model = (entry.get(key) for key in ("title", "profile", "model"))
    error = entry.get("error")
    if size is None or mtime is None or turns is None:
        return None
    if not (isinstance(title, str) and isinstance(profile, str) and isinstance(model, str)):
        return None
    if error is not None and not isinstance(error, str):
        return None
    return (size, mtime), SessionInfo(path, title, mtime / 1e9, profile, model, turns, error)


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
