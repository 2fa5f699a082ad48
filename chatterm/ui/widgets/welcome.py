"""The card an empty chat opens on: who answers (the profile and its model), the keys that matter and how to open a
saved session; in the offline demo, what the demo is and the prompts it answers.

The keys are read from the bindings in force on the card's screen when it is shown, so the card says what the keys
are, whatever they are bound to; a key no binding holds is named as chatterm binds it by default.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.binding import Binding
from textual.widgets import Static

from chatterm.cassette.demo_catalogue import CATALOGUE
from chatterm.ui.plain import plain

SEND = "Enter"
"""The composer's own key for sending (read by the composer, not a binding)."""
KEYS = (
    (("command_palette",), "ctrl+p", "command palette"),
    (("show_help", "help", "show_help_panel"), "f1", "help and every key"),
    (("open_sessions",), "ctrl+o", "open a saved session"),
)
"""The keys the card names: the actions that may hold each, the key chatterm binds it to, what it does."""
DEMO_KEYS = ((("switch_profile",), "ctrl+l", "switch profile (a real provider, once it has a key)"),)
LABEL = 9
"""Columns of the left-hand column (a label or a key)."""


def key_name(key: str) -> str:
    """A binding's (first) key as the README writes keys: `ctrl+o` is Ctrl+O, `f1` is F1."""
    parts = key.split(",")[0].strip().split("+")
    return "+".join(part.upper() if len(part) == 1 or part[1:].isdigit() else part.capitalize() for part in parts)


def bound_key(bindings: Iterable[Binding], actions: tuple[str, ...], default: str) -> str:
    """The key bound to the first of `actions` found (an action named with or without its namespace)."""
    for binding in bindings:
        if binding.action.rsplit(".", 1)[-1] in actions:
            return key_name(binding.key)
    return key_name(default)


class WelcomeCard(Static):
    DEFAULT_CSS = """
    WelcomeCard {
        width: auto;
        max-width: 100%;
        height: auto;
        margin: 1 2 0 2;
        padding: 0 1;
        border: round $primary 50%;
        border-title-color: $text-muted;
        color: $text;
    }
    """

    def __init__(self, profile: str, model: str, demo: bool = False) -> None:
        super().__init__(id="welcome")
        self.profile = profile
        self.model = model
        self.demo = demo

    def on_mount(self) -> None:
        self.show(self.profile, self.model, self.demo)

    def show(self, profile: str, model: str, demo: bool = False) -> None:
        """Name this profile and model (the card is redrawn with the keys bound now)."""
        self.profile, self.model, self.demo = profile, model, demo
        self.border_title = "chatterm · offline demo profile" if demo else "chatterm"
        bindings = [active.binding for active in self.screen.active_bindings.values()]
        card = self.text(bindings)  # (a Text: its pieces from outside are plain, never read as markup)
        self.update(card)

    def text(self, bindings: list[Binding]) -> Text:
        """The card's lines, with the keys as `bindings` bind them."""
        text = Text()
        self._row(text, "Profile", plain(self.profile))
        self._row(text, "Model", plain(self.model))
        text.append("\n")
        if self.demo:
            text.append("No model answers here: conversations recorded with chatterm do,\n")
            text.append("with no key and no network. The closest to your prompt answers. Try:\n")
            for entry in CATALOGUE:
                text.append("  • ")
                text.append(entry.prompt, style="italic")
                text.append("\n")
            text.append("\n")
        self._row(text, SEND, Text("send the prompt"), key=True)
        for actions, default, does in KEYS + (DEMO_KEYS if self.demo else ()):
            self._row(text, bound_key(bindings, actions, default), Text(does), key=True)
        text.rstrip()
        return text

    @staticmethod
    def _row(text: Text, label: str, value: Text, key: bool = False) -> None:
        text.append(label.ljust(LABEL), style="bold" if key else "dim")
        text.append_text(value)
        text.append("\n")
