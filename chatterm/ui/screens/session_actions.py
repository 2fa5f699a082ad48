"""What a session in the sessions list can have done to it: renamed, archived (or back) and deleted (after asking).

The work on the files is `chatterm.cassette.session_files`, done on a thread, a failure said in one line. The open
chat's own file is changed through its saver (between its writes, which then go where the file now is).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from rich.text import Text
from textual.widgets import DataTable

from chatterm.ui.plain import notify
from chatterm.ui.screens.dialog import Dialog
from chatterm.ui.screens.session_prompts import ConfirmDialog, RenameDialog

if TYPE_CHECKING:
    from chatterm.cassette.store import SessionInfo, SessionSaver

T = TypeVar("T")


def clip(text: str, width: int) -> str:
    """`text` cut to `width` characters, an ellipsis where it was cut."""
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


class SessionActions(Dialog[Path | None]):
    """The sessions screen's actions on the highlighted session (`SessionsScreen` is one)."""

    current: SessionSaver | None
    sessions: list[SessionInfo]
    paths: list[Path]
    archived: bool
    _scanned: int

    if TYPE_CHECKING:

        def highlighted(self) -> SessionInfo | None: ...

        def _cells(self, info: SessionInfo) -> list[Text]: ...

        def _more(self) -> None: ...

    def action_rename(self) -> None:
        info = self.highlighted()
        if info is not None:
            dialog = RenameDialog("" if info.error else info.title)
            self.app.push_screen(dialog, lambda title: self._rename(info, title))

    async def _rename(self, info: SessionInfo, title: str | None) -> None:
        from chatterm.cassette.session_files import retitle

        if title is None:
            return
        saver = self._saver_of(info.path)
        rename = partial(saver.rename, title, retitle) if saver is not None else partial(retitle, info.path, title)
        shown = await self._on_file(f"cannot rename {info.path.name}", rename)
        if shown is not None:
            info.title, info.error = shown, None
            table = self.query_one(DataTable)
            table.update_cell(str(info.path), table.ordered_columns[0].key, self._cells(info)[0])

    def action_archive(self) -> None:
        from chatterm.cassette.session_files import archive, unarchive

        info = self.highlighted()
        if info is not None:
            move, done = (unarchive, "Back in the sessions") if self.archived else (archive, "Archived (F7 shows them)")
            self.run_worker(self._move(info, move, done), group="session-files")

    def action_delete(self) -> None:
        info = self.highlighted()
        if info is not None:
            question = f"Delete the session '{clip(info.title, 40)}'?"
            detail = f"{info.path.name} is removed from the disk."
            self.app.push_screen(ConfirmDialog(question, detail), lambda yes: self._delete(info, yes))

    async def _delete(self, info: SessionInfo, yes: bool | None) -> None:
        from chatterm.cassette.session_files import delete

        if yes:
            await self._move(info, delete, "Deleted")

    async def _move(self, info: SessionInfo, move: Callable[[Path], Path], done: str) -> None:
        """Take a session out of this list by `move` (archive, unarchive, delete)."""
        saver = self._saver_of(info.path)
        work = partial(saver.relocate, move) if saver is not None else partial(move, info.path)
        if await self._on_file(f"cannot change {info.path.name}", work) is None:
            return
        table = self.query_one(DataTable)
        table.remove_row(str(info.path))
        at = self.sessions.index(info)
        self.sessions.pop(at)
        if at < self._scanned:
            self._scanned -= 1
        self.paths = [path for path in self.paths if path != info.path]
        notify(self, f"{done}: {info.title}")
        self._more()

    def _saver_of(self, path: Path) -> SessionSaver | None:
        """The open chat's saver when `path` is its file."""
        return self.current if self.current is not None and self.current.path == path else None

    async def _on_file(self, failure: str, work: Callable[[], T]) -> T | None:
        """Do `work` on a thread; a failure is said in one line and gives None."""
        import asyncio

        from chatterm.cassette.model import RecordingError

        try:
            return await asyncio.to_thread(work)
        except (OSError, RecordingError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            notify(self, f"{failure}: {reason}", severity="error")
            return None

