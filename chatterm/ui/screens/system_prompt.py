"""The system prompt editor: a multi-line text area, Ctrl+S keeps what it holds (empty: no system prompt), Escape
leaves the prompt as it was. It fits an 80x24 terminal: the text area gives up rows on a short screen."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Label, TextArea

from chatterm.ui.screens.dialog import Dialog

AROUND_TEXT = 8
"""Rows of the screen that are not the text area's: the dialog's border, title and hint, the area's border, a margin."""
MOST_ROWS = 16


class SystemPromptDialog(Dialog[str | None]):
    DEFAULT_CSS = """
    SystemPromptDialog > Vertical { width: 76; }
    SystemPromptDialog TextArea { height: 16; }
    """
    BINDINGS = [
        Binding("ctrl+s", "keep", "Keep", priority=True),
        Binding("escape", "dismiss(None)", "Cancel"),
    ]

    def __init__(self, text: str | None) -> None:
        super().__init__()
        self.text = text or ""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("System prompt of this chat", classes="title")
            yield TextArea(self.text, soft_wrap=True, show_line_numbers=False, tab_behavior="indent", id="system")
            yield Label("Ctrl+S keeps it, from the next answer on (empty: none) · Escape cancels", classes="hint")

    def on_mount(self) -> None:
        self._fit()
        area = self.query_one(TextArea)
        area.focus()
        area.move_cursor(area.document.end)

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        self.query_one(TextArea).styles.height = max(3, min(MOST_ROWS, self.size.height - AROUND_TEXT))

    def action_keep(self) -> None:
        self.dismiss(self.query_one(TextArea).text.strip())
