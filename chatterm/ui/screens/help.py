"""The help screen (F1): chatterm's keys by what they act on, the palette's commands, and where files live.

The keys are read from the bindings of the app, the chat screen and the composer (and the composer's own keys),
of the conversation (its message cursor) and of the sessions list, when the screen opens, so a key added to any of
them is listed with no change here; an action no section names is listed under "Chat". The paths are those
`chatterm.locations` gives the rest of chatterm.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.table import Table
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Label, Static

from chatterm import locations
from chatterm.ui.commands import chat_commands
from chatterm.ui.plain import plain
from chatterm.ui.screens.chat import ChatScreen
from chatterm.ui.screens.dialog import Dialog
from chatterm.ui.screens.sessions import SessionsScreen
from chatterm.ui.widgets.composer import Composer
from chatterm.ui.widgets.cursor import MessageCursor

if TYPE_CHECKING:
    from chatterm.ui.app import ChatApp

SECTIONS = ("Chat", "Conversation", "Answer", "Sessions", "Profiles")
SECTION_OF = {
    "stop": "Answer",
    "retry": "Answer",
    "toggle_reasoning": "Answer",
    "app.export": "Answer",
    "copy_answer": "Answer",
    "app.copy_code": "Answer",
    "app.open_sessions": "Sessions",
    **{f"sessions.{action}": "Sessions" for action in ("rename", "archive", "toggle_archived", "delete")},
    "app.switch_profile": "Profiles",
    "app.switch_model": "Profiles",
    "select_messages": "Conversation",
    "cancel_edit": "Conversation",
}
"""The section of each action that is not about the chat as a whole."""
_WORDS = {"ctrl": "Ctrl", "shift": "Shift", "alt": "Alt", "super": "Super"}


@dataclass
class KeyEntry:
    """One line of the help: the keys (as Textual names them) that do one thing."""

    section: str
    keys: list[str]
    description: str


def key_label(key: str) -> str:
    """A key as the README and the help show it: `ctrl+e` is `Ctrl+E`, `f1` is `F1`, `escape` is `Escape`; a letter
    alone is as typed (`y`: a capital would read as Shift+Y)."""
    if len(key) == 1:
        return key
    return "+".join(_WORDS.get(part, part.upper() if len(part) == 1 else part.capitalize()) for part in key.split("+"))


def key_entries(app: App[Any]) -> list[KeyEntry]:
    """The keys of the chat, in SECTIONS order, those of one action on one line."""
    entries: dict[str, KeyEntry] = {}

    def add(action: str, key: str, description: str) -> None:
        section = "Conversation" if action.startswith("conversation.") else SECTION_OF.get(action, "Chat")
        entry = entries.setdefault(action, KeyEntry(section, [], description))
        entry.keys.append(key)

    for keys, description in Composer.KEYS:
        for key in keys.split(","):
            add(f"composer.{keys}", key, description)
    sources: list[BindingType] = [*Composer.BINDINGS, *ChatScreen.BINDINGS]
    if app.ENABLE_COMMAND_PALETTE:
        sources.append(Binding(app.COMMAND_PALETTE_BINDING, "app.command_palette", "Command palette"))
    sources += type(app).BINDINGS
    for binding in Binding.make_bindings(sources):
        if not binding.system and binding.description:
            add(binding.action, binding.key, binding.tooltip or binding.description)
    for binding in Binding.make_bindings(MessageCursor.BINDINGS):  # (the conversation's keys, once it has the focus)
        add(f"conversation.{binding.action}", binding.key, binding.tooltip or binding.description)
    for binding in Binding.make_bindings(SessionsScreen.BINDINGS):  # (the sessions list's own keys)
        if binding.description and not binding.action.startswith("dismiss"):
            add(f"sessions.{binding.action}", binding.key, binding.tooltip or binding.description)
    order = {section: number for number, section in enumerate(SECTIONS)}
    return sorted(entries.values(), key=lambda entry: order.get(entry.section, len(SECTIONS)))


def file_places() -> list[tuple[str, Path]]:
    return [
        ("config", locations.config_file()),
        ("themes", locations.user_themes_dir()),
        ("data", locations.data_dir()),
        ("sessions", locations.sessions_dir()),
        ("exports", locations.data_dir() / "exports"),
    ]


def _table(rows: list[tuple[str, str]], width: int) -> Table:
    """Two columns, the first `width` wide, so the tables of the help line up."""
    table = Table.grid(padding=(0, 2), expand=True)
    table.add_column(no_wrap=True, style="bold", min_width=width + 2)  # (the width holds the padding)
    table.add_column(ratio=1, overflow="fold")
    for left, right in rows:
        table.add_row(plain(left), plain(right))
    return table


class HelpScreen(Dialog[None]):
    CSS_PATH = "help.tcss"
    BINDINGS = [Binding("escape,f1", "dismiss(None)", "Close")]

    app: ChatApp

    def compose(self) -> ComposeResult:
        with Vertical(id="help") as frame:
            frame.border_title = "chatterm · keys and help"
            frame.border_subtitle = "F1 or Escape closes"
            with VerticalScroll(id="help-body"):
                yield from self._sections()

    def _sections(self) -> ComposeResult:
        entries = key_entries(self.app)
        keys = [(entry.section, ", ".join(map(key_label, entry.keys)), entry.description) for entry in entries]
        commands = self._commands()
        width = max(len(left) for _, left, _ in [*keys, *commands])
        for section in dict.fromkeys(entry.section for entry in entries):
            yield Label(plain(section), classes="section")
            rows = [(left, right) for where, left, right in keys if where == section]
            yield Static(_table(rows, width), markup=False)
        yield Label(plain(f"Command palette ({key_label(self.app.COMMAND_PALETTE_BINDING)})"), classes="section")
        yield Static(_table([(left, right) for _, left, right in commands], width), markup=False)
        yield Label("Files", classes="section")
        yield Static(_table([(name, str(path)) for name, path in file_places()], width), markup=False)

    def _commands(self) -> list[tuple[str, str, str]]:
        rows = [("", name, help_text) for name, help_text, _ in chat_commands(self.app, marked=False)]
        for command in self.app.get_system_commands(self.app.chat_screen):  # (less those chatterm replaces)
            rows.append(("", command.title, command.help))
        return rows
