"""The prompt composer: a multi-line TextArea where Enter sends and Ctrl+J inserts a newline.

Up and Down on an empty composer walk through the prompts sent before.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea


class Composer(TextArea):
    DEFAULT_CSS = """
    Composer {
        height: auto;
        min-height: 3;
        max-height: 12;
        border: tall $primary 40%;
    }
    Composer:focus { border: tall $primary; }
    """

    BINDINGS = [
        Binding("ctrl+j", "newline", "Newline", show=False),
        Binding("shift+enter", "newline", "Newline", show=False),
        Binding("ctrl+shift+z", "redo", "Redo", show=False),  # (Ctrl+Y copies the answer, from here too)
    ]
    KEYS = (("enter", "Send the prompt"), ("up,down", "Earlier prompts (in an empty composer)"))
    """The composer's keys that are not bindings (`_on_key` takes them before the TextArea does), for the help
    screen."""

    @dataclass
    class Submitted(Message):
        composer: Composer
        text: str

    def __init__(self) -> None:
        super().__init__(soft_wrap=True, show_line_numbers=False, tab_behavior="focus", id="composer")
        self.sent: list[str] = []
        self._browse: int | None = None
        self.border_title = "Message · Enter sends · Ctrl+J newline"

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.prevent_default()
            event.stop()
            text = self.text
            if text.strip():
                self.sent.append(text)
                self._browse = None
                self.post_message(self.Submitted(self, text))
                self.clear()
            return
        if event.key in ("up", "down") and (not self.text or self._browse is not None) and self.sent:
            event.prevent_default()
            event.stop()
            self._walk_history(-1 if event.key == "up" else 1)
            return
        self._browse = None if event.is_printable else self._browse
        await super()._on_key(event)

    def _walk_history(self, step: int) -> None:
        index = len(self.sent) if self._browse is None else self._browse
        index = max(0, min(len(self.sent), index + step))
        if index == len(self.sent):
            self._browse = None
            self.clear()
            return
        self._browse = index
        self.load_text(self.sent[index])
        self.move_cursor(self.document.end)

    def action_newline(self) -> None:
        self.insert("\n")
