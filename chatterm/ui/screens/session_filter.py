"""The sessions list's filter: the list follows each key typed, and the list's keys work from the filter.

The list is filtered as the filter's value changes, not when the change's message arrives later: Up, Down, Page Up
and Page Down (bindings of the filter, run in the order typed: `chatterm.ui.keyorder`) move the highlight of the
list as it is filtered by the keys typed before them, and Enter opens the session highlighted (both once every
row is read, for keys typed right after Ctrl+O).
"""

from __future__ import annotations

from collections.abc import Callable

from textual.binding import Binding
from textual.widgets import Input


class FilterInput(Input):
    BINDINGS = [
        Binding("up", "list('cursor_up')", "Previous session", show=False),
        Binding("down", "list('cursor_down')", "Next session", show=False),
        Binding("pageup", "list('page_up')", "Sessions a page up", show=False),
        Binding("pagedown", "list('page_down')", "Sessions a page down", show=False),
    ]

    def __init__(self, move: Callable[[str], None], refilter: Callable[[str], None]) -> None:
        """`move`: moves the list's highlight (given one of the list's cursor actions); `refilter`: shows the sessions
        matching a value of the filter."""
        super().__init__(placeholder="Filter by title, profile or model", id="filter")
        self._move = move
        self._refilter = refilter

    def watch_value(self, value: str) -> None:
        self._refilter(value)

    def action_list(self, move: str) -> None:
        self._move(move)
