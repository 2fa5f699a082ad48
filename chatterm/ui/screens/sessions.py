"""The sessions screen: saved conversations, newest first, filtered as you type; Enter replays one."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Input, Label
from textual.worker import get_current_worker

from chatterm.ui.plain import notify, plain
from chatterm.ui.screens.dialog import Dialog

if TYPE_CHECKING:
    from chatterm.cassette.store import SessionInfo


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

    def __init__(self, paths: list[Path], read: Callable[[Path], SessionInfo] | None = None) -> None:
        """`paths` newest first; `read` makes a row of one (`chatterm.cassette.store.session_info`)."""
        super().__init__()
        self.paths = paths
        self.sessions: list[SessionInfo] = []
        """The sessions read so far, in the order of `paths`."""
        self.loaded = False
        self._read = read

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
        self.run_worker(self._read_all, thread=True, name="sessions", exit_on_error=False)

    def _read_all(self) -> None:
        """Read the sessions in a thread, a batch at a time onto the list, newest first: each is parsed whole, and a
        hundred long ones take seconds, which the app must not wait for."""
        if self._read is None:
            from chatterm.cassette.store import session_info

            self._read = session_info
        worker = get_current_worker()
        batch: list[SessionInfo] = []
        shown = time.monotonic()
        for path in self.paths:
            if worker.is_cancelled:
                return
            batch.append(self._read(path))
            if time.monotonic() - shown > self.BATCH:
                self.app.call_from_thread(self._add, batch)
                batch, shown = [], time.monotonic()
        self.app.call_from_thread(self._add, batch, True)

    def _add(self, infos: list[SessionInfo], last: bool = False) -> None:
        if not self.is_attached:
            return
        self.sessions.extend(infos)
        self.loaded = last
        self.query_one(".title", Label).update(plain(self._title()))
        self._show(infos, self.query_one(Input).value)

    def _show(self, infos: list[SessionInfo], text: str) -> None:
        table = self.query_one(DataTable)
        needle = text.lower()
        for info in infos:
            haystack = f"{info.title} {info.profile} {info.model} {info.error or ''}".lower()
            if needle and needle not in haystack:
                continue
            title = f"⚠ {info.path.name}: cannot be opened" if info.error else info.title
            cells = (_clip(title), info.date, info.profile, _clip(info.model, 28), str(info.turns))
            table.add_row(*map(plain, cells), key=str(info.path))

    def fill(self, text: str) -> None:
        self.query_one(DataTable).clear()
        self._show(self.sessions, text)

    def on_input_changed(self, event: Input.Changed) -> None:
        self.fill(event.value)

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
