"""The small dialogs the sessions list asks through: a session's new name, and whether to delete a session."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Label

from chatterm.ui.plain import plain
from chatterm.ui.screens.dialog import Dialog

_CSS = """
{name} > Vertical {{ width: 70; border: thick $warning; }}
"""


class RenameDialog(Dialog[str | None]):
    """Asks for a session's name; Enter gives it (empty: the first prompt is the title again), Escape keeps it."""

    DEFAULT_CSS = _CSS.format(name="RenameDialog")
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, title: str) -> None:
        super().__init__()
        self.current = title

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Rename session", classes="title")
            yield Input(self.current, placeholder="empty: named by its first prompt", id="name")
            yield Label("Enter renames · Escape cancels", classes="hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)


class ConfirmDialog(Dialog[bool]):
    """Asks a yes-or-no question; Enter or y answers yes, Escape or n no."""

    DEFAULT_CSS = _CSS.format(name="ConfirmDialog")
    BINDINGS = [
        Binding("enter,y", "dismiss(True)", "Yes"),
        Binding("escape,n", "dismiss(False)", "No"),
    ]

    def __init__(self, question: str, detail: str = "") -> None:
        super().__init__()
        self.question = question
        self.detail = detail

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(plain(self.question), classes="title")
            if self.detail:
                yield Label(plain(self.detail))
            yield Label("Enter or y: yes · Escape or n: no", classes="hint")
