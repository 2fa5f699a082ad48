"""The sessions screen: saved conversations, newest first, filtered as you type; Enter replays one."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Input, Label

from chatterm.ui.screens.dialog import Dialog

if TYPE_CHECKING:
    from chatterm.sessions import SessionInfo


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

    def __init__(self, sessions: list[SessionInfo]) -> None:
        super().__init__()
        self.sessions = sessions

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Sessions", classes="title")
            yield Input(placeholder="Filter by title, profile or model", id="filter")
            yield DataTable(cursor_type="row", zebra_stripes=True, id="sessions")
            yield Label("Enter replays the session · Escape closes", classes="hint")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("Title", "Date", "Profile", "Model", "Turns")
        self.fill("")
        self.query_one(Input).focus()

    def fill(self, text: str) -> None:
        table = self.query_one(DataTable)
        table.clear()
        needle = text.lower()
        for info in self.sessions:
            haystack = f"{info.title} {info.profile} {info.model} {info.error or ''}".lower()
            if needle and needle not in haystack:
                continue
            title = f"⚠ {info.path.name}: cannot be opened" if info.error else info.title
            table.add_row(
                _clip(title), info.date, info.profile, _clip(info.model, 28), str(info.turns), key=str(info.path)
            )

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
            self.notify(info.error, severity="error")
            return
        self.dismiss(info.path)
