"""The sessions list's filter: the list follows each key typed, and the list's keys work from the filter.

The list is filtered as the filter's value changes, not when the change's message arrives later: Up, Down, Page Up
and Page Down (bindings of the filter, run in the order typed: `chatterm.ui.keyorder`) move the highlight of the
list as it is filtered by the keys typed before them, and Enter opens the session highlighted.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.binding import Binding
from textual.widgets import DataTable, Input


class FilterInput(Input):
    BINDINGS = [
        Binding("up", "list('cursor_up')", "Previous session", show=False),
        Binding("down", "list('cursor_down')", "Next session", show=False),
        Binding("pageup", "list('page_up')", "Sessions a page up", show=False),
        Binding("pagedown", "list('page_down')", "Sessions a page down", show=False),
    ]

    def __init__(
        self, rows: Callable[[], DataTable[object]], refilter: Callable[[str], None], placeholder: str, id: str
    ) -> None:
        """`rows`: the list; `refilter`: shows the sessions matching a value of the filter."""
        super().__init__(placeholder=placeholder, id=id)
        self._rows = rows
        self._refilter = refilter

    def watch_value(self, value: str) -> None:
        self._refilter(value)

    def action_list(self, move: str) -> None:
        """Move the list's highlight (`move`: one of the list's own cursor actions)."""
        table = self._rows()
        if table.row_count:
            getattr(table, f"action_{move}")()
