"""The files commands are told to write (`ask --record PATH`, `convert IN OUT`), checked before anything is asked or
read: only a regular file is ever replaced, and only when told to (`--force`); the folder must be there (a command
never makes folders where a mistyped path says); and a command never writes over its own input."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from chatterm.cli.errors import UsageError
from chatterm.regular_files import FileRefused, check_writable


def check_target(target: str, force: bool, source: str | None = None) -> None:
    """Refuse, as bad usage with one line, a path that may not be written: something other than a regular file
    (a link to one included), a missing folder, the input file (`source`), or an existing file without `force`."""
    try:
        exists = check_writable(Path(target), folder_must_exist=True)
    except FileRefused as exc:
        raise UsageError(f"{exc}; {exc.hint}") from None
    except OSError as exc:
        raise UsageError(f"{target}: cannot be written ({exc.strerror or exc})") from None
    if not exists:
        return
    if source is not None:
        with contextlib.suppress(OSError):
            if os.path.samefile(source, target):
                raise UsageError(f"{target} is the input file; name another file to write")
    if not force:
        raise UsageError(f"{target} already exists; add --force to replace it")
