"""What the sessions list does to a session file: name it, archive it (and bring it back), delete it, with the
sessions index kept in step.

A name is kept in chatterm's notes on the session's first item (`session_rows.TITLE`), where the list reads the
title: the file stays a vcrpy cassette (vcrpy ignores the notes), only its first item is written again when the
file is in chatterm's layout, and the file keeps its times, so the session keeps its date and place in the list.
An archived session is moved to `archive/` in the sessions directory, which has an index of its own: the list
leaves it out unless asked to show the archive.
"""

from __future__ import annotations

import os
from pathlib import Path

from chatterm.cassette.dataio import read_bytes
from chatterm.cassette.load import parse_recording
from chatterm.cassette.model import Recording, RecordingError
from chatterm.cassette.session_index import SessionIndex, index_session, session_paths
from chatterm.cassette.session_rows import TITLE, first_item, quick_row, row_of
from chatterm.cassette.torn import mended
from chatterm.cassette.vcr_yaml import vcr_item_yaml, write_vcr
from chatterm.private_files import private_dirs, write_private

ARCHIVE = "archive"
"""The folder, in the sessions directory, of archived sessions."""


def archive_dir(sessions: Path) -> Path:
    return sessions / ARCHIVE


def is_archived(path: Path) -> bool:
    return path.parent.name == ARCHIVE


def retitle(path: Path, title: str) -> str:
    """Give a session a name (an empty one gives it back its first prompt); returns the title the list now shows.
    Raises RecordingError or OSError with a message for the user."""
    data = mended(read_bytes(path))
    named = _named(data, " ".join(title.split()), path.name)
    times = os.stat(path)
    write_private(path, named)
    os.utime(path, ns=(times.st_atime_ns, times.st_mtime_ns))
    row = quick_row(named, path.name) or row_of(parse_recording(named, str(path)))
    index_session(path, row)
    return row[0]


def _named(data: bytes, title: str, name: str) -> bytes:
    """The file's bytes with `title` in the notes of its first item."""
    span = first_item(data)
    if span is not None:  # only the first item is parsed and written again
        start, end = span
        recording = parse_recording(b"interactions:\n" + data[start:end] + b"version: 1\n", name)
    else:
        recording = parse_recording(data, name)
        if recording.format != "vcr":
            raise RecordingError(f"{name}: not a session chatterm saved ({recording.format}); it cannot be renamed")
    if not recording.interactions:
        raise RecordingError(f"{name}: holds no turn to name")
    meta = recording.interactions[0].meta
    if title:
        meta[TITLE] = title
    else:
        meta.pop(TITLE, None)
    if span is not None:
        return data[:start] + vcr_item_yaml(recording.interactions[0]) + data[end:]
    return write_vcr(Recording("vcr", recording.interactions))


def archive(path: Path) -> Path:
    """Move a session to the archive; returns where it is now."""
    return _move(path, archive_dir(path.parent))


def unarchive(path: Path) -> Path:
    """Move an archived session back to the sessions; returns where it is now."""
    return _move(path, path.parent.parent)


def delete(path: Path) -> Path:
    """Remove a session file; returns where it was."""
    path.unlink()
    _forget(path.parent)
    return path


def _move(path: Path, folder: Path) -> Path:
    """Move a session file to `folder` under a name no file there has, and take it out of its old index."""
    private_dirs(folder)
    target = folder / path.name
    number = 1
    while target.exists():
        number += 1
        target = folder / f"{path.stem}-{number}{path.suffix}"
    os.rename(path, target)
    _forget(path.parent)
    return target


def _forget(folder: Path) -> None:
    """Drop the rows of files no longer in `folder` from its index."""
    SessionIndex(folder, load=False).save({path.name for path in session_paths(folder)})
