"""The command palette: chatterm's commands, then the system commands kept beside them.

One provider gives both, so the palette lists them in that order (Textual lists each provider's entries in the
order it gives them, and providers in no set order).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import TYPE_CHECKING

from textual.app import SystemCommand
from textual.command import DiscoveryHit, Hit, Hits, Provider

from chatterm.ui.plain import escaped, highlight, plain

if TYPE_CHECKING:
    from chatterm.ui.app import ChatApp

Command = tuple[str, str, Callable[[], object]]
"""A palette entry: its name, what it does, and what runs it."""
DROPPED_SYSTEM_COMMANDS = {"Keys", "Maximize", "Minimize"}
"""Textual's entries chatterm leaves out: its key panel gives way to "Keys/Help"; the chat screen's layout is the
app's own (a maximized composer hides the conversation it writes to)."""


def chat_commands(app: ChatApp, marked: bool = True) -> list[Command]:
    """chatterm's commands, for the palette and the help screen. Choosing a theme is Textual's "Theme". `marked`:
    the replay speed in force says so (the palette's; the help lists the commands, not the state)."""
    commands: list[Command] = [
        ("New chat", "Start a new conversation", app.action_new_chat),
        ("Retry", "Ask again after an error or a stop, else regenerate the last answer (Ctrl+R)", app.action_retry),
        *branch_commands(app),
        ("Open session", "Browse and replay saved sessions", app.action_open_sessions),
        ("Switch profile", "Answer from another provider profile", app.action_switch_profile),
        ("Switch model", "Answer from another model of this profile", app.action_switch_model),
        ("Toggle reasoning", "Show or hide the reasoning panes", app.action_toggle_reasoning_display),
        ("Export conversation", "Save the conversation as Markdown: the branch shown (Ctrl+E)", app.action_export),
        ("Export whole tree", "Save every branch as Markdown, each in a <details> block", app.action_export_tree),
        ("Copy last answer", "Copy the last answer to the clipboard", app.action_copy_answer),
        ("Copy message…", "Pick a prompt or an answer to copy", app.action_copy_message),
        ("Copy code block…", "Pick a code block to copy, by its number", app.action_copy_code_block),
        *app.option_commands(),
        ("Keys/Help", "chatterm's keys, commands and files (F1)", app.action_show_help),
    ]
    for speed in ("instant", "1x", "2x", "4x"):
        pace = "Pace of the sessions opened with Ctrl+O (remembered)"
        name = f"Replay speed: {speed}" + (" (current)" if marked and speed == app.replay_speed else "")
        commands.append((name, pace, partial(app.set_replay_speed, speed)))
    return commands


BRANCH_COMMANDS = (
    ("Edit message", "Edit the selected prompt (or the last) as a new branch (e)", "edit"),
    ("Regenerate", "Ask for the selected answer (or the last) again, as a new branch (r)", "regenerate"),
    ("Continue answer", "Continue an answer that was cut short, as one answer (c)", "continue"),
    ("Next branch", "Show the next branch at the selected message (Right)", "next_branch"),
    ("Previous branch", "Show the previous branch at the selected message (Left)", "previous_branch"),
    ("Fork into a new session", "A new session with the branch up to the selected message (f)", "fork"),
)
"""The conversation tree's commands: each acts as its key in the conversation does (`ChatApp.act_on_message`)."""


def branch_commands(app: ChatApp) -> list[Command]:
    return [(name, help_text, partial(app.act_on_message, act)) for name, help_text, act in BRANCH_COMMANDS]


def system_commands(textuals: Iterable[SystemCommand]) -> Iterator[SystemCommand]:
    """Textual's system commands less those chatterm leaves out."""
    return (command for command in textuals if command.title not in DROPPED_SYSTEM_COMMANDS)


class ChatCommands(Provider):
    def _commands(self) -> list[Command]:
        """chatterm's commands, then the system commands (`ChatApp.get_system_commands`)."""
        app: ChatApp = self.app  # type: ignore[assignment]
        textuals = [(c.title, c.help, c.callback) for c in app.get_system_commands(self.screen) if c.discover]
        return [*chat_commands(app), *textuals]

    def _numbered_blocks(self, query: str) -> list[Command]:
        """A command per code block, found by its number ("Copy code block 3"): only for a query that holds a
        number ("Copy code block…" lists them all)."""
        app: ChatApp = self.app  # type: ignore[assignment]
        if not any(character.isdigit() for character in query):
            return []
        return [
            (f"Copy code block {number}", title, partial(app.copy_code_block, number))
            for number, title in app.code_block_titles()
        ]

    async def discover(self) -> Hits:
        for name, help_text, callback in self._commands():
            yield DiscoveryHit(plain(name), callback, text=name, help=escaped(help_text))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, callback in [*self._commands(), *self._numbered_blocks(query)]:
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, highlight(matcher, name), callback, text=name, help=escaped(help_text))
