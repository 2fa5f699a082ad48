"""The prompt composer: a multi-line TextArea where Enter sends and Ctrl+J inserts a newline.

Up and Down on an empty composer walk through the prompts sent before (`PromptHistory`: shared by every chat of
the app and kept in the data dir).

The composer's own keys (cursor moves, deletions, Ctrl+J) run as the key reaches it. Left to Textual, a widget's
key binding runs only once the key has bubbled up to the app, after the keys that came with it in the same read
from the terminal have been typed already: with a burst of keys (a text expander, a macro, `tmux send-keys`) a
newline or a cursor move would land after the text that followed it.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea

from chatterm.settings.prompts import PromptHistory


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

    def __init__(self, prompts: PromptHistory | None = None) -> None:
        super().__init__(soft_wrap=True, show_line_numbers=False, tab_behavior="focus", id="composer")
        self.prompts = prompts if prompts is not None else PromptHistory()
        self._browse: int | None = None
        self.border_title = "Message · Enter sends · Ctrl+J newline"

    @property
    def sent(self) -> list[str]:
        return self.prompts.prompts

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.prevent_default()
            event.stop()
            text = self.text
            if text.strip():
                self.prompts.add(text)
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
        if not event.is_printable and await self._run_own_binding(event):
            return
        await super()._on_key(event)

    async def _run_own_binding(self, event: events.Key) -> bool:
        """Run the composer's binding for this key now, in the order the keys came (see the module's docstring)."""
        active = self.screen.active_bindings.get(event.key)
        if active is None or active.node is not self or not active.enabled or active.binding.priority:
            return False
        event.prevent_default()
        event.stop()
        await self.run_action(active.binding.action)
        return True

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

    def give_back(self, text: str) -> None:
        """Put a prompt taken from the composer back into it, before what was typed since, to be edited."""
        if self.text.strip():
            self.insert(text + "\n", (0, 0))
        else:
            self.load_text(text)
            self.move_cursor(self.document.end)
        self.focus()

    def take(self, event: events.Key) -> bool:
        """Type a printable key that reached the screen while another widget had the focus (a click moved it):
        nothing else on the chat screen takes text, so it is meant for the composer. False if it is not such a key
        (not printable, or bound to something)."""
        if not event.is_printable or event.character is None or event.key in self.screen.active_bindings:
            return False
        event.stop()
        self.focus()
        self.replace(event.character, *self.selection, maintain_selection_offset=False)
        return True
