"""The sessions screen: saved conversations, newest first, filtered as you type; Enter replays one, and a session
can be renamed, archived (moved out of the list, shown again on request) or deleted (after asking).

The rows are made on a thread of the screen's own, a batch at a time onto the list, newest first: from the sessions
index where a file has not changed since it was indexed, else by reading the file (in part, and within bounds:
`chatterm.cassette.session_rows`). The thread is a daemon and stops at the next file once the screen is gone, so
closing the dialog or quitting the app never waits for a file being read.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Input, Label

from chatterm import locations
from chatterm.ui.plain import notify, plain
from chatterm.ui.screens.session_actions import SessionActions, clip
from chatterm.ui.screens.session_columns import Columns, columns_for
from chatterm.ui.screens.session_filter import FilterInput

if TYPE_CHECKING:
    from chatterm.cassette.store import SessionInfo, SessionSaver


def _matches(info: SessionInfo, needle: str) -> bool:
    return not needle or needle in f"{info.title} {info.profile} {info.model} {info.date} {info.error or ''}".lower()


def _row(read: Callable[[Path], SessionInfo], path: Path) -> SessionInfo:
    """A session's row; whatever goes wrong reading one file is that file's row, and the list goes on."""
    try:
        return read(path)
    except Exception as exc:  # (a file is outside text: no failure of one may stop the list)
        from chatterm.cassette.store import SessionInfo

        return SessionInfo(path, path.name, 0.0, "", "", 0, error=f"{path.name}: cannot be listed ({exc})")


KEYS = "Enter open · F2 rename · F6 archive · F7 archived · F8 delete · Esc close"
ARCHIVED_KEYS = "Enter open · F2 rename · F6 unarchive · F7 sessions · F8 delete · Esc close"


class SessionsScreen(SessionActions):
    DEFAULT_CSS = """
    SessionsScreen > Vertical { width: 90%; min-width: 78; max-width: 120; height: 80%; }
    SessionsScreen DataTable { height: 1fr; width: 1fr; }
    SessionsScreen #empty { height: 1fr; width: 1fr; content-align: center middle; color: $text-muted; }
    SessionsScreen .hint, SessionsScreen .keys { color: $text-muted; width: 100%; }
    """
    AUTO_FOCUS = "#filter"
    """Focused as the dialog is composed: the keys typed right after Ctrl+O (a priority binding, run as the key comes
    rather than after the keys that follow it) go to the filter."""
    BINDINGS = [
        Binding("escape", "dismiss(None)", "Close"),
        Binding("f2", "rename", "Rename", tooltip="In the list: rename a session"),
        Binding("f6", "archive", "Archive", tooltip="In the list: archive a session (or back)"),
        Binding("f7", "toggle_archived", "Archived", tooltip="In the list: show the archive (or back)"),
        Binding("f8", "delete", "Delete", tooltip="In the list: delete a session (asks first)"),
    ]
    BATCH = 0.05
    """Seconds of reading between the rows shown."""
    MOST = 1000
    """The most rows sent from the reading thread at once."""
    SHOWN = 400
    """Rows put in the list at first, and each time its end is reached: a table of thousands takes seconds to lay
    out, and the filter finds in all of them."""

    class Rows(Message):
        """Rows the reading thread made, for the list."""

        def __init__(self, infos: list[SessionInfo], last: bool, view: int) -> None:
            super().__init__()
            self.infos = infos
            self.last = last
            self.view = view
            """Which listing the rows are of: rows read for one the user has left are dropped."""

    def __init__(
        self,
        paths: list[Path],
        read: Callable[[Path], SessionInfo] | None = None,
        directory: Path | None = None,
        current: SessionSaver | None = None,
    ) -> None:
        """`paths` newest first; `read` makes a row of one, by default the index of `directory` (the sessions
        directory) does, and is written again if it had to read files. `current`: the saver of the open chat, whose
        file is changed through it (between its writes, which then go where the file now is)."""
        super().__init__()
        self.paths = paths
        self.current = current
        self.sessions: list[SessionInfo] = []
        """The sessions read so far, in the order of `paths`."""
        self.loaded = False
        self._waiting: list[Callable[[], None]] = []
        """What keys typed before every row was read asked of the list (a move, Enter), done once it is whole."""
        self._read = read
        self._directory = directory
        self._stop = threading.Event()
        self._scanned = 0
        """How many of `sessions` were looked at for the list."""
        self._room = self.SHOWN
        self.archived = False
        """The archive is listed, not the sessions."""
        self._view = 0
        self._columns: Columns | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(plain(self._title()), classes="title")
            yield FilterInput(self._move_highlight, self._refilter)
            yield DataTable(cursor_type="row", zebra_stripes=True, id="sessions")
            yield Label("", id="empty")
            yield Label("", classes="hint")
            yield Label(plain(KEYS), classes="keys")

    @property
    def directory(self) -> Path:
        """The folder listed: the sessions, or their archive."""
        from chatterm.cassette.session_files import archive_dir

        sessions = self._directory or locations.sessions_dir()
        return archive_dir(sessions) if self.archived else sessions

    def _title(self) -> str:
        name = "Archived sessions" if self.archived else "Sessions"
        if self.loaded or not self.paths:
            return name
        return f"{name} · reading {len(self.sessions)} of {len(self.paths)}…"

    def on_mount(self) -> None:
        self.query_one("#empty").display = False
        self._set_columns()
        self.query_one(Input).focus()
        self._start_reading()

    def on_unmount(self) -> None:
        self._stop.set()

    def on_resize(self) -> None:
        if self._columns != columns_for(self.app.size.width):
            self._set_columns()
            self.fill(self.query_one(Input).value)

    def _set_columns(self) -> None:
        """Columns as wide as the screen lets them be: every one shown, the title given what the others leave."""
        self._columns = columns = columns_for(self.app.size.width)
        table = self.query_one(DataTable)
        table.clear(columns=True)
        for label, width in zip(("Title", "Date", "Profile", "Model", "Turns"), columns, strict=True):
            table.add_column(plain(label), width=width)

    def _start_reading(self) -> None:
        self._stop.set()
        self._stop = threading.Event()
        self._view += 1
        view, stop = self._view, self._stop
        thread = threading.Thread(target=self._read_all, args=(view, stop), name="chatterm-sessions", daemon=True)
        thread.start()

    def _read_all(self, view: int, stop: threading.Event) -> None:
        """Make the rows (on the reading thread) and send them to the list a batch at a time."""
        index = None
        read = self._read
        if read is None:
            from chatterm.cassette.session_index import SessionIndex

            index = SessionIndex(self.directory)
            read = index.row
        batch: list[SessionInfo] = []
        shown = time.monotonic()
        for path in self.paths:
            if stop.is_set():
                break
            batch.append(_row(read, path))
            if time.monotonic() - shown > self.BATCH or len(batch) >= self.MOST:
                self.post_message(self.Rows(batch, False, view))
                batch, shown = [], time.monotonic()
        else:
            self.post_message(self.Rows(batch, True, view))
        if index is not None:
            index.settle({path.name for path in self.paths})

    def on_sessions_screen_rows(self, message: Rows) -> None:
        if message.view == self._view:
            self._add(message.infos, message.last)

    def _add(self, infos: list[SessionInfo], last: bool = False) -> None:
        if not self.is_attached:
            return
        self.sessions.extend(infos)
        self.loaded = last
        self.query_one(".title", Label).update(plain(self._title()))
        self._more()
        if last:
            waiting, self._waiting = self._waiting, []
            for step in waiting:
                step()

    def _once_listed(self, step: Callable[[], None]) -> None:
        """Do `step` to the list now, or once every row is read (a burst typed right after Ctrl+O comes first)."""
        if self.loaded:
            step()
        else:
            self._waiting.append(step)

    def _more(self) -> None:
        """Add the next matching sessions to the list while it has room, and say how many more match, or that none
        does."""
        table = self.query_one(DataTable)
        value = self.query_one(Input).value
        needle = value.lower()
        while self._scanned < len(self.sessions) and table.row_count < self._room:
            info = self.sessions[self._scanned]
            self._scanned += 1
            if _matches(info, needle):
                table.add_row(*self._cells(info), key=str(info.path))
        rest = self.sessions[self._scanned :]
        hidden = sum(1 for info in rest if _matches(info, needle)) if needle else len(rest)
        self.query_one(".hint", Label).update(plain(f"{hidden:,} more below: type to filter" if hidden else ""))
        self._say_if_empty(value)

    def _cells(self, info: SessionInfo) -> list[Text]:
        title = f"⚠ {info.path.name}: cannot be opened" if info.error else info.title
        widths = self._columns or columns_for(self.app.size.width)
        texts = (title, info.date, info.profile, info.model, str(info.turns))
        return [plain(clip(text, width)) for text, width in zip(texts, widths, strict=True)]

    def _say_if_empty(self, value: str) -> None:
        """In place of an empty table, once every session is looked at: why it is empty."""
        table, empty = self.query_one(DataTable), self.query_one("#empty", Label)
        done = self.loaded and self._scanned >= len(self.sessions)
        if table.row_count or not done:
            table.display, empty.display = True, False
            return
        if value:
            reason = f"No sessions match '{value}'"
        else:
            reason = "No archived sessions" if self.archived else "No saved sessions yet"
        empty.update(plain(reason))
        table.display, empty.display = False, True

    def fill(self, text: str) -> None:
        """Show the sessions matching `text` again from the newest."""
        self.query_one(DataTable).clear()
        self._scanned, self._room = 0, self.SHOWN
        self._more()

    def _move_highlight(self, move: str) -> None:
        """Move the list's highlight from the filter (`move`: one of the list's cursor actions)."""
        table = self.query_one(DataTable)
        self._once_listed(lambda: getattr(table, f"action_{move}")() if table.row_count else None)

    def _refilter(self, value: str) -> None:
        """The filter's value changed (as the key came: `FilterInput`)."""
        if self._columns is not None:
            self.fill(value)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.cursor_row >= event.data_table.row_count - 1 and self._scanned < len(self.sessions):
            self._room = event.data_table.row_count + self.SHOWN  # the end of the list reached: more of it
            self._more()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self._once_listed(self._open_cursor)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self._open_cursor()

    def _open_cursor(self) -> None:
        info = self.highlighted()
        if info is None:
            return
        if info.error:
            notify(self, info.error, severity="error")
            return
        self.dismiss(info.path)

    def highlighted(self) -> SessionInfo | None:
        """The session under the list's cursor."""
        table = self.query_one(DataTable)
        if table.row_count == 0 or not table.display:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return next((s for s in self.sessions if str(s.path) == key), None)

    def action_toggle_archived(self) -> None:
        from chatterm.cassette.session_index import session_paths

        self.archived = not self.archived
        self.paths = session_paths(self.directory)
        self.sessions, self.loaded, self._waiting = [], False, []
        self.query_one(".title", Label).update(plain(self._title()))
        self.query_one(".keys", Label).update(plain(ARCHIVED_KEYS if self.archived else KEYS))
        self.fill(self.query_one(Input).value)
        self._start_reading()
