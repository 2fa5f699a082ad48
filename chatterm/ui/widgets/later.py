"""The control at the end of a conversation whose later turns are not on screen (a branch switched to high in a long
conversation is drawn a window at a time): a click, or Down on the last message shown, puts the next turns on
screen. It keeps the turns it stands for (`pending`), in order."""

from __future__ import annotations

from typing import Any

from textual.widget import Widget
from textual.widgets import Button

from chatterm.ui.plain import plain


class LoadLater(Button):
    DEFAULT_CSS = """
    LoadLater { margin: 1 2 0 2; }
    """
    can_focus = False  # (clicked; from the keyboard, Down on the last message shown does the same)

    def __init__(self, pending: list[Any]) -> None:
        super().__init__(plain(label(len(pending))), id="load-later", compact=True)
        self.pending = pending
        """The turns not on screen yet (`below.Drawing`), first first."""

    def add(self, turns: list[Any]) -> None:
        """More turns not on screen, before those it stands for already."""
        self.pending[:0] = turns
        self._relabel()

    def shown(self, count: int) -> None:
        """The first `count` pending turns are on screen now."""
        del self.pending[:count]
        self._relabel()

    def _relabel(self) -> None:
        self.label = plain(label(len(self.pending)))
        self.refresh(layout=True)  # (a label of another length: the button's width follows it)


def label(count: int) -> str:
    return f"⋯ Load later turns ({count} not shown)"


def control_in(view: Widget) -> LoadLater | None:
    """The control at the end of `view`, if later turns are not on it."""
    found = view.query_children(LoadLater)
    return found.first() if found else None
