"""The sessions screen: saved conversations, newest first, filtered as you type; Enter replays one.

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

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Input, Label

from chatterm import locations
from chatterm.ui.plain import notify, plain
from chatterm.ui.screens.dialog import Dialog

if TYPE_CHECKING:
    from chatterm.cassette.store import SessionInfo


def _matches(info: SessionInfo, needle: str) -> bool:
    return not needle or needle in f"{info.title} {info.profile} {info.model} {info.date} {info.error or ''}".lower()


def _row(read: Callable[[Path], SessionInfo], path: Path) -> SessionInfo:
    """A session's row; whatever goes wrong reading one file is that file's row, and the list goes on."""
    try:
        return read(path)
    except Exception as exc:  # (a file is outside text: no failure of one may stop the list)
        from chatterm.cassette.store import SessionInfo

        return SessionInfo(path, path.name, 0.0, "", "", 0, error=f"{path.name}: cannot be listed ({exc})")


def _clip(text: str, width: int = 48) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


class SessionsScreen(Dialog[Path | None]):
    DEFAULT_CSS = """
    SessionsScreen { align: center middle; }
    SessionsScreen > Vertical {
        width: 90%; max-width: 120; height: 80%; border: thick $primary; background: $surface; padding: 0 1;
    }
    SessionsScreen DataTable { height: 1fr; width: 1fr; }
    SessionsScreen .hint { color: $text-muted; }
    """
    BINDINGS = [Binding("escape", "dismiss(None)", "Close")]
    BATCH = 0.05
    """Seconds of reading between the rows shown."""
    MOST = 1000
    """The most rows sent from the reading thread at once."""
    SHOWN = 400
    """Rows put in the list at first, and each time its end is reached: a table of thousands takes seconds to lay
    out, and the filter finds in all of them."""

    class Rows(Message):
        """Rows the reading thread made, for the list."""

        def __init__(self, infos: list[SessionInfo], last: bool) -> None:
            super().__init__()
            self.infos = infos
            self.last = last

    def __init__(
        self, paths: list[Path], read: Callable[[Path], SessionInfo] | None = None, directory: Path | None = None
    ) -> None:
        """`paths` newest first; `read` makes a row of one, by default the index of `directory` (the sessions
        directory) does, and is written again if it had to read files."""
        super().__init__()
        self.paths = paths
        self.sessions: list[SessionInfo] = []
        """The sessions read so far, in the order of `paths`."""
        self.loaded = False
        self._read = read
        self._directory = directory
        self._stop = threading.Event()
        self._scanned = 0
        """How many of `sessions` were looked at for the list."""
        self._room = self.SHOWN

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(plain(self._title()), classes="title")
            yield Input(placeholder="Filter by title, profile or model", id="filter")
            yield DataTable(cursor_type="row", zebra_stripes=True, id="sessions")
            yield Label("Enter replays the session · Escape closes", classes="hint")

    def _title(self) -> str:
        if self.loaded or not self.paths:
            return "Sessions"
        return f"Sessions · reading {len(self.sessions)} of {len(self.paths)}…"

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("Title", "Date", "Profile", "Model", "Turns")
        self.query_one(Input).focus()
        threading.Thread(target=self._read_all, name="chatterm-sessions", daemon=True).start()

    def on_unmount(self) -> None:
        self._stop.set()

    def _read_all(self) -> None:
        """Make the rows (on the reading thread) and send them to the list a batch at a time."""
        index = None
        read = self._read
        if read is None:
            from chatterm.cassette.session_index import SessionIndex

            index = SessionIndex(self._directory or locations.sessions_dir())
            read = index.row
        batch: list[SessionInfo] = []
        shown = time.monotonic()
        for path in self.paths:
            if self._stop.is_set():
                break
            batch.append(_row(read, path))
            if time.monotonic() - shown > self.BATCH or len(batch) >= self.MOST:
                self.post_message(self.Rows(batch, False))
                batch, shown = [], time.monotonic()
        else:
            self.post_message(self.Rows(batch, True))
        if index is not None:
            index.settle({path.name for path in self.paths})

    def on_sessions_screen_rows(self, message: Rows) -> None:
        self._add(message.infos, message.last)

    def _add(self, infos: list[SessionInfo], last: bool = False) -> None:
        if not self.is_attached:
            return
        self.sessions.extend(infos)
        self.loaded = last
        self.query_one(".title", Label).update(plain(self._title()))
        self._more()

    def _more(self) -> None:
        """Add the next matching sessions to the list while it has room, and say how many more match."""
        table = self.query_one(DataTable)
        needle = self.query_one(Input).value.lower()
        while self._scanned < len(self.sessions) and table.row_count < self._room:
            info = self.sessions[self._scanned]
            self._scanned += 1
            if _matches(info, needle):
                title = f"⚠ {info.path.name}: cannot be opened" if info.error else info.title
                cells = (_clip(title), info.date, info.profile, _clip(info.model, 28), str(info.turns))
                table.add_row(*map(plain, cells), key=str(info.path))
        rest = self.sessions[self._scanned :]
        hidden = sum(1 for info in rest if _matches(info, needle)) if needle else len(rest)
        more = f" · {hidden:,} more below: type to filter" if hidden else ""
        self.query_one(".hint", Label).update(plain(f"Enter replays the session · Escape closes{more}"))

    def fill(self, text: str) -> None:
        """Show the sessions matching `text` again from the newest."""
        self.query_one(DataTable).clear()
        self._scanned, self._room = 0, self.SHOWN
        self._more()

    def on_input_changed(self, event: Input.Changed) -> None:
        self.fill(event.value)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.cursor_row >= event.data_table.row_count - 1 and self._scanned < len(self.sessions):
            self._room = event.data_table.row_count + self.SHOWN  # the end of the list reached: more of it
            self._more()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self._open_cursor()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self._open_cursor()

    def _open_cursor(self) -> None:
        table = self.query_one(DataTable)
        if table.row_count == 0:
            return
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        info = next((s for s in self.sessions if str(s.path) == key), None)
        if info is None:
            return
        if info.error:
            notify(self, info.error, severity="error")
            return
        self.dismiss(info.path)
