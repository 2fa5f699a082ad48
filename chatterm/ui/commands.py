"""The command palette's chatterm commands."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider

from chatterm.ui.plain import escaped, highlight, plain

if TYPE_CHECKING:
    from chatterm.ui.app import ChatApp


class ChatCommands(Provider):
    def _commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        app: ChatApp = self.app  # type: ignore[assignment]
        commands: list[tuple[str, str, Callable[[], object]]] = [
            ("New chat", "Start a new conversation", app.action_new_chat),
            ("Open session", "Browse and replay saved sessions", app.action_open_sessions),
            ("Switch profile", "Answer from another provider profile", app.action_switch_profile),
            ("Switch model", "Answer from another model of this profile", app.action_switch_model),
            ("Toggle reasoning", "Show or hide the reasoning panes", app.action_toggle_reasoning_display),
            ("Theme", "Choose a theme", app.action_change_theme),
            ("Export conversation", "Save the conversation as Markdown", app.action_export),
            ("Copy last answer", "Copy the last answer to the clipboard", app.action_copy_answer),
            ("Copy last code block", "Copy the last fenced code block", app.action_copy_code),
        ]
        pace = "Pace of the sessions opened with Ctrl+O (remembered)"
        for speed in ("instant", "1x", "2x", "4x"):
            commands.append((f"Replay speed: {speed}", pace, partial(app.set_replay_speed, speed)))
        return commands

    async def discover(self) -> Hits:
        for name, help_text, callback in self._commands():
            yield DiscoveryHit(plain(name), callback, text=name, help=escaped(help_text))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, callback in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, highlight(matcher, name), callback, text=name, help=escaped(help_text))
