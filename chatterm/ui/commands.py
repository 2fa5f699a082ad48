"""The command palette's chatterm commands, and the system commands kept beside them."""

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
REPLACED_SYSTEM_COMMANDS = {"Keys"}
"""Textual's entries that chatterm's own replace: its key panel gives way to "Keys/Help"."""


def chat_commands(app: ChatApp) -> list[Command]:
    """chatterm's commands, for the palette and the help screen. Choosing a theme is Textual's "Theme"."""
    commands: list[Command] = [
        ("New chat", "Start a new conversation", app.action_new_chat),
        ("Retry", "Ask again after an error or a stop (Ctrl+R)", app.action_retry),
        ("Open session", "Browse and replay saved sessions", app.action_open_sessions),
        ("Switch profile", "Answer from another provider profile", app.action_switch_profile),
        ("Switch model", "Answer from another model of this profile", app.action_switch_model),
        ("Toggle reasoning", "Show or hide the reasoning panes", app.action_toggle_reasoning_display),
        ("Export conversation", "Save the conversation as Markdown", app.action_export),
        ("Copy last answer", "Copy the last answer to the clipboard", app.action_copy_answer),
        ("Copy last code block", "Copy the last fenced code block", app.action_copy_code),
        ("Copy message…", "Pick a prompt or an answer to copy", app.action_copy_message),
        ("Copy code block…", "Pick a code block to copy, by its number", app.action_copy_code_block),
        *app.option_commands(),
        ("Keys/Help", "chatterm's keys, commands and files (F1)", app.action_show_help),
    ]
    for speed in ("instant", "1x", "2x", "4x"):
        pace = "Pace of the sessions opened with Ctrl+O (remembered)"
        commands.append((f"Replay speed: {speed}", pace, partial(app.set_replay_speed, speed)))
    return commands


def system_commands(textuals: Iterable[SystemCommand]) -> Iterator[SystemCommand]:
    """Textual's system commands less those chatterm's commands replace."""
    return (command for command in textuals if command.title not in REPLACED_SYSTEM_COMMANDS)


class ChatCommands(Provider):
    def _commands(self) -> list[Command]:
        app: ChatApp = self.app  # type: ignore[assignment]
        return chat_commands(app)

    def _numbered_blocks(self) -> list[Command]:
        """A command per code block, found by its number ("Copy code block 3"), not listed before a query."""
        app: ChatApp = self.app  # type: ignore[assignment]
        return [
            (f"Copy code block {number}", title, partial(app.copy_code_block, number))
            for number, title in app.code_block_titles()
        ]

    async def discover(self) -> Hits:
        for name, help_text, callback in self._commands():
            yield DiscoveryHit(plain(name), callback, text=name, help=escaped(help_text))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, callback in [*self._commands(), *self._numbered_blocks()]:
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, highlight(matcher, name), callback, text=name, help=escaped(help_text))
