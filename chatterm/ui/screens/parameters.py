"""The chat's parameters: temperature, top_p, the most tokens of an answer and the reasoning effort, each empty for
the profile's own (whose value the empty field shows). Enter keeps them, for the next answer on; a value that cannot be
sent is said in one line and the dialog stays; Escape leaves them as they were."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, Label

from chatterm.net.apis import EFFORTS
from chatterm.net.sampling import ChatParams, parse
from chatterm.ui.plain import plain
from chatterm.ui.screens.dialog import Dialog

FIELDS = (
    ("temperature", "Temperature", "0 to 2"),
    ("top_p", "Top p", "0 to 1"),
    ("max_tokens", "Max tokens", "a number of tokens"),
    ("effort", "Reasoning effort", ", ".join(EFFORTS)),
)
"""Each parameter: its name, its label, and what it takes."""


class ParametersDialog(Dialog[ChatParams | None]):
    DEFAULT_CSS = """
    ParametersDialog > Vertical { width: 76; }
    ParametersDialog Horizontal { height: 3; }
    ParametersDialog Horizontal > Label { width: 18; padding: 1 0 0 0; }
    ParametersDialog Input { width: 1fr; }
    ParametersDialog #problem { color: $error; }
    """
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, params: ChatParams, profile: dict[str, Any]) -> None:
        """`params`: the chat's own; `profile`: the profile's values (chatterm's words), shown where the chat has
        none."""
        super().__init__()
        self.params = params
        self.profile = profile

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Parameters of this chat", classes="title")
            for name, label, takes in FIELDS:
                value = getattr(self.params, name)
                own = self.profile.get(name)
                hint = f"profile's: {own}" if own is not None else f"provider's default · {takes}"
                with Horizontal():
                    yield Label(plain(label))
                    yield Input("" if value is None else str(value), placeholder=hint, id=name)
            yield Label("", id="problem")
            yield Label("Enter keeps them (empty: the profile's) · Escape cancels", classes="hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        values: dict[str, Any] = {}
        for name, label, _ in FIELDS:
            field = self.query_one(f"#{name}", Input)
            try:
                values[name] = parse(name, field.value)
            except ValueError as exc:
                self.query_one("#problem", Label).update(plain(f"{label}: {exc}"))
                field.focus()
                return
        self.dismiss(ChatParams(**values))
